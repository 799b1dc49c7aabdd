"""The heuristic's scores (compiled): what each play, answer, pick and placement changes in standing.

A play is worth the change in standing it makes (:func:`_play_delta`, per seat), plus follow-ups, minus what
the card would still be worth kept; an answer to a window is worth the harm it prevents, minus the answer card.
:func:`_score_step` dispatches on the decision's step.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from agents.bots.heuristic.tables import (
    _AGE_OLD_CURE,
    _BLINDFOLD,
    _CRICKET_SONG,
    _DANGEROUS_ALCHEMY,
    _ELDER,
    _FEATHER,
    _FLASH_FLOOD,
    _FLOP_BOAT,
    _GARGOK_PLAGUE,
    _GUB,
    _HAKI_FLUTE,
    _LETTER_G,
    _LURE,
    _MUSHROOM,
    _OP_DECLINE,
    _OP_END_TURN,
    _OP_PASS,
    _OP_STOP,
    _PART_BARRICADE,
    _PART_FREE_GUB,
    _PART_PROTECTED_GUB,
    _PART_RING,
    _PART_SPOUT,
    _PART_SPOUTED_GUB,
    _RETREAT,
    _RUMOR_OF_WASPS,
    _S_CANCEL,
    _S_CURE,
    _S_DISCARD,
    _S_DRAW,
    _S_FLOP,
    _S_KEEP,
    _S_PLAY,
    _S_RETREAT,
    _S_RING,
    _S_SCOUT,
    _SPEAR,
    _SUD_SPOUT,
    _SUPER_LURE,
    _TOAD_RIDER,
    _TRAVELING_MERCHANT,
    _U_BEETLE,
    _U_CYCLONE,
    _U_ENTER,
    _U_FREE,
    _U_KILL,
    _U_LURE,
    _U_PROTECT,
    _U_REMOVE,
    _U_RETREAT,
    _U_RETRIEVE,
    _U_RING,
    _U_SCOUT_DECK,
    _U_SCOUT_HAND,
    _U_SHATTER,
    _U_SPOUT,
    _U_STEAL,
    _U_STRIKE_ELDER,
    _U_STRIKE_HAND,
    _U_SUPER_LURE,
    C_CARD_TO_HAND_REST,
    C_CARD_TO_HAND_SHARE,
    C_DRAW_GAIN,
    C_ELDER_WORTH,
    C_END_STAKE,
    C_FOLLOW_UP_BONUS,
    C_FOREIGN_HARM_MARGIN,
    C_HAND_CARD_WORTH,
    C_OPPONENT_CARD_SHARE,
    C_RING_ON_OWN_SIDE_BONUS,
    C_SAVE_SHARE,
    C_SCOUT_DECK_ENDGAME_GAIN,
    C_SCOUT_DECK_GAIN,
    C_SCOUT_HAND_GAIN,
    C_SUPER_LURE_REACH,
    C_SUPER_LURE_RESERVE,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_KINDS,
    R_CHANCE_KINDS,
    R_DELTA_KEYS,
    R_ELDER,
    R_FREE,
    R_FREE_COPY,
    R_HAND,
    R_HAND_SIZES,
    R_PROTECTED,
    R_RING_PICKS,
    R_RINGS,
    R_SCALARS,
    R_SPOUTED,
    R_UNSEEN,
    TF_ANSWER_COST,
    TF_CARD_VALUE,
    TF_HOLD_DECAY,
    TI_BARRICADES,
    TI_DRAW_COUNT,
    TI_IS_EVENT,
    TI_IS_LETTER,
    TI_RING_SIZE,
    TI_RINGS,
    TI_TEMPLATES,
    TI_THREAT_COUNT,
    TI_VAR,
    V_DECK,
    V_DELTA_SIZE,
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
    W_CHANCES,
    W_COPY,
    W_DELTA,
    W_FREE_WORTH,
    W_STANDING,
    W_WORTH,
)
from agents.bots.heuristic.view import (
    _barricade_worth,
    _card_value,
    _hand_value,
    _hold,
    _standing,
    _win_chance,
    _winning,
    _wrap,
)

# --- per-seat changes of worth (insertion-ordered maps: seat -> change) ------------------------------------


@nb.njit(cache=True, inline="always")
def _put(c: np.ndarray, f: np.ndarray, seat: int, change: float) -> None:
    """``delta[seat] = change``."""
    for j in range(c[R_SCALARS, V_DELTA_SIZE]):
        if c[R_DELTA_KEYS, j] == seat:
            f[W_DELTA + j] = change
            return
    c[R_DELTA_KEYS, c[R_SCALARS, V_DELTA_SIZE]], f[W_DELTA + c[R_SCALARS, V_DELTA_SIZE]] = seat, change
    c[R_SCALARS, V_DELTA_SIZE] += 1


@nb.njit(cache=True, inline="always")
def _add(c: np.ndarray, f: np.ndarray, seat: int, change: float) -> None:
    """Add ``change`` to ``seat``'s entry of the delta, appending the seat when it has none."""
    for j in range(c[R_SCALARS, V_DELTA_SIZE]):
        if c[R_DELTA_KEYS, j] == seat:
            f[W_DELTA + j] = f[W_DELTA + j] + change
            return
    c[R_DELTA_KEYS, c[R_SCALARS, V_DELTA_SIZE]], f[W_DELTA + c[R_SCALARS, V_DELTA_SIZE]] = seat, 0.0 + change
    c[R_SCALARS, V_DELTA_SIZE] += 1


