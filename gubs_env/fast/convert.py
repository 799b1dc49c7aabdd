"""Between the two engines: a game row to a reference :class:`~gubs_env.engine.Game` and back.

:func:`row_to_dict` writes exactly the dict :meth:`Game.to_dict` would write for the same position (the
random generator's state included), so a compiled game can be checked, saved, rendered or continued by
the reference engine. :func:`state_to_row` reads a reference position into a row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gubs_env.engine import Game
from gubs_env.engine.actions import Op, Part, Use, make
from gubs_env.engine.cards import BARRICADES, CARDS, RINGS, Kind
from gubs_env.engine.options import LETTER_PLACEMENTS, MAX_TURNS_LIMIT
from gubs_env.engine.positions.serialize import FORMAT_VERSION, action_to_dict
from gubs_env.engine.state import MAX_DECK_EVENTS, DeckEvent, GameState, Step
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.rng import RNG_WORDS, state_from_numpy, state_to_numpy

NAMES = tuple(spec.name for spec in CARDS)
STEP_NAMES = tuple(step.name.lower() for step in Step)


def _list(row: np.ndarray, start: int, size: int) -> list[int]:
    return [int(v) for v in row[start : start + size]]


def _count_map(counts: list[int]) -> dict[str, int]:
    return {NAMES[k]: n for k, n in enumerate(counts) if n}


def _hand(row: np.ndarray, base: int, seat: int) -> list[int]:
    return _list(row, base + seat * L.KINDS, L.KINDS)


def _play_dict(row: np.ndarray) -> dict[str, Any] | None:
    if row[L.PLAY_CARD] < 0:
        return None

    def optional(value: int) -> int | None:
        return None if value < 0 else int(value)

    part, detail, seat = optional(row[L.PLAY_PART]), optional(row[L.PLAY_DETAIL]), optional(row[L.PLAY_SEAT])
    action = make(
        Op.PLAY,
        Kind(int(row[L.PLAY_CARD])),
        Kind(int(row[L.PLAY_AS])),
        Use(int(row[L.PLAY_USE])),
        seat,
        None if part is None else Part(part),
        None if detail is None else Kind(detail),
    )
    return action_to_dict(action)


def _side(row: np.ndarray, seat: int) -> dict[str, Any]:
    protected = _list(row, L.PROTECTED + seat * 3, 3)
    rings = _list(row, L.RINGS + seat * 3, 3)
    return {
        "free": int(row[L.FREE + seat]),
        "elder": bool(row[L.ELDER + seat]),
        "protected": {NAMES[b]: n for b, n in zip(BARRICADES, protected, strict=True) if n},
        "spouted": int(row[L.SPOUTED + seat]),
        "rings": [NAMES[r] for r, here in zip(RINGS, rings, strict=True) if here],
    }


def row_history(row: np.ndarray) -> tuple[DeckEvent, ...] | None:
    """The deck's history since the deal a row keeps (``GameState.deck_history``); None where it is not known."""
    count = int(row[L.HISTORY_LEN])
    if count < 0:
        return None
    return tuple(divmod(int(cell), L.HISTORY_KINDS) for cell in row[L.HISTORY : L.HISTORY + count])


def history_cells(history: list[DeckEvent] | tuple[DeckEvent, ...] | None) -> list[int]:
    """A deck history as a row's cells: its length (-1: unknown), then one cell per event."""
    if history is None:
        return [-1]
    return [len(history), *(at * L.HISTORY_KINDS + what for at, what in history)]


