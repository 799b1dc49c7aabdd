"""The deck's public history since the deal is part of the state (``GameState.deck_history``): the rules record it,
copies and saved states keep it, the information state holds it, and every world drawn from a position follows it:
``Game.resample``, the search bots' worlds and their hands-seeing yardstick, and OpenSpiel's
``resample_from_infostate``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gubs_env.engine import Game
from gubs_env.engine.actions import Action, Op
from gubs_env.engine.cards import LETTERS
from gubs_env.engine.positions import determinize as det
from gubs_env.engine.positions.serialize import InvalidStateError
from gubs_env.engine.state import MAX_DECK_EVENTS, Step

LETTER_KINDS = frozenset(int(k) for k in LETTERS)


def events_seen(deck_before: Sequence[int], step: Step, action: Action, deck_after: Sequence[int]) -> list:
    """What the table sees of the deck in one action, read off the deck before and after it (the test's oracle).

    A draw shows whether a Letter was on top; every card the deck gained was put back at a random place, a Letter
    only by a flop (alone).
    """
    events = []
    size = len(deck_before)
    if step is Step.DRAW and action.op is Op.DRAW:
        if deck_before[-1] in LETTER_KINDS:
            events.append((size, det.LETTER_DRAWN))
        size -= 1
    gained = len(deck_after) - size
    if gained > 0:
        letter_back = sum(k in LETTER_KINDS for k in deck_after) > sum(k in LETTER_KINDS for k in deck_before[:size])
        events += [(at, det.PUT_BACK_LETTER if letter_back else det.PUT_BACK) for at in range(size, size + gained)]
    return events


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
    expected: list = []
    assert game.deck_history == []
    while not game.is_over:
        action = rnd.choice(game.legal_actions())
        deck, step = game.state.deck[:], game.pending.step
        game.apply(action)
        expected += events_seen(deck, step, action, game.state.deck)
        assert game.deck_history == expected


def test_the_games_checked_put_cards_back_and_draw_letters():
    kinds = {what for seed in range(20) for _, what in played(3, seed).deck_history or ()}
    assert kinds == {det.PUT_BACK, det.PUT_BACK_LETTER, det.LETTER_DRAWN}  # the test above meets each kind


def test_no_game_comes_near_the_bound_on_its_history():
    longest = max(len(played(n, seed).deck_history or ()) for n in (2, 6) for seed in range(40))
    assert 0 < longest < MAX_DECK_EVENTS / 2


def test_copies_saved_states_and_worlds_keep_the_history():
    game = played(2, 3, until_put_back=True)
    history = game.deck_history
    assert history
    clone = game.clone()
    assert clone.deck_history == history and clone.deck_history is not history
    saved = json.loads(json.dumps(game.to_dict()))
    assert saved["version"] == 2 and saved["deck_history"] == [list(e) for e in history]
    assert Game.from_dict(saved).deck_history == history
    assert Game.from_state(game.state).deck_history == history
    assert game.resample(0, seed=1).deck_history == history


def test_a_state_saved_before_the_history_loads_with_it_unknown():
    game = played(3, 5, until_put_back=True)
    old = game.to_dict()
    del old["deck_history"]
    old["version"] = 1
    loaded = Game.from_dict(old)
    assert loaded.deck_history is None
    assert json.loads(loaded.information_state(0))["deck_history"] is None
    assert loaded.to_dict()["deck_history"] is None and loaded.to_dict()["version"] == 2
    with pytest.raises(InvalidStateError, match="deck_history"):  # a version-2 dict must say it
        Game.from_dict({**old, "version": 2})


def test_the_information_state_holds_the_history():
    game = played(2, 9, until_put_back=True)
    forgot = Game.from_state(game.state)
    forgot.state.deck_history = None
    for viewer in range(2):
        assert json.loads(game.information_state(viewer))["deck_history"] == [list(e) for e in game.deck_history]
        assert forgot.information_state(viewer) != game.information_state(viewer)


def test_a_positions_worlds_depend_only_on_its_information_state_and_the_seed():
    # The check, now passing: a copy loaded from the saved state, and a look-alike with every card the viewer
    # can't see dealt afresh (a world of the viewer's own), have its information state and draw its worlds.
    tried = 0
    for seed in range(30):
        game = Game(2 + seed % 5, seed=seed, record_log=False)
        rnd = random.Random(seed)
        while not game.is_over:
            if rnd.random() < 0.05:
                viewer = rnd.randrange(game.num_players)
                key, world = game.information_state(viewer), game.resample(viewer, seed=7).to_dict()
                lookalike = game.resample(viewer, seed=seed + 1000)
                for other in (Game.from_dict(json.loads(json.dumps(game.to_dict()))), lookalike):
                    assert other.information_state(viewer) == key
                    assert other.resample(viewer, seed=7).to_dict() == world
                tried += 1
            game.apply(rnd.choice(game.legal_actions()))
    assert tried > 100


def test_resample_draws_the_letters_by_their_posterior_given_the_history():
    for seed in range(40):
        game = played(2, seed, until_put_back=True)
        if game.is_over:
            continue
        forgot = Game.from_state(game.state)
        forgot.state.deck_history = None
        for viewer in range(2):
            world = game.resample(viewer, seed=5)
            assert world.to_dict() == Game.from_state(det.resample(game.state, viewer, 5)).to_dict()
            assert world.state.deck != forgot.resample(viewer, seed=5).state.deck  # the history counts
        return
    pytest.fail("no game put a card back")


def test_the_search_bots_worlds_follow_the_history():
    from agents.bots.search.agent import HandsSeeingSearchAgent, SearchAgent, SearchSettings
    from gubs_env.fast import new_rows, redeal_rows, row_history, sample_rows

    settings_ = SearchSettings(worlds=8, base="heuristic")
    changed = 0
    for seed in range(40):
        game = played(2, seed, until_put_back=True)
        if game.is_over:
            continue
        seat = game.pending.actor
        forgot = Game.from_state(game.state)
        forgot.state.deck_history = None
        for agent in (SearchAgent(settings=settings_), HandsSeeingSearchAgent(settings=settings_)):
            rows, _ = agent.world_rows(game, seat, 11)
            assert all(row_history(row) == tuple(game.deck_history) for row in rows)  # the worlds keep it
            expected, rngs = new_rows(8)
            if isinstance(agent, HandsSeeingSearchAgent):
                redeal_rows(game.state, seat, 11, expected, rngs)
            else:
                sample_rows(det.knowledge(game.state, seat), 11, expected, rngs)
            assert np.array_equal(rows, expected)
            without, _ = agent.world_rows(forgot, seat, 11)
            changed += not np.array_equal(rows[:, : without.shape[1] - 1], without[:, : without.shape[1] - 1])
    assert changed  # the history moves the worlds somewhere: the checks above are not of an unused field


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
    assert world.information_state_string(0) == state.information_state_string(0)


@pytest.mark.parametrize(
    "bad",
    ["[]", [[1, 2, 3]], [[71, 0]], [[5, 3]], [[5.0, 1]], [[True, 1]], [(-1, 0)], [[1, 0]] * (MAX_DECK_EVENTS + 1)],
)
def test_a_saved_history_of_the_wrong_shape_is_refused_in_one_line(bad):
    saved = played(2, 1).to_dict()
    saved["deck_history"] = bad
    with pytest.raises(InvalidStateError) as error:
        Game.from_dict(saved)
    assert "deck_history" in str(error.value) and "\n" not in str(error.value) and len(str(error.value)) < 300


def test_a_history_that_could_not_lead_to_the_deck_is_refused():
    game = Game(2, seed=2, record_log=False)  # just dealt: 62 cards (70 - 4 * 2), the three Letters among them
    drawn = [[62 - i, det.LETTER_DRAWN] for i in range(4)]
    for bad, why in [
        (drawn, "held none"),  # a fourth Letter drawn
        ([[62, det.PUT_BACK_LETTER]], "all three"),  # a Letter put back that was never drawn
        ([[63, det.PUT_BACK]], "at most 62"),  # a deck larger than the deal left
        ([[62, det.PUT_BACK], [63, det.LETTER_DRAWN]], "Letters"),  # a Letter drawn that is still in the deck
        ([[30, det.PUT_BACK]], "more than the 31"),  # a deck that grew without a card put back
    ]:
        saved = game.to_dict()
        saved["deck_history"] = bad
        with pytest.raises(InvalidStateError, match=why):
            Game.from_dict(saved)


def test_a_tampered_saved_openspiel_state_is_refused():
    pytest.importorskip("pyspiel")
    from gubs_env.openspiel.game import _Engine

    saved = played(2, 1).to_dict()
    saved["deck_history"] = [[99, 0]]
    engine = _Engine.__new__(_Engine)
    with pytest.raises(InvalidStateError, match="deck_history event"):
        engine.__setstate__(saved)
    assert not hasattr(engine, "game")  # nothing was set up


def test_a_history_past_its_bound_becomes_unknown_rather_than_longer():
    game = Game(2, seed=0, record_log=False)
    game.state.deck_history = [(62, det.PUT_BACK)] * MAX_DECK_EVENTS  # only a hand-made state gets so long
    game.state.note_deck_event(det.PUT_BACK)
    assert game.deck_history is None
