"""One bot interface: every agent make_agent builds answers act(observation, action_mask, game=...) the same way."""

import numpy as np
import pytest

from agents.bots.base import NeedsGameError
from agents.bots.names import BUILTIN, CATALOGUE, NETWORKS
from agents.bots.ppo import PPOAgent
from agents.bots.registry import make_agent
from gubs_env import Game
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from tests.agents.sample_agent import FirstLegalAgent

SPECS = [*BUILTIN, "tests.agents.sample_agent:FirstLegalAgent", "search:worlds=8"]


def decision(players: int, seed: int, moves: int) -> tuple[Game, np.ndarray, np.ndarray]:
    """A game after ``moves`` first-legal moves, with its acting seat's observation and mask."""
    game = Game(players, seed=seed)
    for _ in range(moves):
        game.apply(game.legal_actions()[-1])
    seat = game.current_player
    assert seat is not None
    return game, encode(game.state, seat), ActionCodec(players).mask(game.legal_actions(), seat)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("spec", SPECS)
def test_every_listed_agent_answers_the_documented_call_with_a_legal_id(spec, players):
    game, observation, mask = decision(players, seed=11, moves=6)
    agent = make_agent(spec, seed=3)
    agent.reset(3)
    choice = agent.act(observation, mask, game=game)
    assert isinstance(choice, int) and mask[choice] == 1
    if not agent.needs_game:  # the others read the observation alone: the game changes nothing
        agent.reset(3)
        assert agent.act(observation, mask) == choice


@pytest.mark.parametrize("spec", ["search", "ismcts"])
def test_a_search_bot_without_the_game_says_in_one_line_how_to_ask_it(spec):
    _, observation, mask = decision(2, seed=1, moves=0)
    with pytest.raises(NeedsGameError, match="game=game") as raised:
        make_agent(spec).act(observation, mask)
    assert "\n" not in str(raised.value) and isinstance(raised.value, TypeError)


def test_a_search_bot_refuses_a_mask_that_is_not_the_games_decision():
    game, observation, mask = decision(2, seed=1, moves=0)
    _, _, other_mask = decision(2, seed=2, moves=9)
    assert not np.array_equal(mask, other_mask)
    with pytest.raises(ValueError, match="not the legal ids"):
        make_agent("search").act(observation, other_mask, game=game)


def test_the_pettingzoo_loop_of_the_docs_plays_a_search_bot_through_the_envs_game():
    from gubs_env.envs.gubs_aec import env as gubs_env

    env = gubs_env(num_players=2)
    env.reset(seed=4)
    bot = make_agent("search:worlds=8")
    for _ in range(3):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        action = bot.act(observation["observation"], observation["action_mask"], game=env.unwrapped.game)
        assert observation["action_mask"][action] == 1
        env.step(action)


def test_a_users_own_class_with_two_parameters_answers_the_call_with_the_game_too():
    game, observation, mask = decision(2, seed=5, moves=2)
    first = int(np.flatnonzero(mask)[0])
    assert FirstLegalAgent().act(observation, mask) == first
    assert FirstLegalAgent().act(observation, mask, game=game) == first
    assert FirstLegalAgent().act(observation, mask, None) == first


@pytest.mark.parametrize("name", [*NETWORKS, *(CATALOGUE[spec].short for spec in NETWORKS if CATALOGUE[spec].short)])
def test_pretrained_takes_every_shipped_spec_and_short_name(name):
    agent = PPOAgent.pretrained(name)
    assert agent.name in NETWORKS and name in (agent.name, CATALOGUE[agent.name].short)


def test_pretrained_refuses_a_shipped_file_that_is_no_network():
    with pytest.raises(ValueError, match="unknown pretrained model 'heuristic-tuned'"):
        PPOAgent.pretrained("heuristic-tuned")


def test_pretrained_refuses_an_unknown_name_listing_the_shipped_ones():
    with pytest.raises(ValueError, match="gubs-net"):
        PPOAgent.pretrained("ppo-9p")
