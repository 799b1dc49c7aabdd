"""train.py --resume after a kill at any step of a run, and run folders that must not be trusted.

A kill is simulated in process by making :func:`agents.training.core.runs.crash_point` stop the run at a chosen point
(the files on disk are then what a kill there would leave), and once for real: a subprocess whose crash point ends
the process at once, as a kill would. Budgets are tiny: two envs, 32-step rollouts, a few hundred timesteps.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agents.training.core.runs as training
from agents.training import command as train
from tests.agents.test_model_file import evil_model_zip

pytestmark = pytest.mark.slow  # each test runs train.py in a process: minutes together

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "--envs",
    "2",
    "--n-steps",
    "32",
    "--batch-size",
    "32",
    "--eval-games",
    "2",
    "--no-progress",
    "--eval-every",
    "128",
    "--snapshot-every",
    "64",
    "--checkpoint-every",
    "192",
    "--imitate-games",  # the default warm start's 1,500 games take a minute; what is tested here is resuming
    "0",
]
STEPS = 320


class Killed(BaseException):
    """The simulated kill: not an Exception, so nothing on the way catches it."""


def run_until_killed(monkeypatch, out: Path, point: str, at: int, resume: bool = False) -> None:
    def crash(name: str, timesteps: int) -> None:
        if name == point and timesteps >= at:
            raise Killed

    monkeypatch.setattr(training, "crash_point", crash)
    with pytest.raises(Killed):
        train.main(["--steps", str(STEPS), "--out", str(out), *TINY, *(["--resume"] if resume else [])])
    monkeypatch.undo()


def logs(out: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in (out / "logs").glob("*/progress.csv")}


def check_finished_run(out: Path) -> None:
    """One consistent history: unique evaluations, time going forward, one committed checkpoint, nothing stray."""
    state = json.loads((out / "run.json").read_text())
    assert state["timesteps"] >= STEPS
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]]
    assert not list(out.rglob(".*.tmp"))
    with (out / "eval.csv").open() as f:
        rows = list(csv.DictReader(f))
    keys = [(r["timesteps"], r["players"], r["opponent"]) for r in rows]
    assert len(keys) == len(set(keys)), "an evaluation was written twice"
    assert [int(r["timesteps"]) for r in rows] == sorted(int(r["timesteps"]) for r in rows)
    seconds = [float(r["seconds"]) for r in rows]
    assert seconds == sorted(seconds), "the seconds column went backwards"
    assert {int(r["timesteps"]) for r in rows} >= {128, 256, state["timesteps"]}
    snapshots = sorted(p.name for p in (out / "snapshots").iterdir())
    assert snapshots == [f"step_{n:09d}.zip" for n in range(64, state["timesteps"] + 1, 64)]
    assert all((out / entry).is_file() for entry in state["snapshots"])
    assert (out / "model.zip").is_file()


@pytest.mark.parametrize(
    ("point", "at"),
    [
        ("snapshot", 128),  # a snapshot past the committed checkpoint (step 0)
        ("eval", 128),  # an evaluation past it
        ("checkpoint-file", 192),  # a checkpoint written but not committed
        ("run-json", 192),  # committed, the older checkpoint not yet deleted
    ],
)
def test_a_run_killed_at_any_step_resumes_with_nothing_lost_or_duplicated(tmp_path, monkeypatch, point, at):
    out = tmp_path / "run"
    run_until_killed(monkeypatch, out, point, at)
    killed_logs = logs(out)
    assert train.main(["--resume", "--steps", str(STEPS), "--out", str(out), *TINY]) == 0
    check_finished_run(out)
    after = logs(out)
    assert all(after[name] == content for name, content in killed_logs.items()), "a log was emptied or rewritten"
    assert len(after) == len(killed_logs) + 1


def test_resuming_twice_from_the_same_checkpoint_keeps_both_logs(tmp_path, monkeypatch):
    out = tmp_path / "run"
    run_until_killed(monkeypatch, out, "eval", 128)
    run_until_killed(monkeypatch, out, "eval", 128, resume=True)  # killed again before the next checkpoint
    before = logs(out)
    assert sorted(before) == ["from_000000000", "from_000000000-2"]
    assert all(before.values()), "an earlier log was emptied"
    assert train.main(["--resume", "--steps", str(STEPS), "--out", str(out), *TINY]) == 0
    check_finished_run(out)
    assert sorted(logs(out)) == ["from_000000000", "from_000000000-2", "from_000000000-3"]
    assert all(logs(out)[name] == content for name, content in before.items())


def run_train(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "train.py", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


KILLED_STATUS = 86
KILL_AT_CHECKPOINT = f"""
import os, sys
import agents.training.core.runs as runs
from agents.training.command import main

