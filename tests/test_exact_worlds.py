"""Worlds drawn at every stage of a game put the hidden Letters where their exact posterior does: on both engines and
through OpenSpiel.

Random games are played through OpenSpiel (``python_gubs``) until the deck is small; at positions before any card was
put back, after cards were put back (R15, R20), after a Letter was flopped back and while the seat knows the deck's
top from its Scout, the posterior of the hidden Letters' cells is enumerated way by way (``letter_posterior``: exact
given the deal and the deck's history, and itself checked against brute-force enumeration of small decks in
tests/engine/test_letter_posterior.py). Each sampler's worlds must fit it by a chi-square test at the 0.1% level: the
reference engine's ``Game.resample``, the compiled engine's ``sample_rows`` and OpenSpiel's
``resample_from_infostate``. A sampler that forgets the history is caught by the same test.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from gubs_env.engine import Game
from gubs_env.engine.cards import LETTERS
from gubs_env.engine.positions import determinize as det
from gubs_env.fast import layout as L
from gubs_env.fast import new_rows, sample_rows
from tests.engine.test_determinize import chi2_fits

pyspiel = pytest.importorskip("pyspiel")
import gubs_env.openspiel  # noqa: E402, F401  # registers python_gubs

LETTER_KINDS = frozenset(int(k) for k in LETTERS)
SMALL = 14
"""Positions with at most this many cards in the deck, where the Letters' ways are few enough to count each one's
draws; before any card is put back, decks are larger, and the highest hidden Letter's cell is compared instead."""
WAYS = 80
"""Positions with more ways than this are compared on the highest hidden Letter's cell, in :data:`BINS` bins."""
BINS = 10
WORLDS = 1500
Cells = tuple[int, ...]


def stage_of(game: Game, viewer: int) -> str | None:
    """Which stage a position is at for ``viewer``, or None when it has no hidden Letter to place."""
    history = game.deck_history or []
    top = det.knowledge(game.state, viewer).known_top()
    hidden = len(game.state.deck) - len(top)
    if not any(kind in LETTER_KINDS for kind in game.state.deck[:hidden]):
        return None
    if top:
        return "the seat knows the top"
    if any(what == det.PUT_BACK_LETTER for _, what in history):
        return "a Letter flopped back"
    if any(what == det.PUT_BACK for _, what in history):
        return "cards put back"
    return "nothing put back"


def positions(seeds: range) -> Iterator[tuple[str, object]]:
    """One OpenSpiel state per stage and game, small-decked, with the seat to act as the viewer."""
    game = pyspiel.load_game("python_gubs", {"players": 3})
    for seed in seeds:
        state, rnd = game.new_initial_state(), random.Random(seed)
        state.deal(seed)
        found: set[str] = set()
        while not state.is_terminal():
            engine = state.engine
            stage = stage_of(engine, state.current_player())
            small = len(engine.state.deck) <= SMALL or stage == "nothing put back"
            if stage is not None and small and stage not in found:
                found.add(stage)
                yield stage, state.clone()
            state.apply_action(rnd.choice(state.legal_actions()))


def exact(game: Game, viewer: int) -> dict[Cells, float]:
    """The hidden Letters' cells (from the bottom of the deck) and each way's probability, way by way."""
    k = det.knowledge(game.state, viewer)
    top = k.known_top()[::-1]
    hidden = k.deck_size - len(top)
    known = tuple(hidden + i for i, kind in enumerate(top) if kind in LETTER_KINDS)
    missing = sum(kind in LETTER_KINDS for kind in game.state.deck[:hidden])
    posterior = det.letter_posterior("thirds", k.num_players, k.deck_size, hidden, known, missing, k.deck_history)
    assert posterior is not None
    shares = np.diff(posterior.cumulative, prepend=0.0)
    out: dict[Cells, float] = {}
    for cells, share in zip(posterior.cells, shares, strict=True):
        if share > 0:
            out[tuple(int(c) for c in cells)] = float(share) / float(posterior.cumulative[-1])
    return out


def hidden_letter_cells(deck: list[int], hidden: int) -> Cells:
    return tuple(i for i, kind in enumerate(deck[:hidden]) if kind in LETTER_KINDS)


