"""Reading an observation into the heuristic's counts and worths (compiled).

``c`` is the integer scratch (rows ``R_*``, scalars in row ``R_SCALARS`` at ``V_*``), ``f`` the float scratch
(slots ``W_*``); :mod:`~agents.bots.heuristic.tables` lays them out. Seats are relative to the player to act.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from agents.bots.heuristic.tables import (
    _GUB,
    _HAKI_FLUTE,
    _LETTER_G,
    _MUSHROOM,
    _OMEN_BEETLE,
    _RUMOR_OF_WASPS,
    _SUPER_LURE,
    _TOAD_RIDER,
    C_BEETLE_RISK,
    C_ELDER_WORTH,
    C_FREE_RISK,
    C_FREE_WORTH_MAX,
    C_FREE_WORTH_MIN,
    C_GUB_HOLD_MIN_FREE,
    C_GUB_HOLD_THREAT,
    C_GUB_HOLD_VALUE,
    C_GUB_RESERVE_LEAD,
    C_HAKI_FLUTE_PER_RING,
    C_HAND_LIMIT,
    C_LEADER_REST,
    C_LEADER_WEIGHT,
    C_OVER_LIMIT_DECAY,
    C_WASPS_RISK,
    C_WIN_SCALE,
    COUNT_ROWS,
    F_DECK_SIZE,
    F_ELDER,
    F_FREE,
    F_HAND,
    F_HAND_SIZES,
    F_KNOWN_TOP,
    F_LETTERS,
    F_PENDING_AS,
    F_PENDING_BY,
    F_PENDING_CARD,
    F_PENDING_DETAIL,
    F_PENDING_PART,
    F_PENDING_TARGET,
    F_PENDING_USE,
    F_PROTECTED,
    F_RING_PICKS,
    F_RINGS,
    F_SCORE,
    F_SCOUT_PLACED,
    F_SEATS,
    F_SPOUTED,
    F_STEP,
    FLOAT_SLOTS,
    MAX_PLAYERS,
    NUM_KINDS,
    R_ELDER,
    R_FREE,
    R_HAND,
    R_HAND_SIZES,
    R_PROTECTED,
    R_RING_PICKS,
    R_RINGS,
    R_SCALARS,
    R_SCORE,
    R_SPOUTED,
    R_UNSEEN,
    TABLES,
    TF_BARRICADE_WORTH,
    TF_CARD_VALUE,
    TF_HOLD_DECAY,
    TF_HOLD_VALUE,
    TF_SCALE,
    TF_VAR,
    TI_BARRICADES,
    TI_COPIES,
    TI_DRAW_COUNT,
    TI_IS_EVENT,
    TI_LAYOUT,
    TI_SEEN_COUNT,
    TI_THREAT_COUNT,
    TI_VAR,
    V_DECK,
    V_HAND_TOTAL,
    V_KNOWN_TOP,
    V_LETTERS,
    V_N,
    V_PENDING_AS,
    V_PENDING_BY,
    V_PENDING_CARD,
    V_PENDING_DETAIL,
    V_PENDING_PART,
    V_PENDING_TARGET,
    V_PENDING_USE,
    V_SCOUT_PLACED,
    V_STEP,
    V_UNSEEN_TOTAL,
    W_FREE_WORTH,
    W_STANDING,
    W_WORTH,
)


@nb.njit(cache=True, inline="always")
def _wrap(seat: int, n: int) -> int:
    """A seat index as Python's list indexing reads it (-1: the last seat)."""
    return seat + n if seat < 0 else seat


# --- the view -------------------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _one_hot(raw: np.ndarray, ti: np.ndarray, tf: np.ndarray, field: int) -> int:
    start, size = ti[TI_LAYOUT + 2 * field], ti[TI_LAYOUT + 2 * field + 1]
    for i in range(size):
        if raw[start + i] == 1:
            return i
    return -1


@nb.njit(cache=True, inline="always")
def _field_sum(raw: np.ndarray, ti: np.ndarray, tf: np.ndarray, field: int) -> int:
    start, size = ti[TI_LAYOUT + 2 * field], ti[TI_LAYOUT + 2 * field + 1]
    total = 0
    for i in range(size):
        total += raw[start + i]
    return total


