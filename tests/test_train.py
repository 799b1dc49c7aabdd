"""train.py: flags into one TrainingConfig, the Python entry point, short runs, and --resume from either side."""

import csv
import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agents.bots.spec import AgentSpec
from agents.training import PoolConfig, TrainingConfig, train
from agents.training.command import main, parse
from agents.training.core.config import DEFAULTS, ConfigError
from gubs_env.engine.players import TableSizes

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
        (["--opponent", "ppo-9p"], "unknown shipped model 'ppo-9p'"),
        (["--p-random", "0.6", "--p-heuristic", "0.6"], "add up to more than 1"),
        (["--backend", "rllib", "--opponent", "heuristic"], "the rllib backend cannot honour opponent"),
        (["--shaping", "0.1"], "--shaping was removed: score-margin shaping gained nothing"),
        (["--iterations", "3"], "the sb3 backend cannot honour iterations"),
        (["--env-runners", "2"], "the sb3 backend cannot honour env_runners"),
        (["--backend", "rllib", "--code-installed"], "code_installed goes with address"),
        (["--backend", "tf"], "invalid choice: 'tf'"),
    ],
)
def test_bad_command_lines_are_rejected_clearly(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        parse([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_resume_needs_a_checkpoint(capsys, tmp_path):
    with pytest.raises(SystemExit):
        parse(["--resume", "--out", str(tmp_path)])
    assert "no checkpoint" in capsys.readouterr().err


def test_flags_become_the_config_a_notebook_would_build(tmp_path):
    given = parse(["--players", "2", "4", "--minutes", "3", "--p-heuristic", "0.5", "--out", str(tmp_path)])
    assert given.config == TrainingConfig(players=(2, 4), minutes=3.0, pool=PoolConfig(p_heuristic=0.5))
    discounted = parse(["--gamma", "0.99", "--gae-lambda", "0.9", "--eval-adjust-luck"]).config
    assert discounted == TrainingConfig(gamma=0.99, gae_lambda=0.9, eval_adjust_luck=True)
    assert given.out == tmp_path and not given.resume and given.progress
    assert parse([]).config == TrainingConfig()  # no flag: the defaults, nothing more


def test_default_recipe_starts_from_the_shipped_network_and_plays_a_league_of_itself_and_the_heuristic():
    config = TrainingConfig().resolved()
    assert config.minutes == 10.0 and config.steps is None and config.players.as_list() == [2]
    assert config.init == AgentSpec.parse("ppo-2p") and config.imitate_games == 0 and config.teacher is None
    assert config.pool == PoolConfig(0.0, 0.35, 5, self_share=0.4, prioritize=1.0)
    shares = config.pool.shares(has_snapshots=True)
    assert shares["self"] + shares["snapshots"] >= 0.6  # issue 39: most opponent seats are the learner's
    assert (config.learning_rate, config.ent_coef) == (3e-5, 0.0)  # a trained network drifts at 1e-4


def test_a_run_starts_from_the_strongest_shipped_network_for_the_table_unless_it_imitates():
    for players, network in [((2,), "ppo-2p"), ((4,), "gubs-net"), ((2, 3), "gubs-net")]:
        started = TrainingConfig(players=players).resolved()
        assert (started.init, started.imitate_games, started.imitate_lr) == (AgentSpec.parse(network), 0, 3e-4)
    fresh = [TrainingConfig(imitate_games=1500), TrainingConfig(init="none"), TrainingConfig(rule_facts=True)]
    for config in fresh:  # asked to imitate, asked for a fresh network, or facts no shipped network reads
        resolved = config.resolved()
        assert (resolved.init, resolved.init_network, resolved.imitate_games) == ("none", None, 1500)
        assert (resolved.teacher, resolved.imitate_lr, resolved.learning_rate) == ("heuristic-tuned", 1e-3, 1e-4)
    chosen = TrainingConfig(init="gubs-net").resolved()
    assert (chosen.init, chosen.imitate_games) == (AgentSpec.parse("gubs-net"), 0)  # not pulled back to a teacher
    assert TrainingConfig(backend="rllib").resolved().init == AgentSpec.parse("ppo-2p")  # the one recipe
    narrow = TrainingConfig(backend="rllib", hidden=(64,)).resolved()  # no shipped network has its shape
    assert (narrow.init_network, narrow.imitate_games) == (None, 1500)
    assert TrainingConfig(backend="native").resolved().init is None  # self-play's backend starts fresh
    with pytest.raises(ConfigError, match=r"^teacher goes with imitate_games: this run imitates no teacher games$"):
        TrainingConfig(teacher="heuristic").resolved()
    assert parse(["--init", "none"]).config.resolved().init_network is None
    assert TrainingConfig.from_json(TrainingConfig().resolved().to_json()).resolved() == TrainingConfig().resolved()
    earlier = {**TrainingConfig(imitate_games=0, init="none").resolved().to_json(), "teacher": "heuristic-tuned"}
    assert TrainingConfig.from_json(earlier).resolved().teacher is None  # a run file of an earlier version


def test_a_native_run_keeps_a_trained_networks_entropy_bonus_at_its_end_value():
    """A fresh network's bonus starts high so the policy does not collapse; a trained one (init) would be pulled back
    towards chance by it, so it stays at the schedule's end value. A value given is kept either way."""
    from agents.training.core.config import FRESH_ENTROPY_START, NativeSettings

    fresh = TrainingConfig(backend="native").resolved().native
    assert (fresh.entropy_start, fresh.entropy_end) == (FRESH_ENTROPY_START, 0.003) and FRESH_ENTROPY_START > 0.003
    trained = TrainingConfig(backend="native", init="selfplay-2p").resolved()
    assert (trained.native.entropy_start, trained.learning_rate) == (0.003, 3e-5)
    assert trained.native.entropy_coefficient(0) == trained.native.entropy_coefficient(10**9) == 0.003
    given = TrainingConfig(backend="native", init="selfplay-2p", native=NativeSettings(entropy_start=0.01)).resolved()
    assert given.native.entropy_start == 0.01
    assert TrainingConfig.from_json(trained.to_json()) == trained  # run.json stores the resolved bonus
    assert TrainingConfig(backend="sb3").resolved().native == NativeSettings()  # nothing native-only on sb3
    for backend in ("sb3", "rllib"):  # earlier versions wrote the fresh bonus into every run file; they still load
        earlier = TrainingConfig(backend=backend).resolved().to_json()
        earlier["native"]["entropy_start"] = FRESH_ENTROPY_START
        assert TrainingConfig.from_json(earlier).native == NativeSettings()
    with pytest.raises(ConfigError, match=r"entropy_start is unset"):
        NativeSettings().entropy_coefficient(0)


def test_the_rllib_settings_are_one_section_and_earlier_flat_run_files_still_load():
    """Earlier versions wrote env_runners, address and code_installed at the top of run.json; they load into the
    rllib section, and a file that gives one both ways is refused."""
    from agents.training.core.config import RllibSettings

    flags = parse(["--backend", "rllib", "--env-runners", "3", "--address", "auto", "--code-installed"]).config
    assert flags.rllib == RllibSettings(env_runners=3, address="auto", code_installed=True)
    one_runner = TrainingConfig(backend="rllib").resolved()
    assert flags.resolved().iteration_steps == 3 * one_runner.iteration_steps  # each runner steps its own games
    earlier = TrainingConfig(backend="rllib").resolved().to_json()
    del earlier["rllib"]
    earlier |= {"env_runners": 4, "address": "10.0.0.2:6379", "code_installed": False}
    assert TrainingConfig.from_json(earlier).rllib == RllibSettings(env_runners=4, address="10.0.0.2:6379")
    with pytest.raises(ConfigError, match=r"^env_runners is given twice"):
        TrainingConfig.from_json(earlier | {"rllib": {"env_runners": 2}})


def sb3_actor(config):
    from agents.bots.model_file import actor_modules
    from agents.training.sb3.train import make_envs, new_model

    envs = make_envs(config)
    try:
        return actor_modules(new_model(config, envs).policy)[0]
    finally:
        envs.close()


def native_actor(config):
    from agents.training.native.learner import ActorCritic, linears

    return linears(ActorCritic(config.hidden).actor)


@pytest.mark.parametrize("backend, actor", [("sb3", sb3_actor), ("native", native_actor)])
def test_the_warm_start_copies_the_init_network_into_the_backends_actor(backend, actor):
    from agents.bots.model_file import load_policy
    from agents.training.imitation.warm_start import load_actor, read_init
    from agents.training.trainer import RunSetupError

    config = TrainingConfig(backend=backend, init="ppo-2p", envs=2).resolved()
    linears = actor(config)
    load_actor(linears, read_init(config))
    copied = [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in linears]
    shipped = load_policy(config.init.model_file).layers
    for (weight, bias), (shipped_weight, shipped_bias) in zip(copied, shipped, strict=True):
        assert np.array_equal(weight, shipped_weight) and np.array_equal(bias, shipped_bias)
    with pytest.raises(RunSetupError, match=r"^init: ppo-2p has tanh layers shaped .* the learner's are tanh"):
        read_init(TrainingConfig(backend="native", init="ppo-2p", hidden=(64,)).resolved())
    with pytest.raises(RunSetupError, match=r"^init: heuristic is not a network"):
        read_init(TrainingConfig(backend=backend, init="heuristic").resolved())


def test_each_backend_brings_its_own_defaults_and_settings_override_them():
    fast = TrainingConfig().resolved()
    assert (fast.envs, fast.n_steps, fast.batch_size, fast.epochs) == (64, 64, 1024, 5)
    assert (fast.eval_every, fast.snapshot_every, fast.checkpoint_every) == (250_000, 150_000, 100_000)
    chosen = TrainingConfig(envs=16, epochs=3, eval_every=7).resolved()
    assert (chosen.envs, chosen.epochs, chosen.eval_every, chosen.n_steps) == (16, 3, 7, 64)
    rllib = TrainingConfig(backend="rllib").resolved()
    assert (rllib.learning_rate, rllib.ent_coef, rllib.imitate_games, rllib.init) == (3e-5, 0.0, 0, fast.init)
    assert (rllib.batch_size, rllib.iteration_steps, rllib.pool) == (1024, 4096, fast.pool)
    assert set(DEFAULTS) == {"sb3", "rllib", "native"}
    assert set(DEFAULTS["rllib"]) == set(DEFAULTS["sb3"])
    native = TrainingConfig(backend="native").resolved()
    assert (native.envs, native.batch_size, native.epochs, native.gamma, native.gae_lambda) == (256, 4096, 2, 1.0, 0.98)
    assert (native.imitate_games, native.every_seat, native.skip_forced, native.eval_games) == (0, True, True, 2000)
    assert native.pool == PoolConfig(p_heuristic=0.0, self_share=1.0) and native.n_steps is None
    assert TrainingConfig.from_scratch(players=(4,)).resolved() == replace(native, players=TableSizes((4,)))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"players": [9]}, "a table size must be from 2 to 6"),
        ({"players": "2"}, "table sizes must be a player count or a list"),
        ({"players": []}, "non-empty"),
        ({"minutes": 0}, "minutes must be above 0"),
        ({"minutes": float("nan")}, "minutes must be a finite number"),
        ({"steps": True}, "steps must be a whole number"),
        ({"seed": -1}, "seed must be from 0"),
        ({"backend": "jax"}, "backend must be one of sb3, rllib, native"),
        ({"pool": {"p_random": 0.5, "p_heuristic": 0.6}}, "add up to more than 1"),
        ({"pool": [0.1]}, "pool must be a PoolConfig"),
        ({"opponent": ""}, "opponent:"),
        ({"hidden": (0,), "backend": "rllib"}, "hidden layer's width must be from 1"),
        ({"hidden": (64,)}, "the sb3 backend cannot honour hidden"),
        ({"rllib": {"address": " "}, "backend": "rllib"}, "address is 'auto' or HOST:PORT"),
        ({"rllib": {"code_installed": True}, "backend": "rllib"}, "code_installed goes with address"),
        ({"rllib": {"env_runners": -1}, "backend": "rllib"}, "env_runners must be"),
        ({"rllib": {"workers": 2}, "backend": "rllib"}, "unknown rllib setting 'workers'"),
        ({"rllib": {"env_runners": 2}}, "the sb3 backend cannot honour env_runners"),
        ({"rllib": {"address": "auto"}, "backend": "native"}, "the native backend cannot honour address"),
        ({"gamma": 0}, "gamma must be a number above 0 and at most 1"),
        ({"gae_lambda": 1.5}, "gae_lambda must be a number above 0 and at most 1"),
        ({"eval_adjust_luck": "yes"}, "eval_adjust_luck must be True or False"),
        ({"rule_facts": 1}, "rule_facts must be True or False"),
        ({"luck_returns": True}, "the sb3 backend cannot honour luck_returns"),
        ({"every_seat": True, "backend": "rllib"}, "the rllib backend cannot honour every_seat"),
        ({"skip_forced": False}, "the sb3 backend cannot honour skip_forced"),
        ({"native": {"clip": 0.3}}, "the sb3 backend cannot honour native"),
        ({"backend": "native", "n_steps": 64}, "the native backend cannot honour n_steps"),
        ({"backend": "native", "snapshot_every": 64}, "the native backend cannot honour snapshot_every"),
        ({"backend": "native", "opponent": "heuristic"}, "the native backend cannot honour opponent"),
        ({"backend": "native", "ent_coef": 0.01}, "the native backend cannot honour ent_coef"),
        ({"backend": "native", "pool": {"self_share": 0.5}}, "the native backend cannot honour a pool with snapshots"),
        ({"luck_worlds": 8, "backend": "native"}, "luck_worlds and luck_value go with luck_returns"),
        ({"luck_value": "critic", "backend": "native"}, "luck_worlds and luck_value go with luck_returns"),
        ({"luck_value": "heuristic", "backend": "native"}, "luck_value must be one of shipped, critic"),
    ],
)
def test_a_config_refuses_what_no_backend_or_this_backend_can_do(settings, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
        TrainingConfig(**settings)
    assert "\n" not in str(error.value)


def test_a_config_round_trips_through_its_json_and_refuses_hostile_run_data():
    config = TrainingConfig(players=(2, 4), opponent="ppo-2p", labels=("a.npz",), pool=PoolConfig(0.1, 0.2, 3))
    data = json.loads(json.dumps(config.to_json()))
    assert TrainingConfig.from_json(data) == config
    assert TrainingConfig.from_json(config.resolved().to_json()) == config.resolved()
    earlier = {**data, "engine": "fast", "vec_env": "dummy", "workers": 4, "shaping": 0.0}  # an earlier version's
    assert TrainingConfig.from_json(earlier) == config
    scheduled = {**data["native"], "learning_rate_end": None, "learning_rate_decay": 60_000_000}  # at constant step
    assert TrainingConfig.from_json({**data, "native": scheduled}) == config
    for hostile, message in [
        ({**data, "engine": "reference"}, r"trained with engine 'reference' \(replaced by the compiled engine's"),
        ({**data, "shaping": 0.5}, r"trained with shaping 0.5 \(score-margin shaping was removed"),
        ({**data, "vec_env": "subproc"}, "trained with vec_env 'subproc'"),
        (
            {**data, "native": {**data["native"], "learning_rate_end": 3e-5}},
            r"trained with native.learning_rate_end 3e-05 \(the step-size schedule was removed",
        ),
        ({**data, "speed": 1}, "unknown setting 'speed'"),
        ({**data, "opponent": "os:system"}, "names code to import, which a run file may not"),
        ({**data, "opponent": 5}, "opponent must be an agent spec"),
        ({**data, "opponent": "x" * 400}, "over 300 characters"),
        ({**data, "pool": {"p_random": "1"}}, "p_random must be a number"),
        ({**data, "pool": {"surprise": 1}}, "surprise"),
        ([], "config must be an object"),
    ]:
        with pytest.raises(ConfigError, match=message):
            TrainingConfig.from_json(hostile)


def test_default_output_directory_skips_runs_already_there(tmp_path, monkeypatch):
    from agents.training.trainer import choose_out

    monkeypatch.chdir(tmp_path)
    assert choose_out(None, False, "sb3")[0] == tmp_path.joinpath("runs/gubs").relative_to(tmp_path)
    (tmp_path / "runs/gubs").mkdir(parents=True)
    (tmp_path / "runs/gubs/run.json").write_text("{}")
    assert str(choose_out(None, False, "sb3")[0]) == "runs/gubs-2"
    assert str(choose_out(None, False, "rllib")[0]) == "runs/rllib"
    assert str(choose_out(None, True, "sb3")[0]) == "runs/gubs"  # the run saved last
    with pytest.raises(SystemExit):
        parse(["--resume", "--backend", "rllib"])  # none under runs/rllib


def committed_run(folder, **state):
    """A run folder whose run.json commits a (fake) checkpoint: enough for parse, which only reads run.json."""
    from agents.training.core.runs import RunState, commit_checkpoint

    folder.mkdir(parents=True, exist_ok=True)
    return commit_checkpoint(folder, RunState(**state), lambda path: path.write_bytes(b"a checkpoint"))


def test_resume_goes_on_with_the_runs_config_unless_flags_set_it_anew(tmp_path):
    stored = TrainingConfig(players=(4,), opponent="heuristic", minutes=1, seed=3)
    committed_run(tmp_path, timesteps=10, config=stored.to_json())
    resumed = parse(["--resume", "--out", str(tmp_path)])
    assert resumed.resume and resumed.config == replace(stored, minutes=None)  # the budget is this command's
    again = parse(["--resume", "--out", str(tmp_path), "--players", "2", "--p-heuristic", "0.5", "--steps", "9"])
    assert again.config == replace(stored, players=(2,), pool=PoolConfig(p_heuristic=0.5), minutes=None, steps=9)
    with pytest.raises(SystemExit):
        parse(["--resume", "--out", str(tmp_path), "--backend", "rllib"])


def test_a_run_started_from_a_network_or_labels_resumes_and_keeps_how_it_started(tmp_path):
    from agents.training.trainer import RunSetupError, open_run

    stored = TrainingConfig(labels=("round1.npz",)).resolved()  # the labels file need not exist any more
    for start in (TrainingConfig().resolved(), stored):
        folder = tmp_path / str(start.init)
        committed_run(folder, timesteps=10, config=start.to_json())
        for command in (None, parse(["--resume", "--out", str(folder), "--steps", "9"]).config):
            run = open_run(command, folder, resume=True, started=0.0)
            assert (run.config.init, run.config.labels) == (start.init, start.labels)
    with pytest.raises(RunSetupError, match=r"^labels and init start a new run"):
        open_run(TrainingConfig(init="gubs-net"), tmp_path / "ppo-2p", resume=True, started=0.0)


def test_a_run_file_of_the_earlier_format_resumes_with_its_settings(tmp_path):
    state = committed_run(tmp_path, timesteps=10)
    data = json.loads((tmp_path / "run.json").read_text())
    del data["config"], data["backend"], data["format"], data["iterations"]
    data["settings"] = {"players": [4], "p_random": 0.25, "p_heuristic": 0.5, "shaping": 0.0, "opponent": None}
    (tmp_path / "run.json").write_text(json.dumps(data))
    config = parse(["--resume", "--out", str(tmp_path)]).config
    assert config == TrainingConfig(players=(4,), pool=PoolConfig(p_random=0.25, p_heuristic=0.5))
    assert state.checkpoint == "checkpoint-000000010.zip"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("{not json", "is not JSON"),
        ({"timesteps": 10, "extra": 1}, "unknown key 'extra'"),
        ({"timesteps": "ten"}, "timesteps must be"),
        ({"backend": "keras"}, "backend must be sb3, rllib, native"),
        ({"config": {"players": [9]}}, "a table size must be from 2 to 6"),
        ({"config": {"players": "2"}}, "table sizes must be"),
        ({"config": {"pool": {"p_random": 2}}}, "p_random must be a number from 0 to 1"),
        ({"config": {"shaping": -1}}, "trained with shaping -1"),
        ({"config": {"speed": 1}}, "unknown setting 'speed'"),
        ({"config": {"opponent": 5}}, "opponent must be an agent spec"),
        ({"config": {"opponent": "ppo-9p"}}, "unknown shipped model"),
        ({"config": {"opponent": "os:system"}}, "names code to import, which a run file may not"),
        ({"backend": "rllib"}, "checkpoint must be a checkpoint-<timesteps> folder"),
        ({"config": {"hidden": [64]}}, "the sb3 backend cannot honour hidden"),
        ({"snapshots": ["/etc/passwd"]}, "is not a snapshots/step_"),
        ({"checkpoint": "checkpoint-000000010"}, "checkpoint must be a checkpoint-<timesteps>.zip"),
    ],
)
def test_a_run_folder_that_cannot_be_trusted_is_a_one_line_error(tmp_path, capsys, change, message):
    state = committed_run(tmp_path, timesteps=10)
    if isinstance(change, str):
        (tmp_path / "run.json").write_text(change)
    else:
        (tmp_path / "run.json").write_text(json.dumps({**json.loads((tmp_path / "run.json").read_text()), **change}))
    with pytest.raises(SystemExit) as exit_info:
        parse(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / state.checkpoint).read_bytes() == b"a checkpoint"  # nothing was changed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"timesteps": 10, "snapshots": ["snapshots/step_000000005.zip"]}, "is missing"),
        ({"checkpoint": "", "checkpoint_sha256": ""}, "older train.py"),
        ({"checkpoint_sha256": "0" * 64}, "does not match the SHA-256 digest"),
    ],
)
def test_a_run_whose_files_do_not_match_is_refused_before_anything_is_loaded(tmp_path, capsys, change, message):
    committed_run(tmp_path, timesteps=10)
    (tmp_path / "run.json").write_text(json.dumps({**json.loads((tmp_path / "run.json").read_text()), **change}))
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_old_rllib_run_is_recognised_but_not_resumed_nor_overwritten(tmp_path, capsys):
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint/run.json").write_text("{}")
    with pytest.raises(SystemExit):
        parse(["--resume", "--out", str(tmp_path)])
    assert "an RLlib run from an older version" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path)])
    assert "already holds a run" in capsys.readouterr().err


