"""Short RLlib runs through the one loop: masked play, seats and rewards, the league through Ray, resume.

These run on the session's two-node cluster (conftest.py), with tiny batches and networks. The run folder and its
bookkeeping are the loop's (tests/test_train.py); what is RLlib's own is tested here, and that its run folder is
the other backends' too.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import agents.training.core.runs as runs
from agents.bots.model_file import load_policy
from agents.bots.names import CATALOGUE
from agents.bots.registry import make_agent
from agents.training import PoolConfig, TrainingConfig, train
from agents.training.command import main, parse
from agents.training.core.reports import PROGRESS_COLUMNS
from agents.training.rllib.backend import RllibBackend
from agents.training.rllib.module import MAIN
from gubs_env.envs.rllib_env import MASK_KEY, parse_agent_id

# RLlib registers its env wrapper with gymnasium again for every algorithm built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

TINY = ["--backend", "rllib", "--envs", "2", "--n-steps", "100", "--batch-size", "100", "--epochs", "1"]
TINY += ["--hidden", "32", "32", "--eval-games", "6", "--final-games", "4", "--no-progress"]
TINY_CONFIG = TrainingConfig(
    backend="rllib",
    iterations=1,
    envs=2,
    n_steps=50,
    batch_size=50,
    epochs=1,
    hidden=(16,),
    eval_games=2,
    final_games=2,
    imitate_games=3,
)
"""One iteration of a small run from Python, with a short warm start."""
SNAPSHOT = load_policy(CATALOGUE["selfplay-2p"].path)


def tiny_config(*extra: str) -> TrainingConfig:
    return parse([*TINY, *extra]).config.resolved()


def check_episode(episode) -> None:
    """Every agent is main; every action legal under its mask; each seat's return matches the game's winners."""
    assert {episode.module_for(agent) for agent in episode.agent_ids} == {MAIN}
    for agent, single in episode.agent_episodes.items():
        masks, actions = np.asarray(single.get_observations()[MASK_KEY]), np.asarray(single.get_actions())
        assert len(masks) == len(actions) + 1  # the last observation closes the seat's episode
        assert masks[np.arange(len(actions)), actions].all(), f"{agent} chose an illegal id"
        assert not masks[-1].any()
        info = single.get_infos(-1)
        assert "illegal_action" not in info
        seat, _ = parse_agent_id(agent)
        expected = 0.0 if info["truncated"] else (1.0 if seat in info["winners"] else -1.0)
        assert sum(single.get_rewards()) == expected


def test_the_league_plays_inside_the_games_and_reaches_the_runners_through_ray(ray_cluster):
    """Every agent is the learner's policy; the heuristic and a snapshot sit inside the games, and are no agents."""
    pool = "--p-heuristic", "0.4", "--self-share", "0.5"
    backend = RllibBackend(tiny_config("--players", "2", "3", "--env-runners", "0", *pool))
    try:
        backend.set_league([("step_000000001.npz", SNAPSHOT)], [1.0])
        runner = backend.algorithm.env_runner
        assert [name for name, _ in runner._tables.seating.snapshots] == ["step_000000001.npz"]
        step = backend.iterate()
        assert step.timesteps > 0 and -1 <= step.diagnostics["grad_cosine"] <= 1 and step.diagnostics["entropy"] > 0
        episodes = [e for e in runner.sample(num_episodes=8, explore=True) if e.is_done]
        for episode in episodes:
            check_episode(episode)
        players = [parse_agent_id(next(iter(e.agent_ids)))[1] for e in episodes]
        assert any(len(e.agent_ids) < n for e, n in zip(episodes, players, strict=True))  # seats played inside
        games = backend._take_games()
        labels = {label for game in games for label in game.labels}
        assert games and labels <= {"heuristic", "self", "snapshot:step_000000001.npz"} and "heuristic" in labels
        assert all(game.learner not in game.seats for game in games)
        backend.set_league([("step_000000001.npz", SNAPSHOT)], [0.25])  # weights alone: the snapshots are kept
        assert runner._tables.seating.draw_weights == [0.25] and runner._tables.seating.snapshots
        exported = backend.policy()
        assert [w.shape for w, _ in exported.layers] == [(32, 512), (32, 32), (356, 32)]
    finally:
        backend.close()


