"""The hands-seeing worlds (``redeal_deck``): every hand kept, only the deck dealt again, on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.search.agent import HandsSeeingSearchAgent, SearchSettings
from gubs_env.engine import Game
from gubs_env.engine.cards import LETTERS
from gubs_env.engine.positions.determinize import knowledge, redeal_deck
from gubs_env.engine.positions.serialize import state_to_dict
from gubs_env.fast.convert import row_to_game, state_to_row
from gubs_env.fast.determinize import new_rows

LETTER_KINDS = {int(k) for k in LETTERS}


def played(players: int, seed: int, moves: int) -> Game:
    """A game after ``moves`` random legal moves (a seeded choice among the legal ones)."""
    game = Game(players, seed=seed, record_log=False)
    rnd = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            break
        actions = game.legal_actions()
        game.apply(actions[int(rnd.integers(len(actions)))])
    return game


def everything_but_the_deck(state_dict: dict) -> dict:
    out = {k: v for k, v in state_dict.items() if k not in ("deck", "rng", "seen_top")}
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("moves", [0, 25, 70])
def test_a_redealt_world_keeps_every_hand_side_and_pile_and_permutes_only_the_hidden_deck(players, moves):
    game = played(players, seed=players * 100 + moves, moves=moves)
    st = game.state
    viewer = game.current_player if game.current_player is not None else 0
    known_top = len(knowledge(st, viewer).known_top())
    hidden = len(st.deck) - known_top
    decks = set()
    for seed in range(20):
        world = redeal_deck(st, viewer, seed)
        assert everything_but_the_deck(state_to_dict(world)) == everything_but_the_deck(state_to_dict(st))
        assert world.hands == st.hands and world.seen_top[viewer] == st.seen_top[viewer]
        assert sorted(world.deck) == sorted(st.deck)
        assert world.deck[hidden:] == st.deck[hidden:]  # the top the viewer knows stays
        for seat, seen in enumerate(st.seen_top):  # another seat's Scout knowledge follows the new deck
            assert world.seen_top[seat] == world.deck[len(world.deck) - len(seen) :][::-1]
        decks.add(tuple(world.deck))
        assert redeal_deck(st, viewer, seed).deck == world.deck  # the seed alone decides
    if hidden > 1 and len(set(st.deck[:hidden])) > 1:
        assert len(decks) > 1


def test_the_letters_follow_the_same_prior_as_the_sampled_worlds(monkeypatch):
    # the Letters' places come from letter_slots, which test_determinize checks against the exact posterior;
    # here: redeal_deck asks it about the hidden part of the deck, with the Letters the viewer knows above it
    game = played(3, seed=8, moves=12)
    st = game.state
    viewer = game.current_player
    assert viewer is not None
    asked = []

    def recording(placement, num_players, deck_size, hidden, known_letters, missing, rnd, history=None):
        asked.append((placement, num_players, deck_size, hidden, missing))
        return list(range(missing))  # every hidden Letter at the bottom

    monkeypatch.setattr("gubs_env.engine.positions.determinize.letter_slots", recording)
    world = redeal_deck(st, viewer, 3)
    hidden = len(st.deck) - len(knowledge(st, viewer).known_top())
    missing = sum(kind in LETTER_KINDS for kind in st.deck[:hidden])
    assert asked == [("thirds", 3, len(st.deck), hidden, missing)]
    assert all(kind in LETTER_KINDS for kind in world.deck[:missing])


def test_a_deck_the_viewer_knows_whole_is_not_changed():
    game = played(2, seed=4, moves=30)
    st = game.state
    viewer = game.current_player
    assert viewer is not None
    st.seen_top[viewer] = st.deck[::-1]  # its Scout showed every card, top first
    assert all(redeal_deck(st, viewer, seed).deck == st.deck for seed in range(5))


@pytest.mark.parametrize("players", [2, 4])
def test_the_compiled_rows_of_the_hands_seeing_search_are_the_reference_worlds(players):
    game = played(players, seed=21, moves=40)
    seat = game.current_player
    assert seat is not None
    searcher = HandsSeeingSearchAgent(settings=SearchSettings(worlds=4))
    rows, rngs = searcher.world_rows(game, seat, seed=77)
    for w in range(4):
        expected_rows, expected_rngs = new_rows(1)
        state_to_row(redeal_deck(game.state, seat, 77 + w), expected_rows[0], expected_rngs[0])
        assert np.array_equal(rows[w], expected_rows[0])
        world = row_to_game(rows[w], rngs[w], record_log=False)
        assert world.state.hands == game.state.hands and sorted(world.state.deck) == sorted(game.state.deck)
