"""The shipped models load by name and play full games at their table sizes."""

import pytest

from agents import RandomAgent, play_game
from agents.heuristic import HeuristicAgent
from agents.ppo import PRETRAINED, PPOAgent


@pytest.mark.parametrize(("name", "num_players"), [("2p", 2), ("4p", 4)])
def test_shipped_model_plays_full_games(name, num_players):
    agent = PPOAgent.pretrained(name)
    assert agent.name == f"ppo-{name}"
    for seed in range(3):
        others = [RandomAgent(seed), HeuristicAgent(seed)] * 3
        game = play_game([agent, *others[: num_players - 1]], seed=seed)
        assert game.is_over


def test_every_shipped_name_has_its_file():
    from agents.ppo import MODELS_DIR

    assert sorted(PRETRAINED) == ["2p", "4p"]
    assert all((MODELS_DIR / file).is_file() for file in PRETRAINED.values())


def test_a_shipped_model_can_sample_too():
    agent = PPOAgent.pretrained("2p", deterministic=False)
    agent.reset(3)
    assert play_game([agent, RandomAgent(0)], seed=5).is_over