def test_its_run_folder_is_every_backends(ray_cluster, tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TINY, "--out", str(out), "--env-runners", "0", "--iterations", "2", "--eval-every", "1"]) == 0
    files = {p.name for p in out.iterdir() if not p.name.startswith("checkpoint-")}
    assert files == {"run.json", "start.npz", "policy.npz", "eval.csv", "progress.csv", "learning_curve.png"}
    state = json.loads((out / "run.json").read_text())
    assert state["backend"] == "rllib" and state["iterations"] == 2 and state["format"] == 3
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]] and (out / state["checkpoint"]).is_dir()
    with (out / "progress.csv").open(newline="") as f:
        progress = list(csv.DictReader(f))
    assert list(progress[0]) == list(PROGRESS_COLUMNS) and len(progress) == 2
    with (out / "eval.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["deals"] for r in rows} == {"curve", "final"} and rows[0]["timesteps"] == "0"
    printed = capsys.readouterr().out
    assert "final figure (4 games a table size, on deals no choice of the run used)" in printed
    assert "gain over the start against the heuristic, paired on the same deals" in printed


def test_the_command_line_trains_exports_and_resumes(ray_cluster, tmp_path, capsys):
    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--eval-every", "1"]
    assert main([*common, "--iterations", "1", "--checkpoint-every", "1"]) == 0
    assert main([*common, "--iterations", "2", "--resume"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["iterations"] == 2 and state["snapshots"] == []  # pure self-play keeps none
    assert "resuming" in capsys.readouterr().out
    from agents.bots.random_agent import RandomAgent
    from agents.evaluate.matches import match

    assert match(make_agent(str(out / "policy.npz")), RandomAgent(), 2, games=4).games == 4


def test_a_run_resumed_with_a_new_step_size_takes_its_first_update_with_it(ray_cluster, tmp_path, monkeypatch):
    """RLlib restores the optimizer with the checkpoint's step size; the learner sets the run's before an update."""
    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--checkpoint-every", "1"]
    assert main([*common, "--iterations", "1", "--learning-rate", "1e-3"]) == 0
    before_training = []
    original = RllibBackend.iterate

    def step_sizes(learner):
        return [
            group["lr"] for _, optimizer in learner.get_optimizers_for_module(MAIN) for group in optimizer.param_groups
        ]

    def iterate(backend):
        before_training.extend(backend.algorithm.learner_group.foreach_learner(step_sizes))
        return original(backend)

    monkeypatch.setattr(RllibBackend, "iterate", iterate)
    assert main([*common, "--iterations", "2", "--resume", "--learning-rate", "2e-5"]) == 0
    assert [call.get() for call in before_training] == [[2e-5]]


class Killed(BaseException):
    """A simulated kill: not an Exception, so nothing on the way catches it."""


@pytest.mark.parametrize("point", ["checkpoint-file", "run-json"])
def test_a_run_killed_at_a_commit_resumes_to_one_unbroken_history(ray_cluster, tmp_path, monkeypatch, point):
    """Killed at its second commit, before run.json names it or before the older one is deleted."""
    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--iterations", "3"]
    common += ["--checkpoint-every", "1", "--eval-every", "1"]
    commits: list[int] = []

    def crash(name: str, timesteps: int) -> None:
        if name == point:
            commits.append(timesteps)
            if len(commits) == 2:
                raise Killed

    monkeypatch.setattr(runs, "crash_point", crash)
    with pytest.raises(Killed):
        main(common)
    monkeypatch.undo()
    assert json.loads((out / "run.json").read_text())["iterations"] == (0 if point == "checkpoint-file" else 1)
    assert len(list(out.glob("checkpoint*"))) == 2  # the kill's leftover beside the committed one
    assert main([*common, "--resume"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["iterations"] == 3
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]] and not list(out.rglob(".*.tmp"))
    with (out / "progress.csv").open(newline="") as f:
        iterations = [int(r["iterations"]) for r in csv.DictReader(f)]
    assert iterations == [1, 2, 3]  # the killed iteration's row went with it
    with (out / "eval.csv").open(newline="") as f:
        evaluated = [(r["timesteps"], r["opponent"]) for r in csv.DictReader(f) if r["deals"] == "curve"]
    assert len(evaluated) == len(set(evaluated)) == 4 * 2  # the start and each iteration, once against each


def test_the_league_is_played_reported_and_kept_on_resume(ray_cluster, tmp_path):
    out = tmp_path / "league"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--envs", "8", "--n-steps", "128"]
    common += ["--p-heuristic", "0.35", "--self-share", "0.4", "--snapshot-every", "800", "--eval-every", "5000"]
    assert main([*common, "--iterations", "8"]) == 0
    state = json.loads((out / "run.json").read_text())
    shares = state["opponent_seat_shares"]
    assert set(shares) == {"heuristic", "self", "snapshots"} and sum(shares.values()) == pytest.approx(1.0)
    names = {Path(entry).name for entry in state["snapshots"]}
    assert state["league"]["records"] and set(state["league"]["records"]) <= names
    assert (out / "league.csv").read_text().startswith("timesteps,snapshot,games,learner_score")
    seats = sum(state["league"]["seats"].values())
    assert main([*common, "--iterations", "10", "--resume"]) == 0
    again = json.loads((out / "run.json").read_text())
    assert sum(again["league"]["seats"].values()) > seats  # counted on from the run's own league


def test_python_trains_through_the_same_config_and_the_command_resumes_it(ray_cluster, tmp_path, capsys):
    result = train(TINY_CONFIG, out=tmp_path / "py", progress=False)
    assert "imitated" in capsys.readouterr().out  # the warm start of every backend, on RLlib's module
    assert result.model == tmp_path / "py" / "policy.npz" and result.model.is_file()
    assert {row["opponent"] for row in result.evaluation} == {"random", "heuristic"}
    assert main(["--resume", "--out", str(tmp_path / "py"), "--iterations", "2", "--no-progress"]) == 0
    assert json.loads((tmp_path / "py" / "run.json").read_text())["iterations"] == 2
    with (tmp_path / "py" / "progress.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and [int(r["timesteps"]) for r in rows] == sorted(int(r["timesteps"]) for r in rows)
    assert all(-1 <= float(r["grad_cosine"]) <= 1 and float(r["entropy"]) > 0 for r in rows)
    assert "median grad_cosine over the last half" in capsys.readouterr().out
    again = train(replace(TINY_CONFIG, iterations=3), out=tmp_path / "py", resume=True, progress=False)
    assert again.timesteps > result.timesteps


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "7"], "player counts"),
        (["--env-runners", "-1"], "--env-runners: must be at least 0"),
        (["--address", " "], "address is 'auto' or HOST:PORT"),
        (["--resume"], "no run to resume under runs/"),
        (["--p-random", "0.7", "--p-heuristic", "0.7"], "add up"),
        (["--iterations", "0"], "iterations"),
        (["--hidden", "0"], "hidden"),
        (["--every-seat"], "the rllib backend cannot honour every_seat"),
        (["--envs", "2", "--n-steps", "10", "--batch-size", "64"], "cannot exceed an iteration's 20 steps"),
    ],
)
def test_command_line_garbage_exits_with_status_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no runs/ folder: --resume alone has no run to continue
    with pytest.raises(SystemExit) as exit_info:
        main(["--backend", "rllib", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "python train.py" in err and len(err.strip().splitlines()) == 1


def _committed_rllib_run(out: Path) -> Path:
    """A run folder whose run.json commits a checkpoint folder with one data file."""
    from agents.training.core.runs import RunState, commit_checkpoint
    from tests.test_train import committed_run

    def write(path: Path) -> None:
        path.mkdir()
        (path / "algorithm_state.pkl").write_bytes(b"the checkpoint's own bytes")

    config = TrainingConfig(backend="rllib", players=(3,)).to_json()
    committed_run(out, backend="rllib", config=config)
    state = commit_checkpoint(out, RunState(backend="rllib", config=config, timesteps=9, iterations=4), write)
    return out / state.checkpoint


def test_resume_reads_the_runs_config_and_loads_only_the_checkpoint_it_committed(tmp_path, capsys):
    folder = _committed_rllib_run(tmp_path / "run")
    assert parse(["--resume", "--out", str(tmp_path / "run")]).config.players.as_list() == [3]
    (folder / "algorithm_state.pkl").write_bytes(b"a payload swapped in")
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2 and "does not match the SHA-256 digest" in capsys.readouterr().err


def test_resume_refuses_a_checkpoint_with_a_link(tmp_path, capsys):
    folder = _committed_rllib_run(tmp_path / "run")
    (folder / "elsewhere").symlink_to(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2 and "is a link" in capsys.readouterr().err


def test_an_rllib_run_resumes_on_rllib_only(tmp_path, capsys):
    _committed_rllib_run(tmp_path / "run")
    with pytest.raises(SystemExit):
        parse(["--resume", "--out", str(tmp_path / "run"), "--backend", "sb3"])
    assert "resumes on the rllib backend only" in capsys.readouterr().err


def test_a_league_config_reaches_the_env_config_as_plain_data():
    from agents.training.rllib.backend import build_config
    from agents.training.rllib.runner import LEAGUE_KEY, seating_of

    config = replace(tiny_config(), pool=PoolConfig(p_heuristic=0.5, self_share=0.5), opponent="heuristic")
    environment = build_config(config).env_config
    assert json.loads(json.dumps(environment[LEAGUE_KEY])) == environment[LEAGUE_KEY]
    seating = seating_of(environment, 4)
    assert seating.pool == config.pool and seating.opponent is not None and seating.opponent.name == "heuristic"
