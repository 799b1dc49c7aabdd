"""Tournaments started from a plain script: with the ``__main__`` guard in workers, without it in one process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agents.evaluate.processes import _is_main_guard, worker_count

ROOT = Path(__file__).resolve().parents[2]

CALL = """
from agents.evaluate.tournament import run_tournament

result = run_tournament(["random", "examples.my_agents:MyAgent"], num_players=2, deals=2, jobs=2)
print("games", len(result.games))
"""


def _run_script(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "my_tournament.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), GUBS_QUIET_COMPILE="1")
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_script_without_the_guard_plays_in_one_process_and_says_why(tmp_path: Path) -> None:
    result = _run_script(tmp_path, CALL)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "games 4"
    assert "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if "run_tournament" in line]
    assert "playing in this process, not in 2 workers" in line
    assert 'my_tournament.py:4 calls it outside `if __name__ == "__main__":`' in line


def test_a_script_read_from_standard_input_plays_in_one_process_and_says_why(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), GUBS_QUIET_COMPILE="1")
    result = subprocess.run(
        [sys.executable, "-"], input=CALL, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "games 4"
    assert "Traceback" not in result.stderr  # every spawned worker would have died reading "<stdin>"
    [line] = [line for line in result.stderr.splitlines() if "run_tournament" in line]
    assert "playing in this process, not in 2 workers: the main script (<stdin>) is no file" in line


@pytest.mark.slow
def test_a_script_with_the_guard_uses_its_workers(tmp_path: Path) -> None:
    guarded = 'if __name__ == "__main__":\n' + textwrap.indent(CALL, "    ")
    result = _run_script(tmp_path, guarded)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "games 4"
    assert "run_tournament" not in result.stderr  # no fallback: the workers played


@pytest.mark.slow
def test_a_function_called_under_the_guard_counts_as_guarded(tmp_path: Path) -> None:
    source = "def main():\n" + textwrap.indent(CALL, "    ") + '\n\nif "__main__" == __name__:\n    main()\n'
    result = _run_script(tmp_path, source)
    assert result.returncode == 0, result.stderr
    assert "run_tournament" not in result.stderr


def test_outside_a_main_script_the_workers_are_kept() -> None:
    # pytest's own main module calls no tournament at its top level: the jobs asked for stay
    assert worker_count(3, "run_tournament") == 3
    assert worker_count(1, "run_tournament") == 1


@pytest.mark.parametrize(
    ("test", "guard"),
    [
        ('__name__ == "__main__"', True),
        ('"__main__" == __name__', True),
        ('__name__ != "__main__"', False),
        ('__name__ == "__mp_main__"', False),
        ("x == '__main__'", False),
    ],
)
def test_what_counts_as_the_guard(test: str, guard: bool) -> None:
    import ast

    node = ast.parse(f"if {test}:\n    pass\n").body[0]
    assert isinstance(node, ast.If)
    assert _is_main_guard(node.test) is guard


def test_every_command_module_runs_its_command_only_under_the_guard() -> None:
    """``python -m agents.evaluate`` and the like: a spawned worker imports the module again, as ``__mp_main__``.

    A command at the module's top level would run again in every worker, so tournaments played in one process.
    """
    import ast

    for path in sorted([*ROOT.glob("agents/**/*.py"), *ROOT.glob("gubs_env/**/*.py"), ROOT / "train.py"]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [node for node in tree.body if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)]
        unguarded = [node.lineno for node in calls if ast.unparse(node.value.func) == "sys.exit"]
        assert not unguarded, f"{path.relative_to(ROOT)}:{unguarded[0]} runs its command outside the guard"


@pytest.mark.slow
def test_the_tournament_command_uses_its_workers(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), GUBS_QUIET_COMPILE="1")
    argv = [sys.executable, "-m", "agents.evaluate", "random", "heuristic", "--games", "4", "--jobs", "2"]
    result = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "playing in this process" not in result.stderr


KILLED_PARENT = """
import multiprocessing, os, signal, time
from concurrent.futures import ProcessPoolExecutor

from agents.evaluate.processes import exit_with_parent

if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(2, mp_context=context, initializer=exit_with_parent)
    futures = [pool.submit(time.sleep, 300) for _ in range(2)]
    time.sleep(3)  # both workers asleep in their task
    print(*[child.pid for child in multiprocessing.active_children()], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # as `kill -9` would: no finally, no pool shut down
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, waiting to be reaped, has ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_pool_workers_end_with_a_killed_parent(tmp_path: Path) -> None:
    script = tmp_path / "killed_parent.py"
    script.write_text(textwrap.dedent(KILLED_PARENT), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    printed = tmp_path / "printed.txt"
    with printed.open("w", encoding="utf-8") as out:  # a file, not a pipe: workers left alive would hold a pipe open
        status = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, stdout=out, timeout=300)
    assert status.returncode == -9
    pids = [int(pid) for pid in printed.read_text(encoding="utf-8").split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 60
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in pids if _running(pid)]
    for pid in left:  # leave nothing behind, even when the test fails
        os.kill(pid, 9)
    assert not left, f"workers {left} outlived their killed parent"
