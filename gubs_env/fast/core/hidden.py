"""The hidden-deal vector of :mod:`gubs_env.encoding.hidden`, compiled, bit for bit.

What a seat's observation leaves out (the other hands, the deck in order, each seat's Scout knowledge), for a critic
that may see the whole deal. Each value is a small count times the same ``float32`` scale the reference uses.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gubs_env.encoding.hidden import HIDDEN_INV_SCALE, HIDDEN_LAYOUT, TOP_CARDS
from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.jit import NO_REFCOUNT

NK = L.KINDS
NS = L.SEATS
INV = HIDDEN_INV_SCALE
H_HANDS, H_TOP, H_DECK = HIDDEN_LAYOUT["hands"].start, HIDDEN_LAYOUT["top"].start, HIDDEN_LAYOUT["deck"].start
H_LETTERS, H_SCOUT_TOP = HIDDEN_LAYOUT["letter_depth"].start, HIDDEN_LAYOUT["scout_top"].start
H_SCOUT_SEAT = HIDDEN_LAYOUT["scout_seat"].start
LETTER_KINDS = T.LETTER_KINDS


@nb.njit(cache=True, inline="always", **NO_REFCOUNT)
def _put(out: np.ndarray, at: int, raw: int) -> None:
    out[at] = np.float32(raw) * INV[at]


@nb.njit(cache=True, **NO_REFCOUNT)
def encode_hidden(g: np.ndarray, viewer: int, out: np.ndarray) -> None:
    """Write what ``viewer``'s observation of game row ``g`` leaves out into ``out`` (float32, ``HIDDEN_SIZE``)."""
    out[:] = 0
    n = g[L.NUM_PLAYERS]
    for rel in range(1, n):
        seat = (viewer + rel) % n
        for k in range(NK):
            if g[L.HANDS + seat * NK + k]:
                _put(out, H_HANDS + (rel - 1) * NK + k, g[L.HANDS + seat * NK + k])
    size = g[L.DECK_LEN]
    for depth in range(min(TOP_CARDS, size)):
        _put(out, H_TOP + depth * NK + g[L.DECK + size - 1 - depth], 1)
    for i in range(size):  # counted per kind rather than into an array: see no_refcount
        out[H_DECK + g[L.DECK + i]] += 1
    for k in range(NK):
        out[H_DECK + k] *= INV[H_DECK + k]
    for i in range(3):
        for depth in range(size):
            if g[L.DECK + size - 1 - depth] == LETTER_KINDS[i]:
                _put(out, H_LETTERS + i, depth + 1)
                break
    for rel in range(n):
        seat = (viewer + rel) % n
        _put(out, H_SCOUT_TOP + rel, min(L.SCOUT_DEPTH, g[L.SEEN_TOP_LEN + seat]))
        seen = g[L.SEEN_SEAT + seat]
        if seen >= 0:
            _put(out, H_SCOUT_SEAT + rel * NS + (seen - viewer + n) % n, 1)


@nb.njit(cache=True)
def encode_hidden_rows(states: np.ndarray, rows: np.ndarray, viewers: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: what ``viewers[i]``'s observation of game ``rows[i]`` of ``states`` leaves out."""
    for i in range(rows.shape[0]):
        encode_hidden(states[rows[i]], viewers[i], out[i])
