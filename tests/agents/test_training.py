"""Self-play training pieces: the league's one rule, the seating every backend plays by, run files and checkpoints."""

from dataclasses import replace

import numpy as np
import pytest

from agents.bots.model_file import load_policy
from agents.bots.names import CATALOGUE
from agents.training.core import seating
from agents.training.core.config import HEURISTIC, RANDOM, SELF, SNAPSHOTS, PoolConfig
from agents.training.core.league import weighted_index
from agents.training.core.seating import Seating
from gubs_env.fast import FastGames


def seated(pool: PoolConfig, games: int = 4000, players: int = 2, **kwargs) -> Seating:
    """A seating of ``games`` games at ``players`` seats, the learner at seat 0, seated once."""
    table = Seating(games, pool, seed=3, **kwargs)
    table.seat(np.arange(games), np.full(games, players), np.zeros(games, dtype=np.int64))
    return table


def test_a_league_without_snapshots_gives_the_learners_share_to_its_current_policy():
    table = seated(PoolConfig(p_random=0.25, p_heuristic=0.25))
    labels = [row[1] for row in table.labels]
    assert set(labels) == {RANDOM, HEURISTIC, SELF} and all(row[0] == "" for row in table.labels)
    assert labels.count(SELF) / len(labels) == pytest.approx(0.5, abs=0.03)
    assert labels.count(RANDOM) / len(labels) == pytest.approx(0.25, abs=0.03)
    players = table.players[:, 1]
    assert set(players[[label == SELF for label in labels]]) == {seating.POLICY}  # the backend plays itself
    assert set(players[[label == RANDOM for label in labels]]) == {seating.RANDOM_PLAY}


def test_the_learners_other_seats_play_a_copy_of_its_actor_where_the_backend_cannot_play_them():
    table = seated(PoolConfig(), games=3, learner_plays_self=False)
    assert (table.players[:, 1] == seating.SELF_COPY).all() and (table.players[:, 0] == seating.POLICY).all()
    games = FastGames(3)
    games.reset(np.arange(3), 2)
    slots, seats = np.arange(3), np.ones(3, dtype=np.int64)
    with pytest.raises(RuntimeError, match="set_self"):
        table.act(games.obs, games.mask, slots, seats)
    table.set_self(load_policy(CATALOGUE["ppo-2p"].path))
    ids = table.act(games.obs, games.mask, slots, seats)
    assert games.mask[slots, ids].all()


def test_every_player_the_seating_gives_a_seat_chooses_a_legal_id_and_its_games_end_with_their_labels():
    weights = load_policy(CATALOGUE["ppo-2p"].path)
    pool = PoolConfig(p_random=0.2, p_heuristic=0.3, self_share=0.3)
    table = Seating(64, pool, seed=1)
    table.set_league([("step_000000100.npz", weights), ("step_000000200.npz", weights)], [1.0, 3.0])
    players = np.array([2, 3, 4, 5, 6, 2, 3, 4] * 8)
    games = FastGames(64)
    games.reset(np.arange(64), players)
    learners = np.arange(64) % players
    table.seat(np.arange(64), players, learners, np.arange(64))
    for _ in range(200):  # every seat's decisions until the games end, the learner's included by the heuristic
        rows = np.flatnonzero(games.actor >= 0)
        if not rows.size:
            break
        actions = np.full(64, -1, dtype=np.int64)
        others = rows[table.plays(rows, games.actor[rows]) != seating.POLICY]
        actions[rows] = np.argmax(games.mask[rows], axis=1)
        if others.size:
            chosen = table.act(games.obs[others], games.mask[others], others, games.actor[others])
            assert games.mask[others, chosen].all()
            actions[others] = chosen
        games.step(actions)
    labels = {label for row in table.labels for label in row if label}
    assert labels == {RANDOM, HEURISTIC, SELF, "snapshot:step_000000100.npz", "snapshot:step_000000200.npz"}
    end = table.game_end(5, 3, int(learners[5]), [1])
    assert end.learner == learners[5] and len(end.labels) == 2 and learners[5] not in end.seats
    assert end.labels == tuple(table.labels[5][seat] for seat in end.seats)


