"""The heuristic opponent in compiled code: :class:`agents.heuristic.HeuristicAgent`'s decision, id for id.

:func:`heuristic_actions` decides, in one numba call, for every game of a batch that waits on a heuristic
player. Each decision is the one ``HeuristicAgent.act`` makes from the same observation, mask and generator
state: the same id, and the generator advanced the same way (a tie is split by ``Generator.integers``, which
:mod:`gubs_env.fast.rng` reproduces bit for bit). ``tests/agents/test_fast_heuristic.py`` checks it on positions
from thousands of games.

Nothing here is typed twice. The observation layout comes from :mod:`gubs_env.envs.observation`, the ids'
fields from :data:`~gubs_env.envs.action_table.TEMPLATES`, and every number the heuristic weighs from
:mod:`agents.heuristic`'s own constants and dicts (in their iteration order, where a sum runs over them); only
the literals inside its functions (the 1e-9 tie rule, ``0.3`` per Letter in a Free Gub's worth, the Retreat
scores) are repeated here. Those numbers reach the compiled code as data (:class:`HeuristicTables`: two flat
arrays, ``TF_*`` and ``TI_*`` give the parts), not as frozen globals, so numba's cache never holds numbers the
Python agent no longer uses; the engine's enumerations and sizes are compile-time constants, as in
:mod:`gubs_env.fast`. The arithmetic follows the Python code's order, in float64, including how the running
Python adds up a ``sum()`` of floats (plainly before 3.12, compensated since). The unseen cards are counted
from the observation's integer counts, which equals the heuristic's rounded float product for every
observation the encoder writes.

``python -m agents.fast_heuristic --positions 5000`` times both on the same positions.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import NamedTuple

import numba as nb
import numpy as np

import agents.heuristic as heuristic
from gubs_env.engine.actions import Op, Part, Use
from gubs_env.engine.cards import HAND_LIMIT, LETTERS, MAX_PLAYERS, NUM_KINDS, Kind
from gubs_env.engine.state import Step
from gubs_env.envs.action_table import NUM_ACTIONS, TEMPLATES
from gubs_env.envs.observation import LAYOUT, OBS_SIZE
from gubs_env.fast.rng import RNG_WORDS, integers, state_from_numpy, state_to_numpy

# --- what the compiled code reads ----------------------------------------------------------------------

FIELDS = (
    "hand",
    "hand_sizes",
    "seats",
    "free",
    "elder",
    "protected",
    "spouted",
    "rings",
    "score",
    "letters",
    "deck_size",
    "known_top",
    "step",
    "pending_card",
    "pending_as",
    "pending_use",
    "pending_by",
    "pending_target",
    "pending_part",
    "pending_detail",
    "ring_picks",
    "scout_placed",
)
"""The observation fields the heuristic reads; the tables hold their (start, size)."""
(
    F_HAND,
    F_HAND_SIZES,
    F_SEATS,
    F_FREE,
    F_ELDER,
    F_PROTECTED,
    F_SPOUTED,
    F_RINGS,
    F_SCORE,
    F_LETTERS,
    F_DECK_SIZE,
    F_KNOWN_TOP,
    F_STEP,
    F_PENDING_CARD,
    F_PENDING_AS,
    F_PENDING_USE,
    F_PENDING_BY,
    F_PENDING_TARGET,
    F_PENDING_PART,
    F_PENDING_DETAIL,
    F_RING_PICKS,
    F_SCOUT_PLACED,
) = range(len(FIELDS))

CONSTANTS = (
    "ELDER_WORTH",
    "FREE_WORTH_MIN",
    "FREE_WORTH_MAX",
    "FREE_RISK",
    "BEETLE_RISK",
    "WASPS_RISK",
    "HAND_CARD_WORTH",
    "LEADER_WEIGHT",
    "HAKI_FLUTE_PER_RING",
    "OVER_LIMIT_DECAY",
    "FOLLOW_UP_BONUS",
    "RING_ON_OWN_SIDE_BONUS",
    "CARD_TO_HAND_SHARE",
    "SCOUT_HAND_GAIN",
    "SCOUT_DECK_GAIN",
    "SCOUT_DECK_ENDGAME_GAIN",
    "GUB_HOLD_THREAT",
    "GUB_HOLD_MIN_FREE",
    "GUB_HOLD_VALUE",
    "GUB_RESERVE_LEAD",
    "FOREIGN_HARM_MARGIN",
    "SUPER_LURE_RESERVE",
    "SUPER_LURE_REACH",
    "END_STAKE",
    "DRAW_GAIN",
    "WIN_SCALE",
    "SAVE_SHARE",
    "OPPONENT_CARD_SHARE",
)
"""The heuristic's scalar constants, read by name from :mod:`agents.heuristic` into the first floats of the tables."""
(
    C_ELDER_WORTH,
    C_FREE_WORTH_MIN,
    C_FREE_WORTH_MAX,
    C_FREE_RISK,
    C_BEETLE_RISK,
    C_WASPS_RISK,
    C_HAND_CARD_WORTH,
    C_LEADER_WEIGHT,
    C_HAKI_FLUTE_PER_RING,
    C_OVER_LIMIT_DECAY,
    C_FOLLOW_UP_BONUS,
    C_RING_ON_OWN_SIDE_BONUS,
    C_CARD_TO_HAND_SHARE,
    C_SCOUT_HAND_GAIN,
    C_SCOUT_DECK_GAIN,
    C_SCOUT_DECK_ENDGAME_GAIN,
    C_GUB_HOLD_THREAT,
    C_GUB_HOLD_MIN_FREE,
    C_GUB_HOLD_VALUE,
    C_GUB_RESERVE_LEAD,
    C_FOREIGN_HARM_MARGIN,
    C_SUPER_LURE_RESERVE,
    C_SUPER_LURE_REACH,
    C_END_STAKE,
    C_DRAW_GAIN,
    C_WIN_SCALE,
    C_SAVE_SHARE,
    C_OPPONENT_CARD_SHARE,
) = range(len(CONSTANTS))
C_LEADER_REST, C_CARD_TO_HAND_REST, C_HAND_LIMIT, C_COMPENSATED_SUM = range(len(CONSTANTS), len(CONSTANTS) + 4)
"""Derived values: ``1 - LEADER_WEIGHT``, ``1 - CARD_TO_HAND_SHARE`` (as Python computes them), the hand limit,
and 1.0 when this Python's ``sum()`` of floats is compensated."""

