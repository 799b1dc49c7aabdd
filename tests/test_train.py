"""train.py: command-line checks, a short smoke run, and --resume."""

import csv
import json

import pytest

import train

TINY = ["--n-steps", "128", "--batch-size", "64", "--eval-games", "4", "--no-progress"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "7"], "player counts go from 2 to 6"),
        (["--players", "two"], "is not a whole number"),
        (["--envs", "0"], "must be at least 1"),
        (["--minutes", "-1"], "must be above 0"),
        (["--steps", "many"], "is not a whole number"),
        (["--bogus"], "unrecognized arguments"),
        (["--workers", "0"], "must be at least 1"),
        (["--envs", "2", "--workers", "3"], "cannot exceed --envs"),
    ],
)
def test_bad_command_lines_are_rejected_clearly(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_resume_needs_a_checkpoint(capsys, tmp_path):
    with pytest.raises(SystemExit):
        train.parse_args(["--resume", "--out", str(tmp_path)])
    assert "no checkpoint" in capsys.readouterr().err


def test_default_budget_is_ten_minutes(tmp_path):
    args = train.parse_args(["--out", str(tmp_path)])
    assert args.minutes == 10.0 and args.steps is None and args.players == [2]
    assert 1 <= args.workers <= args.envs


def test_default_output_directory_skips_runs_already_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train.parse_args([]).out == train.Path("runs/gubs")
    (tmp_path / "runs/gubs").mkdir(parents=True)
    (tmp_path / "runs/gubs/checkpoint.zip").write_text("x")
    assert train.parse_args([]).out == train.Path("runs/gubs-2")
    with pytest.raises(SystemExit):
        train.parse_args(["--resume"])


def test_resume_goes_on_with_the_runs_settings_unless_flags_set_them_anew(tmp_path, capsys):
    (tmp_path / "checkpoint.zip").write_text("x")
    settings = {"players": [4], "p_random": 0.0, "p_heuristic": 1.0, "shaping": 0.5}
    (tmp_path / "run.json").write_text(json.dumps({"timesteps": 10, "settings": settings}))
    args = train.parse_args(["--resume", "--out", str(tmp_path)])
    assert {name: getattr(args, name) for name in settings} == settings
    args = train.parse_args(["--resume", "--out", str(tmp_path), "--players", "2", "--p-heuristic", "0.5"])
    assert (args.players, args.p_heuristic, args.p_random) == ([2], 0.5, 0.0)

    (tmp_path / "run.json").write_text(json.dumps({"timesteps": 10}))  # written before runs kept their settings
    args = train.parse_args(["--resume", "--out", str(tmp_path)])
    assert {name: getattr(args, name) for name in settings} == train.RUN_SETTINGS

    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(SystemExit):
        train.parse_args(["--resume", "--out", str(tmp_path)])
    assert "cannot read" in capsys.readouterr().err


def read_eval(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def test_smoke_run_writes_model_logs_plot_and_resumes(tmp_path):
    out = tmp_path / "run"
    common = ["--out", str(out), "--eval-every", "300", "--snapshot-every", "200", "--checkpoint-every", "256", *TINY]
    assert train.main(["--steps", "600", "--envs", "1", *common]) == 0
    for name in ("model.zip", "checkpoint.zip", "run.json", "eval.csv", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert (out / "logs/from_000000000/progress.csv").is_file()
    assert list((out / "logs/from_000000000").glob("events.out.tfevents*")), "no TensorBoard log"
    assert list((out / "snapshots").glob("step_*.zip"))
    first = read_eval(out / "eval.csv")
    assert {r["opponent"] for r in first} == {"random", "heuristic"}
    assert all(0 <= float(r["low"]) <= float(r["win_rate"]) <= float(r["high"]) <= 1 for r in first)
    state = json.loads((out / "run.json").read_text())
    assert state["timesteps"] >= 600
    assert state["settings"] == {"players": [2], "p_random": 0.1, "p_heuristic": 0.4, "shaping": 0.0}

    with pytest.raises(SystemExit):  # an existing run is never overwritten by accident
        train.parse_args(["--out", str(out)])

    assert train.main(["--resume", "--steps", "1000", "--envs", "1", "--ent-coef", "0", *common]) == 0
    resumed = json.loads((out / "run.json").read_text())
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(out / "checkpoint.zip", device="cpu")
    assert model.ent_coef == 0 and model.learning_rate == train.DEFAULT_LEARNING_RATE  # given / kept
    assert resumed["timesteps"] >= 1000
    assert resumed["seconds"] > state["seconds"]
    assert len(read_eval(out / "eval.csv")) > len(first)
    assert len(list((out / "logs").glob("from_*/progress.csv"))) == 2  # the first part's log is kept


def test_parallel_envs_mixed_table_sizes_and_imitation(tmp_path, capsys):
    out = tmp_path / "mix"
    argv = [
        "--steps",
        "300",
        "--envs",
        "2",
        "--vec-env",
        "subproc",
        "--workers",
        "2",
        "--imitate-games",
        "2",
        "--players",
        "2",
        "4",
        "--out",
        str(out),
        "--eval-every",
        "10000",
        "--snapshot-every",
        "10000",
        "--checkpoint-every",
        "10000",
        *TINY,
    ]
    assert train.main(argv) == 0
    assert {r["players"] for r in read_eval(out / "eval.csv")} == {"2", "4"}
    assert "imitated" in capsys.readouterr().out