def test_a_fixed_opponent_takes_every_seat_and_is_labelled_by_its_name():
    from agents.bots.heuristic import HeuristicAgent

    table = seated(PoolConfig(p_random=1.0), games=5, players=4, opponent=HeuristicAgent())
    assert (table.players[:, 1:4] == seating.OPPONENT).all() and {row[2] for row in table.labels} == {"heuristic"}


@pytest.mark.parametrize(
    ("pool", "snapshots"),
    [
        (PoolConfig(0.1, 0.4, 5), 3),
        (PoolConfig(0.0, 1.0, 5), 0),
        (PoolConfig(0.2, 0.0, 2), 2),
        (PoolConfig(0, 0), 4),
        (PoolConfig(), 5),
        (PoolConfig(), 0),
        (PoolConfig(0.0, 0.0, self_share=0.0), 3),
        (PoolConfig(0.05, 0.3, self_share=1.0), 2),
    ],
)
def test_the_pool_rule_draws_each_kind_at_its_configured_share(pool, snapshots):
    rng = np.random.default_rng(7)
    weights = rng.random(snapshots) + 0.1
    kinds = [pool.kind(rng.random(), snapshots > 0) for _ in range(40_000)]
    for kind, share in pool.shares(snapshots > 0).items():
        assert kinds.count(kind) / len(kinds) == pytest.approx(share, abs=0.01), kind
    picked = [weighted_index(rng.random(), weights) for kind in kinds if kind == SNAPSHOTS]
    if picked:  # snapshot i is picked in proportion to its weight
        shares = np.bincount(picked, minlength=snapshots) / len(picked)
        assert np.allclose(shares, weights / weights.sum(), atol=0.02)


def test_the_shares_sum_to_one_and_the_learners_seats_are_the_rest():
    for pool in (PoolConfig(), PoolConfig(0.1, 0.2, self_share=0.3), PoolConfig(0.5, 0.5)):
        for has_snapshots in (True, False):
            shares = pool.shares(has_snapshots)
            assert sum(shares.values()) == pytest.approx(1.0)
            assert shares[SELF] + shares[SNAPSHOTS] == pytest.approx(1 - pool.p_random - pool.p_heuristic)
    league = PoolConfig(p_heuristic=0.35, self_share=0.4)
    assert league.shares(False)[SELF] == pytest.approx(0.65)  # before a snapshot: the current policy
    assert league.shares(True) == pytest.approx({RANDOM: 0, HEURISTIC: 0.35, SELF: 0.26, SNAPSHOTS: 0.39})
    assert PoolConfig().shares(True) == {RANDOM: 0, HEURISTIC: 0, SELF: 1, SNAPSHOTS: 0}  # pure self-play


def test_one_draw_gives_the_kind_and_within_the_snapshots_an_even_second_draw():
    pool = PoolConfig(0.1, 0.2, self_share=0.5)  # self from 0.3 to 0.65, snapshots from 0.65 to 1
    assert [pool.kind(u, True) for u in (0.05, 0.15, 0.4, 0.7)] == [RANDOM, HEURISTIC, SELF, SNAPSHOTS]
    assert pool.rest(0.65) == pytest.approx(0.0) and pool.rest(0.825) == pytest.approx(0.5)
    assert pool.rest(1.0) < 1