TIE_TOLERANCE = 1e-9
"""Scores this close to the best are tied (the rule of ``HeuristicAgent.act``)."""

# Enum values the branches compare with (the engine's own enumerations).
_GUB, _ELDER, _MUSHROOM, _TOAD_RIDER = int(Kind.GUB), int(Kind.ELDER), int(Kind.MUSHROOM), int(Kind.TOAD_RIDER)
_SUD_SPOUT, _SUPER_LURE, _LURE, _SPEAR = int(Kind.SUD_SPOUT), int(Kind.SUPER_LURE), int(Kind.LURE), int(Kind.SPEAR)
_HAKI_FLUTE, _RETREAT, _OMEN_BEETLE = int(Kind.HAKI_FLUTE), int(Kind.RETREAT), int(Kind.OMEN_BEETLE)
_AGE_OLD_CURE, _BLINDFOLD, _FEATHER = int(Kind.AGE_OLD_CURE), int(Kind.BLINDFOLD), int(Kind.FEATHER)
_FLOP_BOAT, _CRICKET_SONG, _LETTER_G = int(Kind.FLOP_BOAT), int(Kind.CRICKET_SONG), int(Kind.LETTER_G)
_DANGEROUS_ALCHEMY, _FLASH_FLOOD = int(Kind.DANGEROUS_ALCHEMY), int(Kind.FLASH_FLOOD)
_GARGOK_PLAGUE, _RUMOR_OF_WASPS = int(Kind.GARGOK_PLAGUE), int(Kind.RUMOR_OF_WASPS)
_TRAVELING_MERCHANT = int(Kind.TRAVELING_MERCHANT)
_OP_DECLINE, _OP_END_TURN, _OP_PASS, _OP_STOP = int(Op.DECLINE), int(Op.END_TURN), int(Op.PASS), int(Op.STOP)
_PART_FREE_GUB, _PART_PROTECTED_GUB, _PART_BARRICADE = int(Part.FREE_GUB), int(Part.PROTECTED_GUB), int(Part.BARRICADE)
_PART_SPOUT, _PART_SPOUTED_GUB, _PART_RING = int(Part.SPOUT), int(Part.SPOUTED_GUB), int(Part.RING)
_U_ENTER, _U_PROTECT, _U_REMOVE, _U_SPOUT, _U_RING = (
    int(u) for u in (Use.ENTER, Use.PROTECT, Use.REMOVE, Use.SPOUT, Use.RING)
)
_U_LURE, _U_SUPER_LURE, _U_CYCLONE, _U_STRIKE_ELDER = (
    int(u) for u in (Use.LURE, Use.SUPER_LURE, Use.CYCLONE, Use.STRIKE_ELDER)
)
_U_STRIKE_HAND, _U_BEETLE, _U_STEAL, _U_KILL = (int(u) for u in (Use.STRIKE_HAND, Use.BEETLE, Use.STEAL, Use.KILL))
_U_FREE, _U_SHATTER, _U_RETREAT = int(Use.FREE), int(Use.SHATTER), int(Use.RETREAT)
_U_SCOUT_HAND, _U_SCOUT_DECK, _U_RETRIEVE = int(Use.SCOUT_HAND), int(Use.SCOUT_DECK), int(Use.RETRIEVE)
_S_DRAW, _S_PLAY, _S_DISCARD, _S_CANCEL, _S_FLOP = (
    int(s) for s in (Step.DRAW, Step.PLAY, Step.DISCARD, Step.CANCEL, Step.FLOP)
)
_S_CURE, _S_KEEP, _S_RING, _S_RETREAT, _S_SCOUT = (
    int(s) for s in (Step.CURE, Step.KEEP, Step.RING, Step.RETREAT, Step.SCOUT)
)

