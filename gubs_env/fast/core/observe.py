"""The observation vector of :mod:`gubs_env.encoding.observation`, compiled, bit for bit.

Each value is written as the reference writes it: a small raw count (clipped where the reference clips)
times the same ``float32`` inverse scale, so both encoders give identical ``float32`` vectors.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.jit import NO_REFCOUNT
from gubs_env.fast.core.rules import barricades, hand_size

NK = L.KINDS
NS = L.SEATS
INV = T.OBS_INV_SCALE
AT = T.OBS
HAND_CLIP = 20
O_HAND, O_HAND_SIZES, O_SEATS, O_TURN_PLAYER = AT["hand"], AT["hand_sizes"], AT["seats"], AT["turn_player"]
O_DECLINED, O_FREE, O_ELDER, O_PROTECTED = AT["declined"], AT["free"], AT["elder"], AT["protected"]
O_SPOUTED, O_RINGS, O_SCORE, O_DISCARD = AT["spouted"], AT["rings"], AT["score"], AT["discard"]
O_LETTERS, O_DECK_SIZE, O_TURN, O_KNOWN_TOP = AT["letters"], AT["deck_size"], AT["turn"], AT["known_top"]
O_SCOUTED_SEAT, O_SCOUTED_HAND, O_STEP, O_TO_ACT = AT["scouted_seat"], AT["scouted_hand"], AT["step"], AT["to_act"]
O_P_CARD, O_P_AS, O_P_USE, O_P_BY = AT["pending_card"], AT["pending_as"], AT["pending_use"], AT["pending_by"]
O_P_TARGET, O_P_PART, O_P_DETAIL = AT["pending_target"], AT["pending_part"], AT["pending_detail"]
O_RING_PICKS, O_RETREAT_TAKEN, O_SCOUT_CARDS = AT["ring_picks"], AT["retreat_taken"], AT["scout_cards"]
O_SCOUT_PLACED, O_SAVED = AT["scout_placed"], AT["saved"]
U_RING = T.U["RING"]
LETTER_KINDS = T.LETTER_KINDS


no_refcount = nb.njit(cache=True, **NO_REFCOUNT)
"""Compiled without reference counting (see :mod:`gubs_env.fast.core.jit`); the error model stays Python's."""


@nb.njit(cache=True, inline="always", **NO_REFCOUNT)
def _put(out: np.ndarray, at: int, raw: int) -> None:
    out[at] = np.float32(raw) * INV[at]


@no_refcount
def encode(g: np.ndarray, viewer: int, out: np.ndarray) -> None:
    """Write ``viewer``'s observation of game row ``g`` into ``out`` (float32, length 512)."""
    out[:] = 0
    n = g[L.NUM_PLAYERS]
    for k in range(NK):
        if g[L.HANDS + viewer * NK + k]:
            _put(out, O_HAND + k, g[L.HANDS + viewer * NK + k])
    for rel in range(n):
        seat = (viewer + rel) % n
        _put(out, O_HAND_SIZES + rel, min(HAND_CLIP, hand_size(g, seat)))
        _put(out, O_SEATS + rel, 1)
        _put(out, O_DECLINED + rel, g[L.DECLINED + seat])
        _put(out, O_FREE + rel, g[L.FREE + seat])
        _put(out, O_ELDER + rel, g[L.ELDER + seat])
        for b in range(3):
            _put(out, O_PROTECTED + rel * 3 + b, g[L.PROTECTED + seat * 3 + b])
            _put(out, O_RINGS + rel * 3 + b, g[L.RINGS + seat * 3 + b])
        _put(out, O_SPOUTED + rel, g[L.SPOUTED + seat])
        _put(out, O_SCORE + rel, g[L.FREE + seat] + g[L.ELDER + seat] + barricades(g, seat))
    _put(out, O_TURN_PLAYER + (g[L.TURN_PLAYER] - viewer + n) % n, 1)
    for k in range(NK):
        if g[L.DISCARD + k]:
            _put(out, O_DISCARD + k, g[L.DISCARD + k])
    for i in range(3):
        for j in range(g[L.LETTERS_LEN]):
            if g[L.LETTERS + j] == LETTER_KINDS[i]:
                _put(out, O_LETTERS + i, 1)
    _put(out, O_DECK_SIZE, g[L.DECK_LEN])
    out[O_TURN] = np.float32(min(1.0, g[L.TURN] / g[L.MAX_TURNS]))
    for depth in range(g[L.SEEN_TOP_LEN + viewer]):
        _put(out, O_KNOWN_TOP + depth * NK + g[L.SEEN_TOP + viewer * L.SCOUT_DEPTH + depth], 1)
    seen = g[L.SEEN_SEAT + viewer]
    if seen >= 0:
        _put(out, O_SCOUTED_SEAT + (seen - viewer + n) % n, 1)
        for k in range(NK):
            _put(out, O_SCOUTED_HAND + k, g[L.SEEN_HAND + viewer * NK + k])
    _pending(g, viewer, out)


@no_refcount
def _pending(g: np.ndarray, viewer: int, out: np.ndarray) -> None:
    n = g[L.NUM_PLAYERS]
    step = g[L.STEP]
    card = g[L.PLAY_CARD] if g[L.PLAY_CARD] >= 0 else g[L.EVENT]
    _put(out, O_STEP + step, 1)
    if step != T.S_OVER and g[L.ACTOR] == viewer:
        _put(out, O_TO_ACT, 1)
    if card >= 0:
        _put(out, O_P_CARD + card, 1)
        _put(out, O_P_BY + (g[L.BY] - viewer + n) % n, 1)
    if g[L.PLAY_CARD] >= 0:
        _put(out, O_P_AS + g[L.PLAY_AS], 1)
        _put(out, O_P_USE + g[L.PLAY_USE], 1)
        if g[L.PLAY_SEAT] >= 0:
            _put(out, O_P_TARGET + (g[L.PLAY_SEAT] - viewer + n) % n, 1)
        if g[L.PLAY_PART] >= 0:
            _put(out, O_P_PART + g[L.PLAY_PART], 1)
        if g[L.PLAY_DETAIL] >= 0:
            _put(out, O_P_DETAIL + g[L.PLAY_DETAIL], 1)
        if g[L.PLAY_USE] == U_RING:
            for rel in range(NS):  # counted per seat rather than into an array: see no_refcount
                picked = 0
                for i in range(g[L.PICKS_LEN]):
                    if (g[L.PICKS + i] - viewer + n) % n == rel:
                        picked += 1
                _put(out, O_RING_PICKS + rel, picked)
    if step == T.S_RETREAT:
        _put(out, O_RETREAT_TAKEN, min(10, g[L.PICKS_LEN]))
    if step == T.S_SCOUT and g[L.BY] == viewer:
        for k in range(NK):
            _put(out, O_SCOUT_CARDS + k, _count_kind(g, L.CARDS, g[L.CARDS_LEN], k))
            _put(out, O_SCOUT_PLACED + k, _count_kind(g, L.PLACED, g[L.PLACED_LEN], k))
    if step == T.S_CURE:
        for s in range(g[L.MARKS_LEN]):
            if g[L.MARKS + s]:
                _put(out, O_SAVED + (s - viewer + n) % n, 1)


@no_refcount
def _count_kind(g: np.ndarray, at: int, size: int, kind: int) -> int:
    """How many of the ``size`` cards from cell ``at`` are ``kind``."""
    count = 0
    for i in range(size):
        if g[at + i] == kind:
            count += 1
    return count
