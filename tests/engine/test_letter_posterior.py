"""The exact Letter posterior (docs/engine.md, "The Letter posterior") against brute-force enumeration.

Small decks are followed card by card: every arrangement the set-up can make, every place every card put back can
land, each with its exact probability, kept where it agrees with what the table saw. The posterior's arrays must give
the same probabilities (float sums: to 1e-9), through the deal, put-backs, Letters drawn and flopped back, and what
the viewer knows of the deck top.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable

import numpy as np
import pytest

from gubs_env.engine.positions import determinize as det
from gubs_env.engine.positions.determinize import LETTER_DRAWN, PUT_BACK, PUT_BACK_LETTER, DeckEvent

Deck = tuple[str, ...]
"""Bottom first: ``L`` a Letter, ``E`` another Event (put back when dealt), ``N`` any other card."""
Dist = dict[Deck, float]
TOLERANCE = 1e-9
ROOM = 16
"""The arrays' side for these small decks: more than any deck here ever holds."""


# --- brute force ---------------------------------------------------------------------------------


def set_up(others: int, events: int, letters: int, placement: str) -> Dist:
    """Every deck the set-up makes from ``others`` shuffled cards (``events`` of them Events) and the Letters.

    Thirds: one Letter in each third of the shuffled cards (cut at ``round(others * i / 3)``), at a uniform slot of
    its part, as ``gubs_env.engine.setup`` does. Uniform: each Letter inserted at a uniform slot of the growing deck.
    """
    out: Dist = defaultdict(float)
    shuffles = [
        tuple("E" if i in at else "N" for i in range(others)) for at in itertools.combinations(range(others), events)
    ]
    for cards in shuffles:
        start = {cards: 1.0 / len(shuffles)}
        if placement == "thirds":
            bounds = [round(others * i / 3) for i in range(4)]
            parts = [cards[bounds[t] : bounds[t + 1]] for t in range(3)]
            slots = [range(len(part) + 1) for part in parts]
            weight = 1.0 / np.prod([len(s) for s in slots])
            for choice in itertools.product(*slots):
                deck = sum(((*part[:c], "L", *part[c:]) for part, c in zip(parts, choice, strict=True)), ())
                out[deck] += weight / len(shuffles)
        else:
            decks = start
            for _ in range(letters):
                decks = insert_everywhere(decks, "L")
            for deck, p in decks.items():
                out[deck] += p
    return dict(out)


def insert_everywhere(decks: Dist, card: str) -> Dist:
    """``card`` put back at each place of each deck, each place alike."""
    out: Dist = defaultdict(float)
    for deck, p in decks.items():
        for i in range(len(deck) + 1):
            out[(*deck[:i], card, *deck[i:])] += p / (len(deck) + 1)
    return dict(out)


def draw(decks: Dist, letter: bool) -> Dist:
    """The top card drawn, kept where it is a Letter exactly when ``letter``."""
    return {deck[:-1]: p for deck, p in decks.items() if (deck[-1] == "L") == letter}


def deal(decks: Dist, cards: int) -> Dist:
    """``cards`` cards other than Events dealt; an Event dealt goes back at a uniform place (§2 step 3)."""
    for _ in range(cards):
        dealt: Dist = defaultdict(float)
        left = decks
        while sum(left.values()) > 1e-17:
            nxt: Dist = defaultdict(float)
            for deck, p in left.items():
                if deck[-1] == "N":
                    dealt[deck[:-1]] += p
                else:
                    for put, q in insert_everywhere({deck[:-1]: p}, deck[-1]).items():
                        nxt[put] += q
            left = nxt
        decks = dict(dealt)
    return decks


def follow(decks: Dist, history: Iterable[DeckEvent], deck_size: int) -> Dist:
    """The table's history, card by card: cards other than Letters drawn down to each event's size, then the event."""
    for at, what in history:
        while len(next(iter(decks))) > at:
            decks = draw(decks, letter=False)
        if what == LETTER_DRAWN:
            decks = draw(decks, letter=True)
        else:
            decks = insert_everywhere(decks, "L" if what == PUT_BACK_LETTER else "N")
    while len(next(iter(decks))) > deck_size:
        decks = draw(decks, letter=False)
    return decks


def heights(decks: Dist) -> dict[tuple[int, ...], float]:
    """Where the Letters lie (ascending cells from the bottom), normalized."""
    out: dict[tuple[int, ...], float] = defaultdict(float)
    for deck, p in decks.items():
        out[tuple(i for i, card in enumerate(deck) if card == "L")] += p
    total = sum(out.values())
    return {cells: p / total for cells, p in out.items() if p > 0}


# --- the model on the same decks ---------------------------------------------------------------------


def as_array(dist: dict[tuple[int, ...], float], letters: int) -> np.ndarray:
    p = np.zeros((ROOM,) * letters)
    for cells, q in dist.items():
        p[cells] = q
    return p


def of_array(p: np.ndarray) -> dict[tuple[int, ...], float]:
    total = p.sum()
    return {tuple(int(i) for i in cells): float(p[cells]) / total for cells in zip(*np.nonzero(p), strict=True)}


def assert_same(model: dict[tuple[int, ...], float], exact: dict[tuple[int, ...], float]) -> None:
    assert set(model) == set(exact), (sorted(set(model) ^ set(exact)))[:5]
    worst = max(abs(model[c] - exact[c]) for c in exact)
    assert worst < TOLERANCE, worst


