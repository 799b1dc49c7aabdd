"""Short RLlib training runs: masked play, seats and rewards, evaluation, snapshots, the command line, resume.

These run on the session's two-node cluster (conftest.py), with tiny batches and networks. The run folder and its
checks are the sb3 backend's (tests/test_train.py); what is RLlib's own is tested here.
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
from agents.bots.registry import make_agent
from agents.training import TrainingConfig, train
from agents.training.command import main as command
from agents.training.command import parse
from agents.training.rllib.callbacks import EVAL_KEY, SelfPlayCallback
from agents.training.rllib.env import MASK_KEY, agent_id, parse_agent_id
from agents.training.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN, learner_seat, push_snapshots
from agents.training.rllib.train import build_config, main_spec

# RLlib registers its env wrapper with gymnasium again for every algorithm built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

TINY = ["--envs", "2", "--n-steps", "100", "--batch-size", "100", "--epochs", "1", "--hidden", "32", "32"]
TINY += ["--eval-games", "6", "--no-progress", "--imitate-games", "0"]
TINY_CONFIG = TrainingConfig(
    backend="rllib",
    iterations=1,
    envs=2,
    n_steps=50,
    batch_size=50,
    epochs=1,
    hidden=(16,),
    eval_games=2,
    imitate_games=3,
)
"""One iteration of a small run from Python, with a short warm start."""


def main(argv: list[str]) -> int:
    """``python train.py --backend rllib ...``, in process."""
    return command(argv, backend="rllib")


def tiny_config(*extra: str) -> TrainingConfig:
    return parse([*TINY, *extra], backend="rllib").config.resolved()


def build(config: TrainingConfig, out: Path | None = None, runner_resources: dict | None = None):
    callback = SelfPlayCallback(config, main_spec(config.hidden), out)
    rllib_config = build_config(config, callback)
    if runner_resources:
        rllib_config.env_runners(custom_resources_per_env_runner=runner_resources)
    algorithm = rllib_config.build_algo()
    push_snapshots(algorithm, [])
    return algorithm


def check_episode(episode) -> None:
    """The learner's seat is main's (the league may seat main elsewhere too); every action legal under its mask;
    each seat's return matches the game's winners."""
    modules = {agent: episode.module_for(agent) for agent in episode.agent_ids}
    players = parse_agent_id(next(iter(modules)))[1]
    assert modules[agent_id(learner_seat(episode, players), players)] == MAIN
    for agent, single in episode.agent_episodes.items():
        masks, actions = np.asarray(single.get_observations()[MASK_KEY]), np.asarray(single.get_actions())
        assert len(masks) == len(actions) + 1  # the last observation closes the seat's episode
        assert masks[np.arange(len(actions)), actions].all(), f"{modules[agent]} chose an illegal id"
        assert not masks[-1].any()
        info = single.get_infos(-1)
        assert "illegal_action" not in info
        seat, _ = parse_agent_id(agent)
        expected = 0.0 if info["truncated"] else (1.0 if seat in info["winners"] else -1.0)
        assert sum(single.get_rewards()) == expected


def test_short_training_masks_seats_rewards_evaluation_and_snapshots(ray_cluster, tmp_path):
    # an iteration is 200 environment steps, of which main takes its own seat's and the league's self seats': a
    # snapshot and an evaluation after each iteration (the cadences themselves: tests/agents/test_training.py)
    config = tiny_config("--players", "2", "3", "--env-runners", "0", "--eval-every", "1", "--snapshot-every", "1")
    algorithm = build(config, tmp_path)
    try:
        results = [algorithm.train() for _ in range(2)]
        assert EVAL_KEY in results[0]
        rows = results[1][EVAL_KEY]
        assert [(r["players"], r["opponent"]) for r in rows] == [
            (2, "random"),
            (2, "heuristic"),
            (3, "random"),
            (3, "heuristic"),
        ]
        for row in rows:
            assert row["games"] == 6 and 0 <= row["low"] <= row["win_rate"] <= row["high"] <= 1
        with (tmp_path / "eval.csv").open() as f:
            assert len(list(csv.DictReader(f))) == 8
        # a snapshot after each iteration, pushed into the env runner's module: it plays the current weights
        assert ACTIVE_SNAPSHOTS == ["snapshot_0", "snapshot_1"]
        learner = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        played = algorithm.env_runner.module["snapshot_1"].get_state()
        for key, value in played.items():
            np.testing.assert_array_equal(np.asarray(value), np.asarray(learner[key]))
        episodes = algorithm.env_runner.sample(num_episodes=6, explore=True)
        finished = [e for e in episodes if e.is_done]
        assert finished
        for episode in finished:
            check_episode(episode)
        used = {e.module_for(a) for e in finished for a in e.agent_ids}
        assert MAIN in used and used - {MAIN}
    finally:
        algorithm.stop()


def test_command_line_trains_exports_and_resumes(ray_cluster, tmp_path, capsys):
    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--eval-every", "1", "--backend", "rllib"]
    assert main([*common, "--iterations", "1", "--checkpoint-every", "1"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["backend"] == "rllib" and state["iterations"] == 1 and state["config"]["hidden"] == [32, 32]
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]] and (out / state["checkpoint"]).is_dir()
    assert main([*common, "--iterations", "2", "--resume"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["iterations"] == 2 and state["snapshots"] == []  # snapshots every 20,000 learner steps
    assert "resuming" in capsys.readouterr().out
    agent = make_agent(str(out / "policy.npz"))
    from agents.bots.random_agent import RandomAgent
    from agents.evaluate.matches import match

    assert match(agent, RandomAgent(), 2, games=4).games == 4


def test_a_run_resumed_with_a_new_step_size_takes_its_first_update_with_it(ray_cluster, tmp_path, monkeypatch):
    """RLlib restored the optimizer with the checkpoint's step size and set the run's only after an update."""
    from agents.training.rllib import train as rllib_train
    from agents.training.rllib.selfplay import MAIN

    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--backend", "rllib", "--checkpoint-every", "1"]
    assert main([*common, "--iterations", "1", "--learning-rate", "1e-3"]) == 0
    before_training = []
    original = rllib_train._train_loop

    def step_sizes(learner):
        return [
            group["lr"] for _, optimizer in learner.get_optimizers_for_module(MAIN) for group in optimizer.param_groups
        ]

    def train_loop(algorithm, *args):
        before_training.extend(call.get() for call in algorithm.learner_group.foreach_learner(step_sizes))
        return original(algorithm, *args)

    monkeypatch.setattr(rllib_train, "_train_loop", train_loop)
    assert main([*common, "--iterations", "2", "--resume", "--learning-rate", "2e-5"]) == 0
    assert before_training == [[2e-5]]


class Killed(BaseException):
    """A simulated kill: not an Exception, so nothing on the way catches it."""


@pytest.mark.parametrize("point", ["checkpoint-file", "run-json"])
def test_a_run_killed_at_a_commit_resumes_to_one_unbroken_history(ray_cluster, tmp_path, monkeypatch, point):
    """Killed at its second checkpoint, before run.json names it or before the older one is deleted."""
    out = tmp_path / "run"
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--backend", "rllib", "--iterations", "3"]
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
    assert json.loads((out / "run.json").read_text())["iterations"] == (1 if point == "checkpoint-file" else 2)
    assert len(list(out.glob("checkpoint*"))) == 2  # the kill's leftover beside the committed one
    assert main([*common, "--resume"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["iterations"] == 3
    assert [p.name for p in out.glob("checkpoint*")] == [state["checkpoint"]] and not list(out.rglob(".*.tmp"))
    with (out / "progress.csv").open(newline="") as f:
        steps = [int(r["timesteps"]) for r in csv.DictReader(f)]
    assert len(steps) == 3 and steps == sorted(set(steps))  # the killed iteration's row went with it
    with (out / "eval.csv").open(newline="") as f:
        evaluated = [(r["timesteps"], r["opponent"]) for r in csv.DictReader(f)]
    assert len(evaluated) == len(set(evaluated)) == 3 * 2  # each iteration against random and heuristic, once
    assert make_agent(str(out / "policy.npz")) is not None


def test_the_league_is_played_reported_and_kept_on_resume(ray_cluster, tmp_path):
    out = tmp_path / "league"
    # about 4 games an iteration (a game is some 280 env steps), snapshots every 3 or so: enough snapshot seats
    # that one is all but sure to be scored, and no slot replaced (its record would go)
    common = [*TINY, "--out", str(out), "--env-runners", "0", "--backend", "rllib", "--envs", "8", "--n-steps", "128"]
    common += ["--snapshot-every", "1500", "--eval-every", "5000", "--checkpoint-every", "100000"]
    assert main([*common, "--iterations", "12"]) == 0
    state = json.loads((out / "run.json").read_text())
    shares = state["opponent_seat_shares"]
    assert set(shares) == {"heuristic", "self", "snapshots"} and sum(shares.values()) == pytest.approx(1.0)
    assert state["league"]["records"] and set(state["league"]["records"]) <= set(state["snapshots"])
    assert (out / "league.csv").read_text().startswith("timesteps,snapshot,games,learner_score")
    seats = sum(state["league"]["seats"].values())
    assert main([*common, "--iterations", "14", "--resume"]) == 0
    again = json.loads((out / "run.json").read_text())
    assert sum(again["league"]["seats"].values()) > seats  # counted on from the run's own league


def test_python_trains_through_the_same_config_and_the_command_resumes_it(ray_cluster, tmp_path, capsys):
    result = train(TINY_CONFIG, out=tmp_path / "py", progress=False)
    assert "imitated" in capsys.readouterr().out  # the warm start of the sb3 backend, on RLlib's module
    assert result.model == tmp_path / "py" / "policy.npz" and result.model.is_file()
    assert {row["opponent"] for row in result.evaluation} == {"random", "heuristic"}
    assert main(["--resume", "--out", str(tmp_path / "py"), "--iterations", "2", "--no-progress"]) == 0
    assert json.loads((tmp_path / "py" / "run.json").read_text())["iterations"] == 2
    # every iteration's diagnostics, the gradient agreement among them, one row per iteration across the resume
    with (tmp_path / "py" / "progress.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and [int(r["timesteps"]) for r in rows] == sorted(int(r["timesteps"]) for r in rows)
    assert all(-1 <= float(r["grad_cosine"]) <= 1 and float(r["entropy"]) > 0 for r in rows)
    assert "median grad_cosine over the last half" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "7"], "player counts"),
        (["--env-runners", "-1"], "env-runners"),
        (["--address", " "], "address is 'auto' or HOST:PORT"),
        (["--resume"], "no run to resume under runs/"),
        (["--p-random", "0.7", "--p-heuristic", "0.7"], "add up"),
        (["--iterations", "0"], "iterations"),
        (["--hidden", "0"], "hidden"),
        (["--opponent", "heuristic"], "the rllib backend cannot honour opponent"),
        (["--envs", "2", "--n-steps", "10", "--batch-size", "64"], "cannot exceed an iteration's 20 steps"),
    ],
)
def test_command_line_garbage_exits_with_status_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no runs/ folder: --resume alone has no run to continue
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "python train.py" in err and len(err.strip().splitlines()) == 1


def _committed_rllib_run(out: Path) -> Path:
    """A run folder whose run.json commits a checkpoint folder with one data file."""
    from agents.training.core.runs import RunState, commit_checkpoint

    def write(path: Path) -> None:
        path.mkdir()
        (path / "algorithm_state.pkl").write_bytes(b"the checkpoint's own bytes")

    out.mkdir()
    config = TrainingConfig(backend="rllib", players=(3,)).to_json()
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


def test_a_rule_facts_run_imitates_trains_evaluates_and_exports_an_actor_that_reads_the_facts(ray_cluster, tmp_path):
    """--backend rllib --rule-facts: the warm start, the env runners' passes, the learner's, the evaluation and the
    export all go through the module's feature layer; the exported actor plays as a rule-facts model file."""
    from agents.bots.model_file import load_policy
    from agents.bots.random_agent import RandomAgent
    from agents.evaluate.matches import match
    from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE

    result = train(replace(TINY_CONFIG, rule_facts=True), out=tmp_path / "facts", progress=False)
    weights = load_policy(result.model)
    assert weights.rule_facts and weights.observation_size == POLICY_INPUT_SIZE
    assert match(make_agent(str(result.model)), RandomAgent(), 2, games=2).games == 2
    assert {row["opponent"] for row in result.evaluation} == {"random", "heuristic"}