def read_eval(path):
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_smoke_run_writes_model_logs_plot_and_resumes(tmp_path):
    out = tmp_path / "run"
    common = ["--out", str(out), "--eval-every", "300", "--snapshot-every", "200", "--checkpoint-every", "256", *TINY]
    assert main(["--steps", "600", "--envs", "1", *common]) == 0
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
    assert state["timesteps"] >= 600 and state["backend"] == "sb3"
    assert TrainingConfig.from_json(state["config"]).pool == PoolConfig()
    assert state["config"]["init"] == "ppo-2p"  # the default start, kept by the resume below

    with pytest.raises(SystemExit):  # an existing run is never overwritten by accident
        main(["--out", str(out)])

    assert main(["--resume", "--steps", "1000", "--envs", "1", "--ent-coef", "0", *common]) == 0
    resumed = json.loads((out / "run.json").read_text())
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(out / resumed["checkpoint"], device="cpu")  # our own run: a full load is fine here
    assert model.ent_coef == 0 and model.learning_rate == 3e-5  # given / kept
    assert resumed["timesteps"] >= 1000 and resumed["config"]["init"] == "ppo-2p"
    assert resumed["seconds"] > state["seconds"]
    assert len(read_eval(out / "eval.csv")) > len(first)
    assert len(list((out / "logs").glob("from_*/progress.csv"))) == 2  # the first part's log is kept
    from agents.bots.model_file import load_policy

    for path in [out / "model.zip", out / resumed["checkpoint"], *out.glob("snapshots/*.zip")]:
        assert load_policy(path).activation == "tanh"  # everything train.py writes loads through the safe path


