"""Evaluation games give the same game on the compiled engine as on the reference engine."""

import pytest

from agents import RandomAgent, match
from agents.bots.heuristic import HeuristicAgent
from agents.bots.ppo import PPOAgent
from agents.evaluate.matches import play_game

pytest.importorskip("numba")


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_a_game_between_agents_is_the_same_on_both_engines(num_players):
    table = [HeuristicAgent(0), *[RandomAgent(i) for i in range(1, num_players)]]
    for seed in range(3):
        fast = play_game(table, seed, engine="fast")
        reference = play_game(table, seed, engine="reference")
        assert fast.to_dict() == reference.to_dict()
        assert fast.winners() == reference.winners() and fast.is_over


def test_a_shipped_model_plays_the_same_games_on_both_engines():
    table = [PPOAgent.pretrained("2p", deterministic=False), HeuristicAgent(1)]
    for seed in range(3):
        assert play_game(table, seed, engine="fast").to_dict() == play_game(table, seed, engine="reference").to_dict()


def test_rule_options_and_truncation_reach_the_compiled_engine():
    table = [RandomAgent(0), RandomAgent(1)]
    options = {"max_turns": 6, "letter_placement": "uniform"}
    fast = play_game(table, 4, engine="fast", **options)
    assert fast.truncated and fast.to_dict() == play_game(table, 4, engine="reference", **options).to_dict()


def test_match_results_do_not_depend_on_the_engine(monkeypatch):
    from gubs_env.envs import engines

    on_fast = match(HeuristicAgent(0), RandomAgent(1), num_players=3, games=12, seed=5)
    monkeypatch.setattr(engines, "fast_engine_available", lambda: False)  # as without numba: auto is the reference
    on_reference = match(HeuristicAgent(0), RandomAgent(1), num_players=3, games=12, seed=5)
    assert on_fast == on_reference


def test_an_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine must be one of"):
        play_game([RandomAgent(0), RandomAgent(1)], 0, engine="gpu")
