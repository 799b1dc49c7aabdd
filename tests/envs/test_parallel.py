"""The parallel view (gubs_env.parallel_env): PettingZoo's parallel tests, the AEC env's games seat for seat, the
wait id, masks in the observation and the infos in the dtype asked for, illegal ids, and the AEC env's info masks."""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import gubs_env
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine import IllegalActionError
from gubs_env.envs.engines import ENGINES
from gubs_env.envs.parallel import PARALLEL_ACTIONS, WAIT, parallel_env

PLAYER_COUNTS = [2, 3, 4, 5, 6]
PETTINGZOO_DICT_WARNINGS = ("Observation space for each agent probably", "Observation is not a NumPy array")


def _unexpected(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if not str(w.message).startswith(PETTINGZOO_DICT_WARNINGS)]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_parallel_api_and_seed_tests_pass_without_a_warning(num_players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(num_players), num_cycles=3000)
        parallel_seed_test(lambda: parallel_env(num_players))
    assert _unexpected(caught) == []  # "Live agent was not given ...", "agent cannot be revived", ...


def _random_masked_games(make, seed: int, games: int) -> list:
    """Whole games of masked random play (PettingZoo's own sampler): everything each step hands out."""
    env = make()
    env.reset(seed=seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed)
    seen = []
    for game in range(games):
        observations, infos = env.reset(seed=seed + game)
        while env.agents:
            actions = {a: env.action_space(a).sample(mask=observations[a]["action_mask"]) for a in env.agents}
            observations, rewards, terminations, truncations, infos = env.step(actions)
            seen.append(
                (
                    {a: (o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in observations.items()},
                    rewards,
                    terminations,
                    truncations,
                    {a: i["action_mask"].tobytes() for a, i in infos.items()},
                )
            )
    return seen


@pytest.mark.parametrize("num_players", [2, 6])
def test_a_seed_plays_the_same_games_every_time_whole_games_through(num_players: int) -> None:
    first = _random_masked_games(lambda: parallel_env(num_players), seed=5, games=3)
    assert first == _random_masked_games(lambda: parallel_env(num_players), seed=5, games=3)
    assert sum(any(step[2].values()) or any(step[3].values()) for step in first) == 3  # three whole games


def _play_both(num_players: int, seed: int, engine: str, **options) -> tuple[int, dict]:
    """The AEC env and the parallel view side by side, the AEC env's decider choosing at random; every step the
    parallel view must show what the AEC env shows, seat for seat. Returns the decisions and the final rewards."""
    aec = gubs_env.raw_env(num_players, engine=engine, **options)
    par = parallel_env(num_players, engine=engine, **options)
    aec.reset(seed=seed)
    observations, infos = par.reset(seed=seed)
    choose = random.Random(seed).choice
    decisions, rewards = 0, {}
    while True:
        for agent in aec.possible_agents:
            seen = aec.observe(agent)
            np.testing.assert_array_equal(observations[agent]["observation"], seen["observation"])
            mask = observations[agent]["action_mask"]
            assert mask is infos[agent]["action_mask"] or np.array_equal(mask, infos[agent]["action_mask"])
            np.testing.assert_array_equal(mask[:NUM_ACTIONS], seen["action_mask"])
            deciding = par.agents and agent == aec.agent_selection
            assert mask[WAIT] == (not deciding) and mask.sum() >= 1
            if not deciding:
                assert mask.sum() == 1  # waiting: the one legal id is WAIT
        if not par.agents:
            return decisions, rewards
        decider = aec.agent_selection
        action = choose(np.flatnonzero(aec.action_mask(decider)).tolist())
        actions = {agent: (action if agent == decider else WAIT) for agent in par.agents}
        aec.step(action)
        observations, rewards, terminations, truncations, infos = par.step(actions)
        decisions += 1
        assert set(observations) == set(rewards) == set(terminations) == set(truncations) == set(infos)
        assert rewards == aec.rewards and terminations == aec.terminations and truncations == aec.truncations


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_the_parallel_view_plays_the_aec_envs_games_seat_for_seat(engine: str, num_players: int) -> None:
    decisions, rewards = _play_both(num_players, seed=num_players, engine=engine)
    assert decisions > 20 and set(rewards.values()) <= {-1.0, 1.0} and 1.0 in rewards.values()


def test_a_truncated_game_ends_with_zero_for_all_and_truncations() -> None:
    _, rewards = _play_both(3, seed=2, engine="fast", max_turns=3)
    assert set(rewards.values()) == {0.0}


@pytest.mark.parametrize("dtype, numpy_dtype", [("int8", np.int8), ("bool", np.bool_), (np.int8, np.int8)])
def test_the_masks_are_in_the_observations_and_the_infos_in_the_dtype_asked_for(dtype, numpy_dtype) -> None:
    env = parallel_env(3, mask_dtype=dtype)
    observations, infos = env.reset(seed=1)
    space = env.observation_space("player_0")
    for _ in range(30):
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            assert mask.dtype == numpy_dtype and mask.shape == (PARALLEL_ACTIONS,)
            assert infos[agent]["action_mask"].dtype == numpy_dtype
            np.testing.assert_array_equal(infos[agent]["action_mask"], mask)
            assert space.contains(observations[agent])
        decider = next(a for a in env.agents if not observations[a]["action_mask"][WAIT])
        legal = np.flatnonzero(observations[decider]["action_mask"])
        actions = dict.fromkeys(env.agents, WAIT) | {decider: int(legal[0])}
        observations, _, _, _, infos = env.step(actions)


def test_the_default_masks_are_int8_and_a_bad_dtype_is_refused() -> None:
    observations, _ = parallel_env(2).reset(seed=0)
    assert observations["player_0"]["action_mask"].dtype == np.int8
    for bad in ("float32", "uint8", True, 1, None):
        with pytest.raises(ValueError, match="mask_dtype"):
            parallel_env(2, mask_dtype=bad)


def _decider(observations: dict) -> str:
    return next(a for a, o in observations.items() if not o["action_mask"][WAIT])


def test_a_waiting_seat_that_acts_loses_the_game_alone() -> None:
    env = parallel_env(3)
    observations, _ = env.reset(seed=4)
    decider = _decider(observations)
    waiting = next(a for a in env.agents if a != decider)
    legal = int(np.flatnonzero(observations[decider]["action_mask"])[0])
    actions = dict.fromkeys(env.agents, WAIT) | {decider: legal, waiting: 0}
    _, rewards, terminations, truncations, infos = env.step(actions)
    assert rewards == {a: (-1.0 if a == waiting else 0.0) for a in env.possible_agents}
    assert all(terminations.values()) and not any(truncations.values()) and env.agents == []
    assert infos[waiting]["illegal_action"] is True
    assert all("illegal_action" not in infos[a] for a in env.possible_agents if a != waiting)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(actions)


def test_the_decider_that_waits_or_picks_an_illegal_id_loses() -> None:
    for illegal in ("wait", "id"):
        env = parallel_env(2)
        observations, _ = env.reset(seed=9)
        decider = _decider(observations)
        mask = observations[decider]["action_mask"]
        chosen = WAIT if illegal == "wait" else int(np.flatnonzero(mask[:NUM_ACTIONS] == 0)[0])
        _, rewards, terminations, _, infos = env.step(dict.fromkeys(env.agents, WAIT) | {decider: chosen})
        assert rewards[decider] == -1.0 and sum(rewards.values()) == -1.0 and all(terminations.values())
        assert infos[decider]["illegal_action"] is True


def test_on_illegal_raise_refuses_and_changes_nothing() -> None:
    env = parallel_env(3, on_illegal="raise")
    observations, _ = env.reset(seed=4)
    decider = _decider(observations)
    waiting = next(a for a in env.agents if a != decider)
    before = env.game.to_dict()
    illegal_id = int(np.flatnonzero(observations[decider]["action_mask"][:NUM_ACTIONS] == 0)[0])
    for actions, words in [
        ({decider: WAIT}, "cannot wait"),
        ({decider: illegal_id}, None),
        ({decider: int(np.flatnonzero(observations[decider]["action_mask"])[0]), waiting: 3}, "waits now"),
    ]:
        with pytest.raises(IllegalActionError, match=words):
            env.step(dict.fromkeys(env.agents, WAIT) | actions)
        assert env.game.to_dict() == before and env.agents == env.possible_agents


@pytest.mark.parametrize(
    "actions, words",
    [
        ([0, 356], "dict"),
        ({"player_9": 0}, "not an agent"),
        ({}, "must decide"),
        ({"DECIDER": 3.0}, "int id"),
        ({"DECIDER": True}, "int id"),
        ({"DECIDER": PARALLEL_ACTIONS}, "int id"),
        ({"DECIDER": -1}, "int id"),
        ({"DECIDER": np.array([1])}, "int id"),
    ],
)
def test_what_is_not_an_id_of_the_action_space_is_refused_and_changes_nothing(actions, words) -> None:
    env = parallel_env(2)
    observations, _ = env.reset(seed=0)
    if isinstance(actions, dict):
        actions = {(_decider(observations) if k == "DECIDER" else k): v for k, v in actions.items()}
    before = env.game.to_dict()
    with pytest.raises(ValueError, match=words):
        env.step(actions)
    assert env.game.to_dict() == before


def test_numpy_ids_and_a_left_out_waiting_seat_are_taken() -> None:
    env = parallel_env(4)
    observations, _ = env.reset(seed=3)
    decider = _decider(observations)
    legal = np.flatnonzero(observations[decider]["action_mask"])
    observations, *_ = env.step({decider: np.int64(legal[0])})
    decider = _decider(observations)
    env.step({decider: np.array(np.flatnonzero(observations[decider]["action_mask"])[0])})


def test_the_env_pickles_and_renders_like_the_aec_env() -> None:
    env = pickle.loads(pickle.dumps(parallel_env(3, render_mode="ansi", max_turns=50)))
    env.reset(seed=2)
    aec = gubs_env.raw_env(3, render_mode="ansi")
    aec.reset(seed=2)
    assert env.render() == aec.render() and env.rule_options == {"max_turns": 50}
    frame = parallel_env(2, render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().ndim == 3


def test_a_new_game_needs_reset_first() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        parallel_env(2).step({"player_0": 0})


@pytest.mark.parametrize("engine", ENGINES)
def test_the_aec_env_puts_each_agents_mask_in_its_infos_too(engine: str) -> None:
    env = gubs_env.env(num_players=4, engine=engine)
    env.reset(seed=6)
    choose = random.Random(6).choice
    for _ in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        for other in env.agents:
            in_infos = env.infos[other]["action_mask"]
            assert in_infos.dtype == np.int8
            np.testing.assert_array_equal(in_infos, env.observe(other)["action_mask"])
        np.testing.assert_array_equal(info["action_mask"], observation["action_mask"])
        done = terminated or truncated
        env.step(None if done else choose(np.flatnonzero(info["action_mask"]).tolist()))


@pytest.mark.parametrize("num_players", [2, 5])
def test_without_the_mask_in_the_observation_it_is_in_the_infos_only(num_players: int) -> None:
    """What AgileRL's multi-agent algorithms need: the plain vector as the observation, the mask in the infos."""
    env = parallel_env(num_players, mask_in_observation=False)
    with_masks = parallel_env(num_players)
    observations, infos = env.reset(seed=3)
    expected, _ = with_masks.reset(seed=3)
    assert env.observation_space("player_0").shape == (512,)
    while env.agents:
        for agent in env.agents:
            assert observations[agent].shape == (512,) and env.observation_space(agent).contains(observations[agent])
            np.testing.assert_array_equal(observations[agent], expected[agent]["observation"])
            np.testing.assert_array_equal(infos[agent]["action_mask"], expected[agent]["action_mask"])
        decider = next(a for a in env.agents if not infos[a]["action_mask"][WAIT])
        actions = dict.fromkeys(env.agents, WAIT) | {decider: int(np.flatnonzero(infos[decider]["action_mask"])[-1])}
        observations, _, _, _, infos = env.step(actions)
        expected, *_ = with_masks.step(actions)
    with pytest.raises(ValueError, match="mask_in_observation"):
        parallel_env(2, mask_in_observation="no")


def test_the_parallel_api_test_passes_without_the_mask_in_the_observation() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(3, mask_in_observation=False, mask_dtype="bool"), num_cycles=500)
    assert _unexpected(caught) == []
