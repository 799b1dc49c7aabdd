"""The line that announces a cold compile: printed once when numba's cache lacks the code, never when it has it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
import numba as nb


@nb.njit(cache=True)
def twice(x):
    return {body}
"""

CALLER = """
import sys

import tiny
from gubs_env.support.compiling import announce_compiling

first = announce_compiling([tiny.twice], "the tiny kernel", 3)
tiny.twice(2)
again = announce_compiling([tiny.twice], "the tiny kernel", 3)  # once per process, and it is compiled now
print(first, again)
"""


def _run(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]))
    environment.pop("GUBS_QUIET_COMPILE", None)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", CALLER], cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def test_a_cold_cache_is_announced_once_and_a_warm_one_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(MODULE.format(body="2 * x"), encoding="utf-8")
    cold = _run(tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["True", "False"]
    assert cold.stderr.count("compiling the tiny kernel once (about 3 s; cached afterwards)") == 1
    warm = _run(tmp_path)
    assert warm.stdout.split() == ["False", "False"] and "compiling" not in warm.stderr
    # a changed source makes numba's cache stale: compiled again, so announced again
    (tmp_path / "tiny.py").write_text(MODULE.format(body="x + x  # changed"), encoding="utf-8")
    os.utime(tmp_path / "tiny.py", (1, 1))
    stale = _run(tmp_path)
    assert stale.stdout.split() == ["True", "False"]
    quiet = _run(tmp_path, GUBS_QUIET_COMPILE="1")
    assert "compiling" not in quiet.stderr


def test_a_plain_function_is_never_cold() -> None:
    from gubs_env.support.compiling import is_cold

    assert not is_cold(len)


def _warm_ups(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[object]]]:
    """Every part the engine warms up from now on, with its kernels (the warm-ups themselves still run)."""
    from contextlib import nullcontext

    from gubs_env.fast import kernels

    asked: list[tuple[str, list[object]]] = []

    def record(dispatchers, what, seconds):
        asked.append((what, list(dispatchers)))
        return nullcontext()

    monkeypatch.setattr(kernels, "_warm", set())
    monkeypatch.setattr(kernels, "compiling", record)
    return asked


def test_a_batch_warms_up_every_kernel_it_calls_once_at_its_first_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    from gubs_env.fast import FastGames, kernels
    from gubs_env.fast.batch import BATCH_KERNELS

    asked = _warm_ups(monkeypatch)
    games = FastGames(2, num_players=2)
    assert asked == []
    games.reset(seeds=[0, 1])
    games.step(np.zeros(2, dtype=np.int64))
    games.observe([0, 0])
    FastGames(3, num_players=4).reset(seeds=[2, 3, 4])
    assert asked == [("the game engine (a batch)", list(BATCH_KERNELS))]
    assert {kernels.reset_kernel, kernels.step_kernel, kernels.check_kernel, kernels.observe_kernel} <= set(
        BATCH_KERNELS
    )


def test_one_game_warms_up_what_a_whole_game_calls_before_its_first_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The observation and the outcome kernels too: a first run must not compile them when its first game ends."""
    from gubs_env.fast import FastGame, kernels
    from gubs_env.fast.core.observe import encode
    from gubs_env.fast.core.rules import score, winners_into

    asked = _warm_ups(monkeypatch)
    FastGame(3, seed=1)
    FastGame(2, seed=2)
    ((what, dispatchers),) = asked
    assert what == "the game engine (one game)"
    assert {kernels.start_game, kernels.step_game, kernels.view_game, encode, score, winners_into} == set(dispatchers)
    assert all(d.signatures for d in dispatchers)  # each compiled (or loaded) by the warm-up, before any game


def test_the_vector_env_warms_up_the_batch_and_its_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import gymnasium as gym

    import gubs_env  # noqa: F401  # registers Gubs-v0
    from gubs_env.fast import selfplay

    asked = _warm_ups(monkeypatch)
    envs = gym.make_vec("Gubs-v0", num_envs=2, vectorization_mode="vector_entry_point")
    _, info = envs.reset(seed=0)
    for _ in range(3):
        _, _, _, _, info = envs.step(info["action_mask"].argmax(axis=1))
    assert [what for what, _ in asked] == ["the game engine (a batch)", "the game engine (the self-play loop)"]
    assert selfplay.selfplay_kernel in asked[1][1]


PROGRESS_CALLER = """
import sys
import time

import tiny
from gubs_env.support import compiling

compiling.PROGRESS_SECONDS = 0.2
with compiling.compiling([tiny.twice], "the tiny kernel", 3):
    tiny.twice(2)
    time.sleep(1.0)  # a compile that takes a while: the progress lines come meanwhile
"""


def test_a_cold_compile_reports_its_progress_in_plain_lines_when_piped(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(MODULE.format(body="3 * x"), encoding="utf-8")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    environment.pop("GUBS_QUIET_COMPILE", None)
    done = subprocess.run(
        [sys.executable, "-c", PROGRESS_CALLER], cwd=tmp_path, env=environment, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "compiling the tiny kernel once (about 3 s; cached afterwards)…"
    progress = [line for line in lines if line.startswith("compiling the tiny kernel: ")]
    assert len(progress) >= 3 and "1 of 1 parts compiled" in progress[-1]
    assert lines[-1].startswith("compiled the tiny kernel in ")
    assert "\r" not in done.stderr and "\x1b" not in done.stderr  # no cursor codes in a pipe


def test_the_heuristic_announces_its_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.bots.heuristic import HeuristicAgent, decide
    from gubs_env.envs.selfplay import SelfPlayEnv

    asked: list[str] = []
    monkeypatch.setattr(decide, "_announce_pending", True)
    monkeypatch.setattr(decide, "announce_compiling", lambda d, what, seconds: asked.append(what))
    env = SelfPlayEnv(num_players=2)
    observation, _ = env.reset(seed=0)
    agent = HeuristicAgent(0)
    agent.act(observation, env.action_masks())
    agent.act(observation, env.action_masks())
    assert asked == ["the heuristic bot"]


def test_on_a_terminal_the_progress_rewrites_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from gubs_env.support import compiling

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress = compiling._Progress([len], "the tiny kernel")
    progress._say("compiling the tiny kernel: 1 of 1 parts compiled, 3 s so far")
    progress._say("compiled the tiny kernel in 4 s", last=True)
    err = capsys.readouterr().err
    assert err.startswith("\rcompiling the tiny kernel: ") and err.count("\r") == 2  # one line, rewritten
    assert err.endswith("\n") and err.count("\n") == 1 and "\x1b" not in err  # ended once, no cursor codes