def row_to_dict(row: np.ndarray, rng: np.ndarray) -> dict[str, Any]:
    """The state dict of one game, equal to what :meth:`Game.to_dict` writes for the same position."""
    n = int(row[L.NUM_PLAYERS])
    seen = []
    for s in range(n):
        top = _list(row, L.SEEN_TOP + s * L.SCOUT_DEPTH, int(row[L.SEEN_TOP_LEN + s]))
        seat = int(row[L.SEEN_SEAT + s])
        hand = None if seat < 0 else {"seat": seat, "cards": _count_map(_hand(row, L.SEEN_HAND, s))}
        seen.append({"top": [NAMES[k] for k in top], "hand": hand})
    event = int(row[L.EVENT])
    return {
        "version": FORMAT_VERSION,
        "num_players": n,
        "options": {"letter_placement": LETTER_PLACEMENTS[int(row[L.UNIFORM])], "max_turns": int(row[L.MAX_TURNS])},
        "turn": {
            "player": int(row[L.TURN_PLAYER]),
            "number": int(row[L.TURN]),
            "declined": [bool(v) for v in row[L.DECLINED : L.DECLINED + n]],
        },
        "deck": [NAMES[k] for k in _list(row, L.DECK, int(row[L.DECK_LEN]))[::-1]],
        "discard": _count_map(_list(row, L.DISCARD, L.KINDS)),
        "letters": [NAMES[k] for k in _list(row, L.LETTERS, int(row[L.LETTERS_LEN]))],
        "hands": [_count_map(_hand(row, L.HANDS, s)) for s in range(n)],
        "sides": [_side(row, s) for s in range(n)],
        "pending": {
            "step": STEP_NAMES[int(row[L.STEP])],
            "actor": int(row[L.ACTOR]),
            "by": int(row[L.BY]),
            "play": _play_dict(row),
            "event": None if event < 0 else NAMES[event],
            "queue": _list(row, L.QUEUE, int(row[L.QUEUE_LEN])),
            "picks": _list(row, L.PICKS, int(row[L.PICKS_LEN])),
            "cards": [NAMES[k] for k in _list(row, L.CARDS, int(row[L.CARDS_LEN]))],
            "placed": [NAMES[k] for k in _list(row, L.PLACED, int(row[L.PLACED_LEN]))],
            "marks": _list(row, L.MARKS, int(row[L.MARKS_LEN])),
        },
        "seen": seen,
        "rng": state_to_numpy(rng),
        "truncated": bool(row[L.TRUNCATED]),
        "deck_history": None if (history := row_history(row)) is None else [list(event) for event in history],
    }


def row_to_game(row: np.ndarray, rng: np.ndarray, *, record_log: bool = True) -> Game:
    """A reference :class:`Game` at this row's position (validated by :meth:`Game.from_dict`)."""
    return Game.from_dict(row_to_dict(row, rng), record_log=record_log)


def _put(cells: list[int], start: int, values: list[int], capacity: int, what: str) -> None:
    if len(values) > capacity:
        raise ValueError(f"{what} holds {len(values)} entries; the compiled engine has room for {capacity}")
    cells[start : start + len(values)] = values


def state_to_row(st: GameState, row: np.ndarray, rng: np.ndarray) -> None:
    """Write a reference state into a game row and its generator row.

    Raises:
        ValueError: the generator is not numpy's PCG64, or a list is longer than the row has room for.
        OverflowError: a number does not fit the row's int32 cells.
    """
    state_from_numpy(st.rng.bit_generator.state, rng)
    n = st.num_players
    cells = [0] * L.ROW  # filled as a list and copied once: far faster than many small numpy writes
    cells[L.NUM_PLAYERS] = n
    cells[L.MAX_TURNS] = st.options.max_turns
    cells[L.UNIFORM] = LETTER_PLACEMENTS.index(st.options.letter_placement)
    cells[L.TURN_PLAYER] = st.turn_player
    cells[L.TURN] = st.turn
    cells[L.DECLINED : L.DECLINED + n] = [int(d) for d in st.declined]
    _put(cells, L.DECK, st.deck, L.DECK_ROOM, "the deck")
    cells[L.DECK_LEN] = len(st.deck)
    cells[L.DISCARD : L.DISCARD + L.KINDS] = st.discard
    _put(cells, L.LETTERS, st.letters, 3, "the Letters")
    cells[L.LETTERS_LEN] = len(st.letters)
    cells[L.SEEN_SEAT : L.SEEN_SEAT + L.SEATS] = [-1] * L.SEATS
    for s in range(n):
        cells[L.HANDS + s * L.KINDS : L.HANDS + (s + 1) * L.KINDS] = st.hands[s]
        side = st.sides[s]
        cells[L.FREE + s], cells[L.ELDER + s], cells[L.SPOUTED + s] = side.free, side.elder, side.spouted
        cells[L.PROTECTED + s * 3 : L.PROTECTED + s * 3 + 3] = side.protected
        cells[L.RINGS + s * 3 : L.RINGS + s * 3 + 3] = side.rings
        top = st.seen_top[s]
        _put(cells, L.SEEN_TOP + s * L.SCOUT_DEPTH, top, L.SCOUT_DEPTH, "a Scout's known deck top")
        cells[L.SEEN_TOP_LEN + s] = len(top)
        seen = st.seen_hand[s]
        if seen is not None:
            cells[L.SEEN_SEAT + s] = seen[0]
            cells[L.SEEN_HAND + s * L.KINDS : L.SEEN_HAND + (s + 1) * L.KINDS] = seen[1]
    _pending_to_cells(st, cells)
    cells[L.TRUNCATED] = int(st.truncated)
    _put(cells, L.HISTORY_LEN, history_cells(st.deck_history), 1 + MAX_DECK_EVENTS, "the deck's history")
    if len(cells) != L.ROW:
        raise ValueError("a list of the position does not have the length the row expects")
    row[:] = cells