HISTORIES: list[tuple[tuple[DeckEvent, ...], int]] = [  # the history since the deal (a deck of 10), the size now
    ((), 6),
    (((9, PUT_BACK),), 7),
    (((7, PUT_BACK), (8, PUT_BACK), (9, PUT_BACK)), 6),  # a Flash Flood of three Gubs
    (((10, LETTER_DRAWN), (9, PUT_BACK_LETTER)), 7),  # a Letter drawn and flopped back
    (((8, PUT_BACK), (6, LETTER_DRAWN), (5, PUT_BACK), (6, PUT_BACK), (4, LETTER_DRAWN)), 2),
    (((10, LETTER_DRAWN), (6, LETTER_DRAWN), (5, PUT_BACK_LETTER), (6, PUT_BACK)), 4),
]


@pytest.mark.parametrize("placement", ["thirds", "uniform"])
@pytest.mark.parametrize(("history", "deck_size"), HISTORIES)
def test_the_deal_and_every_put_back_are_followed_exactly(placement, history, deck_size):
    # 8 other cards and 3 Letters; the deal takes 1 card (no other Event: the model's deal is exact then).
    start = set_up(8, 0, 3, placement)
    dealt = deal(start, 1)
    now = follow(dealt, history, deck_size)
    p = det.deal(as_array(heights(start), 3), 11, 1, other_events=0)
    assert_same(of_array(p), heights(dealt))
    model = det.follow_history(p, 10, history, deck_size)
    assert model is not None
    assert_same(of_array(model), heights(now))


def test_a_posterior_that_forgets_the_put_backs_is_wrong():
    # The cells counted as dealt (the deal followed, a Flash Flood's two Gubs not): another distribution.
    history = ((8, PUT_BACK), (9, PUT_BACK))
    dealt = deal(set_up(8, 0, 3, "thirds"), 1)
    exact = heights(follow(dealt, history, 7))
    forgot = heights(follow(dealt, (), 7))
    assert max(abs(exact.get(c, 0.0) - forgot.get(c, 0.0)) for c in set(exact) | set(forgot)) > 0.05


def test_uniform_letters_stay_uniform_through_deals_with_events():
    # Uniform placement: every order of the cards alike, and the deal and put-backs keep it so (other Events too).
    start = set_up(7, 2, 3, "uniform")
    dealt = deal(start, 2)
    p = det.deal(as_array(heights(start), 3), 10, 2, other_events=2)
    assert_same(of_array(p), heights(dealt))
    assert max(heights(dealt).values()) - min(heights(dealt).values()) < TOLERANCE


def test_other_events_in_the_deal_are_a_close_model():
    # With thirds placement, the model takes the other Events dealt and put back to lie at uniform places among the
    # cards other than Letters; the Events' real places lean slightly on the Letters' (docs/engine.md). On this
    # small deck, a quarter of whose other cards are Events (the game's: 5 in 62 to 66) and whose deal reaches a
    # third of it, that moves no probability by more than 3 points in 1000.
    start = set_up(8, 2, 3, "thirds")
    dealt = deal(start, 3)
    model = of_array(det.deal(as_array(heights(start), 3), 11, 3, other_events=2))
    exact = heights(dealt)
    assert set(model) == set(exact)
    assert max(abs(model[c] - exact[c]) for c in exact) < 3e-3


def test_what_the_viewer_knows_of_the_top_is_conditioned_on():
    # After a Flash Flood, a viewer that scouted the top 3 of a deck of 7 saw a Letter in the middle one.
    history = ((8, PUT_BACK), (9, PUT_BACK))
    dealt = deal(set_up(8, 0, 3, "thirds"), 1)
    now = follow(dealt, history, 7)
    p = det.follow_history(det.deal(as_array(heights(set_up(8, 0, 3, "thirds")), 3), 11, 1, other_events=0), 10,
                           history, 7)  # fmt: skip
    assert p is not None
    posterior = det.seen_letters(p, 7, 7, 4, (5,), missing=2)
    assert posterior is not None
    exact: dict[tuple[int, ...], float] = defaultdict(float)
    for deck, q in now.items():
        if deck[4:] == ("N", "L", "N"):
            exact[tuple(i for i, card in enumerate(deck[:4]) if card == "L")] += q
    total = sum(exact.values())
    model = dict(
        zip([tuple(c) for c in posterior.cells.tolist()], np.diff(posterior.cumulative, prepend=0.0), strict=True)
    )
    assert_same(model, {c: q / total for c, q in exact.items()})


def test_letters_drawn_at_moments_not_recorded():
    # No history: no card put back since the deal, and one Letter drawn at a moment not recorded.
    start = set_up(8, 0, 3, "thirds")
    dealt = deal(start, 1)
    exact: dict[tuple[int, ...], float] = defaultdict(float)
    for deck, q in dealt.items():
        if deck[5:].count("L") == 1:
            exact[tuple(i for i, card in enumerate(deck[:5]) if card == "L")] += q
    total = sum(exact.values())
    p = det.deal(as_array(heights(start), 3), 11, 1, other_events=0)
    posterior = det.seen_letters(p, 10, 5, 5, (), 2, drawn_unrecorded=True)
    assert posterior is not None
    model = dict(
        zip([tuple(c) for c in posterior.cells.tolist()], np.diff(posterior.cumulative, prepend=0.0), strict=True)
    )
    assert_same(model, {c: q / total for c, q in exact.items()})


def test_a_history_that_does_not_fit_explains_nothing():
    p = det.dealt_letters("thirds", 2)
    assert det.follow_history(p, 62, ((63, PUT_BACK),), 10) is None  # a deck larger than it can be
    assert det.follow_history(p, 62, ((40, LETTER_DRAWN),) * 4, 10) is None  # a fourth Letter drawn
    assert det.follow_history(p, 62, ((40, PUT_BACK_LETTER),), 10) is None  # a Letter back that was never out
    assert det.letter_posterior("thirds", 2, 63, 63, (), 3) is None  # grown since the deal, no history
