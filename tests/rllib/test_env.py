"""The RLlib MultiAgentEnv: seats, observations, rewards, illegal actions and hostile input."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.envs.rllib_env import (
    MASK_KEY,
    OBS_KEY,
    GubsMultiAgentEnv,
    agent_id,
    parse_agent_id,
)


def play_random(env: GubsMultiAgentEnv, seed: int) -> tuple[dict[str, float], dict]:
    """One game of masked random play; returns each agent's summed reward and the last infos."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    while True:
        ((name, observation),) = observations.items()
        seat, players = parse_agent_id(name)
        game = env.game
        assert game is not None and game.current_player == seat and players == game.num_players
        np.testing.assert_array_equal(observation[OBS_KEY], encode(game.state, seat))
        expected_mask = ActionCodec(players).mask(game.legal_actions(), seat)
        np.testing.assert_array_equal(observation[MASK_KEY], expected_mask.astype(np.float32))
        assert env.observation_spaces[name].contains(observation)
        legal = np.flatnonzero(observation[MASK_KEY])
        observations, rewards, terminateds, truncateds, infos = env.step({name: int(rng.choice(legal))})
        for agent, reward in rewards.items():
            totals[agent] = totals.get(agent, 0.0) + reward
        if terminateds["__all__"] or truncateds["__all__"]:
            assert all(not obs[MASK_KEY].any() for obs in observations.values())
            return totals, infos


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_rewards_line_up_with_the_winners_at_every_table_size(players):
    env = GubsMultiAgentEnv({"players": [players]})
    for seed in range(3):
        totals, infos = play_random(env, seed)
        game = env.game
        assert game is not None and game.is_over
        assert sorted(totals) == sorted(agent_id(s, players) for s in range(players))
        winners = set(game.winners())
        for name, total in totals.items():
            seat, _ = parse_agent_id(name)
            assert total == (0.0 if game.truncated else (1.0 if seat in winners else -1.0))
            assert infos[name]["winners"] == sorted(winners)


def test_a_mix_of_table_sizes_gives_each_slot_its_size_with_fixed_agent_ids():
    every = [agent_id(s, 2) for s in range(2)] + [agent_id(s, 5) for s in range(5)]
    for slot, players in [(0, 2), (1, 5), (2, 2), (7, 5)]:
        env = GubsMultiAgentEnv({"players": [2, 5], "slot": slot})
        assert env.possible_agents == every
        for seed in range(3):
            env.reset(seed=seed)
            assert env.game.num_players == players
            assert env.agents == [agent_id(s, players) for s in range(players)]


def test_a_lone_env_takes_its_slot_from_the_env_runners_index():
    from ray.rllib.env.env_context import EnvContext

    assert GubsMultiAgentEnv(EnvContext({"players": [2, 5]}, worker_index=3)).players == 5
    assert GubsMultiAgentEnv({"players": [2, 5]}).players == 2


@pytest.mark.parametrize("slot", [-1, 1.5, True, "1"])
def test_a_bad_slot_is_refused(slot):
    with pytest.raises(ValueError, match="slot"):
        GubsMultiAgentEnv({"players": [2], "slot": slot})


def test_a_seed_fixes_the_game():
    first, second = GubsMultiAgentEnv({"players": [3]}), GubsMultiAgentEnv({"players": [3]})
    assert play_random(first, 5) == play_random(second, 5)
    assert first.game.to_dict() == second.game.to_dict()


def test_an_illegal_id_ends_the_game_with_minus_one_for_its_chooser_only():
    env = GubsMultiAgentEnv({"players": [3]})
    observations, _ = env.reset(seed=1)
    ((first, observation),) = observations.items()
    legal = np.flatnonzero(observation[MASK_KEY])
    observations, _, _, _, _ = env.step({first: int(legal[0])})
    ((second, observation),) = observations.items()
    illegal = int(np.flatnonzero(observation[MASK_KEY] == 0)[0])
    observations, rewards, terminateds, _, infos = env.step({second: illegal})
    assert terminateds["__all__"]
    assert rewards[second] == -1.0 and all(r == 0.0 for name, r in rewards.items() if name != second)
    assert infos[second] == {"illegal_action": illegal}
    with pytest.raises(RuntimeError, match="reset"):
        env.step({second: 0})


@pytest.mark.parametrize(
    "action_dict",
    [
        {"seat_1_of_2": 0},
        {"seat_0_of_2": 0, "seat_1_of_2": 0},
        {},
        {"seat_0_of_2": "Draw"},
        {"seat_0_of_2": 1.0},
        {"seat_0_of_2": True},
        {"seat_0_of_2": NUM_ACTIONS},
        {"seat_0_of_2": -1},
        {"seat_0_of_2": None},
        [("seat_0_of_2", 0)],
        "seat_0_of_2",
    ],
)
def test_garbage_actions_raise_value_error_and_change_nothing(action_dict):
    env = GubsMultiAgentEnv({"players": [2]})
    env.reset(seed=3)
    before = env.game.to_dict()
    with pytest.raises(ValueError):
        env.step(action_dict)
    assert env.game.to_dict() == before


def test_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        GubsMultiAgentEnv().step({"seat_0_of_2": 0})


@pytest.mark.parametrize(
    "config",
    [
        {"players": [1]},
        {"players": [7]},
        {"players": []},
        {"players": "2"},
        {"players": [True]},
        {"players": [2.0]},
        {"players": None},
        {"players": [2], "rule_options": {"max_turns": 0}},
        {"players": [2], "rule_options": {"no_such_rule": 1}},
        {"players": [2], "rule_options": "max_turns=5"},
        {"players": [2], "rule_options": {1: 2}},
        {"players": [2], "skip_forced": 1},
        {"players": [2], "skip_forced": "yes"},
        [("players", [2])],
        "players",
    ],
)
def test_bad_configs_raise_value_error(config):
    with pytest.raises(ValueError):
        GubsMultiAgentEnv(config)


@pytest.mark.parametrize("name", ["seat_2_of_2", "seat_0_of_7", "seat_0_of_1", "player_0", "seat_x_of_2", "", 3, None])
def test_parse_agent_id_refuses_what_it_did_not_make(name):
    with pytest.raises(ValueError):
        parse_agent_id(name)


def test_rllib_environment_check_passes():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(GubsMultiAgentEnv({"players": [2, 6]}))


def test_truncated_game_gives_zero_to_all_and_truncates():
    env = GubsMultiAgentEnv({"players": [2], "rule_options": {"max_turns": 1}})
    totals, infos = play_random(env, 0)
    assert env.game.truncated
    assert set(totals.values()) == {0.0}
    assert all(info["truncated"] for info in infos.values())
