"""The env on the compiled engine against the readable one, and the batch of games the fast env runner steps."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.training.rllib.fast_tables import FastTables
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine.players import TableSizes
from gubs_env.envs.rllib_env import MASK_KEY, GubsMultiAgentEnv


def assert_same(left, right) -> None:
    """Equal results: the same keys in the same order, equal arrays of the same dtype, equal values."""
    if isinstance(left, dict):
        assert isinstance(right, dict) and list(left) == list(right)
        for key in left:
            assert_same(left[key], right[key])
    elif isinstance(left, (tuple, list)):
        assert type(left) is type(right) and len(left) == len(right)
        for a, b in zip(left, right, strict=True):
            assert_same(a, b)
    elif isinstance(left, np.ndarray):
        assert isinstance(right, np.ndarray) and left.dtype == right.dtype
        np.testing.assert_array_equal(left, right)
    else:
        assert left == right


def play(env: GubsMultiAgentEnv, seed: int, games: int, illegal_at: int | None = None) -> list:
    """Everything ``games`` games from ``seed`` return, with random legal actions (one illegal id at a step)."""
    rng = np.random.default_rng(seed)
    trace: list = []
    for game in range(games):
        observations, infos = env.reset(seed=seed if game == 0 else None)
        trace += [observations, infos, list(env.agents)]
        for step in range(10_000):
            ((name, observation),) = observations.items()
            mask = observation[MASK_KEY]
            ids = np.flatnonzero(mask == 0) if step == illegal_at else np.flatnonzero(mask)
            result = env.step({name: int(rng.choice(ids))})
            trace.append(result)
            observations = result[0]
            if result[2]["__all__"] or result[3]["__all__"]:
                trace.append(env.game.to_dict())
                break
    return trace


@pytest.mark.parametrize("players", [[2], [3], [4], [5], [6], [2, 4, 6], [3, 5]])
def test_both_engines_give_the_same_episodes_for_a_seed(players):
    fast = GubsMultiAgentEnv({"players": players, "engine": "fast"})
    reference = GubsMultiAgentEnv({"players": players, "engine": "reference"})
    for seed in range(2):
        assert_same(play(fast, seed, games=2), play(reference, seed, games=2))


def first_legal_game(env: GubsMultiAgentEnv, seed: int) -> tuple[list, dict]:
    """One game from ``seed`` in which every seat plays its lowest legal id: the results and the game played."""
    observations, _ = env.reset(seed=seed)
    trace: list = [observations]
    while True:
        ((name, observation),) = observations.items()
        result = env.step({name: int(np.flatnonzero(observation[MASK_KEY])[0])})
        trace.append(result)
        observations = result[0]
        if result[2]["__all__"] or result[3]["__all__"]:
            return trace, env.game.to_dict()


@pytest.mark.parametrize("players", [[2], [3, 5]])
def test_skipping_forced_decisions_plays_the_same_games_with_no_single_id_shown(players):
    """Both engines of the env and the tables' slots skip alike; the game played is the one every decision gives."""
    sizes = TableSizes.of(players)
    tables = FastTables(len(players), sizes, {}, skip_forced=True)
    for slot in range(len(players)):
        config = {"players": players, "slot": slot}
        skipping = {
            engine: GubsMultiAgentEnv({**config, "engine": engine, "skip_forced": True})
            for engine in ("fast", "reference")
        }
        every = GubsMultiAgentEnv({**config, "engine": "fast"})
        for seed in range(3):
            trace, game = first_legal_game(skipping["reference"], seed)
            assert_same(first_legal_game(skipping["fast"], seed), (trace, game))
            every_trace, every_game = first_legal_game(every, seed)
            assert game == every_game and len(trace) < len(every_trace)  # a forced id is the lowest legal one
            shown = [trace[0]] + [result[0] for result in trace[1:-1]]
            assert all(observation[MASK_KEY].sum() > 1 for step in shown for observation in step.values())
            observations = tables.reset([slot], [seed])[0]
            assert_same(observations, trace[0])
            for expected in trace[1:]:
                ((_, observation),) = observations.items()
                actions = np.full(len(players), -1, dtype=np.int64)
                actions[slot] = int(np.flatnonzero(observation[MASK_KEY])[0])
                result = tables.step(actions)[slot]
                assert_same(result, expected)
                observations = result[0]