@nb.njit(cache=True, inline="always")
def _worth_copy(f: np.ndarray) -> np.ndarray:
    """``view.worth[:]``: the seats' worths copied into the scratch row, free to change."""
    worth = f[W_COPY : W_COPY + MAX_PLAYERS]
    # a loop, not ``worth[:] = f[...]``: numba compiles an array-to-array slice assignment with its shape-mismatch
    # error message (integer and string formatting), which cost a cold compile more than ten seconds
    for s in range(MAX_PLAYERS):
        worth[s] = f[W_WORTH + s]
    return worth


@nb.njit(cache=True)
def _gain(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
) -> float:
    """Change in standing when the seats' worths change by the delta."""
    n = c[R_SCALARS, V_N]
    worth = _worth_copy(f)
    for j in range(c[R_SCALARS, V_DELTA_SIZE]):
        seat = _wrap(c[R_DELTA_KEYS, j], n)
        worth[seat] += f[W_DELTA + j]
    return _standing(ti, tf, worth, n) - f[W_STANDING]


@nb.njit(cache=True)
def _play_delta(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    use: int,
    actor: int,
    target: int,
    part: int,
    detail: int,
) -> None:
    """``play_delta``: the per-seat change of worth of a play, written as a fresh delta."""
    c[R_SCALARS, V_DELTA_SIZE] = 0
    n = c[R_SCALARS, V_N]
    free = f[W_FREE_WORTH]
    at = _wrap(target, n)
    if use == _U_ENTER:
        _put(c, f, actor, tf[C_ELDER_WORTH] if detail == _ELDER else free)
    elif use == _U_PROTECT:
        _put(c, f, actor, _barricade_worth(ti, tf, c, detail) - free)
    elif use == _U_REMOVE:
        _put(c, f, target, free - _barricade_worth(ti, tf, c, detail))
    elif use in (_U_SPOUT, _U_KILL):
        _put(c, f, target, -free)
    elif use == _U_FREE:
        _put(c, f, target, free)
    elif use == _U_LURE:
        _put(c, f, target, -free)
        _add(c, f, actor, free)
    elif use == _U_SUPER_LURE:
        gubs = c[R_FREE, at] + c[R_PROTECTED, at] + c[R_PROTECTED + 1, at] + c[R_PROTECTED + 2, at]
        elder = tf[C_ELDER_WORTH] * c[R_ELDER, at]
        _put(c, f, target, -f[W_WORTH + at] + elder)
        _add(c, f, actor, free * gubs)
    elif use == _U_CYCLONE:
        total = 0.0
        for i in range(3):
            term = (free - _barricade_worth(ti, tf, c, ti[TI_BARRICADES + i])) * c[R_PROTECTED + i, at]
            total += term
        _put(c, f, target, total)
    elif use == _U_STRIKE_ELDER:
        for s in range(n):
            if c[R_ELDER, s] == 1:
                _put(c, f, s, -tf[C_ELDER_WORTH])
                break
    elif use == _U_STRIKE_HAND:
        lost = _hand_value(ti, tf, c) if target == 0 else tf[C_HAND_CARD_WORTH] * c[R_HAND_SIZES, at]
        _put(c, f, target, -lost)
    elif use == _U_BEETLE:
        mushroom = _barricade_worth(ti, tf, c, _MUSHROOM)
        for s in range(n):
            _put(c, f, s, -mushroom * c[R_PROTECTED, s])
    elif use == _U_STEAL:
        _steal_delta(ti, tf, c, f, np.int64(actor), np.int64(target), np.int64(part), np.int64(detail))
    elif use == _U_RING:
        for s in range(n):
            if c[R_RING_PICKS, s] != 0:
                _put(c, f, s, -free * c[R_RING_PICKS, s])


