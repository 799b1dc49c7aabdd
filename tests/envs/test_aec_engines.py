"""The PettingZoo env on both engines: the same episodes for a seed, step by step; the ``engine`` argument."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import gubs_env
from gubs_env import IllegalActionError
from gubs_env.encoding.action_table import TEMPLATES
from gubs_env.engine.actions import Op
from gubs_env.envs.gubs_aec import raw_env
from tests.helpers import table

ENGINES = ("fast", "reference")
PLAYER_COUNTS = range(2, 7)


def episode(engine: str, num_players: int, seed: int, **rule_options: Any) -> list[tuple]:
    """Everything ``env()`` shows along one episode of random legal ids (chosen by ``seed``)."""
    e = gubs_env.env(num_players=num_players, engine=engine, **rule_options)
    e.reset(seed=seed)
    choose = random.Random(seed).choice
    seen: list[tuple] = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else choose(np.flatnonzero(obs["action_mask"]).tolist())
        seen.append(
            (
                agent,
                obs["observation"].dtype,
                obs["observation"].tobytes(),
                obs["action_mask"].dtype,
                obs["action_mask"].tobytes(),
                reward,
                terminated,
                truncated,
                info,
                dict(e.rewards),
                list(e.agents),
            )
        )
        e.step(action)
    return seen


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_both_engines_give_the_same_episodes(num_players: int) -> None:
    for seed in (num_players, 50 + num_players):
        fast = episode("fast", num_players, seed)
        assert fast == episode("reference", num_players, seed)
        assert len(fast) > 40 and any(step[5] != 0 for step in fast)  # a whole game, with its final rewards


def test_both_engines_give_the_same_truncated_episode() -> None:
    fast = episode("fast", 3, 1, max_turns=4)
    assert fast == episode("reference", 3, 1, max_turns=4)
    assert fast[-1][7] is True


@pytest.mark.parametrize("num_players", [2, 5])
def test_both_engines_observe_every_agent_alike_at_every_step(num_players: int) -> None:
    envs = {engine: raw_env(num_players, engine=engine) for engine in ENGINES}
    for e in envs.values():
        e.reset(seed=11)
    choose = random.Random(11).choice
    fast, reference = envs["fast"], envs["reference"]
    while reference.agents and not reference.terminations[reference.agent_selection]:
        assert fast.agent_selection == reference.agent_selection
        for agent in reference.possible_agents:
            a, b = fast.observe(agent), reference.observe(agent)
            assert a["observation"].tobytes() == b["observation"].tobytes()
            assert a["action_mask"].tobytes() == b["action_mask"].tobytes()
            assert np.array_equal(fast.action_mask(agent), b["action_mask"])
        action = choose(np.flatnonzero(reference.action_mask(reference.agent_selection)).tolist())
        for e in envs.values():
            e.step(action)
        assert fast.rewards == reference.rewards and fast.terminations == reference.terminations
        assert fast.truncations == reference.truncations and fast.infos.keys() == reference.infos.keys()
        for agent, info in reference.infos.items():  # the masks in the infos: arrays, compared as arrays
            assert info.keys() == fast.infos[agent].keys() == {"action_mask"}
            assert fast.infos[agent]["action_mask"].tobytes() == info["action_mask"].tobytes()
    assert fast.game.to_dict() == reference.game.to_dict()


def test_an_observation_is_the_callers_to_keep() -> None:
    e = raw_env(2, engine="fast")
    e.reset(seed=0)
    first = e.observe(e.agent_selection)
    kept = {key: value.copy() for key, value in first.items()}
    e.step(int(np.flatnonzero(first["action_mask"])[0]))
    e.observe(e.agent_selection)
    assert all(np.array_equal(first[key], kept[key]) for key in kept)
    first["action_mask"][:] = 1  # writing into it does not reach the engine
    assert e.observe(e.agent_selection)["action_mask"].sum() < 356


def test_both_engines_refuse_an_illegal_id_with_the_same_words() -> None:
    messages = []
    for engine in ENGINES:
        e = raw_env(3, engine=engine)
        e.reset(seed=3)
        before = e.game.to_dict()
        illegal = int(np.flatnonzero(e.action_mask(e.agent_selection) == 0)[0])
        with pytest.raises(IllegalActionError) as info:
            e.step(illegal)
        missing_seat = next(i for i, t in enumerate(TEMPLATES) if t.op is Op.PLAY and t.seat == 5)
        with pytest.raises(IllegalActionError) as other:
            e.step(missing_seat)
        messages.append((str(info.value), str(other.value)))
        assert e.game.to_dict() == before and e.agent_selection == "player_0"
    assert messages[0] == messages[1]


def test_an_illegal_id_under_env_ends_both_engines_games_alike() -> None:
    finals = []
    for engine in ENGINES:
        e = gubs_env.env(num_players=3, engine=engine)
        e.reset(seed=0)
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        final = []
        for agent in e.agent_iter():
            _, reward, terminated, truncated, info = e.last()
            final.append((agent, reward, terminated, truncated, {k: np.asarray(v).tobytes() for k, v in info.items()}))
            e.step(None)
        finals.append(final)
    assert finals[0] == finals[1]
    assert finals[0][0][1:4] == (-1, True, True)  # the culprit's -1 (the wrapper ends the game for everyone)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test_on_the_reference_engine(num_players: int) -> None:
    api_test(gubs_env.env(num_players=num_players, engine="reference"), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test_on_the_reference_engine(num_players: int) -> None:
    seed_test(lambda: gubs_env.env(num_players=num_players, engine="reference"), num_cycles=300)


# --- the engine argument and the position --------------------------------------------------------------


def test_auto_is_the_fast_engine_when_numba_is_installed() -> None:
    assert gubs_env.env(2).unwrapped.engine == "fast"
    assert raw_env(2, engine="auto").engine == "fast"
    assert raw_env(2, engine="reference").engine == "reference"


@pytest.mark.parametrize("engine", ["gpu", "", None, 1, "FAST"])
def test_a_bad_engine_is_a_value_error(engine: object) -> None:
    with pytest.raises(ValueError, match="engine"):
        raw_env(2, engine=engine)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="engine"):
        gubs_env.env(2, engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ENGINES)
def test_assigning_a_position_continues_from_it(engine: str) -> None:
    e = raw_env(3, engine=engine)
    e.reset(seed=0)
    position = table(num_players=3, hands=[{"Gub": 1}, {"Lure": 1}, {"Feather": 1}], turn_player=1)
    e.game = position
    assert e.agent_selection == "player_1" and e.game.to_dict() == position.to_dict()
    e.game = position.to_dict()
    assert e.game.to_dict() == position.to_dict()
    before = e.game.to_dict()
    with pytest.raises(ValueError, match="3 players"):
        e.game = table(num_players=2)
    with pytest.raises(ValueError):
        e.game = {"not": "a position"}  # type: ignore[assignment]
    assert e.game.to_dict() == before


def test_the_fast_engines_game_is_a_copy() -> None:
    e = raw_env(2, engine="fast")
    e.reset(seed=0)
    copy = e.game
    copy.apply(copy.legal_actions()[0])
    assert e.game.to_dict() != copy.to_dict()


def test_using_before_reset_raises_on_both_engines() -> None:
    for engine in ENGINES:
        with pytest.raises(RuntimeError):
            raw_env(2, engine=engine).observe("player_0")
        with pytest.raises(RuntimeError):
            _ = raw_env(2, engine=engine).game


def test_an_unknown_agent_is_a_value_error() -> None:
    e = raw_env(2, engine="fast")
    e.reset(seed=0)
    with pytest.raises(ValueError, match="agent"):
        e.observe("player_7")
