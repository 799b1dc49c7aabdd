"""What the observation hides: the other hands, the deck in order and each seat's Scout knowledge, as a vector.

A critic that reads this beside the observation sees the whole deal (the native backend's ``whole_deal_critic``,
docs/training.md). A policy never reads it: an action chosen from the whole deal would use what its player cannot
know. The layout follows the observation's conventions (:mod:`gubs_env.encoding.observation`): seats are relative to
the viewer, seats past the table size are zero, counts are divided by a fixed scale, and every value lies in [0, 1].
The discard pile, the Letters laid out and the viewer's own hand and Scout are in the observation already.

The deck is given by its top :data:`TOP_CARDS` cards (one-hot kinds, top first), by what it holds (counts) and by how
deep each Letter lies in it: the Letters' places decide when the game ends, and the top cards what comes next.

:func:`gubs_env.fast.encode_hidden` writes the same vector from a compiled game, bit for bit (tests/fast checks it).
"""

from __future__ import annotations

import numpy as np

from gubs_env.encoding.observation import Field, field_slices
from gubs_env.engine.cards import COPIES, DECK_SIZE, LETTERS, MAX_PLAYERS, NUM_KINDS
from gubs_env.engine.state import GameState

TOP_CARDS = 8
"""The deck's top cards given one by one; below them the deck counts only through its contents and the Letters."""
SCOUT_DEPTH = 3

HIDDEN_FIELDS: tuple[Field, ...] = (
    Field("hands", (MAX_PLAYERS - 1) * NUM_KINDS, "every other seat's hand, relative seats 1 to 5: counts / copies"),
    Field("top", TOP_CARDS * NUM_KINDS, f"the deck's top {TOP_CARDS} cards, top first: one-hot kind per position"),
    Field("deck", NUM_KINDS, "the deck's contents: count of each kind / copies"),
    Field("letter_depth", len(LETTERS), f"each of G, U, B in the deck: (cards above it + 1) / {DECK_SIZE}; else 0"),
    Field("scout_top", MAX_PLAYERS, f"top cards each relative seat knows from its Scout / {SCOUT_DEPTH}"),
    Field("scout_seat", MAX_PLAYERS * MAX_PLAYERS, "per relative seat: whose hand its Scout last showed (one-hot)"),
)
HIDDEN_LAYOUT: dict[str, slice] = field_slices(HIDDEN_FIELDS)
HIDDEN_SIZE: int = sum(f.size for f in HIDDEN_FIELDS)
_AT = {name: s.start for name, s in HIDDEN_LAYOUT.items()}


def _scales() -> np.ndarray:
    """What each raw value is multiplied by (float32), per position of the vector."""
    inv_copies = 1.0 / np.array(COPIES, dtype=np.float32)
    scale = np.ones(HIDDEN_SIZE, dtype=np.float32)
    scale[HIDDEN_LAYOUT["hands"]] = np.tile(inv_copies, MAX_PLAYERS - 1)
    scale[HIDDEN_LAYOUT["deck"]] = inv_copies
    scale[HIDDEN_LAYOUT["letter_depth"]] = np.float32(1.0 / DECK_SIZE)
    scale[HIDDEN_LAYOUT["scout_top"]] = np.float32(1.0 / SCOUT_DEPTH)
    return scale


HIDDEN_INV_SCALE = _scales()


def encode_hidden(st: GameState, viewer: int) -> np.ndarray:
    """What ``viewer``'s observation leaves out of position ``st`` (float32, :data:`HIDDEN_SIZE` values in [0, 1])."""
    n = st.num_players
    raw = np.zeros(HIDDEN_SIZE, dtype=np.float32)
    for rel in range(1, n):
        start = _AT["hands"] + (rel - 1) * NUM_KINDS
        raw[start : start + NUM_KINDS] = st.hands[(viewer + rel) % n]
    top_first = st.deck[::-1]
    for depth, kind in enumerate(top_first[:TOP_CARDS]):
        raw[_AT["top"] + depth * NUM_KINDS + kind] = 1
    for kind in st.deck:
        raw[_AT["deck"] + kind] += 1
    for i, letter in enumerate(LETTERS):
        if letter in top_first:
            raw[_AT["letter_depth"] + i] = top_first.index(letter) + 1
    for rel in range(n):
        seat = (viewer + rel) % n
        raw[_AT["scout_top"] + rel] = min(SCOUT_DEPTH, len(st.seen_top[seat]))
        seen = st.seen_hand[seat]
        if seen is not None:
            raw[_AT["scout_seat"] + rel * MAX_PLAYERS + (seen[0] - viewer) % n] = 1
    return raw * HIDDEN_INV_SCALE
