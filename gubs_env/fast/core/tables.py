"""Integer tables the compiled engine reads, all derived from the reference engine's own tables.

Nothing here is typed by hand: the action ids come from :data:`gubs_env.encoding.action_table.TEMPLATES`,
the card facts from :mod:`gubs_env.engine.cards`, the observation scales from
:mod:`gubs_env.encoding.observation`. A change to those modules changes these tables with it, and the
differential tests catch any rule the compiled code would then miss.
"""

from __future__ import annotations

import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS, TEMPLATES
from gubs_env.encoding.observation import INV_SCALE, LAYOUT, OBS_SIZE
from gubs_env.engine import rules as ref
from gubs_env.engine.actions import BLINDFOLDABLE, CANCELLABLE, Op, Part, Use, make
from gubs_env.engine.cards import (
    BARRICADES,
    CARDS,
    DECK_SIZE,
    EVENTS,
    LETTERS,
    MAX_PLAYERS,
    NUM_KINDS,
    RINGS,
    Kind,
)
from gubs_env.engine.state import RING_SIZES, Step

NONE = -1
"""How an absent field (no seat, no part, no detail) is stored."""


def _field(value: object) -> int:
    return NONE if value is None else int(value)  # type: ignore[call-overload]


T_OP = np.array([int(t.op) for t in TEMPLATES], dtype=np.int64)
T_CARD = np.array([_field(t.card) for t in TEMPLATES], dtype=np.int64)
T_AS = np.array([_field(t.as_kind) for t in TEMPLATES], dtype=np.int64)
T_USE = np.array([_field(t.use) for t in TEMPLATES], dtype=np.int64)
T_SEAT = np.array([_field(t.seat) for t in TEMPLATES], dtype=np.int64)
"""Target seat of each id as an offset from the actor (-1: no seat)."""
T_PART = np.array([_field(t.part) for t in TEMPLATES], dtype=np.int64)
T_DETAIL = np.array([_field(t.detail) for t in TEMPLATES], dtype=np.int64)

_ID = {t: i for i, t in enumerate(TEMPLATES)}
ID_DRAW = _ID[make(Op.DRAW)]
ID_DECLINE = _ID[make(Op.DECLINE)]
ID_END_TURN = _ID[make(Op.END_TURN)]
ID_PASS = _ID[make(Op.PASS)]
ID_STOP = _ID[make(Op.STOP)]


# the window answers are the reference rules' own actions, as ids
ID_FEATHER = _ID[ref.FEATHER]
ID_BLINDFOLD = _ID[ref.BLINDFOLD]
ID_WILD_FEATHER = _ID[ref.WILD_FEATHER]
ID_WILD_BLINDFOLD = _ID[ref.WILD_BLINDFOLD]
ID_FLOP_BOAT = _ID[ref.FLOP_BOAT]
ID_WILD_FLOP = _ID[ref.WILD_FLOP]
ID_CURE = _ID[ref.CURE]
ID_WILD_CURE = _ID[ref.WILD_CURE]
WINDOW_IDS = frozenset(
    {ID_FEATHER, ID_BLINDFOLD, ID_WILD_FEATHER, ID_WILD_BLINDFOLD, ID_FLOP_BOAT, ID_WILD_FLOP, ID_CURE, ID_WILD_CURE}
)


def _ids_by_kind(op: Op) -> np.ndarray:
    out = np.full(NUM_KINDS, NONE, dtype=np.int64)
    for i, t in enumerate(TEMPLATES):
        if t.op is op:
            out[int(t.detail)] = i  # type: ignore[arg-type]
    return out


PLACE_ID = _ids_by_kind(Op.PLACE)
KEEP_ID = _ids_by_kind(Op.KEEP)
DISCARD_ID = _ids_by_kind(Op.DISCARD)
PICK_ID = np.array([_ID[make(Op.PICK, seat=s)] for s in range(MAX_PLAYERS)], dtype=np.int64)
TAKE_IDS = np.array([i for i, t in enumerate(TEMPLATES) if t.op is Op.TAKE], dtype=np.int64)


