"""Long random-play soaks (run with ``pytest -m soak``); the default run skips them."""

import os
import random

import pytest

from gubs_env.engine import Game
from gubs_env.engine.cards import COPIES

GAMES = int(os.environ.get("GUBS_SOAK_GAMES", "100000"))


@pytest.mark.soak
def test_hundred_thousand_random_games_keep_every_invariant():
    truncated = 0
    for i in range(GAMES):
        num_players = 2 + i % 5
        game = Game(num_players, seed=i, record_log=False)
        rng = random.Random(i)
        while not game.is_over:
            legal = game.legal_actions()
            assert legal
            game.apply(legal[rng.randrange(len(legal))])
            assert game.state.card_counts() == list(COPIES)
        truncated += game.truncated
    print(f"{GAMES} games, {truncated} truncated at the turn cap")
    assert truncated == 0
