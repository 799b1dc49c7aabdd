"""Set-up of a new game (docs/rules.md §2): starting Gubs, Letters placed in the deck, the deal."""

from __future__ import annotations

import numpy as np

from gubs_env.engine.cards import CARDS, EVENTS, LETTERS, Kind
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.state import GameState, Pending, Step

CARDS_DEALT = 3


def new_state(num_players: int, rng: np.random.Generator, options: RuleOptions) -> GameState:
    """A freshly set-up game: every random choice is drawn from ``rng``."""
    st = GameState(num_players, options, rng)
    for side in st.sides:
        side.free = 1  # step 1: one plain Gub each, never the Elder
    rest = [int(s.kind) for s in CARDS for _ in range(s.copies) if s.kind not in LETTERS]
    rest.remove(Kind.GUB)
    for _ in range(num_players - 1):
        rest.remove(Kind.GUB)
    rng.shuffle(rest)
    st.deck = _place_letters(rest, rng, options.letter_placement)
    _deal(st)
    st.deck_history = []  # the history starts after the deal, whose put-backs the Letters' prior already follows
    st.pending = Pending(Step.DRAW, 0, 0)  # R1: seat 0 starts
    return st


def _place_letters(cards: list[int], rng: np.random.Generator, placement: str) -> list[int]:
    letters = [int(LETTERS[i]) for i in rng.permutation(len(LETTERS))]
    if placement == "uniform":
        for letter in letters:
            cards.insert(int(rng.integers(len(cards) + 1)), letter)
        return cards
    # R2: one Letter in each third, at a uniformly random position inside it.
    bounds = [round(len(cards) * i / 3) for i in range(4)]
    deck: list[int] = []
    for third, letter in enumerate(letters):
        part = cards[bounds[third] : bounds[third + 1]]
        part.insert(int(rng.integers(len(part) + 1)), letter)
        deck += part
    return deck


def _deal(st: GameState) -> None:
    """Three cards each, one at a time from seat 0; a dealt Event goes back at a random position."""
    for _ in range(CARDS_DEALT):
        for hand in st.hands:
            while True:
                kind = st.deck.pop()
                if kind not in EVENTS:
                    hand[kind] += 1
                    break
                st.deck.insert(int(st.rng.integers(len(st.deck) + 1)), kind)
