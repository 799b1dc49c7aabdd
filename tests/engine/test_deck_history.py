"""A game keeps the deck's public history since the deal (``Game.deck_history``), and everything that draws worlds
from a game's position follows it: ``Game.resample``, the search bots' worlds and their hands-seeing yardstick, and
OpenSpiel's ``resample_from_infostate`` (through clones and serialized states)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gubs_env.engine import Game
from gubs_env.engine.positions import determinize as det
from gubs_env.engine.positions.serialize import InvalidStateError, state_to_dict


def played(num_players: int, seed: int, until_put_back: bool = False) -> Game:
    """A random game: to its end, or to just after its first card put back into the deck."""
    game = Game(num_players, seed=seed, record_log=False)
    rnd = random.Random(seed)
    while not game.is_over:
        game.apply(rnd.choice(game.legal_actions()))
        if until_put_back and any(what != det.LETTER_DRAWN for _, what in game.deck_history or ()):
            break
    return game


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_the_history_is_every_actions_deck_events_since_the_deal(num_players, seed):
    game = Game(num_players, seed=seed, record_log=False)
    rnd = random.Random(seed)
    expected: list[det.DeckEvent] = []
    assert game.deck_history == []
    while not game.is_over:
        action = rnd.choice(game.legal_actions())
        before = game.state.copy()
        game.apply(action)
        expected += det.deck_events(before, action, game.state)
        assert game.deck_history == expected


def test_the_games_checked_put_cards_back_and_draw_letters():
    kinds = {what for seed in range(20) for _, what in played(3, seed).deck_history or ()}
    assert kinds == {det.PUT_BACK, det.PUT_BACK_LETTER, det.LETTER_DRAWN}  # the test above meets each kind


def test_copies_keep_the_history_and_a_restored_position_has_none():
    game = played(2, 3)
    clone = game.clone()
    assert clone.deck_history == game.deck_history and clone.deck_history is not game.deck_history
    assert game.resample(0, seed=1).deck_history == game.deck_history
    assert Game.from_dict(game.to_dict()).deck_history is None
    assert Game.from_state(game.state).deck_history is None


def test_resample_draws_the_letters_by_their_posterior_given_the_history():
    for seed in range(40):
        game = played(2, seed, until_put_back=True)
        if game.is_over:
            continue
        history = tuple(game.deck_history or ())
        for viewer in range(2):
            world = det.resample(game.state, viewer, 5, history)
            assert game.resample(viewer, seed=5).to_dict() == state_to_dict(world)
            assert state_to_dict(world) != state_to_dict(det.resample(game.state, viewer, 5))  # the history counts
        return
    pytest.fail("no game put a card back")


def test_the_search_bots_worlds_follow_the_history():
    from agents.bots.search.agent import HandsSeeingSearchAgent, SearchAgent, SearchSettings
    from gubs_env.fast import new_rows, redeal_rows, sample_rows

    settings_ = SearchSettings(worlds=8, base="heuristic")
    changed = 0
    for seed in range(40):
        game = played(2, seed, until_put_back=True)
        if game.is_over:
            continue
        seat = game.pending.actor
        for agent in (SearchAgent(settings=settings_), HandsSeeingSearchAgent(settings=settings_)):
            rows, _ = agent.world_rows(game, seat, 11)
            expected, rngs = new_rows(8)
            if isinstance(agent, HandsSeeingSearchAgent):
                redeal_rows(game.state, seat, 11, expected, rngs, game.deck_history)
            else:
                sample_rows(det.knowledge(game.state, seat, game.deck_history), 11, expected, rngs)
            assert np.array_equal(rows, expected)
            without, rngs = new_rows(8)
            sample_rows(det.knowledge(game.state, seat), 11, without, rngs)
            changed += not np.array_equal(rows, without)
    assert changed  # the history moves the worlds somewhere: the checks above are not of an unused argument


def test_openspiel_states_keep_the_history_through_clones_and_serialized_states():
    pyspiel = pytest.importorskip("pyspiel")
    import gubs_env.openspiel  # noqa: F401  # registers python_gubs

    game = pyspiel.load_game("python_gubs")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    rnd = random.Random(0)
    while not state.is_terminal() and not any(w != det.LETTER_DRAWN for _, w in state.engine.deck_history):
        state.apply_action(rnd.choice(state.legal_actions()))
    history = state.engine.deck_history
    assert history and state.clone().engine.deck_history == history
    assert game.deserialize_state(state.serialize()).engine.deck_history == history
    world = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.engine.deck_history == history


@pytest.mark.parametrize(
    "bad",
    ["[]", [[1, 2, 3]], [[71, 0]], [[5, 3]], [[5.0, 1]], [[True, 1]], [(-1, 0)], [[1, 0]] * 100_001],
)
def test_a_saved_history_of_the_wrong_shape_is_refused_in_one_line(bad):
    with pytest.raises(InvalidStateError) as error:
        det.checked_deck_history(bad)
    assert "\n" not in str(error.value) and len(str(error.value)) < 200


def test_a_tampered_saved_openspiel_history_is_refused():
    pytest.importorskip("pyspiel")
    from gubs_env.openspiel.game import _Engine

    saved = {"state": played(2, 1).to_dict(), "deck_history": [[99, 0]]}
    engine = _Engine.__new__(_Engine)
    with pytest.raises(InvalidStateError, match="deck_history event"):
        engine.__setstate__(saved)
    assert not hasattr(engine, "game")  # nothing was set up