@nb.njit(cache=True)
def _steal_delta(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    actor: int,
    target: int,
    part: int,
    detail: int,
) -> None:
    """``_steal_delta``: what the victim loses and what the thief's hand gains."""
    free = f[W_FREE_WORTH]
    share = tf[C_CARD_TO_HAND_SHARE]
    gub_in_hand = share * tf[TF_CARD_VALUE + _GUB] + tf[C_CARD_TO_HAND_REST] * free
    if part == _PART_FREE_GUB:
        _put(c, f, target, -free)
        _add(c, f, actor, gub_in_hand)
    elif part == _PART_PROTECTED_GUB:
        _put(c, f, target, -_barricade_worth(ti, tf, c, detail))
        _add(c, f, actor, gub_in_hand)
    elif part == _PART_BARRICADE:
        card = share * tf[TF_CARD_VALUE + detail]
        _put(c, f, target, free - _barricade_worth(ti, tf, c, detail))
        _add(c, f, actor, card)
    elif part == _PART_SPOUT:
        _put(c, f, target, free)
        _add(c, f, actor, share * tf[TF_CARD_VALUE + _SUD_SPOUT])
    elif part == _PART_SPOUTED_GUB:
        _put(c, f, actor, gub_in_hand)


@nb.njit(cache=True)
def _event_delta(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    event: int,
    drawer: int,
) -> float:
    """``event_delta``: change in standing if the Event, drawn by ``drawer``, takes effect."""
    n = c[R_SCALARS, V_N]
    if ti[TI_IS_LETTER + event]:
        if c[R_SCALARS, V_LETTERS] < 2:
            return 0.0
        return tf[C_END_STAKE] if _winning(c) else -tf[C_END_STAKE]
    free = f[W_FREE_WORTH]
    c[R_SCALARS, V_DELTA_SIZE] = 0
    if event == _DANGEROUS_ALCHEMY:
        at = _wrap(drawer, n)
        _put(c, f, drawer, -(f[W_WORTH + at] - tf[C_ELDER_WORTH] * c[R_ELDER, at]))
    elif event == _FLASH_FLOOD:
        for s in range(n):
            _put(c, f, s, -free * c[R_FREE, s])
    elif event == _RUMOR_OF_WASPS:
        toad = _barricade_worth(ti, tf, c, _TOAD_RIDER)
        for s in range(n):
            _put(c, f, s, -toad * c[R_PROTECTED + 1, s])
    elif event == _GARGOK_PLAGUE:
        for s in range(1, n):
            _put(c, f, s, -tf[C_HAND_CARD_WORTH] * c[R_HAND_SIZES, s])
        if c[R_HAND, _AGE_OLD_CURE] != 0:
            _put(c, f, 0, -tf[TF_ANSWER_COST + _AGE_OLD_CURE])
        elif c[R_HAND, _CRICKET_SONG] != 0:
            _put(c, f, 0, -tf[TF_ANSWER_COST + _CRICKET_SONG])
        else:
            _put(c, f, 0, -_hand_value(ti, tf, c))
    elif event == _TRAVELING_MERCHANT:
        kept, found = 0.0, False
        for k in range(NUM_KINDS):
            if c[R_HAND, k] != 0:
                value = _card_value(ti, tf, c, k)
                if not found or value > kept:
                    kept, found = value, True
        given = _hand_value(ti, tf, c) - kept
        received = tf[C_HAND_CARD_WORTH] * max(0, c[R_HAND_SIZES, 1] - 1)
        _put(c, f, 0, received - given)
        _put(c, f, n - 1, given)
        if n == 2:
            _put(c, f, 1, _value_of(c, f, 1) - received)
    else:
        return 0.0
    return _gain(
        ti,
        tf,
        c,
        f,
    )