def test_every_sb3_run_logs_its_gradient_agreement_plots_it_and_prints_its_median(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--out", str(out), "--steps", "700", "--envs", "2", "--imitate-games", "0", "--eval-every", "10000", *TINY]
    assert main(argv) == 0
    with (out / "logs/from_000000000/progress.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(-1 <= float(r["grad_cosine"]) <= 1 for r in rows if r.get("grad_cosine"))
    assert any(r.get("grad_cosine") for r in rows)
    assert "median grad_cosine over the last half of the updates" in capsys.readouterr().out
    assert (out / "learning_curve.png").read_bytes().startswith(b"\x89PNG")


def test_the_rollout_agreement_is_1_when_both_halves_hold_the_same_games():
    from types import SimpleNamespace

    import numpy as np

    from agents.training.sb3.masked_policy import LeanMaskablePolicy
    from agents.training.sb3.train import rollout_grad_cosine
    from gubs_env.envs.selfplay import SelfPlayEnv

    env = SelfPlayEnv(2)
    policy = LeanMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-4, net_arch=[16])
    rng = np.random.default_rng(0)
    obs = (rng.random((32, 1, 512)) < 0.05).astype(np.float32)
    masks = np.ones((32, 1, 356), np.float32)
    actions = rng.integers(0, 356, (32, 1, 1)).astype(np.float32)
    advantages = rng.normal(size=(32, 1)).astype(np.float32)
    same = SimpleNamespace(
        n_envs=2,
        observations=np.repeat(obs, 2, 1),
        action_masks=np.repeat(masks, 2, 1),
        actions=np.repeat(actions, 2, 1),
        advantages=np.repeat(advantages, 2, 1),
    )
    assert rollout_grad_cosine(policy, same) == pytest.approx(1.0, abs=1e-5)
    assert np.isnan(rollout_grad_cosine(policy, SimpleNamespace(n_envs=1)))


@pytest.mark.slow
def test_python_trains_a_run_the_command_resumes_and_the_other_way_round(tmp_path):
    """train(TrainingConfig(...)) is the command's own path: a run started either way resumes the other way."""
    out = tmp_path / "both"
    config = TrainingConfig(steps=256, envs=2, n_steps=64, batch_size=64, eval_games=2, imitate_games=0)
    result = train(config, out=out, progress=False)
    assert result.run_dir == out and result.model == out / "model.zip" and result.timesteps >= 256
    assert {row["opponent"] for row in result.evaluation} == {"random", "heuristic"}
    assert all(isinstance(row["win_rate"], float) and isinstance(row["players"], int) for row in result.evaluation)
    assert main(["--resume", "--out", str(out), "--steps", "512", "--no-progress"]) == 0
    again = train(replace(config, steps=768, eval_every=256), out=out, resume=True, progress=False)
    assert "win rate" not in str(again) and "2p vs heuristic" in str(again)  # evaluated at the end: typed rows
    assert again.timesteps >= 768 and again.config is not None and again.config.envs == 2
    from agents.training.trainer import open_run

    own = open_run(None, out, True, 0.0)  # no config: the run's own, with a new budget (the default 10 minutes)
    assert own.resume and own.config.envs == 2 and (own.config.minutes, own.config.steps) == (10.0, None)


def test_parallel_envs_mixed_table_sizes_and_imitation(tmp_path, capsys):
    out = tmp_path / "mix"
    argv = ["--steps", "300", "--envs", "2"]
    argv += ["--imitate-games", "2", "--players", "2", "4", "--out", str(out), "--eval-every", "10000"]
    argv += ["--snapshot-every", "10000", "--checkpoint-every", "10000", *TINY]
    assert main(argv) == 0
    assert {r["players"] for r in read_eval(out / "eval.csv")} == {"2", "4"}
    assert "imitated" in capsys.readouterr().out


def test_a_run_against_one_fixed_opponent_evaluates_against_it_and_resumes_against_it(tmp_path):
    """--opponent (the exploiter check): kept in run.json, so --resume goes on against the same agent."""
    out = tmp_path / "exploit"
    argv = ["--steps", "256", "--envs", "4", "--opponent", "ppo-2p", "--imitate-games", "0", "--out", str(out), *TINY]
    assert main([*argv, "--eval-every", "10000"]) == 0
    assert {(r["players"], r["opponent"]) for r in read_eval(out / "eval.csv")} == {
        ("2", "random"),
        ("2", "heuristic"),
        ("2", "ppo-2p"),
    }
    resumed = parse(["--resume", "--out", str(out)]).config
    assert str(resumed.opponent) == "ppo-2p" and resumed.players.as_list() == [2]


def test_a_rule_facts_run_imitates_trains_and_writes_actors_every_player_reads_with_their_facts(tmp_path, capsys):
    """--rule-facts: the facts are worked out in the learner's feature layer; every file it writes reads back as a
    rule-facts actor (580 inputs) that agents play, snapshots included; a resume keeps the setting and refuses
    another."""
    import gymnasium as gym
    import numpy as np
    import torch

    from agents import RandomAgent, play_game
    from agents.bots.model_file import load_policy
    from agents.bots.ppo import PPOAgent
    from agents.training.sb3.masked_policy import RuleFactsExtractor
    from agents.training.trainer import RunSetupError
    from gubs_env.encoding.observation import OBS_SIZE
    from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE, policy_input
    from gubs_env.fast import FastGames

    out = tmp_path / "facts"
    argv = ["--out", str(out), "--rule-facts", "--envs", "2", "--imitate-games", "2", "--snapshot-every", "128"]
    argv += ["--eval-every", "10000", "--checkpoint-every", "10000", *TINY]
    assert main(["--steps", "300", *argv]) == 0
    assert "imitated" in capsys.readouterr().out
    assert parse(["--resume", "--out", str(out)]).config.rule_facts
    actors = [load_policy(p) for p in [out / "model.zip", *out.glob("snapshots/*.zip")]]
    assert len(actors) >= 2
    assert all(a.rule_facts and a.observation_size == POLICY_INPUT_SIZE for a in actors)
    assert len(play_game([PPOAgent(actors[0]), RandomAgent()], seed=3).scores()) == 2

    extractor = RuleFactsExtractor(gym.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32))
    games = FastGames(8)
    games.reset(seeds=np.arange(8), num_players=np.array([2, 3, 4, 5, 6, 2, 3, 4]))
    for _ in range(40):  # into the game: cards seen, scores apart
        games.step(np.argmax(games.mask, axis=1))
    assert np.array_equal(extractor(torch.from_numpy(games.obs.copy())).numpy(), policy_input(games.obs))

    assert parse(["--resume", "--out", str(out), "--rule-facts"]).config.rule_facts  # the same setting again
    plain = tmp_path / "plain"
    assert main(["--out", str(plain), "--steps", "64", "--envs", "2", "--imitate-games", "0", *TINY]) == 0
    with pytest.raises(RunSetupError, match="keeps its own rule_facts"):
        train(replace(parse(["--resume", "--out", str(plain)]).config, rule_facts=True), out=plain, resume=True)
    with pytest.raises(RunSetupError, match="rule_facts: its first layer reads the observation and the facts"):
        train(TrainingConfig(rule_facts=True, init=AgentSpec.parse("ppo-2p"), steps=64), out=tmp_path / "init")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
    max_leaves=8,
)
FIELDS = st.sampled_from(sorted(TrainingConfig().to_json()))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(FIELDS, JSON, max_size=5))
@example({"pool": {"\n": None}})  # a line break in an unknown pool key once broke the one-line error
def test_garbage_run_data_is_a_config_error_or_a_config_never_anything_else(data):
    try:
        config = TrainingConfig.from_json(data)
    except ConfigError as error:
        assert "\n" not in str(error)
    else:
        assert TrainingConfig.from_json(config.to_json()) == config