# Rows of the per-decision count scratch (one column per kind or seat) and its scalar columns.
R_HAND, R_HAND_SIZES, R_FREE, R_ELDER, R_PROTECTED = 0, 1, 2, 3, 4  # R_PROTECTED + i: Gubs under Barricade i
R_SPOUTED, R_RINGS = 7, 8  # R_RINGS + i: Ring i on each side
R_SCORE, R_RING_PICKS, R_UNSEEN, R_FREE_COPY, R_SCALARS = 11, 12, 13, 14, 15
R_DELTA_KEYS, R_CHANCE_KINDS = 16, 17
"""A per-seat change of worth is kept as the Python dict holds it: its keys (seats, possibly negative) in
insertion order in row R_DELTA_KEYS, their count in V_DELTA_SIZE, the values from float slot W_DELTA. The kinds
``score_draw`` weighs, in its dict's order, are in row R_CHANCE_KINDS, their chances from slot W_CHANCES."""
COUNT_ROWS = 18
(
    V_N,
    V_LETTERS,
    V_DECK,
    V_KNOWN_TOP,
    V_STEP,
    V_PENDING_CARD,
    V_PENDING_AS,
    V_PENDING_USE,
    V_PENDING_BY,
    V_PENDING_TARGET,
    V_PENDING_PART,
    V_PENDING_DETAIL,
    V_SCOUT_PLACED,
    V_HAND_TOTAL,
    V_UNSEEN_TOTAL,
    V_DELTA_SIZE,
) = range(16)
# Float scratch: the sides' worths, the Free Gub's worth, the current standing, a work copy of the worths,
# a delta's values, the draw chances.
W_WORTH, W_FREE_WORTH, W_STANDING, W_COPY = 0, MAX_PLAYERS, MAX_PLAYERS + 1, MAX_PLAYERS + 2
W_DELTA = W_COPY + MAX_PLAYERS
W_CHANCES = W_DELTA + NUM_KINDS
FLOAT_SLOTS = W_CHANCES + NUM_KINDS

# The tables travel as two flat arrays (few arguments: numba counts references to every array a call passes).
# Floats: the scalar constants, then per-kind tables, Hold decay, the observation scale, THREATS' weights.
TF_CARD_VALUE = C_COMPENSATED_SUM + 1
TF_HOLD_VALUE = TF_CARD_VALUE + NUM_KINDS
TF_ANSWER_COST = TF_HOLD_VALUE + NUM_KINDS
TF_BARRICADE_WORTH = TF_ANSWER_COST + NUM_KINDS
TF_HOLD_DECAY = TF_BARRICADE_WORTH + NUM_KINDS
TF_SCALE = TF_HOLD_DECAY + 3  # HOLD_DECAY has one entry per count of Letters laid before the last (0, 1, 2)
TF_VAR = TF_SCALE + OBS_SIZE
# Ints: counts of the variable parts, the field layout, per-kind tables, the id fields, then the variable parts:
# THREATS' kinds, score_draw's Events, the (kind, position, coefficient) entries of the heuristic's seen map.
TI_THREAT_COUNT, TI_DRAW_COUNT, TI_SEEN_COUNT = 0, 1, 2
TI_LAYOUT = 3
TI_COPIES = TI_LAYOUT + 2 * len(FIELDS)
TI_RING_SIZE = TI_COPIES + NUM_KINDS
TI_IS_EVENT = TI_RING_SIZE + NUM_KINDS
TI_IS_LETTER = TI_IS_EVENT + NUM_KINDS
TI_BARRICADES = TI_IS_LETTER + NUM_KINDS
TI_RINGS = TI_BARRICADES + 3
TI_TEMPLATES = TI_RINGS + 3
TI_VAR = TI_TEMPLATES + 7 * NUM_ACTIONS