@nb.njit(cache=True, inline="always")
def _value_of(c: np.ndarray, f: np.ndarray, seat: int) -> float:
    """``delta.get(seat, 0.0)``."""
    for j in range(c[R_SCALARS, V_DELTA_SIZE]):
        if c[R_DELTA_KEYS, j] == seat:
            return f[W_DELTA + j]
    return 0.0


# --- one scorer per decision ----------------------------------------------------------------------------


@nb.njit(cache=True)
def _score_draw(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    a: int,
) -> float:
    """``score_draw``."""
    if ti[TI_TEMPLATES + 0 * NUM_ACTIONS + a] == _OP_DECLINE:
        return 0.0
    now = f[W_STANDING]
    base = _win_chance(ti, tf, now)
    ending = (1.0 if _winning(c) else 0.0) - base
    can_flop = c[R_HAND, _FLOP_BOAT] != 0 or c[R_HAND, _CRICKET_SONG] != 0
    flop_cost = tf[TF_ANSWER_COST + _FLOP_BOAT]
    letters = c[R_SCALARS, V_LETTERS]
    count = 0
    if c[R_SCALARS, V_KNOWN_TOP] >= 0:
        c[R_CHANCE_KINDS, 0], f[W_CHANCES + 0], count = c[R_SCALARS, V_KNOWN_TOP], 1.0, 1
    else:
        deck = max(1, c[R_SCALARS, V_DECK])
        for j in range(ti[TI_DRAW_COUNT]):
            event = ti[TI_VAR + ti[TI_THREAT_COUNT] + j]
            if c[R_UNSEEN, event] != 0:
                c[R_CHANCE_KINDS, count], f[W_CHANCES + count] = event, c[R_UNSEEN, event] / deck
                count += 1
        if letters == 2:
            c[R_CHANCE_KINDS, count], f[W_CHANCES + count] = _LETTER_G, 1 / deck
            count += 1
    value = 0.0
    total = 0.0
    for j in range(count):
        kind = c[R_CHANCE_KINDS, j]
        if ti[TI_IS_LETTER + kind]:
            change = ending if letters == 2 else 0.0
        elif ti[TI_IS_EVENT + kind]:
            change = _win_chance(ti, tf, now + _event_delta(ti, tf, c, f, np.int64(kind), np.int64(0))) - base
        else:
            continue
        if can_flop:
            flopped = _win_chance(ti, tf, now - flop_cost) - base
            if flopped > change:
                change = flopped
        value += f[W_CHANCES + j] * change
    for j in range(count):
        if ti[TI_IS_EVENT + c[R_CHANCE_KINDS, j]]:
            total += f[W_CHANCES + j]
    card_chance = 1.0 - total
    return value + card_chance * (_win_chance(ti, tf, now + tf[C_DRAW_GAIN]) - base)


