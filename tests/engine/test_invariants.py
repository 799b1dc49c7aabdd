"""Random-play invariants at every player count: card conservation (docs/rules.md §4), legal play, determinism."""

import json
import random

import pytest

from gubs_env.engine import Game
from gubs_env.engine.cards import COPIES

PLAYER_COUNTS = range(2, 7)
SEEDS = range(150)


def play_randomly(game: Game, rng: random.Random, on_step=None, limit: int | None = None) -> list[int]:
    """Play uniformly random legal actions; returns the chosen indices."""
    chosen = []
    while not game.is_over and (limit is None or len(chosen) < limit):
        legal = game.legal_actions()
        i = rng.randrange(len(legal))
        chosen.append(i)
        game.apply(legal[i])
        if on_step:
            on_step(game)
    return chosen


def check_invariants(game: Game) -> None:
    assert game.state.card_counts() == list(COPIES)  # 70 cards, each in exactly one place
    if game.is_over:
        assert game.legal_actions() == ()
        assert game.current_player is None
    else:
        assert game.legal_actions(), "the player to act has no legal action"
        assert game.current_player == game.pending.actor


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_cards_conserved_and_actor_never_stuck(num_players):
    for seed in SEEDS:
        game = Game(num_players, seed=seed)
        check_invariants(game)
        play_randomly(game, random.Random(seed), on_step=check_invariants)
        assert game.is_over and not game.truncated


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_offered_action_applies(num_players):
    for seed in range(20):
        game = Game(num_players, seed=seed, record_log=False)
        rng = random.Random(seed)
        while not game.is_over:
            for action in game.legal_actions():
                branch = game.clone()
                branch.apply(action)
                check_invariants(branch)
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_same_seed_and_actions_give_the_same_game(num_players):
    for seed in range(8):
        first, second = Game(num_players, seed=seed), Game(num_players, seed=seed)
        assert first.to_dict() == second.to_dict()
        chosen = play_randomly(first, random.Random(seed))
        for i in chosen:
            second.apply(second.legal_actions()[i])
        assert first.to_dict() == second.to_dict()
        assert [e.view(None) for e in first.log] == [e.view(None) for e in second.log]


def test_different_seeds_deal_differently():
    deals = {json.dumps(Game(4, seed=s).to_dict()["hands"], sort_keys=True) for s in range(20)}
    assert len(deals) == 20


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_save_restore_and_clone_give_the_same_future(num_players):
    for seed in range(40):
        rng = random.Random(1000 + seed)
        game = Game(num_players, seed=seed)
        play_randomly(game, rng, limit=rng.randrange(1, 150))
        saved = json.loads(json.dumps(game.to_dict()))  # through real JSON text
        restored, cloned = Game.from_dict(saved), game.clone()
        assert restored.to_dict() == game.to_dict()
        future = play_randomly(game, random.Random(seed))
        for other in (restored, cloned):
            for i in future:
                other.apply(other.legal_actions()[i])
            assert other.to_dict() == game.to_dict()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_games_end_well_before_the_turn_cap(num_players):
    turns = []
    for seed in range(40):
        game = Game(num_players, seed=seed, record_log=False)
        play_randomly(game, random.Random(seed))
        assert not game.truncated
        turns.append(game.state.turn)
    assert max(turns) < game.options.max_turns / 5