class HeuristicTables(NamedTuple):
    """Everything the compiled heuristic reads besides the decision itself, built by :func:`build_tables`."""

    ints: np.ndarray
    """int64: the ``TI_*`` parts."""
    floats: np.ndarray
    """float64: the ``TF_*`` parts (the constants of :data:`CONSTANTS` first)."""


def _field_or_none(value: object) -> int:
    return -1 if value is None else int(value)  # type: ignore[call-overload]


def _per_kind(table: dict[Kind, float], missing: float) -> list[float]:
    out = [missing] * NUM_KINDS
    for kind, value in table.items():
        out[int(kind)] = value
    return out


def _sum_is_compensated() -> bool:
    """Whether this Python's ``sum()`` of floats compensates rounding (Neumaier, from Python 3.12 on)."""
    return sum([1.0, 1e100, 1.0, -1e100]) == 2.0


def _seen_entries() -> list[int]:
    """(kind, position, coefficient) of each non-zero entry of the heuristic's ``_SEEN`` map, unscaled."""
    scale = np.asarray(heuristic._SCALE, dtype=np.float32)
    coefficients = np.rint(heuristic._SEEN / scale).astype(np.int64)
    kinds, positions = np.nonzero(coefficients)
    return [int(v) for k, p in zip(kinds, positions, strict=True) for v in (k, p, coefficients[k, p])]