@nb.njit(cache=True)
def _score_play(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, a: int) -> float:
    """``score_play``: the play's gain minus the card's hold value."""
    if ti[TI_TEMPLATES + 0 * NUM_ACTIONS + a] == _OP_END_TURN:
        return 0.0
    return _play_gain(ti, tf, c, f, a) - _hold(ti, tf, c, ti[TI_TEMPLATES + 1 * NUM_ACTIONS + a])


@nb.njit(cache=True)
def _play_gain(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, a: int) -> float:
    """``_play_gain``."""
    use = ti[TI_TEMPLATES + 2 * NUM_ACTIONS + a]
    free = f[W_FREE_WORTH]
    if use == _U_RING:
        return _ring_gain(ti, tf, c, f, ti[TI_RING_SIZE + ti[TI_TEMPLATES + 3 * NUM_ACTIONS + a]])
    if use == _U_SHATTER:
        c[R_SCALARS, V_DELTA_SIZE] = 0
        _put(c, f, 0, free * ti[TI_RING_SIZE + ti[TI_TEMPLATES + 6 * NUM_ACTIONS + a]])
        return _gain(
            ti,
            tf,
            c,
            f,
        )
    if use == _U_RETREAT:
        return _retreat_gain(
            ti,
            tf,
            c,
            f,
        )
    if use == _U_SCOUT_HAND:
        return tf[C_SCOUT_HAND_GAIN]
    if use == _U_SCOUT_DECK:
        return tf[C_SCOUT_DECK_ENDGAME_GAIN] if c[R_SCALARS, V_LETTERS] == 2 else tf[C_SCOUT_DECK_GAIN]
    if use == _U_RETRIEVE:
        c[R_SCALARS, V_DELTA_SIZE] = 0
        _put(c, f, 0, tf[C_CARD_TO_HAND_SHARE] * tf[TF_CARD_VALUE + _GUB])
        return _gain(
            ti,
            tf,
            c,
            f,
        )
    if use == _U_ENTER:
        detail = ti[TI_TEMPLATES + 1 * NUM_ACTIONS + a]
    elif use == _U_PROTECT:
        detail = ti[TI_TEMPLATES + 3 * NUM_ACTIONS + a]
    else:
        detail = ti[TI_TEMPLATES + 6 * NUM_ACTIONS + a]
    seat, part = ti[TI_TEMPLATES + 4 * NUM_ACTIONS + a], ti[TI_TEMPLATES + 5 * NUM_ACTIONS + a]
    _play_delta(ti, tf, c, f, np.int64(use), np.int64(0), np.int64(seat), np.int64(part), np.int64(detail))
    return _gain(
        ti,
        tf,
        c,
        f,
    ) + _follow_up_bonus(ti, tf, c, use, seat)


@nb.njit(cache=True, inline="always")
def _follow_up_bonus(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, use: int, seat: int) -> float:
    if (use != _U_CYCLONE and use != _U_REMOVE) or seat <= 0 or c[R_FREE, seat] != 0:
        return 0.0
    takers = c[R_HAND, _LURE] + c[R_HAND, _SPEAR] + c[R_HAND, _SUD_SPOUT]
    return tf[C_FOLLOW_UP_BONUS] if takers != 0 else 0.0