def projected(probabilities: dict[Cells, float], hidden: int) -> Callable[[Cells], Cells]:
    """The ways themselves when they are few; else the highest hidden Letter's cell, in bins."""
    if len(probabilities) <= WAYS:
        return lambda cells: cells
    width = -(-hidden // BINS)
    return lambda cells: (max(cells) // width,)


def tally_of(counts: Counter[Cells], project: Callable[[Cells], Cells]) -> Counter[Cells]:
    out: Counter[Cells] = Counter()
    for cells, n in counts.items():
        out[project(cells)] += n
    return out


def law_of(probabilities: dict[Cells, float], project: Callable[[Cells], Cells]) -> dict[Cells, float]:
    out: dict[Cells, float] = {}
    for cells, p in probabilities.items():
        out[project(cells)] = out.get(project(cells), 0.0) + p
    return out


def samplers(state: object, viewer: int, hidden: int) -> dict[str, Callable[[], Counter[Cells]]]:
    """Each sampler's tally of the hidden Letters' cells over :data:`WORLDS` worlds."""
    game = state.engine  # type: ignore[attr-defined]

    def reference() -> Counter[Cells]:
        return Counter(hidden_letter_cells(game.resample(viewer, seed=s).state.deck, hidden) for s in range(WORLDS))

    def compiled() -> Counter[Cells]:
        rows, rngs = new_rows(WORLDS)
        sample_rows(det.knowledge(game.state, viewer), 99, rows, rngs)
        return Counter(hidden_letter_cells([int(x) for x in row[L.DECK : L.DECK + hidden]], hidden) for row in rows)

    def openspiel() -> Counter[Cells]:
        sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
        worlds = (state.resample_from_infostate(viewer, sampler) for _ in range(WORLDS))  # type: ignore[attr-defined]
        return Counter(hidden_letter_cells(world.engine.state.deck, hidden) for world in worlds)

    return {"reference": reference, "compiled": compiled, "OpenSpiel": openspiel}


def test_worlds_at_every_stage_fit_the_exact_posterior_on_both_engines_and_through_openspiel():
    checked: Counter[str] = Counter()
    for stage, state in positions(range(60)):
        if checked[stage] >= 2:
            continue
        game, viewer = state.engine, state.current_player()  # type: ignore[attr-defined]
        hidden = len(game.state.deck) - len(det.knowledge(game.state, viewer).known_top())
        probabilities = exact(game, viewer)
        project = projected(probabilities, hidden)
        for name, tally in samplers(state, viewer, hidden).items():
            assert chi2_fits(tally_of(tally(), project), law_of(probabilities, project)), (stage, name)
        checked[stage] += 1
    assert set(checked) == {"nothing put back", "cards put back", "a Letter flopped back", "the seat knows the top"}


def test_the_fit_catches_a_sampler_that_forgets_the_history():
    # After several cards were put back, the Letters lie elsewhere than a sampler without the history puts them.
    for seed in range(40):
        game, rnd = Game(3, seed=seed, record_log=False), random.Random(seed)
        while not game.is_over and sum(w == det.PUT_BACK for _, w in game.deck_history or ()) < 3:
            game.apply(rnd.choice(game.legal_actions()))
        viewer = game.current_player
        if game.is_over or viewer is None or stage_of(game, viewer) != "cards put back":
            continue
        forgot = Game.from_state(game.state)
        forgot.state.deck_history = None
        hidden = len(game.state.deck)
        probabilities = exact(game, viewer)
        project = projected(probabilities, hidden)
        law = law_of(probabilities, project)
        kept = Counter(hidden_letter_cells(game.resample(viewer, seed=s).state.deck, hidden) for s in range(WORLDS))
        lost = Counter(hidden_letter_cells(forgot.resample(viewer, seed=s).state.deck, hidden) for s in range(WORLDS))
        assert chi2_fits(tally_of(kept, project), law)
        if not chi2_fits(tally_of(lost, project), law):
            return
    pytest.fail("no position's exact posterior told a sampler without the history apart")