@pytest.mark.parametrize("illegal_at", [0, 1, 7])
def test_an_illegal_id_ends_the_game_alike_on_both_engines(illegal_at):
    config = {"players": [3]}
    fast = GubsMultiAgentEnv({**config, "engine": "fast"})
    reference = GubsMultiAgentEnv({**config, "engine": "reference"})
    trace = play(fast, 4, games=1, illegal_at=illegal_at)
    assert_same(trace, play(reference, 4, games=1, illegal_at=illegal_at))
    _, rewards, terminateds, _, infos = trace[-2]
    assert terminateds["__all__"] and -1.0 in rewards.values()
    assert any("illegal_action" in info for info in infos.values())


def test_truncation_alike_on_both_engines():
    config = {"players": [2, 3], "rule_options": {"max_turns": 2}}
    fast = GubsMultiAgentEnv({**config, "engine": "fast"})
    trace = play(fast, 1, games=3)
    assert_same(trace, play(GubsMultiAgentEnv({**config, "engine": "reference"}), 1, games=3))
    assert any(isinstance(item, tuple) and item[3]["__all__"] for item in trace)


@pytest.mark.parametrize(
    "action_dict",
    [{"seat_1_of_2": 0}, {}, {"seat_0_of_2": 1.0}, {"seat_0_of_2": True}, {"seat_0_of_2": NUM_ACTIONS}, {"x": 0}],
)
def test_the_fast_env_refuses_garbage_and_changes_nothing(action_dict):
    env = GubsMultiAgentEnv({"players": [2], "engine": "fast"})
    env.reset(seed=3)
    before = env.game.to_dict()
    with pytest.raises(ValueError):
        env.step(action_dict)
    assert env.game.to_dict() == before


@pytest.mark.parametrize("engine", ["turbo", 1, None, ["fast"]])
def test_an_unknown_engine_is_refused(engine):
    with pytest.raises(ValueError, match="engine"):
        GubsMultiAgentEnv({"engine": engine})


def test_rllib_environment_check_passes_on_the_fast_engine():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(GubsMultiAgentEnv({"players": [2, 6], "engine": "fast"}))


def started_tables() -> FastTables:
    tables = FastTables(3, TableSizes((2, 4)), {})
    tables.reset([0, 1, 2], [10, 11, 12])
    return tables


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros(3, dtype=np.int32),
        np.zeros(2, dtype=np.int64),
        np.zeros((3, 1), dtype=np.int64),
        [0, 0, 0],
        np.array([0, NUM_ACTIONS, 0], dtype=np.int64),
        np.array([0, -2, 0], dtype=np.int64),
    ],
)
def test_the_batch_refuses_bad_action_arrays_and_changes_nothing(actions):
    tables = started_tables()
    before = [tables.export(slot).to_dict() for slot in range(3)]
    with pytest.raises(ValueError):
        tables.step(actions)
    assert [tables.export(slot).to_dict() for slot in range(3)] == before


def test_the_batch_refuses_an_action_for_a_game_that_is_over():
    tables = FastTables(3, TableSizes((2, 4)), {})
    observations = tables.reset([0, 1, 2], [10, 11, 12])
    ((_, observation),) = observations[1].items()
    illegal = int(np.flatnonzero(observation[MASK_KEY] == 0)[0])
    results = tables.step(np.array([-1, illegal, -1], dtype=np.int64))
    assert results[1] is not None and results[1][2]["__all__"]  # the illegal id ended slot 1's game
    assert tables.seat_to_act(1) == -1
    with pytest.raises(ValueError, match="over"):
        tables.step(np.array([-1, 0, -1], dtype=np.int64))


def test_slots_that_do_not_act_are_left_as_they_are():
    tables = started_tables()
    before = tables.export(2).to_dict()
    observation = tables.reset([0], [10])[0]
    ((_, first),) = observation.items()
    results = tables.step(np.array([int(np.flatnonzero(first[MASK_KEY])[0]), -1, -1], dtype=np.int64))
    assert results[1] is None and results[2] is None and results[0] is not None
    assert tables.export(2).to_dict() == before