@nb.njit(cache=True)
def _ring_gain(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, ring: int) -> float:
    """``_ring_gain``: the best picks in turn, plus the chance to free the Ring's Gubs later."""
    n = c[R_SCALARS, V_N]
    free_worth = f[W_FREE_WORTH]
    worth = _worth_copy(f)
    for s in range(MAX_PLAYERS):
        c[R_FREE_COPY, s] = c[R_FREE, s]
    for _ in range(ring):
        best, best_gain = 0, -math.inf
        for seat in range(n):
            if c[R_FREE_COPY, seat] <= 0:
                continue
            worth[seat] -= free_worth
            gain = _standing(ti, tf, worth, n)
            worth[seat] += free_worth
            if gain > best_gain:
                best, best_gain = seat, gain
        c[R_FREE_COPY, best] -= 1
        worth[best] -= free_worth
    gain = _standing(ti, tf, worth, n) - f[W_STANDING]
    if c[R_HAND, _RETREAT] != 0 or c[R_HAND, _HAKI_FLUTE] != 0:
        gain += tf[C_RING_ON_OWN_SIDE_BONUS] * ring
    return gain


@nb.njit(cache=True)
def _retreat_gain(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
) -> float:
    """``_retreat_gain``: Rings and Sud Spouts on the own side come back."""
    ring_gubs = 0
    for i in range(3):
        ring_gubs += ti[TI_RING_SIZE + ti[TI_RINGS + i]] * c[R_RINGS + i, 0]
    spouts = c[R_SPOUTED, 0]
    if ring_gubs == 0 and spouts == 0:
        return -1.0
    share = tf[C_CARD_TO_HAND_SHARE]
    total = 0.0
    for i in range(3):
        if c[R_RINGS + i, 0] != 0:
            total += share * tf[TF_CARD_VALUE + ti[TI_RINGS + i]]
    cards = total
    cards += spouts * share * tf[TF_CARD_VALUE + _SUD_SPOUT]
    c[R_SCALARS, V_DELTA_SIZE] = 0
    _put(c, f, 0, f[W_FREE_WORTH] * (ring_gubs + spouts) + cards)
    return _gain(
        ti,
        tf,
        c,
        f,
    )


@nb.njit(cache=True)
def _score_cancel(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, a: int) -> float:
    """``score_cancel``: the harm prevented minus the answer's cost."""
    if ti[TI_TEMPLATES + 0 * NUM_ACTIONS + a] == _OP_PASS:
        return 0.0
    v = R_SCALARS
    use, by, target = c[v, V_PENDING_USE], c[v, V_PENDING_BY], c[v, V_PENDING_TARGET]
    part, detail = c[v, V_PENDING_PART], c[v, V_PENDING_DETAIL]
    _play_delta(ti, tf, c, f, np.int64(use), np.int64(by), np.int64(target), np.int64(part), np.int64(detail))
    harm = -_gain(
        ti,
        tf,
        c,
        f,
    )
    if _value_of(c, f, 0) >= 0:
        harm -= tf[C_FOREIGN_HARM_MARGIN]
    cost = tf[TF_ANSWER_COST + ti[TI_TEMPLATES + 1 * NUM_ACTIONS + a]] * tf[TF_HOLD_DECAY + min(c[v, V_LETTERS], 2)]
    return (
        harm
        - cost
        - _super_lure_reserve(
            ti,
            tf,
            c,
            f,
        )
    )


@nb.njit(cache=True)
def _super_lure_reserve(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
) -> float:
    """``_super_lure_reserve``: keeping the last answer for a Super Lure still to come."""
    if c[R_SCALARS, V_PENDING_AS] == _SUPER_LURE:
        return 0.0
    answers = c[R_HAND, _FEATHER] + c[R_HAND, _BLINDFOLD] + c[R_HAND, _CRICKET_SONG]
    if answers > 1:
        return 0.0
    threat = c[R_UNSEEN, _SUPER_LURE] + 0.5 * c[R_UNSEEN, _CRICKET_SONG]
    if threat == 0:
        return 0.0
    leader = 1
    for s in range(2, c[R_SCALARS, V_N]):
        if f[W_WORTH + s] > f[W_WORTH + leader]:
            leader = s
    _play_delta(ti, tf, c, f, np.int64(_U_SUPER_LURE), np.int64(leader), np.int64(0), np.int64(-1), np.int64(-1))
    reach = threat * tf[C_SUPER_LURE_REACH]
    share = reach if reach < 1.0 else 1.0
    return (
        tf[C_SUPER_LURE_RESERVE]
        * share
        * -_gain(
            ti,
            tf,
            c,
            f,
        )
    )