@nb.njit(cache=True, inline="always")
def _barricade_worth(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, kind: int) -> float:
    worth = tf[TF_BARRICADE_WORTH + kind]
    if kind == _MUSHROOM and c[R_UNSEEN, _OMEN_BEETLE] != 0:
        worth -= tf[C_BEETLE_RISK]
    if kind == _TOAD_RIDER and c[R_UNSEEN, _RUMOR_OF_WASPS] != 0:
        worth -= tf[C_WASPS_RISK]
    return worth


@nb.njit(cache=True, inline="always")
def _standing(ti: np.ndarray, tf: np.ndarray, worth: np.ndarray, n: int) -> float:
    """Own worth against a blend of the best and the average opponent."""
    best = worth[1]
    total = 0.0
    for s in range(1, n):
        if worth[s] > best:
            best = worth[s]
        total += worth[s]
    others = total
    return worth[0] - tf[C_LEADER_WEIGHT] * best - tf[C_LEADER_REST] * others / (n - 1)


@nb.njit(cache=True)
def _read_view(obs: np.ndarray, ti: np.ndarray, tf: np.ndarray, raw: np.ndarray, c: np.ndarray, f: np.ndarray) -> None:
    """Read an observation: the counts into ``c``, the worths into ``f``."""
    for i in range(obs.shape[0]):
        raw[i] = np.int64(np.int32(obs[i] * np.float32(tf[TF_SCALE + i]) + np.float32(0.5)))
    v = R_SCALARS
    n = _field_sum(raw, ti, tf, F_SEATS)
    c[v, V_N] = n
    for k in range(NUM_KINDS):
        c[R_HAND, k] = raw[ti[TI_LAYOUT + 2 * F_HAND] + k]
    for s in range(MAX_PLAYERS):
        c[R_HAND_SIZES, s] = raw[ti[TI_LAYOUT + 2 * F_HAND_SIZES] + s]
        c[R_FREE, s] = raw[ti[TI_LAYOUT + 2 * F_FREE] + s]
        c[R_ELDER, s] = raw[ti[TI_LAYOUT + 2 * F_ELDER] + s]
        c[R_SPOUTED, s] = raw[ti[TI_LAYOUT + 2 * F_SPOUTED] + s]
        c[R_SCORE, s] = raw[ti[TI_LAYOUT + 2 * F_SCORE] + s]
        c[R_RING_PICKS, s] = raw[ti[TI_LAYOUT + 2 * F_RING_PICKS] + s]
        for i in range(3):
            c[R_PROTECTED + i, s] = raw[ti[TI_LAYOUT + 2 * F_PROTECTED] + 3 * s + i]
            c[R_RINGS + i, s] = raw[ti[TI_LAYOUT + 2 * F_RINGS] + 3 * s + i]
    c[v, V_LETTERS] = _field_sum(raw, ti, tf, F_LETTERS)
    c[v, V_DECK] = raw[ti[TI_LAYOUT + 2 * F_DECK_SIZE]]
    top = _one_hot(raw, ti, tf, F_KNOWN_TOP)
    c[v, V_KNOWN_TOP] = top if top < NUM_KINDS else -1
    c[v, V_STEP] = _one_hot(raw, ti, tf, F_STEP)
    c[v, V_PENDING_CARD] = _one_hot(raw, ti, tf, F_PENDING_CARD)
    c[v, V_PENDING_AS] = _one_hot(raw, ti, tf, F_PENDING_AS)
    c[v, V_PENDING_USE] = _one_hot(raw, ti, tf, F_PENDING_USE)
    c[v, V_PENDING_BY] = _one_hot(raw, ti, tf, F_PENDING_BY)
    c[v, V_PENDING_TARGET] = _one_hot(raw, ti, tf, F_PENDING_TARGET)
    c[v, V_PENDING_PART] = _one_hot(raw, ti, tf, F_PENDING_PART)
    c[v, V_PENDING_DETAIL] = _one_hot(raw, ti, tf, F_PENDING_DETAIL)
    c[v, V_SCOUT_PLACED] = _field_sum(raw, ti, tf, F_SCOUT_PLACED)
    c[v, V_HAND_TOTAL] = _field_sum(raw, ti, tf, F_HAND)
    _read_unseen(ti, tf, raw, c)
    f[W_FREE_WORTH] = _free_worth(ti, tf, c)
    for s in range(n):
        f[W_WORTH + s] = _side_worth(ti, tf, c, f, s)
    f[W_STANDING] = _standing(ti, tf, f[W_WORTH : W_WORTH + MAX_PLAYERS], n)


