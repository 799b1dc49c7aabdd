"""Where each fact of a game sits in its row of the compiled engine's state matrix.

One game is one row of ``int32`` (plus a row of six ``uint64`` for its random generator, see
:mod:`gubs_env.fast.core.rng`). Lists of the reference engine (deck, queue, picks, ...) are a fixed-size block
and a length. Every offset is a plain module constant, so numba folds it into the compiled code.
"""

from __future__ import annotations

from gubs_env.engine.cards import DECK_SIZE, MAX_PLAYERS, NUM_KINDS
from gubs_env.engine.state import MAX_DECK_EVENTS

SEATS = MAX_PLAYERS
KINDS = NUM_KINDS
SCOUT_DEPTH = 3
MAX_PICKS = DECK_SIZE + 2
"""Room for Retreat's picks (one per card taken: never more than the cards in play)."""
DECK_ROOM = DECK_SIZE + 2
"""Room for the deck's cards."""

_offset = 0


def _block(size: int) -> int:
    """Reserve ``size`` cells and return where they start."""
    global _offset
    start = _offset
    _offset += size
    return start


# Facts read at nearly every decision come first and lie together, so that the few cache lines a step
# touches hold them all; the long, rarely read blocks (the deck, Scout and Ring lists, seen hands) follow.
NUM_PLAYERS = _block(1)
MAX_TURNS = _block(1)
UNIFORM = _block(1)
"""1 for ``letter_placement="uniform"``, 0 for ``"thirds"``."""
TURN_PLAYER = _block(1)
TURN = _block(1)
TRUNCATED = _block(1)
STEP = _block(1)
ACTOR = _block(1)
BY = _block(1)
PLAY_CARD = _block(1)
"""The card of the play being resolved, -1 when none; its other fields follow."""
PLAY_AS = _block(1)
PLAY_USE = _block(1)
PLAY_SEAT = _block(1)
PLAY_PART = _block(1)
PLAY_DETAIL = _block(1)
EVENT = _block(1)
QUEUE_LEN = _block(1)
PICKS_LEN = _block(1)
CARDS_LEN = _block(1)
PLACED_LEN = _block(1)
MARKS_LEN = _block(1)
DECK_LEN = _block(1)
LETTERS = _block(3)
LETTERS_LEN = _block(1)
DECLINED = _block(SEATS)
FREE = _block(SEATS)
ELDER = _block(SEATS)
SPOUTED = _block(SEATS)
SEEN_TOP_LEN = _block(SEATS)
SEEN_SEAT = _block(SEATS)
"""Seat whose hand each player's Scout last showed, -1 for none."""
QUEUE = _block(SEATS)
PROTECTED = _block(SEATS * 3)
RINGS = _block(SEATS * 3)
DISCARD = _block(KINDS)
HANDS = _block(SEATS * KINDS)
DECK = _block(DECK_ROOM)
"""Bottom first, as in the reference: ``DECK + DECK_LEN - 1`` is the top card."""
PICKS = _block(MAX_PICKS)
CARDS = _block(SCOUT_DEPTH)
PLACED = _block(SCOUT_DEPTH)
MARKS = _block(SEATS)
SEEN_TOP = _block(SEATS * SCOUT_DEPTH)
SEEN_HAND = _block(SEATS * KINDS)
HISTORY_LEN = _block(1)
"""Events in the deck's history since the deal; -1 where the past is not known (``GameState.deck_history``).
The history's cells follow at once, so that the length and the events are written as one list."""
HISTORY = _block(MAX_DECK_EVENTS)
"""The deck's history, one event a cell: ``size * HISTORY_KINDS + event`` (``gubs_env.engine.state.PUT_BACK``, ...)."""
HISTORY_KINDS = 4
"""The event's share of a history cell (the three events fit below it)."""
ROW = _offset
"""Cells per game."""
