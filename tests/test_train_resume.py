"""train.py --resume after a kill at any step of a run, on every backend, and run folders that must not be trusted.

A kill is simulated in process by making :func:`agents.training.core.runs.crash_point` stop the run at a chosen point
(the files on disk are then what a kill there would leave), and once for real: a subprocess whose crash point ends
the process at once, as a kill would. Budgets are tiny; the run keeps a league of snapshots, so that every crash
point is reached. The same kills on RLlib are in tests/rllib/test_training.py.
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

pytestmark = pytest.mark.slow  # every test trains: minutes together

ROOT = Path(__file__).resolve().parents[1]
LEAGUE = ["--self-share", "0.5", "--no-progress", "--eval-games", "2", "--final-games", "2", "--hidden", "16"]
BACKENDS = {
    # backend: its flags, the budget, and the cadences in timesteps (a native batch is about 700 of them)
    "native": (["--envs", "4", "--batch-size", "512"], 3000, 800, 600, 1200),
    "sb3": (["--backend", "sb3", "--envs", "2", "--n-steps", "32", "--batch-size", "32"], 640, 256, 128, 384),
}


def argv_of(backend: str, out: Path, *more: str) -> list[str]:
    flags, steps, curve, snapshot, commit = BACKENDS[backend]
    cadences = ["--eval-every", str(curve), "--snapshot-every", str(snapshot), "--checkpoint-every", str(commit)]
    return [*flags, *LEAGUE, *cadences, "--steps", str(steps), "--out", str(out), *more]


class Killed(BaseException):
    """The simulated kill: not an Exception, so nothing on the way catches it."""


def run_until_killed(monkeypatch, backend: str, out: Path, point: str, resume: bool = False) -> None:
    at = BACKENDS[backend][3 if point == "snapshot" else 2 if point == "eval" else 4]

    def crash(name: str, timesteps: int) -> None:
        if name == point and timesteps >= at:
            raise Killed

    monkeypatch.setattr(training, "crash_point", crash)
    with pytest.raises(Killed):
        train.main(argv_of(backend, out, *(["--resume"] if resume else [])))
    monkeypatch.undo()


def check_finished_run(out: Path, steps: int) -> None:
    """One consistent history: unique evaluations, time going forward, one committed checkpoint, nothing stray."""
    state = json.loads((out / "run.json").read_text())
    assert state["timesteps"] >= steps
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]]
    assert not list(out.rglob(".*.tmp"))
    with (out / "eval.csv").open() as f:
        curve = [r for r in csv.DictReader(f) if r["deals"] == "curve"]
    keys = [(r["timesteps"], r["players"], r["opponent"]) for r in curve]
    assert len(keys) == len(set(keys)), "an evaluation was written twice"
    assert [int(r["timesteps"]) for r in curve] == sorted(int(r["timesteps"]) for r in curve)
    seconds = [float(r["seconds"]) for r in curve]
    assert seconds == sorted(seconds), "the seconds column went backwards"
    with (out / "progress.csv").open() as f:
        iterations = [int(r["iterations"]) for r in csv.DictReader(f)]
    assert iterations == list(range(1, state["iterations"] + 1)), "an iteration was logged twice or lost"
    snapshots = sorted(int(p.name[5:14]) for p in (out / "snapshots").iterdir())
    assert snapshots and snapshots[-1] <= state["timesteps"] and len(set(snapshots)) == len(snapshots)
    assert all((out / entry).is_file() for entry in state["snapshots"]) and state["snapshots"]
    assert (out / "policy.npz").is_file() and (out / "start.npz").is_file()


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("point", ["snapshot", "eval", "checkpoint-file", "run-json"])
def test_a_run_killed_at_any_step_resumes_with_nothing_lost_or_duplicated(tmp_path, monkeypatch, backend, point):
    out = tmp_path / "run"
    run_until_killed(monkeypatch, backend, out, point)
    start = (out / "start.npz").read_bytes()
    assert train.main(argv_of(backend, out, "--resume")) == 0
    check_finished_run(out, BACKENDS[backend][1])
    assert (out / "start.npz").read_bytes() == start  # the run's start is kept for its gain


def test_resuming_twice_from_the_same_checkpoint_keeps_one_history(tmp_path, monkeypatch):
    out = tmp_path / "run"
    run_until_killed(monkeypatch, "native", out, "eval")
    run_until_killed(monkeypatch, "native", out, "eval", resume=True)  # killed again before the next checkpoint
    assert train.main(argv_of("native", out, "--resume")) == 0
    check_finished_run(out, BACKENDS["native"][1])


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
    if point == "checkpoint-file" and timesteps > 0:
        os._exit({KILLED_STATUS})  # no clean-up, as a kill

runs.crash_point = crash
sys.exit(main(sys.argv[1:]))
"""


def test_a_real_process_killed_mid_commit_resumes(tmp_path):
    out = tmp_path / "run"
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_CHECKPOINT, *argv_of("native", out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == KILLED_STATUS, killed.stderr
    assert json.loads((out / "run.json").read_text())["timesteps"] == 0  # the written checkpoint never committed
    assert len(list(out.glob("checkpoint-*.pt"))) == 2
    assert train.main(argv_of("native", out, "--resume")) == 0
    check_finished_run(out, BACKENDS["native"][1])


def hostile_run(tmp_path: Path, marker: Path) -> Path:
    """A committed sb3 run folder (fake checkpoint) with a hostile model beside it."""
    from tests.test_train import committed_run

    run = tmp_path / "run"
    committed_run(run, timesteps=100, backend="sb3", config={"backend": "sb3"})
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
        (run / "snapshots" / "step_000000050.npz").symlink_to(tmp_path / "evil.zip")
        entry = "snapshots/step_000000050.npz"
    (run / "run.json").write_text(json.dumps({**state, "snapshots": [entry]}))
    result = run_train("--resume", "--out", str(run), "--steps", "200")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "snapshot" in result.stderr
    assert not marker.exists()


def test_resume_refuses_a_hostile_snapshot_inside_the_run(tmp_path):
    marker = tmp_path / "ran"
    run = hostile_run(tmp_path, marker)
    (run / "snapshots").mkdir()
    (run / "snapshots" / "step_000000050.npz").write_bytes(evil_model_zip(marker))  # payload in policy_kwargs
    state = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**state, "snapshots": ["snapshots/step_000000050.npz"]}))
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--resume", "--out", str(run)])
    assert exit_info.value.code == 2
    assert not marker.exists()