@nb.njit(cache=True)
def _read_unseen(ti: np.ndarray, tf: np.ndarray, raw: np.ndarray, c: np.ndarray) -> None:
    """Copies of each kind not in sight (the Letters counted under the first)."""
    for k in range(NUM_KINDS):
        c[R_UNSEEN, k] = ti[TI_COPIES + k]
    for e in range(ti[TI_SEEN_COUNT]):
        at = TI_VAR + ti[TI_THREAT_COUNT] + ti[TI_DRAW_COUNT] + 3 * e
        c[R_UNSEEN, ti[at]] -= ti[at + 2] * raw[ti[at + 1]]
    total = 0
    for k in range(NUM_KINDS):
        if c[R_UNSEEN, k] < 0:
            c[R_UNSEEN, k] = 0
    letters = c[R_SCALARS, V_LETTERS]
    c[R_UNSEEN, _LETTER_G] = 3 - letters
    c[R_UNSEEN, _LETTER_G + 1] = 0
    c[R_UNSEEN, _LETTER_G + 2] = 0
    for k in range(NUM_KINDS):
        total += c[R_UNSEEN, k]
    c[R_SCALARS, V_UNSEEN_TOTAL] = total


@nb.njit(cache=True)
def _free_worth(ti: np.ndarray, tf: np.ndarray, c: np.ndarray) -> float:
    """What one Free Gub is worth, lower the more threats are unseen."""
    unseen_total = max(1, c[R_SCALARS, V_UNSEEN_TOTAL])
    total = 0.0
    for j in range(ti[TI_THREAT_COUNT]):
        total += tf[TF_VAR + j] * c[R_UNSEEN, ti[TI_VAR + j]]
    threat_share = total / unseen_total
    letters = c[R_SCALARS, V_LETTERS]
    worth = 1.0 - tf[C_FREE_RISK] * threat_share * (1.0 - 0.3 * letters)
    low = worth if worth > tf[C_FREE_WORTH_MIN] else tf[C_FREE_WORTH_MIN]
    return low if low < tf[C_FREE_WORTH_MAX] else tf[C_FREE_WORTH_MAX]


@nb.njit(cache=True)
def _side_worth(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, seat: int) -> float:
    """What a seat's side is worth: Elder, Protected Gubs by their Barricade, Free Gubs."""
    total = 0.0
    for i in range(3):
        term = _barricade_worth(ti, tf, c, ti[TI_BARRICADES + i]) * c[R_PROTECTED + i, seat]
        total += term
    base = tf[C_ELDER_WORTH] * c[R_ELDER, seat] + f[W_FREE_WORTH] * c[R_FREE, seat]
    return base + total


@nb.njit(cache=True, inline="always")
def _winning(c: np.ndarray) -> bool:
    """Whether the own score is strictly the best."""
    n = c[R_SCALARS, V_N]
    best = c[R_SCORE, 0]
    for s in range(1, n):
        best = max(best, c[R_SCORE, s])
    if c[R_SCORE, 0] < best:
        return False
    tied, with_elder, elder_seat, fewest = 0, 0, -1, c[R_HAND_SIZES, 0]
    for s in range(n):
        if c[R_SCORE, s] == best:
            tied += 1
            fewest = min(fewest, c[R_HAND_SIZES, s])
            if c[R_ELDER, s] != 0:
                with_elder += 1
                elder_seat = s
    if tied == 1:
        return True
    if with_elder:
        return with_elder == 1 and elder_seat == 0
    return c[R_HAND_SIZES, 0] <= fewest