def test_weighted_index_is_numpys_weighted_choice_draw_for_draw():
    for weights in ([1.0], [1.0, 2.0], [0.5, 0.1, 3.0, 0.0, 1.0]):
        p = np.array(weights) / sum(weights)
        ours, numpys = np.random.default_rng(len(weights)), np.random.default_rng(len(weights))
        for _ in range(500):
            assert weighted_index(ours.random(), weights) == numpys.choice(len(weights), p=p)
    assert weighted_index(0.99, [0.0, 0.0]) == 1  # no weight at all: evenly
    with pytest.raises(ValueError):
        weighted_index(0.5, [])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"p_random": -0.1},
        {"p_heuristic": 1.5},
        {"p_random": 0.6, "p_heuristic": 0.6},
        {"pool_size": 0},
        {"self_share": 1.01},
        {"self_share": float("nan")},
        {"prioritize": -1},
        {"prioritize": "2"},
    ],
)
def test_pool_config_refuses_garbage(kwargs):
    from agents.training.core.config import ConfigError

    with pytest.raises(ConfigError):
        PoolConfig(**kwargs)


def writes(content: bytes):
    """A checkpoint writer that stands in for a learner's save: it writes known bytes."""
    return lambda path: path.write_bytes(content)


def test_a_checkpoint_is_committed_by_run_json_and_older_ones_go(tmp_path):
    import hashlib
    import json

    from agents.training.core.runs import RunState, commit_checkpoint, read_checkpoint

    first = commit_checkpoint(tmp_path, RunState(backend="sb3", timesteps=100), writes(b"first"))
    assert first.checkpoint == "checkpoint-000000100.zip"
    assert json.loads((tmp_path / "run.json").read_text())["checkpoint_sha256"] == hashlib.sha256(b"first").hexdigest()
    second = commit_checkpoint(tmp_path, replace(first, timesteps=200, seconds=3.0), writes(b"second"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-000000200.zip", "run.json"]
    assert read_checkpoint(tmp_path, RunState.load(tmp_path / "run.json")) == b"second"
    # the same timesteps again: the committed file is that model; only run.json changes
    again = commit_checkpoint(tmp_path, replace(second, seconds=4.0), writes(b"other bytes"))
    assert again.checkpoint_sha256 == second.checkpoint_sha256 and RunState.load(tmp_path / "run.json").seconds == 4.0


def test_an_rllib_checkpoint_folder_is_committed_the_same_way_and_verified_file_by_file(tmp_path):
    from agents.training.core.runs import RunFileError, RunState, commit_checkpoint, verified_checkpoint_folder

    def folder(content: bytes):
        def write(path):
            (path / "module").mkdir(parents=True)
            (path / "module" / "state.pkl").write_bytes(content)

        return write

    first = commit_checkpoint(tmp_path, RunState(backend="rllib", timesteps=10, iterations=1), folder(b"one"))
    assert first.checkpoint == "checkpoint-000000010" and (tmp_path / first.checkpoint).is_dir()
    second = commit_checkpoint(tmp_path, replace(first, timesteps=20, iterations=2), folder(b"two"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-000000020", "run.json"]
    loaded = RunState.load(tmp_path / "run.json")
    assert loaded == second and verified_checkpoint_folder(tmp_path, loaded) == tmp_path / "checkpoint-000000020"
    (tmp_path / "checkpoint-000000020" / "module" / "state.pkl").write_bytes(b"swapped")
    with pytest.raises(RunFileError, match="does not match the SHA-256 digest"):
        verified_checkpoint_folder(tmp_path, loaded)
    (tmp_path / "checkpoint-000000020" / "module" / "state.pkl").unlink()
    (tmp_path / "checkpoint-000000020" / "module" / "state.pkl").symlink_to(tmp_path / "run.json")
    with pytest.raises(RunFileError, match="is a link or a special file"):
        verified_checkpoint_folder(tmp_path, loaded)


def test_a_swapped_or_unverifiable_checkpoint_is_never_read_as_trusted(tmp_path):
    from agents.training.core.runs import RunFileError, RunState, commit_checkpoint, read_checkpoint

    state = commit_checkpoint(tmp_path, RunState(backend="sb3", timesteps=5), writes(b"ours"))
    (tmp_path / state.checkpoint).write_bytes(b"someone else's")
    with pytest.raises(RunFileError, match="does not match the SHA-256 digest"):
        read_checkpoint(tmp_path, state)
    (tmp_path / state.checkpoint).unlink()
    with pytest.raises(RunFileError, match="cannot read the checkpoint"):
        read_checkpoint(tmp_path, state)
    with pytest.raises(RunFileError, match=r"names no checkpoint digest"):
        read_checkpoint(tmp_path, RunState(timesteps=5))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"timesteps": 1, "surprise": 2}', "unknown key 'surprise'"),
        ('{"timesteps": "10"}', "timesteps must be"),
        ('{"timesteps": true}', "timesteps must be"),
        ('{"timesteps": -1}', "timesteps must be"),
        ('{"seconds": NaN}', "seconds must be"),
        ('{"settings": []}', r"a run of an earlier version \(run.json format 1\)"),
        ('{"format": 2}', r"a run of an earlier version \(run.json format 2\)"),
        ('{"config": []}', "config must be"),
        ('{"backend": "tf"}', "backend must be sb3, rllib, native"),
        ('{"format": 4}', "format must be 3"),
        ('{"backend": "rllib", "checkpoint": "checkpoint-000000001.zip"}', "checkpoint-<timesteps> folder"),
        ('{"snapshots": "snapshots/step_000000001.npz"}', "snapshots must be"),
        ('{"timesteps": 9, "snapshots": ["/etc/passwd"]}', "is not a snapshots/step_<timesteps>.npz"),
        ('{"timesteps": 9, "snapshots": ["snapshots/../../x/step_000000001.npz"]}', "is not a snapshots/"),
        ('{"timesteps": 9, "snapshots": ["snapshots/step_000000001.zip"]}', "is not a snapshots/"),
        ('{"timesteps": 9, "snapshots": ["snapshots/step_000000010.npz"]}', "at most 9 timesteps"),
        ('{"checkpoint": "../model.zip"}', "checkpoint must be"),
        ('{"checkpoint_sha256": "abc"}', "checkpoint_sha256 must be"),
    ],
)
def test_run_json_with_unknown_keys_or_wrong_kinds_is_a_one_line_error(tmp_path, content, message):
    from agents.training.core.runs import RunFileError, RunState

    (tmp_path / "run.json").write_text(content)
    with pytest.raises(RunFileError, match=message) as error:
        RunState.load(tmp_path / "run.json")
    assert "\n" not in str(error.value)


def test_snapshot_entries_stay_inside_the_runs_snapshots_folder(tmp_path):
    import shutil

    from agents.training.core.runs import RunFileError, snapshot_file

    run, outside = tmp_path / "run", tmp_path / "outside"
    (run / "snapshots").mkdir(parents=True)
    outside.mkdir()
    shutil.copy(CATALOGUE["selfplay-2p"].path, outside / "step_000000001.npz")
    shutil.copy(CATALOGUE["selfplay-2p"].path, run / "snapshots" / "step_000000002.npz")
    assert snapshot_file(run, "snapshots/step_000000002.npz") == run / "snapshots" / "step_000000002.npz"
    (run / "snapshots" / "step_000000001.npz").symlink_to(outside / "step_000000001.npz")
    with pytest.raises(RunFileError, match="leads outside"):
        snapshot_file(run, "snapshots/step_000000001.npz")
    with pytest.raises(RunFileError, match="missing"):
        snapshot_file(run, "snapshots/step_000000003.npz")
    for entry in (str(outside / "step_000000001.npz"), "../outside/step_000000001.npz", "snapshots/x.npz"):
        with pytest.raises(RunFileError, match="is not a snapshots/"):
            snapshot_file(run, entry)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "snapshots").symlink_to(outside)  # the whole folder elsewhere
    with pytest.raises(RunFileError, match="leads outside"):
        snapshot_file(linked, "snapshots/step_000000001.npz")