def build_tables() -> HeuristicTables:
    """The tables, read from :mod:`agents.heuristic`, the observation layout and the action table."""
    if len(heuristic.HOLD_DECAY) != 3 or len(heuristic._BARRICADES) != 3 or len(heuristic.RING_SIZE) != 3:
        raise ValueError("the compiled heuristic expects three Hold decays, Barricades and Rings")
    consts = [float(getattr(heuristic, name)) for name in CONSTANTS]
    consts += [1 - heuristic.LEADER_WEIGHT, 1 - heuristic.CARD_TO_HAND_SHARE, float(HAND_LIMIT)]
    consts += [1.0 if _sum_is_compensated() else 0.0]
    floats = consts + _per_kind(heuristic.CARD_VALUE, 0.0) + _per_kind(heuristic.HOLD_VALUE, 0.0)  # read with .get
    floats += _per_kind(heuristic.ANSWER_COST, math.nan) + _per_kind(heuristic.BARRICADE_WORTH, math.nan)
    floats += list(heuristic.HOLD_DECAY) + [float(v) for v in heuristic._SCALE] + list(heuristic.THREATS.values())
    threats = [int(k) for k in heuristic.THREATS]  # in the dict's order: the sums follow it
    draw_events = [int(e) for e in heuristic._EVENT_KINDS - set(LETTERS)]  # in the set's order, as score_draw
    seen = _seen_entries()
    ints = [len(threats), len(draw_events), len(seen) // 3]
    ints += [v for name in FIELDS for v in (LAYOUT[name].start, LAYOUT[name].stop - LAYOUT[name].start)]
    ints += [int(c) for c in heuristic._COPIES] + [heuristic.RING_SIZE.get(Kind(k), -1) for k in range(NUM_KINDS)]
    ints += [int(k in heuristic._EVENT_KINDS) for k in range(NUM_KINDS)] + [int(k in LETTERS) for k in range(NUM_KINDS)]
    ints += [int(b) for b in heuristic._BARRICADES] + [int(r) for r in heuristic.RING_SIZE]
    fields = ("op", "card", "use", "as_kind", "seat", "part", "detail")
    ints += [_field_or_none(getattr(t, f)) for f in fields for t in TEMPLATES]
    ints += threats + draw_events + seen
    tables = HeuristicTables(np.array(ints, dtype=np.int64), np.array(floats, dtype=np.float64))
    if (
        len(consts) != TF_CARD_VALUE
        or len(floats) != TF_VAR + len(threats)
        or len(ints) != TI_VAR + len(threats + draw_events + seen)
    ):
        raise ValueError("the packed tables do not match their layout")
    return tables


TABLES = build_tables()
"""The tables of this process's :mod:`agents.heuristic`."""


# --- arithmetic as Python does it ------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _sum_add(total: float, compensation: float, x: float, compensated: bool) -> tuple[float, float]:
    """One step of Python's ``sum()`` over floats (with Neumaier's compensation where Python applies it)."""
    t = total + x
    if compensated:
        if abs(total) >= abs(x):
            compensation += (total - t) + x
        else:
            compensation += (x - t) + total
    return t, compensation


@nb.njit(cache=True, inline="always")
def _sum_end(total: float, compensation: float) -> float:
    """The result of Python's ``sum()`` once every float is added."""
    if compensation != 0.0 and math.isfinite(compensation):
        return total + compensation
    return total


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
    """``View.standing``: own worth against a blend of the best and the average opponent."""
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    best = worth[1]
    total, comp = 0.0, 0.0
    for s in range(1, n):
        if worth[s] > best:
            best = worth[s]
        total, comp = _sum_add(total, comp, worth[s], compensated)
    others = _sum_end(total, comp)
    return worth[0] - tf[C_LEADER_WEIGHT] * best - tf[C_LEADER_REST] * others / (n - 1)


@nb.njit(cache=True)
def _read_view(obs: np.ndarray, ti: np.ndarray, tf: np.ndarray, raw: np.ndarray, c: np.ndarray, f: np.ndarray) -> None:
    """``View(observation)``: the counts into ``c``, the worths into ``f``."""
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
    """``View._unseen``: copies of each kind not in sight (the Letters counted under the first)."""
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
    """``View._free_worth``."""
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    unseen_total = max(1, c[R_SCALARS, V_UNSEEN_TOTAL])
    total, comp = 0.0, 0.0
    for j in range(ti[TI_THREAT_COUNT]):
        total, comp = _sum_add(total, comp, tf[TF_VAR + j] * c[R_UNSEEN, ti[TI_VAR + j]], compensated)
    threat_share = _sum_end(total, comp) / unseen_total
    letters = c[R_SCALARS, V_LETTERS]
    worth = 1.0 - tf[C_FREE_RISK] * threat_share * (1.0 - 0.3 * letters)
    low = worth if worth > tf[C_FREE_WORTH_MIN] else tf[C_FREE_WORTH_MIN]
    return low if low < tf[C_FREE_WORTH_MAX] else tf[C_FREE_WORTH_MAX]


@nb.njit(cache=True)
def _side_worth(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, f: np.ndarray, seat: int) -> float:
    """``View.side_worth``."""
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    total, comp = 0.0, 0.0
    for i in range(3):
        term = _barricade_worth(ti, tf, c, ti[TI_BARRICADES + i]) * c[R_PROTECTED + i, seat]
        total, comp = _sum_add(total, comp, term, compensated)
    base = tf[C_ELDER_WORTH] * c[R_ELDER, seat] + f[W_FREE_WORTH] * c[R_FREE, seat]
    return base + _sum_end(total, comp)


@nb.njit(cache=True, inline="always")
def _winning(c: np.ndarray) -> bool:
    """``View.winning``."""
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
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    total, comp = 0.0, 0.0
    for k in range(NUM_KINDS):
        if c[R_HAND, k] != 0:
            total, comp = _sum_add(total, comp, _card_value(ti, tf, c, k) * c[R_HAND, k], compensated)
    return _sum_end(total, comp)


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
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    unseen_total = max(1, c[R_SCALARS, V_UNSEEN_TOTAL])
    total, comp = 0.0, 0.0
    for j in range(ti[TI_THREAT_COUNT]):
        kind = ti[TI_VAR + j]
        if not ti[TI_IS_EVENT + kind]:
            total, comp = _sum_add(total, comp, tf[TF_VAR + j] * c[R_UNSEEN, kind], compensated)
    per_card = _sum_end(total, comp) / unseen_total
    other_hands = 0
    for s in range(1, c[R_SCALARS, V_N]):
        other_hands += c[R_HAND_SIZES, s]
    return tf[C_GUB_HOLD_VALUE] if per_card * other_hands >= tf[C_GUB_HOLD_THREAT] else 0.0


@nb.njit(cache=True)
def _hold(ti: np.ndarray, tf: np.ndarray, c: np.ndarray, kind: int) -> float:
    """``View.hold``."""
    value = _gub_hold_value(ti, tf, c) if kind == _GUB else tf[TF_HOLD_VALUE + kind]
    value *= tf[TF_HOLD_DECAY + min(c[R_SCALARS, V_LETTERS], 2)]
    if c[R_SCALARS, V_HAND_TOTAL] > tf[C_HAND_LIMIT]:
        value *= tf[C_OVER_LIMIT_DECAY]
    return value


@nb.njit(cache=True, inline="always")
def _win_chance(ti: np.ndarray, tf: np.ndarray, standing: float) -> float:
    return 1.0 / (1.0 + math.exp(-standing / tf[C_WIN_SCALE]))


# --- per-seat changes of worth (the Python dicts) -----------------------------------------------------------


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
    """``delta[seat] = delta.get(seat, 0.0) + change`` (how ``_merge`` adds a second dict)."""
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
    worth[:] = f[W_WORTH : W_WORTH + MAX_PLAYERS]
    return worth


@nb.njit(cache=True)
def _gain(
    ti: np.ndarray,
    tf: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
) -> float:
    """``View.gain``: change in standing when the seats' worths change by the delta."""
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
    compensated = tf[C_COMPENSATED_SUM] != 0.0
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
        total, comp = 0.0, 0.0
        for i in range(3):
            term = (free - _barricade_worth(ti, tf, c, ti[TI_BARRICADES + i])) * c[R_PROTECTED + i, at]
            total, comp = _sum_add(total, comp, term, compensated)
        _put(c, f, target, _sum_end(total, comp))
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
        _steal_delta(ti, tf, c, f, actor, target, part, detail)
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
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    total, comp = 0.0, 0.0
    for j in range(count):
        kind = c[R_CHANCE_KINDS, j]
        if ti[TI_IS_LETTER + kind]:
            change = ending if letters == 2 else 0.0
        elif ti[TI_IS_EVENT + kind]:
            change = _win_chance(ti, tf, now + _event_delta(ti, tf, c, f, kind, 0)) - base
        else:
            continue
        if can_flop:
            flopped = _win_chance(ti, tf, now - flop_cost) - base
            if flopped > change:
                change = flopped
        value += f[W_CHANCES + j] * change
    for j in range(count):
        if ti[TI_IS_EVENT + c[R_CHANCE_KINDS, j]]:
            total, comp = _sum_add(total, comp, f[W_CHANCES + j], compensated)
    card_chance = 1.0 - _sum_end(total, comp)
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
    _play_delta(ti, tf, c, f, use, 0, seat, part, detail)
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
    compensated = tf[C_COMPENSATED_SUM] != 0.0
    total, comp = 0.0, 0.0
    for i in range(3):
        if c[R_RINGS + i, 0] != 0:
            total, comp = _sum_add(total, comp, share * tf[TF_CARD_VALUE + ti[TI_RINGS + i]], compensated)
    cards = _sum_end(total, comp)
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
    _play_delta(ti, tf, c, f, use, by, target, c[v, V_PENDING_PART], c[v, V_PENDING_DETAIL])
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
    _play_delta(ti, tf, c, f, _U_SUPER_LURE, leader, 0, -1, -1)
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
    """The score of id ``a`` by the scorer of the decision's step (``SCORERS``)."""
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
        harm = -_event_delta(ti, tf, c, f, c[v, V_PENDING_CARD], c[v, V_PENDING_BY])
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
        return _event_delta(ti, tf, c, f, kind, drawer)
    value = _card_value(ti, tf, c, kind)
    return value if drawer == 0 else -tf[C_OPPONENT_CARD_SHARE] * value


# --- the batch ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def _decide(
    obs: np.ndarray,
    mask: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
) -> None:
    """``HeuristicAgent.act`` for each game in ``rows``, with generator ``rng_states[rng_rows[k]]``."""
    games, actions = mask.shape
    raw = np.zeros(obs.shape[1], dtype=np.int64)
    c = np.zeros((COUNT_ROWS, NUM_KINDS), dtype=np.int64)
    f = np.zeros(FLOAT_SLOTS, dtype=np.float64)
    ids = np.zeros(actions, dtype=np.int64)
    scores = np.zeros(actions, dtype=np.float64)
    for k in range(rows.shape[0]):  # checked before any decision, so a bad call changes nothing
        if rows[k] < 0 or rows[k] >= games or rng_rows[k] < 0 or rng_rows[k] >= rng_states.shape[0]:
            raise ValueError("a row or generator row is out of range")
    for k in range(rows.shape[0]):
        g = rows[k]
        count = 0
        for a in range(actions):
            if mask[g, a] != 0:
                ids[count] = a
                count += 1
        if count == 0:
            raise ValueError("the action mask allows no action: this agent is not the one to act")
        if count == 1:
            out[g] = ids[0]
            continue
        _read_view(obs[g], ti, tf, raw, c, f)
        best = -math.inf
        for j in range(count):
            scores[j] = _score_step(ti, tf, c, f, ids[j])
            if j == 0 or scores[j] > best:
                best = scores[j]
        top = 0
        for j in range(count):
            if scores[j] >= best - TIE_TOLERANCE:
                ids[top] = ids[j]
                top += 1
        out[g] = ids[0] if top == 1 else ids[integers(rng_states[rng_rows[k]], top)]