@nb.njit(cache=True, inline="always")
def _card_value(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, kind: int) -> float:
    """``card_value``."""
    value = tf[TF_CARD_VALUE + kind]
    if kind == _HAKI_FLUTE:
        rings = 0
        for s in range(c[R_SCALARS, V_N]):
            for i in range(3):
                rings += c[R_RINGS + i, s]
        value += tf[C_HAKI_FLUTE_PER_RING] * rings
    return value


@nb.njit(cache=True)
def _hand_value(ti: np.ndarray, tf: np.ndarray, c: np.ndarray) -> float:
    """``hand_value``."""
    total = 0.0
    for k in range(NUM_KINDS):
        if c[R_HAND, k] != 0:
            total += _card_value(ti, tf, c, k) * c[R_HAND, k]
    return total


@nb.njit(cache=True, inline="always")
def _lead(c: np.ndarray) -> int:
    best = c[R_SCORE, 1]
    for s in range(2, c[R_SCALARS, V_N]):
        best = max(best, c[R_SCORE, s])
    return c[R_SCORE, 0] - best


@nb.njit(cache=True)
def _gub_hold_value(ti: np.ndarray, tf: np.ndarray, c: np.ndarray) -> float:
    """``gub_hold_value``."""
    letters = c[R_SCALARS, V_LETTERS]
    if letters < 2 and _lead(c) >= tf[C_GUB_RESERVE_LEAD] and c[R_UNSEEN, _SUPER_LURE] != 0:
        return tf[C_GUB_HOLD_VALUE]
    barricade_in_hand = False
    for i in range(3):
        if c[R_HAND, ti[TI_BARRICADES + i]] != 0:
            barricade_in_hand = True
    if letters != 0 or barricade_in_hand or c[R_FREE, 0] < tf[C_GUB_HOLD_MIN_FREE]:
        return 0.0
    unseen_total = max(1, c[R_SCALARS, V_UNSEEN_TOTAL])
    total = 0.0
    for j in range(ti[TI_THREAT_COUNT]):
        kind = ti[TI_VAR + j]
        if not ti[TI_IS_EVENT + kind]:
            total += tf[TF_VAR + j] * c[R_UNSEEN, kind]
    per_card = total / unseen_total
    other_hands = 0
    for s in range(1, c[R_SCALARS, V_N]):
        other_hands += c[R_HAND_SIZES, s]
    return tf[C_GUB_HOLD_VALUE] if per_card * other_hands >= tf[C_GUB_HOLD_THREAT] else 0.0


@nb.njit(cache=True)
def _hold(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, kind: int) -> float:
    """What a card is worth kept in hand rather than spent now (shrinking with each Letter laid)."""
    value = _gub_hold_value(ti, tf, c) if kind == _GUB else tf[TF_HOLD_VALUE + kind]
    value *= tf[TF_HOLD_DECAY + min(c[R_SCALARS, V_LETTERS], 2)]
    if c[R_SCALARS, V_HAND_TOTAL] > tf[C_HAND_LIMIT]:
        value *= tf[C_OVER_LIMIT_DECAY]
    return value


@nb.njit(cache=True, inline="always")
def _win_chance(ti: np.ndarray, tf: np.ndarray, standing: float) -> float:
    return 1.0 / (1.0 + math.exp(-standing / tf[C_WIN_SCALE]))


def unseen_counts(observation: np.ndarray) -> np.ndarray:
    """The copies of each kind the observer cannot see (the deck and the other hands; Letters under the first)."""
    obs = np.asarray(observation, dtype=np.float32)
    raw = np.zeros(obs.shape[0], dtype=np.int64)
    counts = np.zeros((COUNT_ROWS, NUM_KINDS), dtype=np.int64)
    worths = np.zeros(FLOAT_SLOTS, dtype=np.float64)
    _read_view(obs, TABLES.ints, TABLES.floats, raw, counts, worths)
    return counts[R_UNSEEN].copy()
