"""train.py: command-line checks, a short smoke run, and --resume."""

import csv
import json

import pytest

from agents.training import main as train

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
        (["--opponent", "ppo-9p"], "--opponent: unknown shipped model 'ppo-9p'"),
        (["--opponent", "heuristic", "--engine", "reference"], "--opponent needs --engine fast"),
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


def test_default_recipe_imitates_then_plays_the_heuristic_at_every_seat(tmp_path):
    args = train.parse_args(["--out", str(tmp_path)])
    assert args.imitate_games == 1500 and (args.p_random, args.p_heuristic) == (0.0, 1.0)
    assert args.learning_rate is None and args.ent_coef is None  # a new run takes the defaults below
    assert (train.DEFAULT_LEARNING_RATE, train.DEFAULT_ENT_COEF) == (1e-4, 0.0)
    flags = ["--imitate-games", "0", "--p-heuristic", "0.4", "--p-random", "0.1"]
    chosen = train.parse_args([*flags, "--out", str(tmp_path)])
    assert (chosen.imitate_games, chosen.p_random, chosen.p_heuristic) == (0, 0.1, 0.4)


def test_each_engine_brings_its_own_defaults_and_flags_override_them(tmp_path):
    fast = train.parse_args(["--out", str(tmp_path)])
    assert fast.engine == "fast" and fast.lean_policy
    assert (fast.envs, fast.n_steps, fast.batch_size, fast.epochs) == (64, 64, 1024, 5)
    assert (fast.eval_every, fast.snapshot_every, fast.checkpoint_every) == (250_000, 150_000, 100_000)
    reference = train.parse_args(["--engine", "reference", "--out", str(tmp_path)])
    assert not reference.lean_policy  # the earlier path, as it was
    assert (reference.envs, reference.n_steps, reference.batch_size, reference.epochs) == (8, 256, 256, 5)
    assert (reference.eval_every, reference.snapshot_every, reference.checkpoint_every) == (50_000, 50_000, 25_000)
    chosen = train.parse_args(["--envs", "16", "--epochs", "3", "--eval-every", "7", "--out", str(tmp_path)])
    assert (chosen.envs, chosen.epochs, chosen.eval_every, chosen.n_steps) == (16, 3, 7, 64)


def test_default_output_directory_skips_runs_already_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert train.parse_args([]).out == train.Path("runs/gubs")
    (tmp_path / "runs/gubs").mkdir(parents=True)
    (tmp_path / "runs/gubs/checkpoint.zip").write_text("x")
    assert train.parse_args([]).out == train.Path("runs/gubs-2")
    with pytest.raises(SystemExit):
        train.parse_args(["--resume"])


def committed_run(folder, **state):
    """A run folder whose run.json commits a (fake) checkpoint: enough for parse_args, which only verifies it."""
    from agents.training.runs import RunState, commit_checkpoint

    class Model:
        def save(self, target):
            target.write(b"a checkpoint")

    folder.mkdir(parents=True, exist_ok=True)
    return commit_checkpoint(folder, Model(), RunState(**state))


def test_resume_goes_on_with_the_runs_settings_unless_flags_set_them_anew(tmp_path, capsys):
    settings = {"players": [4], "p_random": 0.0, "p_heuristic": 1.0, "shaping": 0.5, "opponent": "heuristic"}
    committed_run(tmp_path, timesteps=10, settings=settings)
    args = train.parse_args(["--resume", "--out", str(tmp_path)])
    assert {name: getattr(args, name) for name in settings} == settings
    assert args.checkpoint_data == b"a checkpoint" and args.run_state.timesteps == 10
    args = train.parse_args(["--resume", "--out", str(tmp_path), "--players", "2", "--p-heuristic", "0.5"])
    assert (args.players, args.p_heuristic, args.p_random) == ([2], 0.5, 0.0)

    committed_run(tmp_path, timesteps=10)  # no settings kept: the defaults
    args = train.parse_args(["--resume", "--out", str(tmp_path)])
    assert {name: getattr(args, name) for name in settings} == train.RUN_SETTINGS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("{not json", "is not JSON"),
        ({"timesteps": 10, "settings": {}, "extra": 1}, "unknown key 'extra'"),
        ({"timesteps": "ten"}, "timesteps must be"),
        ({"settings": {"players": [9]}}, "players must list table sizes"),
        ({"settings": {"players": "2"}}, "players must list table sizes"),
        ({"settings": {"p_random": 2}}, "p_random must be a probability"),
        ({"settings": {"shaping": -1}}, "shaping must be"),
        ({"settings": {"speed": 1}}, "unknown setting 'speed'"),
        ({"settings": {"opponent": 5}}, "opponent must be an agent spec"),
        ({"settings": {"opponent": "ppo-9p"}}, "--opponent: unknown shipped model"),
        ({"settings": {"opponent": "os:system"}}, "names code to import, which a run file may not"),
        ({"snapshots": ["/etc/passwd"]}, "is not a snapshots/step_"),
        ({"timesteps": 10, "snapshots": ["snapshots/step_000000005.zip"]}, "is missing"),
        ({"checkpoint": "", "checkpoint_sha256": ""}, "older train.py"),
        ({"checkpoint_sha256": "0" * 64}, "does not match the SHA-256 digest"),
    ],
)
def test_a_run_folder_that_cannot_be_trusted_is_a_one_line_error(tmp_path, capsys, change, message):
    state = committed_run(tmp_path, timesteps=10)
    if isinstance(change, str):
        (tmp_path / "run.json").write_text(change)
    else:
        (tmp_path / "run.json").write_text(json.dumps({**json.loads((tmp_path / "run.json").read_text()), **change}))
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / state.checkpoint).read_bytes() == b"a checkpoint"  # nothing was changed


