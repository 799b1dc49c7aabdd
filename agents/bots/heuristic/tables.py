"""The compiled heuristic's inputs: the observation fields it reads, its scratch layout, and its numbers packed.

The numbers come from :mod:`~agents.bots.weights.weights` and reach the compiled code as data
(:class:`HeuristicTables`: two flat arrays; ``TF_*`` and ``TI_*`` name their parts), not as frozen globals, so
numba's cache never holds numbers the weights no longer have. The engine's enumerations and sizes are
compile-time constants, as in :mod:`gubs_env.fast`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

import agents.bots.heuristic.weights as weights
from gubs_env.encoding.action_table import NUM_ACTIONS, TEMPLATES
from gubs_env.encoding.observation import LAYOUT, OBS_SIZE
from gubs_env.engine.actions import Op, Part, Use
from gubs_env.engine.cards import HAND_LIMIT, LETTERS, MAX_PLAYERS, NUM_KINDS, Kind
from gubs_env.engine.state import Step

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
"""The scalar weights, read by name from :mod:`~agents.bots.weights.weights` into the first floats of the tables."""
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
C_LEADER_REST, C_CARD_TO_HAND_REST, C_HAND_LIMIT = range(len(CONSTANTS), len(CONSTANTS) + 3)
"""Derived values: ``1 - LEADER_WEIGHT``, ``1 - CARD_TO_HAND_SHARE`` and the hand limit."""

TIE_TOLERANCE = 1e-9
"""Scores this close to the best are tied."""

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
"""A per-seat change of worth is kept as an insertion-ordered map: its keys (seats, possibly negative) in
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
TF_CARD_VALUE = C_HAND_LIMIT + 1
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

    def __repr__(self) -> str:
        # short: the tables are the default of several signatures, and help() would print thousands of numbers
        ints, floats = self
        return f"HeuristicTables(ints=<{ints.size} {ints.dtype}>, floats=<{floats.size} {floats.dtype}>)"


def _field_or_none(value: object) -> int:
    return -1 if value is None else int(value)  # type: ignore[call-overload]


def _per_kind(table: dict[Kind, float], missing: float) -> list[float]:
    out = [missing] * NUM_KINDS
    for kind, value in table.items():
        out[int(kind)] = value
    return out


def _seen_entries() -> list[int]:
    """(kind, position, coefficient) of each non-zero entry of the heuristic's ``_SEEN`` map, unscaled."""
    scale = np.asarray(weights._SCALE, dtype=np.float32)
    coefficients = np.rint(weights._SEEN / scale).astype(np.int64)
    kinds, positions = np.nonzero(coefficients)
    return [int(v) for k, p in zip(kinds, positions, strict=True) for v in (k, p, coefficients[k, p])]