def _pending_to_cells(st: GameState, cells: list[int]) -> None:
    pend = st.pending
    cells[L.STEP], cells[L.ACTOR], cells[L.BY] = int(pend.step), pend.actor, pend.by
    play = pend.play
    fields = (L.PLAY_CARD, L.PLAY_AS, L.PLAY_USE, L.PLAY_SEAT, L.PLAY_PART, L.PLAY_DETAIL)
    values = (None,) * 6 if play is None else (play.card, play.as_kind, play.use, play.seat, play.part, play.detail)
    for at, value in zip(fields, values, strict=True):
        cells[at] = -1 if value is None else int(value)
    cells[L.EVENT] = -1 if pend.event is None else int(pend.event)
    for start, length, values_list, capacity, what in (
        (L.QUEUE, L.QUEUE_LEN, pend.queue, L.SEATS, "pending.queue"),
        (L.PICKS, L.PICKS_LEN, pend.picks, L.MAX_PICKS, "pending.picks"),
        (L.CARDS, L.CARDS_LEN, pend.cards, L.SCOUT_DEPTH, "pending.cards"),
        (L.PLACED, L.PLACED_LEN, pend.placed, L.SCOUT_DEPTH, "pending.placed"),
        (L.MARKS, L.MARKS_LEN, pend.marks, L.SEATS, "pending.marks"),
    ):
        _put(cells, start, [int(v) for v in values_list], capacity, what)
        cells[length] = len(values_list)


_LISTS = (
    (L.DECK, L.DECK_LEN, L.DECK_ROOM),
    (L.LETTERS, L.LETTERS_LEN, 3),
    (L.QUEUE, L.QUEUE_LEN, L.SEATS),
    (L.PICKS, L.PICKS_LEN, L.MAX_PICKS),
    (L.CARDS, L.CARDS_LEN, L.SCOUT_DEPTH),
    (L.PLACED, L.PLACED_LEN, L.SCOUT_DEPTH),
    (L.MARKS, L.MARKS_LEN, L.SEATS),
)


def position_to_row(position: Game | dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """A reference position (a :class:`Game` or a ``to_dict`` dict) as a new game row and generator row.

    Either is validated exactly as :meth:`Game.from_dict` validates a dict (a :class:`Game`'s state is written
    out and read back, so a state edited in place is checked too), then checked to fit the compiled engine.

    Raises:
        InvalidStateError: (a ``ValueError``) ``position`` is neither a :class:`Game` nor a dict, or is not a
            valid position.
        ValueError: a position that uses sizes the compiled engine can't hold.
    """
    if isinstance(position, Game):
        source = Game.from_state(position.state, record_log=False)  # through its dict: checked in full
    else:
        source = Game.from_dict(position, record_log=False)  # refuses anything but a valid state dict
    state = source.state
    _check_importable(state)
    row = np.zeros(L.ROW, dtype=np.int32)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    try:
        state_to_row(state, row, rng)
    except (OverflowError, TypeError) as err:
        raise ValueError(f"the position does not fit the compiled engine: {err}") from None
    return row, rng


def _check_importable(state: Any) -> None:
    """What the compiled code indexes with must be in range (the reference checks the rest)."""
    n = state.num_players
    if state.turn > MAX_TURNS_LIMIT + 1:
        raise ValueError(f"the compiled engine needs turn numbers <= {MAX_TURNS_LIMIT + 1}")
    pend = state.pending
    play = pend.play
    if play is not None and play.seat is not None and not 0 <= play.seat < n:
        raise ValueError(f"pending.play aims at seat {play.seat}, which a {n}-player table does not have")
    ring = play is not None and play.use is not None and play.use.name == "RING"
    if ring and (len(pend.picks) > 3 or any(not isinstance(s, int) or not 0 <= s < n for s in pend.picks)):
        raise ValueError("a Ring's picks must be at most three seats of the table")
    if len(pend.picks) > L.MAX_PICKS or any(not isinstance(v, int) or abs(v) > MAX_TURNS_LIMIT for v in pend.picks):
        raise ValueError("pending.picks must be small ints")
    if any(not isinstance(m, int) or not -1 <= m < L.KINDS for m in pend.marks):
        raise ValueError("pending.marks must be card kinds or -1")


def canonical_row(row: np.ndarray) -> np.ndarray:
    """A copy of a row with the unused tail of every list zeroed: equal positions give equal rows."""
    out = row.copy()
    for start, length, capacity in _LISTS:
        out[start + int(out[length]) : start + capacity] = 0
    for s in range(L.SEATS):
        base = L.SEEN_TOP + s * L.SCOUT_DEPTH
        out[base + int(out[L.SEEN_TOP_LEN + s]) : base + L.SCOUT_DEPTH] = 0
    out[L.HISTORY + max(0, int(out[L.HISTORY_LEN])) : L.HISTORY + MAX_DECK_EVENTS] = 0
    return out