def heuristic_actions(
    observations: np.ndarray,
    masks: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
    tables: HeuristicTables = TABLES,
) -> None:
    """``HeuristicAgent.act`` for the games ``rows`` of a batch, in compiled code; the ids go to ``out[rows]``.

    Args:
        observations: ``(G, 512)`` float32, each game's observation of the player to act.
        masks: ``(G, 356)`` int8, that player's legal ids (non-zero).
        rows: int64, the games to decide.
        rng_rows: int64, one per entry of ``rows``: the row of ``rng_states`` its player draws ties from.
        rng_states: ``(R, 6)`` uint64 PCG64 states (:mod:`gubs_env.fast.rng`), advanced in place exactly as
            the agent's ``Generator`` would be.
        out: ``(G,)`` int64, receives the chosen ids at ``rows`` (other entries are left alone).
        tables: the heuristic's numbers (:data:`TABLES`).

    Raises:
        ValueError: a shape or dtype other than the above, a row out of range, or a mask with no legal id.
    """
    _check_batch(observations, masks, rows, rng_rows, rng_states, out)
    if rows.shape[0]:
        _decide(observations, masks, rows, rng_rows, rng_states, out, tables.ints, tables.floats)


def _check_batch(
    observations: np.ndarray,
    masks: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
) -> None:
    arrays = {"observations": observations, "masks": masks, "rows": rows, "rng_rows": rng_rows}
    arrays |= {"rng_states": rng_states, "out": out}
    for name, array in arrays.items():
        if not isinstance(array, np.ndarray):
            raise ValueError(f"{name} must be a numpy array, not {type(array).__name__}")
    games = observations.shape[0] if observations.ndim == 2 else -1
    expected = {
        "observations": ((games, OBS_SIZE), np.float32),
        "masks": ((games, NUM_ACTIONS), np.int8),
        "rows": ((rows.shape[0],), np.int64),
        "rng_rows": ((rows.shape[0],), np.int64),
        "rng_states": ((rng_states.shape[0], RNG_WORDS), np.uint64),
        "out": ((games,), np.int64),
    }
    for name, (shape, dtype) in expected.items():
        array = arrays[name]
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(
                f"{name} must be a {np.dtype(dtype).name} array of shape {shape}, "
                f"not {array.dtype.name} of shape {array.shape}"
            )
    if not out.flags.writeable or not rng_states.flags.writeable:
        raise ValueError("out and rng_states must be writeable")