def _play_blocks() -> tuple[np.ndarray, np.ndarray]:
    """The play-phase ids cut into blocks of one ``(card, as_kind, use)`` each.

    Returns ``blocks`` (rows of start id, size, use, as kind, width) and, per card kind, its ``[first, stop)``
    block range. A block that takes a seat holds one run of ``width`` ids per seat offset (seat-major, as
    :func:`gubs_env.engine.actions.target_space` lists them); ``width`` is 0 for a block without a seat.
    """
    rows: list[list[int]] = []
    for i, t in enumerate(TEMPLATES):
        if t.op is not Op.PLAY or i in WINDOW_IDS:
            continue
        key = [int(t.card), int(t.as_kind), int(t.use)]  # type: ignore[arg-type]
        if rows and rows[-1][5:] == key and rows[-1][0] + rows[-1][1] == i:
            rows[-1][1] += 1
        else:
            rows.append([i, 1, key[2], key[1], 0, *key])
    for row in rows:
        if TEMPLATES[row[0]].seat is not None:
            assert row[1] % MAX_PLAYERS == 0 and TEMPLATES[row[0] + row[1] // MAX_PLAYERS].seat == 1
            row[4] = row[1] // MAX_PLAYERS
    by_card = np.zeros((NUM_KINDS, 2), dtype=np.int64)
    for b, row in enumerate(rows):
        card = row[5]
        if by_card[card, 1] == 0:
            by_card[card, 0] = b
        by_card[card, 1] = b + 1
    return np.array([row[:5] for row in rows], dtype=np.int64), by_card


PLAY_BLOCKS, CARD_BLOCKS = _play_blocks()

BARRICADE_KINDS = np.array([int(b) for b in BARRICADES], dtype=np.int64)
RING_SIZE = np.array(RING_SIZES, dtype=np.int64)
LETTER_KINDS = np.array([int(k) for k in LETTERS], dtype=np.int64)
IS_EVENT = np.array([int(Kind(k) in EVENTS) for k in range(NUM_KINDS)], dtype=np.int64)
IS_LETTER = np.array([int(Kind(k) in LETTERS) for k in range(NUM_KINDS)], dtype=np.int64)
BARRICADE_BASE = int(BARRICADES[0])
RING_BASE = int(RINGS[0])


def _third_bounds() -> np.ndarray:
    """Per player count, the bounds of the three thirds of the shuffled deck (R2), as setup.py rounds them."""
    bounds = np.zeros((MAX_PLAYERS + 1, 4), dtype=np.int64)
    for n in range(2, MAX_PLAYERS + 1):
        size = DECK_SIZE - len(LETTERS) - n
        bounds[n] = [round(size * i / 3) for i in range(4)]
    return bounds


THIRD_BOUNDS = _third_bounds()


def _setup_cards() -> np.ndarray:
    """The cards shuffled at set-up for six players; fewer players add Gubs at the front (see setup.py)."""
    rest = [int(s.kind) for s in CARDS for _ in range(s.copies) if s.kind not in LETTERS]
    return np.array(rest, dtype=np.int64)


SETUP_CARDS = _setup_cards()
"""Every non-Letter card, in card-table order; setup drops ``num_players`` Gubs from the front."""

OBS_INV_SCALE = INV_SCALE.astype(np.float32)
OBS = {name: s.start for name, s in LAYOUT.items()}
OBS_LEN = OBS_SIZE
N_ACTIONS = NUM_ACTIONS

# Integer copies of the enums the kernels branch on (numba reads module globals as constants).
S_DRAW, S_PLAY, S_DISCARD, S_CANCEL, S_FLOP, S_CURE, S_KEEP, S_RING, S_RETREAT, S_SCOUT, S_OVER = (int(s) for s in Step)
assert [S_DRAW, S_OVER] == [0, 10]
OP_PLAY = int(Op.PLAY)
U = {use.name: int(use) for use in Use}
P = {part.name: int(part) for part in Part}
K = {kind.name: int(kind) for kind in Kind}
CANCELLABLE_USES = np.array([int(u in CANCELLABLE) for u in Use], dtype=np.int64)
"""1 for each use that opens a cancel window (Hazards and Traps, docs/rules.md §5)."""
BLINDFOLDABLE_KIND = np.array([int(Kind(k) in BLINDFOLDABLE) for k in range(NUM_KINDS)], dtype=np.int64)
"""1 for each kind Blindfold may cancel."""