def crash(point, timesteps):
    if point == "checkpoint-file" and timesteps >= 192:
        os._exit({KILLED_STATUS})  # no clean-up, as a kill

runs.crash_point = crash
sys.exit(main(sys.argv[1:]))
"""


def test_a_real_process_killed_mid_commit_resumes(tmp_path):
    out = tmp_path / "run"
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_CHECKPOINT, "--steps", str(STEPS), "--out", str(out), *TINY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == KILLED_STATUS, killed.stderr
    assert json.loads((out / "run.json").read_text())["timesteps"] == 0  # the written checkpoint never committed
    assert (out / "checkpoint-000000192.zip").is_file()
    assert train.main(["--resume", "--steps", str(STEPS), "--out", str(out), *TINY]) == 0
    check_finished_run(out)


def hostile_run(tmp_path: Path, marker: Path) -> Path:
    """A committed run folder (fake checkpoint) with a hostile model beside it."""
    from tests.test_train import committed_run

    run = tmp_path / "run"
    committed_run(run, timesteps=100)
    (tmp_path / "evil.zip").write_bytes(evil_model_zip(marker, field="lr_schedule"))
    return run


def test_resume_refuses_a_swapped_checkpoint_without_loading_it(tmp_path):
    marker = tmp_path / "ran"
    run = hostile_run(tmp_path, marker)
    state = json.loads((run / "run.json").read_text())
    (run / state["checkpoint"]).write_bytes((tmp_path / "evil.zip").read_bytes())
    result = run_train("--resume", "--out", str(run), "--steps", "200")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "does not match the SHA-256 digest" in result.stderr
    assert not marker.exists()


@pytest.mark.parametrize("how", ["absolute path", "dot-dot", "symlink"])
def test_resume_refuses_snapshots_outside_the_run(tmp_path, how):
    marker = tmp_path / "ran"
    run = hostile_run(tmp_path, marker)
    state = json.loads((run / "run.json").read_text())
    entry = {"absolute path": str(tmp_path / "evil.zip"), "dot-dot": "snapshots/../../evil.zip"}.get(how)
    if how == "symlink":
        (run / "snapshots").mkdir()
        (run / "snapshots" / "step_000000050.zip").symlink_to(tmp_path / "evil.zip")
        entry = "snapshots/step_000000050.zip"
    (run / "run.json").write_text(json.dumps({**state, "snapshots": [entry]}))
    result = run_train("--resume", "--out", str(run), "--steps", "200")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "snapshot" in result.stderr
    assert not marker.exists()


def test_resume_refuses_a_hostile_snapshot_inside_the_run(tmp_path):
    marker = tmp_path / "ran"
    run = hostile_run(tmp_path, marker)
    (run / "snapshots").mkdir()
    (run / "snapshots" / "step_000000050.zip").write_bytes(evil_model_zip(marker))  # payload in policy_kwargs
    state = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**state, "snapshots": ["snapshots/step_000000050.zip"]}))
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--resume", "--out", str(run)])
    assert exit_info.value.code == 2
    assert not marker.exists()