def heuristic_action(observation: np.ndarray, mask: np.ndarray, generator_state: np.ndarray) -> int:
    """One decision: ``HeuristicAgent.act(observation, mask)`` drawing from ``generator_state`` (advanced in place).

    Raises:
        ValueError: as :func:`heuristic_actions`.
    """
    out = np.zeros(1, dtype=np.int64)
    heuristic_actions(
        np.asarray(observation, dtype=np.float32).reshape(1, -1),
        np.asarray(mask).astype(np.int8).reshape(1, -1),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        generator_state.reshape(1, -1),
        out,
    )
    return int(out[0])


def rng_state(generator: np.random.Generator) -> np.ndarray:
    """A numpy PCG64 generator's state as the uint64 row the compiled heuristic advances."""
    row = np.zeros(RNG_WORDS, dtype=np.uint64)
    state_from_numpy(generator.bit_generator.state, row)
    return row


def set_rng_state(generator: np.random.Generator, row: np.ndarray) -> None:
    """Put a row's state back into a numpy PCG64 generator."""
    generator.bit_generator.state = state_to_numpy(row)


# --- benchmark -------------------------------------------------------------------------------------------


def collect_positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` decisions with several legal ids, from heuristic games at 2 to 6 players."""
    from agents.heuristic import HeuristicAgent
    from gubs_env.engine import Game
    from gubs_env.envs.action_table import ActionCodec
    from gubs_env.envs.observation import encode

    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    game_seed = seed
    while len(observations) < count:
        players = 2 + game_seed % 5
        codec = ActionCodec(players)
        game = Game(players, seed=game_seed, record_log=False)
        agent = HeuristicAgent(game_seed)
        while (seat := game.current_player) is not None and len(observations) < count:
            observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
            if np.count_nonzero(mask) > 1:
                observations.append(observation)
                masks.append(mask)
            game.apply(codec.action(agent.act(observation, mask), seat))
        game_seed += 1
    return np.array(observations, dtype=np.float32), np.array(masks, dtype=np.int8)


def benchmark(positions: int, seed: int, repeats: int) -> dict[str, float]:
    """CPU µs per decision: ``HeuristicAgent.act``, the compiled batch over all positions, and batches of 8."""
    from agents.heuristic import HeuristicAgent

    observations, masks = collect_positions(positions, seed)
    count = len(observations)
    rows = np.arange(count, dtype=np.int64)
    states = np.tile(rng_state(np.random.default_rng(seed)), (count, 1))
    out = np.zeros(count, dtype=np.int64)
    heuristic_actions(observations[:2], masks[:2], rows[:2], rows[:2], states, out[:2])  # load or compile
    agent = HeuristicAgent(seed)
    timings: dict[str, list[float]] = {"python": [], "compiled_all": [], "compiled_by_8": []}
    for _ in range(repeats):  # alternate, so a load change on the machine hits all alike
        start = time.process_time()
        for observation, mask in zip(observations, masks, strict=True):
            agent.act(observation, mask)
        timings["python"].append(time.process_time() - start)
        start = time.process_time()
        heuristic_actions(observations, masks, rows, rows, states, out)
        timings["compiled_all"].append(time.process_time() - start)
        start = time.process_time()
        for first in range(0, count, 8):
            part = rows[first : first + 8]
            heuristic_actions(observations, masks, part, part, states, out)
        timings["compiled_by_8"].append(time.process_time() - start)
    return {name: 1e6 * min(values) / count for name, values in timings.items()}


def main(argv: list[str] | None = None) -> int:
    """Print µs per decision of the Python and the compiled heuristic on the same positions."""
    from gubs_env.cli import EXIT_OK, CommandParser

    parser = CommandParser(
        prog="python -m agents.fast_heuristic",
        description="Time HeuristicAgent.act against the compiled heuristic on the same positions (CPU time).",
    )
    parser.add_argument("--positions", type=int, default=5000, help="decisions to time (default 5000)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds, best kept (default 3)")
    args: argparse.Namespace = parser.parse_args(argv)
    if args.positions < 1 or args.repeats < 1:
        parser.error("--positions and --repeats must be at least 1")
    figures = benchmark(args.positions, args.seed, args.repeats)
    print(f"{args.positions} decisions with several legal ids, heuristic games at 2 to 6 players, CPU µs per decision:")
    print(f"  HeuristicAgent.act                {figures['python']:9.2f}")
    print(f"  compiled, one batch of all        {figures['compiled_all']:9.2f}")
    print(f"  compiled, batches of 8            {figures['compiled_by_8']:9.2f}")
    print(f"  speed-up (one batch)              {figures['python'] / figures['compiled_all']:9.1f}x")
    return EXIT_OK


if __name__ == "__main__":
    import sys

    from gubs_env.cli import run_command

    sys.exit(run_command(main))

__all__ = ["TABLES", "HeuristicTables", "build_tables", "heuristic_action", "heuristic_actions", "rng_state"]
