"""Short RLlib training runs: masked play, seats and rewards, evaluation, snapshots, the command line, resume.

These run on the session's two-node cluster (conftest.py), with tiny batches and networks.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.bots.registry import make_agent
from agents.rllib.callbacks import EVAL_KEY, SelfPlayCallback
from agents.rllib.env import MASK_KEY, parse_agent_id
from agents.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN, PoolSettings, push_snapshots
from agents.rllib.train import RUN_FILE, build_config, checkpoint_digest, main, main_spec, parse_args

# RLlib registers its env wrapper with gymnasium again for every algorithm built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

TINY = [
    "--envs-per-runner",
    "2",
    "--batch-size",
    "200",
    "--minibatch-size",
    "100",
    "--epochs",
    "1",
    "--hidden",
    "32",
    "32",
    "--eval-games",
    "6",
]


def tiny_args(tmp_path: Path, *extra: str):
    return parse_args([*TINY, "--out", str(tmp_path / "run"), *extra])


def build(args, out: Path | None = None, runner_resources: dict | None = None):
    pool = PoolSettings(args.p_random, args.p_heuristic, args.pool_size)
    callback = SelfPlayCallback(
        pool,
        main_spec(args.hidden),
        sorted(set(args.players)),
        args.snapshot_every,
        args.eval_every,
        args.eval_games,
        out,
        echo=False,
    )
    config = build_config(args, callback)
    if runner_resources:
        config.env_runners(custom_resources_per_env_runner=runner_resources)
    algorithm = config.build_algo()
    push_snapshots(algorithm, [])
    return algorithm


def check_episode(episode) -> None:
    """One learner seat; every action legal under its mask; each seat's return matches the game's winners."""
    modules = {agent: episode.module_for(agent) for agent in episode.agent_ids}
    assert list(modules.values()).count(MAIN) == 1
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
    args = tiny_args(
        tmp_path, "--players", "2", "3", "--env-runners", "0", "--eval-every", "2", "--snapshot-every", "1"
    )
    algorithm = build(args, tmp_path)
    try:
        results = [algorithm.train() for _ in range(2)]
        assert EVAL_KEY not in results[0]
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
            assert len(list(csv.DictReader(f))) == 4
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
    common = [*TINY, "--out", str(tmp_path / "run"), "--env-runners", "0", "--eval-every", "1"]
    assert main([*common, "--iterations", "1", "--checkpoint-every", "1"]) == 0
    state = json.loads((tmp_path / "run" / "checkpoint" / RUN_FILE).read_text())
    assert state["iterations"] == 1 and state["settings"]["hidden"] == [32, 32]
    assert main([*common, "--iterations", "2", "--resume"]) == 0
    state = json.loads((tmp_path / "run" / "checkpoint" / RUN_FILE).read_text())
    assert state["iterations"] == 2 and len(state["snapshots"]) == 0  # snapshots every 10 iterations by default
    assert "resuming" in capsys.readouterr().out
    agent = make_agent(str(tmp_path / "run" / "policy.npz"))
    from agents.bots.random_agent import RandomAgent
    from agents.evaluate.matches import match

    assert match(agent, RandomAgent(), 2, games=4).games == 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "7"], "player counts"),
        (["--env-runners", "-1"], "env-runners"),
        (["--address", " "], "--address"),
        (["--resume"], "--resume: no run to continue under runs/"),
        (["--p-random", "0.7", "--p-heuristic", "0.7"], "add up"),
        (["--batch-size", "10", "--minibatch-size", "20"], "minibatch"),
        (["--iterations", "0"], "iterations"),
        (["--hidden", "0"], "hidden"),
    ],
)
def test_command_line_garbage_exits_with_status_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no runs/ folder: --resume alone has no run to continue
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("content", ["", "{", "[]", '{"iterations": 1}', "\u0000\u00ff"])
def test_resume_refuses_a_corrupt_run_file(tmp_path, content, capsys):
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint" / RUN_FILE).write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "--resume" in capsys.readouterr().err


@pytest.mark.parametrize(
    "changes",
    [
        {"iterations": -1},
        {"iterations": "3"},
        {"seconds": float("nan")},
        {"snapshots": "snapshot_0"},
        {"settings": {"players": [9]}},
        {"settings": {"players": "2"}},
        {"settings": {"p_random": 2}},
        {"settings": {"pool_size": 0}},
        {"settings": {"hidden": [0]}},
        {"settings": {"hidden": "256"}},
        {"settings": []},
    ],
)
def test_resume_refuses_run_files_with_bad_values(tmp_path, changes, capsys):
    state = {"iterations": 1, "learner_steps": 10, "seconds": 1.0, "snapshots": [], "settings": {}} | changes
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint" / RUN_FILE).write_text(json.dumps(state))
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "--resume" in capsys.readouterr().err


def test_resume_refuses_a_run_file_that_is_a_folder_or_too_large(tmp_path, capsys):
    (tmp_path / "checkpoint" / RUN_FILE).mkdir(parents=True)
    with pytest.raises(SystemExit):
        parse_args(["--resume", "--out", str(tmp_path)])
    (tmp_path / "checkpoint" / RUN_FILE).rmdir()
    (tmp_path / "checkpoint" / RUN_FILE).write_text(" " * (2**20 + 1))
    with pytest.raises(SystemExit):
        parse_args(["--resume", "--out", str(tmp_path)])
    assert "over" in capsys.readouterr().err


def test_resume_without_a_checkpoint_and_a_taken_folder_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--resume", "--out", str(tmp_path)])
    for name in ("checkpoint.old", "checkpoint"):  # a kill between the two renames leaves only the old one
        (tmp_path / name).mkdir()
        with pytest.raises(SystemExit):
            parse_args(["--out", str(tmp_path)])
        assert "already holds a run" in capsys.readouterr().err


def test_train_py_hands_rllib_arguments_to_this_backend(capsys):
    import train  # the entry point script at the repository root

    with pytest.raises(SystemExit) as exit_info:
        train.main(["--players", "9", "--backend", "rllib"])
    assert exit_info.value.code == 2 and "agents.rllib.train" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--backend", "tensorflow"])
    assert exit_info.value.code == 2 and "invalid choice" in capsys.readouterr().err


def _committed_checkpoint(folder, **settings):
    """A checkpoint folder with one data file and the run.json that commits it (its digest)."""
    folder.mkdir()
    (folder / "algorithm_state.pkl").write_bytes(b"the checkpoint's own bytes")
    state = {"iterations": 4, "learner_steps": 9, "seconds": 2.0, "snapshots": [], "settings": settings}
    state["checkpoint_sha256"] = checkpoint_digest(folder)
    (folder / RUN_FILE).write_text(json.dumps(state))
    return folder


def test_resume_falls_back_to_the_previous_checkpoint_after_a_kill_mid_swap(tmp_path):
    _committed_checkpoint(tmp_path / "checkpoint.old", players=[3])
    args = parse_args(["--resume", "--out", str(tmp_path)])
    assert args.players == [3] and args.hidden == [256, 256]


def test_resume_loads_only_the_checkpoint_its_run_file_committed(tmp_path, capsys):
    folder = _committed_checkpoint(tmp_path / "checkpoint", players=[2])
    parse_args(["--resume", "--out", str(tmp_path)])  # as committed: accepted
    (folder / "algorithm_state.pkl").write_bytes(b"a payload swapped in")
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "digest mismatch" in capsys.readouterr().err


def test_resume_refuses_a_checkpoint_with_a_link_or_without_a_digest(tmp_path, capsys):
    folder = _committed_checkpoint(tmp_path / "checkpoint", players=[2])
    (folder / "elsewhere").symlink_to(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "is a link" in capsys.readouterr().err
    (folder / "elsewhere").unlink()
    state = json.loads((folder / RUN_FILE).read_text())
    (folder / RUN_FILE).write_text(json.dumps({**state, "checkpoint_sha256": ""}))
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--resume", "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "no checkpoint digest" in capsys.readouterr().err