def build_tables() -> HeuristicTables:
    """The tables, read from the weights, the observation layout and the action table."""
    if len(weights.HOLD_DECAY) != 3 or len(weights._BARRICADES) != 3 or len(weights.RING_SIZE) != 3:
        raise ValueError("the compiled heuristic expects three Hold decays, Barricades and Rings")
    consts = [float(getattr(weights, name)) for name in CONSTANTS]
    consts += [1 - weights.LEADER_WEIGHT, 1 - weights.CARD_TO_HAND_SHARE, float(HAND_LIMIT)]
    floats = consts + _per_kind(weights.CARD_VALUE, 0.0) + _per_kind(weights.HOLD_VALUE, 0.0)  # read with .get
    floats += _per_kind(weights.ANSWER_COST, math.nan) + _per_kind(weights.BARRICADE_WORTH, math.nan)
    floats += list(weights.HOLD_DECAY) + [float(v) for v in weights._SCALE] + list(weights.THREATS.values())
    threats = [int(k) for k in weights.THREATS]  # in the dict's order: the sums follow it
    draw_events = [int(e) for e in weights._EVENT_KINDS - set(LETTERS)]  # in the set's order, as score_draw
    seen = _seen_entries()
    ints = [len(threats), len(draw_events), len(seen) // 3]
    ints += [v for name in FIELDS for v in (LAYOUT[name].start, LAYOUT[name].stop - LAYOUT[name].start)]
    ints += [int(c) for c in weights._COPIES] + [weights.RING_SIZE.get(Kind(k), -1) for k in range(NUM_KINDS)]
    ints += [int(k in weights._EVENT_KINDS) for k in range(NUM_KINDS)] + [int(k in LETTERS) for k in range(NUM_KINDS)]
    ints += [int(b) for b in weights._BARRICADES] + [int(r) for r in weights.RING_SIZE]
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
"""The tables of :mod:`~agents.bots.heuristic.weights`."""


def _tunable_slots() -> dict[str, int]:
    """Every number of the float table a tuning may change, by name, with its index.

    The scalar constants by their name in :mod:`~agents.bots.heuristic.weights`, a per-kind entry as
    ``TABLE.KIND`` (``CARD_VALUE.SUPER_LURE``), a Hold decay by its count of Letters (``HOLD_DECAY.0``). The
    derived values, the hand limit and the observation's scale are not among them.
    """
    slots = {name: i for i, name in enumerate(CONSTANTS)}
    playable = [kind for kind in Kind if kind not in weights._EVENT_KINDS]
    slots |= {f"CARD_VALUE.{kind.name}": TF_CARD_VALUE + int(kind) for kind in playable}
    slots |= {f"HOLD_VALUE.{kind.name}": TF_HOLD_VALUE + int(kind) for kind in playable}
    slots |= {f"ANSWER_COST.{kind.name}": TF_ANSWER_COST + int(kind) for kind in weights.ANSWER_COST}
    slots |= {f"BARRICADE_WORTH.{kind.name}": TF_BARRICADE_WORTH + int(kind) for kind in weights.BARRICADE_WORTH}
    slots |= {f"HOLD_DECAY.{i}": TF_HOLD_DECAY + i for i in range(len(weights.HOLD_DECAY))}
    slots |= {f"THREATS.{kind.name}": TF_VAR + i for i, kind in enumerate(weights.THREATS)}
    return slots


TUNABLE = _tunable_slots()
"""The weights a tuning may set (:func:`tables_with`), by name, with their index in ``TABLES.floats``."""
SHARES = frozenset({"LEADER_WEIGHT", "CARD_TO_HAND_SHARE"})
"""Weights that are shares of a whole: 0 to 1 (the others only need to be 0 or more)."""
MAX_WEIGHT = 100.0
"""No weight of the heuristic means anything beyond this; a larger value in a file is refused."""


def tables_with(values: dict[str, float]) -> HeuristicTables:
    """The default tables with the named weights (keys of :data:`TUNABLE`) set to ``values``.

    Raises:
        ValueError: an unknown name, or a value that is not a finite number in its range (0 to 1 for
            :data:`SHARES`, 0 to :data:`MAX_WEIGHT` for the others).
    """
    floats = TABLES.floats.copy()
    for name, value in values.items():
        if name not in TUNABLE:
            raise ValueError(f"unknown heuristic weight {str(name)[:60]!r}")
        high = 1.0 if name in SHARES else MAX_WEIGHT
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= high:
            raise ValueError(f"heuristic weight {name} must be a number from 0 to {high:g}, not {str(value)[:40]}")
        floats[TUNABLE[name]] = float(value)
    floats[C_LEADER_REST] = 1.0 - floats[C_LEADER_WEIGHT]
    floats[C_CARD_TO_HAND_REST] = 1.0 - floats[C_CARD_TO_HAND_SHARE]
    return HeuristicTables(TABLES.ints, floats)


def named_weights(tables: HeuristicTables) -> dict[str, float]:
    """The inverse of :func:`tables_with`: every tunable weight of ``tables`` by name."""
    return {name: float(tables.floats[i]) for name, i in TUNABLE.items()}