def test_resuming_discards_what_was_written_after_the_commit(tmp_path):
    import csv

    from agents.training.core.reports import append_csv
    from agents.training.core.runs import RunState, commit_checkpoint, discard_uncommitted

    state = commit_checkpoint(tmp_path, RunState(backend="sb3", timesteps=200), writes(b"at 200"))
    (tmp_path / "checkpoint-000000300.zip").write_bytes(b"written, never committed")
    (tmp_path / ".checkpoint-000000400.zip.tmp").write_bytes(b"half")
    (tmp_path / "snapshots").mkdir()
    for steps in (100, 200, 300):
        (tmp_path / "snapshots" / f"step_{steps:09d}.npz").write_bytes(b"x")
    for steps in (100, 200, 300):
        append_csv(tmp_path / "eval.csv", [{"timesteps": steps, "win_rate": 0.5, "seconds": steps / 10}])
    assert discard_uncommitted(tmp_path, state) == 200
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == ["checkpoint-000000200.zip"]
    assert not list(tmp_path.glob(".*.tmp"))
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == ["step_000000100.npz", "step_000000200.npz"]
    with (tmp_path / "eval.csv").open() as f:
        assert [r["timesteps"] for r in csv.DictReader(f)] == ["100", "200"]
    assert discard_uncommitted(tmp_path, replace(state, timesteps=50)) == -1