def summary_shares(out: str) -> dict[str, float]:
    """The shares of the summary line ``trained ... the time went to: a 12%, b 30%, ...`` as fractions."""
    line = next(line for line in out.splitlines() if line.startswith("trained ") and "the time went to:" in line)
    listed = line.split("the time went to: ", 1)[1].split(";")[0]
    shares = {}
    for part in listed.split(", "):
        name, _, percent = part.rpartition(" ")
        shares[name] = float(percent.rstrip("%")) / 100
    return shares


def test_a_warm_start_longer_than_a_tiny_budget_is_cut_says_so_and_the_run_still_saves_a_model(tmp_path, capsys):
    out = tmp_path / "tiny"
    argv = ["--minutes", "0.05", "--envs", "2", "--imitate-games", "5000", "--out", str(out), *TINY]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    cut = next(line for line in printed.splitlines() if line.startswith("imitated "))
    assert "cut to the 0.05-minute budget" in cut and "of 5,000 teacher games" in cut and "--minutes" in cut
    assert (out / "model.zip").is_file() and (out / "run.json").is_file()
    shares = summary_shares(printed)
    assert {"warm start: games", "warm start: fit", "evaluations", "the rest"} <= set(shares)
    assert all(0 <= share <= 1 for share in shares.values())
    assert sum(shares.values()) == pytest.approx(1, abs=0.005 * len(shares))  # each rounded to a whole percent


def test_summary_shares_without_a_warm_start_are_each_possible_and_add_up_to_all_of_the_time(tmp_path, capsys):
    out = tmp_path / "plain"
    assert main(["--steps", "300", "--envs", "2", "--imitate-games", "0", "--out", str(out), *TINY]) == 0
    shares = summary_shares(capsys.readouterr().out)
    assert {"environments", "learner", "evaluations", "the rest"} <= set(shares)
    assert not any(name.startswith("warm start") for name in shares)
    assert all(0 <= share <= 1 for share in shares.values())
    assert sum(shares.values()) == pytest.approx(1, abs=0.005 * len(shares))


def test_a_refused_run_leaves_no_folder_behind(tmp_path, capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "runs" / "gubs"
    with pytest.raises(ConfigError, match="no CUDA GPU"):
        train(TrainingConfig(device="cuda", steps=10, imitate_games=0), out=out, progress=False)
    assert not (tmp_path / "runs").exists()
    with pytest.raises(SystemExit) as stopped:
        main(["--device", "cuda", "--steps", "10", "--out", str(out), *TINY])
    assert stopped.value.code == 2 and "no CUDA GPU" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
