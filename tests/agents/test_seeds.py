"""Several seeds of one config: their runs, the gathered curves and charts, and ``python -m agents.recipes.seeds``."""

import csv
import json
import os
from pathlib import Path

import pytest

from agents.recipes.seeds import CURVES_CSV, gather_curves, main, seed_folder, summarize, train_seeds, write_curves
from agents.training import TrainingConfig

SMALL = ["--envs", "8", "--hidden", "16", "--batch-size", "512", "--eval-games", "4", "--final-games", "2"]
SMALL += ["--no-progress"]


def write_run(folder: Path, points: list[tuple[int, float]], players: int, seed: int) -> None:
    folder.mkdir(parents=True)
    config = TrainingConfig(players=(players,), seed=seed).to_json()
    (folder / "run.json").write_text(json.dumps({"backend": "native", "config": config, "format": 3}))
    with (folder / "eval.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["timesteps", "players", "opponent", "deals", "games", "win_rate", "low", "high", "seconds"])
        for steps, rate in points:
            for opponent in ("random", "heuristic"):
                writer.writerow([steps, players, opponent, "curve", 400, rate, rate - 0.05, rate + 0.05, 1.0])
        writer.writerow([points[-1][0], players, "heuristic", "final", 2000, 0.99, 0.98, 1.0, 1.0])  # not a point
    with (folder / "progress.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["timesteps", "grad_cosine"])
        for steps, _ in points:
            writer.writerow([steps, 0.4])


def test_the_runs_eval_logs_become_one_csv_a_chart_per_table_size_and_a_summary(tmp_path):
    folders = [seed_folder(tmp_path / "2p", seed) for seed in (0, 1)] + [seed_folder(tmp_path / "4p", 0)]
    write_run(folders[0], [(100, 0.4), (200, 0.5)], 2, 0)
    write_run(folders[1], [(100, 0.3), (200, 0.6), (300, 0.7)], 2, 1)
    write_run(folders[2], [(100, 0.2)], 4, 0)
    rows = gather_curves(folders)
    assert len(rows) == 2 * (2 + 3 + 1) and {r["seed"] for r in rows} == {0, 1}
    charts = write_curves(rows, tmp_path, folders)
    assert [c.name for c in charts] == ["curves_2p.png", "curves_4p.png"]
    assert all(c.read_bytes().startswith(b"\x89PNG") for c in charts)
    with (tmp_path / CURVES_CSV).open(newline="") as file:
        assert len(list(csv.DictReader(file))) == len(rows)
    lines = summarize(rows, folders)
    assert "2p vs heuristic, seed 1: 30.0% at the start, 70.0% [65.0%, 75.0%] at 300 timesteps" in lines
    assert lines.index("2p vs heuristic, seed 0: 40.0% at the start, 50.0% [45.0%, 55.0%] at 200 timesteps") == 0
    assert "seed-0: median grad_cosine over the last half of the updates: 0.40 (the updates carry signal)" in lines


def test_the_command_trains_what_is_missing_keeps_what_is_finished_and_resumes_what_was_cut(tmp_path, capsys):
    argv = ["--seeds", "5", "6", "--steps", "1", "--out", str(tmp_path), *SMALL, "--jobs", "1"]
    assert main(argv) == 0
    assert all((seed_folder(tmp_path, s) / "policy.npz").is_file() for s in (5, 6))
    assert (tmp_path / "curves_2p.png").is_file()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("has spent its budget, kept") == 2 and "2p vs heuristic, seed 6" in out
    assert main([*argv[:4], "6000", *argv[5:]]) == 0  # a larger budget: both go on
    assert capsys.readouterr().out.count(": resuming ") == 2


def test_a_time_budget_counts_each_runs_training_time_in_all(tmp_path, capsys):
    config = TrainingConfig(envs=8, hidden=(16,), batch_size=512, eval_games=4, final_games=2, steps=1)
    train_seeds(config, [0], tmp_path, progress=False)
    run_file = seed_folder(tmp_path, 0) / "run.json"
    state = json.loads(run_file.read_text())
    run_file.write_text(json.dumps({**state, "seconds": 600.0}))  # ten minutes trained already
    from dataclasses import replace

    train_seeds(replace(config, steps=None, minutes=10), [0], tmp_path, progress=False)
    assert "has spent its budget, kept" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        (["--seed", "3"], "leave out --seed and --resume"),
        (["--resume"], "leave out --seed and --resume"),
        (["--rule-facts"], "--rule-facts was removed"),
        (["--n-steps", "10"], "the native backend cannot honour n_steps"),
    ],
)
def test_a_command_that_cannot_mean_what_it_says_is_one_line(extra, refused, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--seeds", "0", "--out", str(tmp_path), *extra])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert refused in err and err.count("\n") == 1


def test_a_run_trained_with_other_levers_is_never_resumed_as_if_it_were_the_same(tmp_path, capsys):
    argv = ["--seeds", "0", "--steps", "1", "--out", str(tmp_path), *SMALL]
    assert main(argv) == 0
    with pytest.raises(SystemExit) as exit_info:
        main([*argv[:3], "5000", *argv[4:], "--hidden", "8"])
    assert exit_info.value.code == 2
    assert "keeps its own hidden" in capsys.readouterr().err


def test_without_a_budget_each_seed_trains_the_default_minutes_in_all(tmp_path, monkeypatch):
    import agents.recipes.seeds as seeds

    asked = []
    monkeypatch.setattr(seeds, "train", lambda config, **kwargs: asked.append(config))
    train_seeds(TrainingConfig(), [3, 4], tmp_path, progress=False, jobs=1)
    assert [(c.seed, c.minutes, c.steps) for c in asked] == [(3, 10.0, None), (4, 10.0, None)]


def test_runs_side_by_side_lead_each_line_with_their_seed_and_resume_together(tmp_path, capfd):
    argv = ["--seeds", "5", "6", "--steps", "1", "--out", str(tmp_path), *SMALL, "--jobs", "2"]
    assert main(argv) == 0
    out = capfd.readouterr().out
    for seed in (5, 6):
        assert (seed_folder(tmp_path, seed) / "policy.npz").is_file()
        assert f"seed {seed}: new run in {seed_folder(tmp_path, seed)}" in out  # the run's own line, from its process
        assert f"seed {seed}: policy: {seed_folder(tmp_path, seed) / 'policy.npz'}" in out
    assert "2p vs heuristic, seed 6" in out and (tmp_path / "curves_2p.png").is_file()
    assert main([*argv[:4], "6000", *argv[5:]]) == 0  # a larger budget: both resume
    out = capfd.readouterr().out
    assert "seed 5: resuming the run in" in out and "seed 6: resuming the run in" in out


def test_a_file_the_runs_refuse_once_started_is_one_error_naming_each_seed(tmp_path):
    from agents.training.core.runs import RunSetupError

    (tmp_path / "bad.npz").write_text("not a model")
    config = TrainingConfig(backend="native", init=str(tmp_path / "bad.npz"), steps=1, envs=8, hidden=(16,))
    with pytest.raises(RunSetupError, match=r"^seed 0: init: .*not a zip archive.*; seed 1: init: ") as refused:
        train_seeds(config, [0, 1], tmp_path / "runs", progress=False, jobs=2)
    assert "\n" not in str(refused.value)
    assert not (tmp_path / "runs").exists()  # each run removes what it made


def test_runs_side_by_side_killed_are_one_error_line_that_says_to_run_the_command_again(tmp_path, capsys):
    import multiprocessing
    import signal
    import threading
    import time

    def runs() -> list[multiprocessing.Process]:
        return [child for child in multiprocessing.active_children() if child.name in ("seed 0", "seed 1")]

    def kill_both() -> None:
        while len(runs()) < 2:
            time.sleep(0.1)
        for child in runs():
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]

    threading.Thread(target=kill_both, daemon=True).start()
    argv = ["--seeds", "0", "1", "--steps", "3000000", "--out", str(tmp_path), *SMALL, "--jobs", "2"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seed 0 (exit status -9), seed 1 (exit status -9)" in err
    assert err.strip().endswith("run the command again to resume them")


def test_the_lines_of_a_run_side_by_side_are_whole_and_led_by_its_seed():
    import io

    from agents.recipes.seeds import _LedLines

    target = io.StringIO()
    stream = _LedLines(target, "seed 3: ")
    stream.write("training: 10%")
    assert target.getvalue() == ""  # not a whole line yet
    stream.write(" ETA 5:00\neval at 0 steps\nhalf")
    assert target.getvalue() == "seed 3: training: 10% ETA 5:00\nseed 3: eval at 0 steps\n"
    assert not stream.isatty()  # so a progress bar writes timed lines to it


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (["--jobs", "2"], "the following arguments are required: --seeds"),
        (["--backend", "rllib", "--seeds", "0", "1", "--jobs", "2"], "rllib trains the seeds one after another"),
    ],
)
def test_jobs_that_cannot_mean_what_they_say_are_one_line(argv, refused, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert refused in err and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["ctrl-c", "kill"])
def test_runs_side_by_side_stop_with_the_command_and_resume(stop, tmp_path):
    """Ctrl-C reaches every process of the terminal's group; a killed command's runs notice and stop themselves."""
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    argv = ["--seeds", "5", "6", "--steps", "3000000", "--out", str(tmp_path), *SMALL]
    argv += ["--checkpoint-every", "20000"]
    command = subprocess.Popen(
        [sys.executable, "-m", "agents.recipes.seeds", *argv],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    runs = [seed_folder(tmp_path, seed) / "run.json" for seed in (5, 6)]
    deadline = time.monotonic() + 120
    while not all(_committed_steps(run) > 0 for run in runs) and time.monotonic() < deadline:
        time.sleep(0.5)
    if stop == "ctrl-c":
        os.killpg(command.pid, signal.SIGINT)
    else:
        command.kill()
    output = command.communicate(timeout=60)[0]
    assert command.returncode == (130 if stop == "ctrl-c" else -signal.SIGKILL), output[-2000:]
    deadline = time.monotonic() + 30
    while _processes_in(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _processes_in(tmp_path)
    steps = [json.loads(run.read_text())["timesteps"] for run in runs]
    assert all(0 < s < 3_000_000 for s in steps)
    assert main([*argv[:4], "1", *argv[5:], "--no-progress"]) == 0  # their budget spent: kept


def _committed_steps(run_file: Path) -> int:
    """The timesteps a run.json has committed (0: none yet, or none at all)."""
    try:
        return int(json.loads(run_file.read_text())["timesteps"])
    except (OSError, ValueError, KeyError):
        return 0


def _processes_in(folder: Path) -> list[str]:
    """The processes whose open files or working state name ``folder`` (the runs writing into it)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and any(str(folder) in os.readlink(fd) for fd in (proc / "fd").iterdir()):
                found.append(proc.name)
        except OSError:
            continue
    return found