@pytest.mark.parametrize("cell", ["¹", "9" * 5000, "-5", "1e3", ""])
def test_a_log_row_whose_timesteps_are_no_count_is_dropped_not_a_crash(tmp_path, cell):
    from agents.training.core.runs import truncate_eval_log

    log = tmp_path / "eval.csv"
    log.write_text(f"timesteps,win_rate\n100,0.5\n{cell},0.5\n", encoding="utf-8")
    assert truncate_eval_log(log, 200) == 100
    assert log.read_text(encoding="utf-8").splitlines() == ["timesteps,win_rate", "100,0.5"]


def test_a_cadence_is_due_once_per_multiple_crossed_from_where_a_run_resumes():
    from agents.training.core.budget import Cadence

    cadence = Cadence(100, timesteps=250)  # a run resumed at 250: the next duty is at 300
    assert [cadence.due(t) for t in (260, 299, 300, 350, 420, 999, 1000)] == [
        False,
        False,
        True,
        False,
        True,
        True,
        True,
    ]
    assert Cadence(None, 0).due(1)  # no cadence given: every timestep


def test_the_learners_device_is_auto_by_default_and_checked():
    import torch

    from agents.training.core.config import ConfigError, TrainingConfig, learner_device

    assert TrainingConfig().device == "auto"
    for bad in ("gpu", "", "cuda:", "cuda:123", 3):
        with pytest.raises(ConfigError, match="device"):
            TrainingConfig(device=bad)
    with pytest.raises(ConfigError, match="cannot honour device cuda:N"):
        TrainingConfig(backend="rllib", device="cuda:1")
    assert TrainingConfig.from_json(TrainingConfig(device="cpu").to_json()).device == "cpu"
    if not torch.cuda.is_available():  # this project's own machines: the CPU build of torch
        assert learner_device("auto") == "cpu"
        with pytest.raises(ConfigError, match="sees no CUDA GPU"):
            learner_device("cuda")
    assert learner_device("cpu") == "cpu"


def test_auto_takes_the_gpu_when_torch_sees_one(monkeypatch):
    import torch

    from agents.training.core.config import learner_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert learner_device("auto") == "cuda" and learner_device("cuda:1") == "cuda:1"


def test_the_sb3_learner_is_built_on_the_configs_device():
    from agents.training.core.config import TrainingConfig
    from agents.training.sb3.backend import Sb3Backend

    assert Sb3Backend(TrainingConfig(backend="sb3", device="cpu", envs=2).resolved()).model.device.type == "cpu"