@nb.njit(cache=True)
def _score_step(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    a: int,
) -> float:
    """The score of id ``a`` by the scorer of the decision's step."""
    step = c[R_SCALARS, V_STEP]
    v = R_SCALARS
    op, card, detail = (
        ti[TI_TEMPLATES + 0 * NUM_ACTIONS + a],
        ti[TI_TEMPLATES + 1 * NUM_ACTIONS + a],
        ti[TI_TEMPLATES + 6 * NUM_ACTIONS + a],
    )
    if step == _S_DRAW:
        return _score_draw(ti, tf, c, f, a)
    if step == _S_PLAY:
        return _score_play(ti, tf, c, f, a)
    if step == _S_DISCARD:
        return -_card_value(ti, tf, c, detail)
    if step == _S_CANCEL:
        return _score_cancel(ti, tf, c, f, a)
    if step == _S_FLOP:
        if op == _OP_PASS:
            return 0.0
        harm = -_event_delta(ti, tf, c, f, np.int64(c[v, V_PENDING_CARD]), np.int64(c[v, V_PENDING_BY]))
        return harm - tf[TF_ANSWER_COST + card]
    if step == _S_CURE:
        if op == _OP_PASS:
            return 0.0
        kept = _hand_value(ti, tf, c) - _card_value(ti, tf, c, card)
        return tf[C_SAVE_SHARE] * kept - tf[TF_ANSWER_COST + card]
    if step == _S_KEEP:
        return _card_value(ti, tf, c, detail)
    if step == _S_RING:
        return _score_pick(ti, tf, c, f, ti[TI_TEMPLATES + 4 * NUM_ACTIONS + a])
    if step == _S_RETREAT:
        return _score_retreat(ti, tf, op, ti[TI_TEMPLATES + 5 * NUM_ACTIONS + a], detail)
    if step == _S_SCOUT:
        return _score_scout(ti, tf, c, f, detail)
    raise ValueError("the observation shows a step the heuristic has no scorer for")


@nb.njit(cache=True)
def _score_pick(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, seat: int) -> float:
    """``score_pick``: the standing once the Gub at ``seat`` is trapped too."""
    n = c[R_SCALARS, V_N]
    free_worth = f[W_FREE_WORTH]
    worth = _worth_copy(f)
    for s in range(n):
        worth[s] -= free_worth * c[R_RING_PICKS, s]
    worth[_wrap(seat, n)] -= free_worth
    return _standing(ti, tf, worth, n)


@nb.njit(cache=True, inline="always")
def _score_retreat(ti: np.ndarray, tf: np.ndarray, op: int, part: int, detail: int) -> float:
    """``score_retreat``: Rings first (bigger first), then Sud Spouts; Barricades only when forced."""
    if op == _OP_STOP:
        return 0.0
    if part == _PART_RING:
        return 2.0 + ti[TI_RING_SIZE + detail]
    if part == _PART_SPOUT:
        return 1.0
    if part == _PART_BARRICADE:
        return -1.0
    return -2.0


@nb.njit(cache=True)
def _score_scout(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, kind: int) -> float:
    """``score_scout``: a card for whoever will draw it."""
    drawer = (1 + c[R_SCALARS, V_SCOUT_PLACED]) % c[R_SCALARS, V_N]
    if ti[TI_IS_EVENT + kind]:
        if ti[TI_IS_LETTER + kind] and c[R_SCALARS, V_LETTERS] < 2:
            return 0.0
        return _event_delta(ti, tf, c, f, np.int64(kind), np.int64(drawer))
    value = _card_value(ti, tf, c, kind)
    return value if drawer == 0 else -tf[C_OPPONENT_CARD_SHARE] * value