def test_an_old_layout_run_is_recognised_but_not_resumed(tmp_path, capsys):
    (tmp_path / "checkpoint.zip").write_text("x")
    (tmp_path / "run.json").write_text(json.dumps({"timesteps": 10, "snapshots": [], "seconds": 1.0}))
    with pytest.raises(SystemExit):
        train.parse_args(["--resume", "--out", str(tmp_path)])
    assert "names no checkpoint digest" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # nor overwritten
        train.parse_args(["--out", str(tmp_path)])


def read_eval(path):
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_smoke_run_writes_model_logs_plot_and_resumes(tmp_path):
    out = tmp_path / "run"
    common = ["--out", str(out), "--eval-every", "300", "--snapshot-every", "200", "--checkpoint-every", "256", *TINY]
    common += ["--imitate-games", "0"]  # the default imitation's 1,500 games take a minute; the test below imitates
    assert train.main(["--steps", "600", "--envs", "1", *common]) == 0
    for name in ("model.zip", "run.json", "eval.csv", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert [p.name for p in out.glob("checkpoint*")] == [json.loads((out / "run.json").read_text())["checkpoint"]]
    assert (out / "logs/from_000000000/progress.csv").is_file()
    assert list((out / "logs/from_000000000").glob("events.out.tfevents*")), "no TensorBoard log"
    assert list((out / "snapshots").glob("step_*.zip"))
    first = read_eval(out / "eval.csv")
    assert {r["opponent"] for r in first} == {"random", "heuristic"}
    assert all(0 <= float(r["low"]) <= float(r["win_rate"]) <= float(r["high"]) <= 1 for r in first)
    state = json.loads((out / "run.json").read_text())
    assert state["timesteps"] >= 600
    assert state["settings"] == {"players": [2], "p_random": 0.0, "p_heuristic": 1.0, "shaping": 0.0, "opponent": None}

    with pytest.raises(SystemExit):  # an existing run is never overwritten by accident
        train.parse_args(["--out", str(out)])

    assert train.main(["--resume", "--steps", "1000", "--envs", "1", "--ent-coef", "0", *common]) == 0
    resumed = json.loads((out / "run.json").read_text())
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(out / resumed["checkpoint"], device="cpu")  # our own run: a full load is fine here
    assert model.ent_coef == 0 and model.learning_rate == train.DEFAULT_LEARNING_RATE  # given / kept
    assert resumed["timesteps"] >= 1000
    assert resumed["seconds"] > state["seconds"]
    assert len(read_eval(out / "eval.csv")) > len(first)
    assert len(list((out / "logs").glob("from_*/progress.csv"))) == 2  # the first part's log is kept
    from agents.bots.model_file import load_policy

    for path in [out / "model.zip", out / resumed["checkpoint"], *out.glob("snapshots/*.zip")]:
        assert load_policy(path).activation == "tanh"  # everything train.py writes loads through the safe path


def test_parallel_envs_mixed_table_sizes_and_imitation(tmp_path, capsys):
    out = tmp_path / "mix"
    argv = [
        "--steps",
        "300",
        "--engine",
        "reference",
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


def test_a_run_against_one_fixed_opponent_evaluates_against_it_and_resumes_against_it(tmp_path):
    """--opponent (the exploiter check): kept in run.json, so --resume goes on against the same agent."""
    out = tmp_path / "exploit"
    argv = ["--steps", "256", "--envs", "4", "--opponent", "ppo-2p", "--imitate-games", "0", "--out", str(out), *TINY]
    assert train.main([*argv, "--eval-every", "10000"]) == 0
    assert {(r["players"], r["opponent"]) for r in read_eval(out / "eval.csv")} == {
        ("2", "random"),
        ("2", "heuristic"),
        ("2", "ppo-2p"),
    }
    resumed = train.parse_args(["--resume", "--out", str(out)])
    assert resumed.opponent == "ppo-2p" and resumed.players == [2]
