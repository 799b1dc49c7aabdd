"""The rules of Gubs, compiled: set-up, legal action ids, and the transition of one game row.

This is a line-by-line re-implementation of :mod:`gubs_env.engine.setup`, ``rules``, ``effects`` and
``events`` over one ``int32`` row (:mod:`gubs_env.fast.core.layout`) and its generator row
(:mod:`gubs_env.fast.core.rng`). Function names follow the reference so that the two read side by side; the
reference stays the specification, and the differential tests in ``tests/fast`` hold the two together.
Actions are the environment's action ids (:mod:`gubs_env.encoding.action_table`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gubs_env.engine.state import LETTER_DRAWN, MAX_DECK_EVENTS, PUT_BACK, PUT_BACK_LETTER
from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.jit import NO_REFCOUNT, pure
from gubs_env.fast.core.rng import integers, shuffle

NK = L.KINDS
NS = L.SEATS
BB = T.BARRICADE_BASE
RB = T.RING_BASE
GUB = T.K["GUB"]
ELDER = T.K["ELDER"]
MUSHROOM = T.K["MUSHROOM"]
TOAD_RIDER = T.K["TOAD_RIDER"]
SUD_SPOUT = T.K["SUD_SPOUT"]
FEATHER = T.K["FEATHER"]
BLINDFOLD = T.K["BLINDFOLD"]
FLOP_BOAT = T.K["FLOP_BOAT"]
AGE_OLD_CURE = T.K["AGE_OLD_CURE"]
CRICKET_SONG = T.K["CRICKET_SONG"]
DANGEROUS_ALCHEMY = T.K["DANGEROUS_ALCHEMY"]
FLASH_FLOOD = T.K["FLASH_FLOOD"]
GARGOK_PLAGUE = T.K["GARGOK_PLAGUE"]
TRAVELING_MERCHANT = T.K["TRAVELING_MERCHANT"]
MUSHROOM_SLOT = MUSHROOM - BB
TOAD_SLOT = TOAD_RIDER - BB
HAND_LIMIT = 8
SEAT_SHIFT = 3
SEAT_BITS = (1 << SEAT_SHIFT) - 1
"""A seat (0 to 5) in 3 bits: lists of seats (window queues) are packed into one int."""
KIND_BITS = 6
KIND_MASK = (1 << KIND_BITS) - 1
"""1 + a card kind (or 0) in 6 bits, one per seat in one int (the Merchant's kept cards)."""
assert NK + 1 <= KIND_MASK and NS * KIND_BITS <= 63 and NS - 1 <= SEAT_BITS
CARDS_DEALT = 3

U_ENTER, U_PROTECT, U_REMOVE, U_SPOUT, U_RING = (T.U[x] for x in ("ENTER", "PROTECT", "REMOVE", "SPOUT", "RING"))
U_LURE, U_SUPER_LURE, U_CYCLONE = T.U["LURE"], T.U["SUPER_LURE"], T.U["CYCLONE"]
U_STRIKE_ELDER, U_STRIKE_HAND, U_BEETLE = T.U["STRIKE_ELDER"], T.U["STRIKE_HAND"], T.U["BEETLE"]
U_STEAL, U_KILL, U_FREE, U_SHATTER = T.U["STEAL"], T.U["KILL"], T.U["FREE"], T.U["SHATTER"]
U_RETREAT, U_SCOUT_HAND, U_SCOUT_DECK, U_RETRIEVE = (
    T.U["RETREAT"],
    T.U["SCOUT_HAND"],
    T.U["SCOUT_DECK"],
    T.U["RETRIEVE"],
)
PT_FREE_GUB, PT_PROTECTED_GUB, PT_BARRICADE = T.P["FREE_GUB"], T.P["PROTECTED_GUB"], T.P["BARRICADE"]
PT_SPOUT, PT_RING = T.P["SPOUT"], T.P["RING"]

T_OP, T_CARD, T_AS, T_USE, T_SEAT, T_PART, T_DETAIL = (
    T.T_OP,
    T.T_CARD,
    T.T_AS,
    T.T_USE,
    T.T_SEAT,
    T.T_PART,
    T.T_DETAIL,
)
PLAY_BLOCKS, CARD_BLOCKS = T.PLAY_BLOCKS, T.CARD_BLOCKS
PLAYABLE_KINDS = np.flatnonzero(CARD_BLOCKS[:, 1] > CARD_BLOCKS[:, 0])
"""Kinds with a play-phase use (the only ones the play step looks for in the hand)."""
RING_SIZE, IS_EVENT, IS_LETTER = T.RING_SIZE, T.IS_EVENT, T.IS_LETTER
CANCELLABLE_USES, BLINDFOLDABLE_KIND = T.CANCELLABLE_USES, T.BLINDFOLDABLE_KIND
PLACE_ID, KEEP_ID, DISCARD_ID, PICK_ID, TAKE_IDS = T.PLACE_ID, T.KEEP_ID, T.DISCARD_ID, T.PICK_ID, T.TAKE_IDS
SETUP_CARDS, THIRD_BOUNDS, LETTER_KINDS = T.SETUP_CARDS, T.THIRD_BOUNDS, T.LETTER_KINDS
BARRICADE_KINDS = T.BARRICADE_KINDS
OP_DECLINE_ID, OP_END_ID, OP_PASS_ID, OP_STOP_ID = T.ID_DECLINE, T.ID_END_TURN, T.ID_PASS, T.ID_STOP

jit = nb.njit(cache=True, error_model="numpy")
"""For set-up, which allocates: numpy's error model, as :data:`~gubs_env.fast.core.jit.pure` (every other rule)."""


# --- small reads -----------------------------------------------------------------------------------


@pure
def hand_size(g: np.ndarray, seat: int) -> int:
    """Cards in a player's hand."""
    total = 0
    base = L.HANDS + seat * NK
    for k in range(NK):
        total += g[base + k]
    return total


@pure
def barricades(g: np.ndarray, seat: int) -> int:
    """Barricades on a side."""
    base = L.PROTECTED + seat * 3
    return g[base] + g[base + 1] + g[base + 2]


@pure
def free_total(g: np.ndarray) -> int:
    """Free plain Gubs on all sides (what a Ring can take, R12)."""
    total = 0
    for s in range(g[L.NUM_PLAYERS]):
        total += g[L.FREE + s]
    return total


@pure
def score(g: np.ndarray, seat: int) -> int:
    """Free and Protected Gubs, the Elder included (docs/rules.md §6)."""
    return g[L.FREE + seat] + g[L.ELDER + seat] + barricades(g, seat)


@pure
def _part_count(g: np.ndarray, seat: int, part: int, detail: int) -> int:
    """How many of ``part`` the side holds (effects._count)."""
    if part == PT_FREE_GUB:
        return g[L.FREE + seat]
    if part in (PT_PROTECTED_GUB, PT_BARRICADE):
        return g[L.PROTECTED + seat * 3 + detail - BB]
    if part == PT_RING:
        return g[L.RINGS + seat * 3 + detail - RB]
    return g[L.SPOUTED + seat]


@pure
def _has_retreat_part(g: np.ndarray, seat: int) -> bool:
    if g[L.FREE + seat] or barricades(g, seat) or g[L.SPOUTED + seat]:
        return True
    base = L.RINGS + seat * 3
    return g[base] + g[base + 1] + g[base + 2] > 0


# --- legal actions -------------------------------------------------------------------------------


@pure
def _count_in_play(g: np.ndarray, at: int, stride: int) -> int:
    """The sum over every seat of the cell ``at + seat * stride`` (e.g. Elders, Mushrooms, one Ring kind)."""
    total = 0
    for s in range(g[L.NUM_PLAYERS]):
        total += g[at + s * stride]
    return total


@pure
def _playable_anywhere(g: np.ndarray, p: int, use: int, as_kind: int) -> bool:
    """Whether a use that takes no seat can be played now (effects.TARGETS for those uses)."""
    if use == U_ENTER:
        return True
    if use == U_PROTECT:  # R7: on one of the player's own Free Gubs
        return g[L.FREE + p] > 0
    if use == U_RING:  # R12: enough Free Gubs in play, on any sides
        return _count_in_play(g, L.FREE, 1) >= RING_SIZE[as_kind - RB]
    if use == U_STRIKE_ELDER:  # R18: wherever the Elder is
        return _count_in_play(g, L.ELDER, 1) > 0
    if use == U_BEETLE:
        return _count_in_play(g, L.PROTECTED + MUSHROOM_SLOT, 3) > 0
    if use == U_RETREAT:  # R13
        return _has_retreat_part(g, p)
    if use == U_SCOUT_DECK:
        return g[L.DECK_LEN] > 0
    return g[L.DISCARD + GUB] > 0  # RETRIEVE (FAQ 5): a plain Gub in the discard pile


@pure
def _seat_ok(g: np.ndarray, use: int, seat: int) -> bool:
    """Whether a use that aims at a whole side may aim at ``seat`` (opponent-only uses are filtered before)."""
    if use in (U_SPOUT, U_KILL, U_LURE):  # R4/R10: Spout and Spear's kill on any side
        return g[L.FREE + seat] > 0
    if use == U_FREE:
        return g[L.SPOUTED + seat] > 0
    if use == U_SUPER_LURE:  # R17: Free and Protected Gubs move
        return g[L.FREE + seat] > 0 or barricades(g, seat) > 0
    if use == U_CYCLONE:
        return barricades(g, seat) > 0
    return hand_size(g, seat) > 0  # STRIKE_HAND and SCOUT_HAND


@pure
def _can_cancel(g: np.ndarray, seat: int, as_kind: int) -> bool:
    hand = L.HANDS + seat * NK
    if g[hand + FEATHER] or g[hand + CRICKET_SONG]:
        return True
    return BLINDFOLDABLE_KIND[as_kind] == 1 and g[hand + BLINDFOLD] > 0


@pure
def _can_flop(g: np.ndarray, seat: int) -> bool:
    hand = L.HANDS + seat * NK
    return g[hand + FLOP_BOAT] > 0 or g[hand + CRICKET_SONG] > 0


@pure
def _can_cure(g: np.ndarray, seat: int) -> bool:
    hand = L.HANDS + seat * NK
    return g[hand + AGE_OLD_CURE] > 0 or g[hand + CRICKET_SONG] > 0


@pure
def legal_mask(g: np.ndarray, mask: np.ndarray, ids: np.ndarray) -> int:
    """Write the pending decision's legal ids into ``mask`` (zeroed first) and, in order, into ``ids``.

    ``ids`` needs room for every id, or may be empty when only the mask is wanted; ``mask`` may be empty when
    only the ids are wanted (a uniform random choice needs no mask), but not both.

    Returns how many ids are legal (0 once the game is over).
    """
    mask[:] = 0
    step = g[L.STEP]
    p = g[L.ACTOR]
    n = g[L.NUM_PLAYERS]
    hand = L.HANDS + p * NK
    count = 0
    if step == T.S_OVER:
        return 0
    if step == T.S_DRAW:
        count = _allow(mask, ids, count, T.ID_DRAW)
        if g[L.DECLINED + p] == 0:
            count = _allow(mask, ids, count, T.ID_DECLINE)
        return count
    if step == T.S_PLAY:
        count = _allow(mask, ids, count, T.ID_END_TURN)
        for card in PLAYABLE_KINDS:
            if g[hand + card]:
                for b in range(CARD_BLOCKS[card, 0], CARD_BLOCKS[card, 1]):
                    count = _allow_block(g, p, n, b, mask, ids, count)
        return count
    if step == T.S_DISCARD or step == T.S_KEEP:
        table = DISCARD_ID if step == T.S_DISCARD else KEEP_ID
        for k in range(NK):
            if g[hand + k]:
                count = _allow(mask, ids, count, table[k])
        return count
    if step == T.S_CANCEL:
        count = _allow(mask, ids, count, T.ID_PASS)
        blind = BLINDFOLDABLE_KIND[g[L.PLAY_AS]] == 1
        if g[hand + FEATHER]:
            count = _allow(mask, ids, count, T.ID_FEATHER)
        if blind and g[hand + BLINDFOLD]:
            count = _allow(mask, ids, count, T.ID_BLINDFOLD)
        if g[hand + CRICKET_SONG]:
            count = _allow(mask, ids, count, T.ID_WILD_FEATHER)
            if blind:
                count = _allow(mask, ids, count, T.ID_WILD_BLINDFOLD)
        return count
    if step == T.S_FLOP or step == T.S_CURE:
        count = _allow(mask, ids, count, T.ID_PASS)
        own, own_id, wild_id = FLOP_BOAT, T.ID_FLOP_BOAT, T.ID_WILD_FLOP
        if step == T.S_CURE:
            own, own_id, wild_id = AGE_OLD_CURE, T.ID_CURE, T.ID_WILD_CURE
        if g[hand + own]:
            count = _allow(mask, ids, count, own_id)
        if g[hand + CRICKET_SONG]:
            count = _allow(mask, ids, count, wild_id)
        return count
    if step == T.S_RING:
        for s in range(n):
            picked = 0
            for i in range(g[L.PICKS_LEN]):
                if g[L.PICKS + i] == s:
                    picked += 1
            if g[L.FREE + s] > picked:
                count = _allow(mask, ids, count, PICK_ID[(s - p + n) % n])
        return count
    if step == T.S_RETREAT:
        for a in TAKE_IDS:
            if _part_count(g, p, T_PART[a], T_DETAIL[a]) > 0:
                count = _allow(mask, ids, count, a)
        if g[L.PICKS_LEN] > 0:
            count = _allow(mask, ids, count, T.ID_STOP)
        return count
    # SCOUT: one id per distinct kind still to place
    for i in range(g[L.CARDS_LEN]):
        a = PLACE_ID[g[L.CARDS + i]]
        if not _allowed_already(mask, ids, count, a):
            count = _allow(mask, ids, count, a)
    return count


@nb.njit(cache=True, inline="always", error_model="numpy")
def _allow(mask: np.ndarray, ids: np.ndarray, count: int, a: int) -> int:
    if mask.shape[0]:  # an empty ``mask`` asks for the ids only
        mask[a] = 1
    if ids.shape[0]:  # an empty ``ids`` asks for the mask only
        ids[count] = a
    return count + 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def _allowed_already(mask: np.ndarray, ids: np.ndarray, count: int, a: int) -> bool:
    """Whether ``a`` is among the ``count`` ids allowed so far (read from the mask when there is one)."""
    if mask.shape[0]:
        return mask[a] != 0
    found = False
    for j in range(count):  # a loop, not any(...) over a generator: numba compiles the loop to less
        found = found or ids[j] == a
    return found


@pure
def _allow_block(g: np.ndarray, p: int, n: int, b: int, mask: np.ndarray, ids: np.ndarray, count: int) -> int:
    """Allow the legal ids of one play block: one card used one way, with each target it may take."""
    start, use, as_kind, width = PLAY_BLOCKS[b, 0], PLAY_BLOCKS[b, 2], PLAY_BLOCKS[b, 3], PLAY_BLOCKS[b, 4]
    if use == U_SHATTER:  # R12: any Ring on any side
        for j in range(PLAY_BLOCKS[b, 1]):
            if _count_in_play(g, L.RINGS + T_DETAIL[start + j] - RB, 3) > 0:
                count = _allow(mask, ids, count, start + j)
        return count
    if width == 0:
        if _playable_anywhere(g, p, use, as_kind):
            count = _allow(mask, ids, count, start)
        return count
    own_side = use in (U_SPOUT, U_KILL, U_FREE, U_REMOVE)
    for offset in range(0 if own_side else 1, n):
        seat = p + offset
        if seat >= n:
            seat -= n
        base = start + offset * width
        if use == U_REMOVE:
            for a in range(base, base + width):
                if g[L.PROTECTED + seat * 3 + T_DETAIL[a] - BB] > 0:
                    count = _allow(mask, ids, count, a)
        elif use == U_STEAL:  # R9: every card or pair on the side, never the Elder or a Ring
            for a in range(base, base + width):
                if _part_count(g, seat, T_PART[a], T_DETAIL[a]) > 0:
                    count = _allow(mask, ids, count, a)
        elif _seat_ok(g, use, seat):
            count = _allow(mask, ids, count, base)
    return count


# --- the deck ------------------------------------------------------------------------------------


@pure
def _pop_deck(g: np.ndarray) -> int:
    g[L.DECK_LEN] -= 1
    return g[L.DECK + g[L.DECK_LEN]]


@pure
def _insert_at(g: np.ndarray, position: int, kind: int) -> None:
    top = g[L.DECK_LEN]
    for i in range(top, position, -1):
        g[L.DECK + i] = g[L.DECK + i - 1]
    g[L.DECK + position] = kind
    g[L.DECK_LEN] = top + 1


@pure
def _forget_deck_top(g: np.ndarray) -> None:
    for s in range(NS):
        g[L.SEEN_TOP_LEN + s] = 0


@pure
def _note_deck_event(g: np.ndarray, event: int) -> None:
    """Record a deck event that happens now, at the deck's size before it (GameState.note_deck_event)."""
    count = g[L.HISTORY_LEN]
    if count >= MAX_DECK_EVENTS:  # only a hand-made history gets here: it becomes unknown rather than longer
        g[L.HISTORY_LEN] = -1
    elif count >= 0:
        g[L.HISTORY + count] = g[L.DECK_LEN] * L.HISTORY_KINDS + event
        g[L.HISTORY_LEN] = count + 1


@pure
def insert_into_deck(g: np.ndarray, r: np.ndarray, kind: int) -> None:
    """A card into the deck at a uniformly random position; Scout knowledge is forgotten (R15, R20, P2)."""
    _note_deck_event(g, PUT_BACK_LETTER if IS_LETTER[kind] else PUT_BACK)
    _insert_at(g, integers(r, g[L.DECK_LEN] + 1), kind)
    _forget_deck_top(g)


# --- set-up --------------------------------------------------------------------------------------


@jit
def new_game(g: np.ndarray, r: np.ndarray, num_players: int, max_turns: int, uniform: int) -> None:
    """Set up a game from the generator row ``r`` (setup.new_state)."""
    g[:] = 0
    g[L.NUM_PLAYERS] = num_players
    g[L.MAX_TURNS] = max_turns
    g[L.UNIFORM] = uniform
    g[L.TURN] = 1
    for s in range(NS):
        g[L.SEEN_SEAT + s] = -1
    for s in range(num_players):
        g[L.FREE + s] = 1
    rest = SETUP_CARDS[num_players:].copy()
    size = rest.shape[0]
    shuffle(r, rest, size)
    order = np.arange(3)
    shuffle(r, order, 3)
    if uniform:
        for i in range(size):
            g[L.DECK + i] = rest[i]
        g[L.DECK_LEN] = size
        for i in range(3):
            _insert_at(g, integers(r, g[L.DECK_LEN] + 1), LETTER_KINDS[order[i]])
    else:
        bounds = THIRD_BOUNDS[num_players]
        for third in range(3):
            start = g[L.DECK_LEN]
            for i in range(bounds[third], bounds[third + 1]):
                g[L.DECK + g[L.DECK_LEN]] = rest[i]
                g[L.DECK_LEN] += 1
            where = start + integers(r, bounds[third + 1] - bounds[third] + 1)
            _insert_at(g, where, LETTER_KINDS[order[third]])
    for _ in range(CARDS_DEALT):
        for s in range(num_players):
            while True:
                kind = _pop_deck(g)
                if IS_EVENT[kind] == 0:
                    g[L.HANDS + s * NK + kind] += 1
                    break
                _insert_at(g, integers(r, g[L.DECK_LEN] + 1), kind)
    g[L.HISTORY_LEN] = 0  # the deck's history starts after the deal (setup.new_state)
    _new_pending(g, T.S_DRAW, 0, 0)


# --- pending decisions ---------------------------------------------------------------------------


@pure
def _new_pending(g: np.ndarray, step: int, actor: int, by: int) -> None:
    g[L.STEP] = step
    g[L.ACTOR] = actor
    g[L.BY] = by
    g[L.PLAY_CARD] = -1
    g[L.PLAY_AS] = -1
    g[L.PLAY_USE] = -1
    g[L.PLAY_SEAT] = -1
    g[L.PLAY_PART] = -1
    g[L.PLAY_DETAIL] = -1
    g[L.EVENT] = -1
    g[L.QUEUE_LEN] = 0
    g[L.PICKS_LEN] = 0
    g[L.CARDS_LEN] = 0
    g[L.PLACED_LEN] = 0
    g[L.MARKS_LEN] = 0


@pure
def _set_play(g: np.ndarray, a: int, seat: int) -> None:
    g[L.PLAY_CARD] = T_CARD[a]
    g[L.PLAY_AS] = T_AS[a]
    g[L.PLAY_USE] = T_USE[a]
    g[L.PLAY_SEAT] = seat
    g[L.PLAY_PART] = T_PART[a]
    g[L.PLAY_DETAIL] = T_DETAIL[a]


@pure
def _back_to_play(g: np.ndarray) -> None:
    tp = g[L.TURN_PLAYER]
    _new_pending(g, T.S_PLAY, tp, tp)


@pure
def _pop_queue(g: np.ndarray) -> int:
    first = g[L.QUEUE]
    size = g[L.QUEUE_LEN]
    for i in range(size - 1):
        g[L.QUEUE + i] = g[L.QUEUE + i + 1]
    g[L.QUEUE_LEN] = size - 1
    return first


@pure
def _set_queue(g: np.ndarray, seats: int, size: int) -> None:
    """``actor, queue = seats[0], seats[1:size]`` for ``size`` seats packed by :func:`_pack_seat`."""
    g[L.ACTOR] = seats & SEAT_BITS
    for i in range(1, size):
        g[L.QUEUE + i - 1] = (seats >> (SEAT_SHIFT * i)) & SEAT_BITS
    g[L.QUEUE_LEN] = size - 1


@nb.njit(cache=True, inline="always", error_model="numpy", **NO_REFCOUNT)
def _pack_seat(seats: int, size: int, seat: int) -> int:
    """``seats`` with ``seat`` as its entry number ``size``.

    A list of seats in one int, where an array would need an allocation (see :mod:`gubs_env.fast.core.jit`).
    """
    return seats | (seat << (SEAT_SHIFT * size))


# --- transitions ---------------------------------------------------------------------------------


@pure
def advance(g: np.ndarray, r: np.ndarray, a: int) -> None:
    """Apply the legal action id ``a`` of the pending decision (rules.advance)."""
    step = g[L.STEP]
    if step == T.S_DRAW:
        _on_draw(g, r, a)
    elif step == T.S_PLAY:
        _on_play(g, r, a)
    elif step == T.S_DISCARD:
        _on_discard(g, a)
    elif step == T.S_CANCEL:
        _on_cancel(g, r, a)
    elif step == T.S_FLOP:
        _on_flop(g, r, a)
    elif step == T.S_CURE:
        _on_cure(g, r, a)
    elif step == T.S_KEEP:
        _on_keep(g, r, a)
    elif step == T.S_RING:
        _on_ring(g, a)
    elif step == T.S_RETREAT:
        _on_retreat(g, a)
    elif step == T.S_SCOUT:
        _on_scout(g, a)


@pure
def _on_draw(g: np.ndarray, r: np.ndarray, a: int) -> None:
    p = g[L.TURN_PLAYER]
    if a == OP_DECLINE_ID:
        g[L.DECLINED + p] = 1
        g[L.STEP] = T.S_PLAY
        return
    g[L.DECLINED + p] = 0
    if IS_LETTER[g[L.DECK + g[L.DECK_LEN] - 1]]:
        _note_deck_event(g, LETTER_DRAWN)
    kind = _pop_deck(g)
    for s in range(NS):
        size = g[L.SEEN_TOP_LEN + s]
        if size:
            base = L.SEEN_TOP + s * L.SCOUT_DEPTH
            for i in range(size - 1):
                g[base + i] = g[base + i + 1]
            g[L.SEEN_TOP_LEN + s] = size - 1
    if IS_EVENT[kind]:
        _open_event(g, r, kind)
        return
    g[L.HANDS + p * NK + kind] += 1
    g[L.STEP] = T.S_PLAY


@pure
def _on_play(g: np.ndarray, r: np.ndarray, a: int) -> None:
    p = g[L.TURN_PLAYER]
    if a == OP_END_ID:
        _end_of_turn(g)
        return
    n = g[L.NUM_PLAYERS]
    card, use = T_CARD[a], T_USE[a]
    seat = (p + T_SEAT[a]) % n if T_SEAT[a] >= 0 else -1
    g[L.HANDS + p * NK + card] -= 1
    if use in (U_RING, U_RETREAT, U_SCOUT_DECK):
        follow = T.S_RING if use == U_RING else (T.S_RETREAT if use == U_RETREAT else T.S_SCOUT)
        _new_pending(g, follow, p, p)
        _set_play(g, a, seat)
        if use == U_SCOUT_DECK:
            _start_scout(g)
    elif CANCELLABLE_USES[use] and _open_cancel(g, p, a, seat):
        return
    else:
        _resolve(g, p, card, use, seat, T_PART[a], T_DETAIL[a])


@pure
def _open_cancel(g: np.ndarray, by: int, a: int, seat: int) -> bool:
    """Open the cancel window (docs/rules.md §5) if anybody can answer; ``a`` is the play's id (-1: the pending one)."""
    n = g[L.NUM_PLAYERS]
    as_kind = T_AS[a] if a >= 0 else g[L.PLAY_AS]
    seats = 0
    size = 0
    for i in range(1, n):
        q = (by + i) % n
        if _can_cancel(g, q, as_kind):
            seats = _pack_seat(seats, size, q)
            size += 1
    if size == 0:
        return False
    if a >= 0:
        _new_pending(g, T.S_CANCEL, 0, by)
        _set_play(g, a, seat)
    else:  # a completed Ring: the play and its picks stay
        g[L.STEP] = T.S_CANCEL
        g[L.BY] = by
        g[L.EVENT] = -1
        g[L.CARDS_LEN] = 0
        g[L.PLACED_LEN] = 0
        g[L.MARKS_LEN] = 0
    _set_queue(g, seats, size)
    return True


@pure
def _resolve(g: np.ndarray, p: int, card: int, use: int, seat: int, part: int, detail: int) -> None:
    """Apply a card use nobody cancelled; its card goes to its side or to the discard pile (rules._resolve)."""
    n = g[L.NUM_PLAYERS]
    if use == U_ENTER:
        if card == ELDER:
            g[L.ELDER + p] = 1
        else:
            g[L.FREE + p] += 1
    elif use == U_PROTECT:
        g[L.FREE + p] -= 1
        g[L.PROTECTED + p * 3 + card - BB] += 1
    elif use == U_REMOVE:
        g[L.PROTECTED + seat * 3 + detail - BB] -= 1
        g[L.FREE + seat] += 1
        g[L.DISCARD + detail] += 1
    elif use == U_SPOUT:
        g[L.FREE + seat] -= 1
        g[L.SPOUTED + seat] += 1
    elif use == U_RING:
        for i in range(g[L.PICKS_LEN]):
            g[L.FREE + g[L.PICKS + i]] -= 1
        g[L.RINGS + p * 3 + card - RB] = 1
    elif use == U_LURE:
        g[L.FREE + seat] -= 1
        g[L.FREE + p] += 1
    elif use == U_SUPER_LURE:
        moved = g[L.FREE + seat] + barricades(g, seat)
        for b in range(3):
            g[L.HANDS + seat * NK + BB + b] += g[L.PROTECTED + seat * 3 + b]
            g[L.PROTECTED + seat * 3 + b] = 0
        g[L.FREE + seat] = 0
        g[L.FREE + p] += moved
    elif use == U_CYCLONE:
        for b in range(3):
            count = g[L.PROTECTED + seat * 3 + b]
            g[L.DISCARD + BB + b] += count
            g[L.FREE + seat] += count
            g[L.PROTECTED + seat * 3 + b] = 0
    elif use == U_STRIKE_ELDER:
        for s in range(n):
            if g[L.ELDER + s]:
                g[L.ELDER + s] = 0
                g[L.DISCARD + ELDER] += 1
    elif use == U_STRIKE_HAND:
        for k in range(NK):
            g[L.DISCARD + k] += g[L.HANDS + seat * NK + k]
            g[L.HANDS + seat * NK + k] = 0
    elif use == U_BEETLE:
        for s in range(n):
            count = g[L.PROTECTED + s * 3 + MUSHROOM_SLOT]
            g[L.PROTECTED + s * 3 + MUSHROOM_SLOT] = 0
            g[L.DISCARD + MUSHROOM] += count
            g[L.DISCARD + GUB] += count
    elif use == U_STEAL:
        _steal(g, p, seat, part, detail)
    elif use == U_KILL:
        g[L.FREE + seat] -= 1
        g[L.DISCARD + GUB] += 1
    elif use == U_FREE:
        g[L.SPOUTED + seat] -= 1
        g[L.FREE + seat] += 1
        g[L.DISCARD + SUD_SPOUT] += 1
    elif use == U_SHATTER:
        slot = detail - RB
        for s in range(n):
            if g[L.RINGS + s * 3 + slot]:
                g[L.RINGS + s * 3 + slot] = 0
                g[L.DISCARD + detail] += 1
                g[L.FREE + p] += RING_SIZE[slot]
    elif use == U_SCOUT_HAND:
        g[L.SEEN_SEAT + p] = seat
        for k in range(NK):
            g[L.SEEN_HAND + p * NK + k] = g[L.HANDS + seat * NK + k]
    elif use == U_RETRIEVE:
        g[L.DISCARD + GUB] -= 1
        g[L.HANDS + p * NK + GUB] += 1
    if use not in (U_ENTER, U_PROTECT, U_SPOUT, U_RING):
        g[L.DISCARD + card] += 1


@pure
def _steal(g: np.ndarray, p: int, victim: int, part: int, detail: int) -> None:
    """R9: what Smahl Thief takes goes to the thief's hand (effects._resolve_steal)."""
    hand = L.HANDS + p * NK
    if part == PT_FREE_GUB:
        g[L.FREE + victim] -= 1
        g[hand + GUB] += 1
    elif part == PT_PROTECTED_GUB:
        g[L.PROTECTED + victim * 3 + detail - BB] -= 1
        g[L.HANDS + victim * NK + detail] += 1
        g[hand + GUB] += 1
    elif part == PT_BARRICADE:
        g[L.PROTECTED + victim * 3 + detail - BB] -= 1
        g[L.FREE + victim] += 1
        g[hand + detail] += 1
    elif part == PT_SPOUT:
        g[L.SPOUTED + victim] -= 1
        g[L.FREE + victim] += 1
        g[hand + SUD_SPOUT] += 1
    else:
        g[L.SPOUTED + victim] -= 1
        g[L.DISCARD + SUD_SPOUT] += 1
        g[hand + GUB] += 1


@pure
def _take_part(g: np.ndarray, p: int, part: int, detail: int) -> None:
    """R13: Retreat moves one card (or a Gub with its Barricade) from the own side to the hand."""
    hand = L.HANDS + p * NK
    if part == PT_FREE_GUB:
        g[L.FREE + p] -= 1
        g[hand + GUB] += 1
    elif part == PT_PROTECTED_GUB:
        g[L.PROTECTED + p * 3 + detail - BB] -= 1
        g[hand + detail] += 1
        g[hand + GUB] += 1
    elif part == PT_BARRICADE:
        g[L.PROTECTED + p * 3 + detail - BB] -= 1
        g[L.FREE + p] += 1
        g[hand + detail] += 1
    elif part == PT_SPOUT:
        g[L.SPOUTED + p] -= 1
        g[L.FREE + p] += 1
        g[hand + SUD_SPOUT] += 1
    else:
        g[L.RINGS + p * 3 + detail - RB] = 0
        g[L.FREE + p] += RING_SIZE[detail - RB]
        g[hand + detail] += 1


@pure
def _resolve_pending_play(g: np.ndarray) -> None:
    card, use, seat = np.int64(g[L.PLAY_CARD]), np.int64(g[L.PLAY_USE]), np.int64(g[L.PLAY_SEAT])
    _resolve(g, g[L.BY], card, use, seat, np.int64(g[L.PLAY_PART]), np.int64(g[L.PLAY_DETAIL]))
    _back_to_play(g)


@pure
def _spend_interrupt(g: np.ndarray, a: int) -> None:
    card = T_CARD[a]
    g[L.HANDS + g[L.ACTOR] * NK + card] -= 1
    g[L.DISCARD + card] += 1


@pure
def _on_cancel(g: np.ndarray, r: np.ndarray, a: int) -> None:
    if a == OP_PASS_ID:
        if g[L.QUEUE_LEN]:
            g[L.ACTOR] = _pop_queue(g)
        else:
            _resolve_pending_play(g)
        return
    _spend_interrupt(g, a)
    g[L.DISCARD + g[L.PLAY_CARD]] += 1
    _back_to_play(g)


@pure
def _on_ring(g: np.ndarray, a: int) -> None:
    n = g[L.NUM_PLAYERS]
    g[L.PICKS + g[L.PICKS_LEN]] = (g[L.ACTOR] + T_SEAT[a]) % n
    g[L.PICKS_LEN] += 1
    if g[L.PICKS_LEN] == RING_SIZE[g[L.PLAY_AS] - RB] and not _open_cancel(g, g[L.BY], np.int64(-1), np.int64(-1)):
        _resolve_pending_play(g)


@pure
def _on_retreat(g: np.ndarray, a: int) -> None:
    if a == OP_STOP_ID:
        _discard_played(g)
        return
    _take_part(g, g[L.BY], T_PART[a], T_DETAIL[a])
    g[L.PICKS + g[L.PICKS_LEN]] = T_PART[a]
    g[L.PICKS_LEN] += 1


@pure
def _start_scout(g: np.ndarray) -> None:
    size = min(L.SCOUT_DEPTH, g[L.DECK_LEN])
    for i in range(size):
        g[L.CARDS + i] = g[L.DECK + g[L.DECK_LEN] - 1 - i]
    g[L.CARDS_LEN] = size
    g[L.PLACED_LEN] = 0
    _finish_scout_if_done(g)


@pure
def _on_scout(g: np.ndarray, a: int) -> None:
    kind = T_DETAIL[a]
    size = g[L.CARDS_LEN]
    at = 0
    while g[L.CARDS + at] != kind:
        at += 1
    for i in range(at, size - 1):
        g[L.CARDS + i] = g[L.CARDS + i + 1]
    g[L.CARDS_LEN] = size - 1
    g[L.PLACED + g[L.PLACED_LEN]] = kind
    g[L.PLACED_LEN] += 1
    _finish_scout_if_done(g)


@pure
def _finish_scout_if_done(g: np.ndarray) -> None:
    if g[L.CARDS_LEN] > 1:
        return
    placed = g[L.PLACED_LEN]
    size = placed + g[L.CARDS_LEN]
    top = g[L.DECK_LEN]
    _forget_deck_top(g)
    by = g[L.BY]
    for j in range(size):  # the placed cards, then the one left: top first; the deck is bottom first
        kind = g[L.PLACED + j] if j < placed else g[L.CARDS + j - placed]
        g[L.DECK + top - 1 - j] = kind
        g[L.SEEN_TOP + by * L.SCOUT_DEPTH + j] = kind
    g[L.SEEN_TOP_LEN + by] = size
    _discard_played(g)


@pure
def _discard_played(g: np.ndarray) -> None:
    g[L.DISCARD + g[L.PLAY_CARD]] += 1
    _back_to_play(g)


# --- events --------------------------------------------------------------------------------------


@pure
def _open_event(g: np.ndarray, r: np.ndarray, kind: int) -> None:
    """A drawn Event: the flop window asks every holder, drawer first (docs/rules.md §5)."""
    p = g[L.TURN_PLAYER]
    n = g[L.NUM_PLAYERS]
    seats = 0
    size = 0
    for i in range(n):
        q = (p + i) % n
        if _can_flop(g, q):
            seats = _pack_seat(seats, size, q)
            size += 1
    _new_pending(g, T.S_FLOP, p, p)
    g[L.EVENT] = kind
    if size:
        _set_queue(g, seats, size)
    else:
        _resolve_event(g, r)


@pure
def _on_flop(g: np.ndarray, r: np.ndarray, a: int) -> None:
    if a == OP_PASS_ID:
        if g[L.QUEUE_LEN]:
            g[L.ACTOR] = _pop_queue(g)
        else:
            _resolve_event(g, r)
        return
    _spend_interrupt(g, a)
    insert_into_deck(g, r, g[L.EVENT])
    _back_to_play(g)


@pure
def _resolve_event(g: np.ndarray, r: np.ndarray) -> None:
    kind, p = g[L.EVENT], g[L.BY]
    if IS_LETTER[kind]:
        g[L.LETTERS + g[L.LETTERS_LEN]] = kind
        g[L.LETTERS_LEN] += 1
        if g[L.LETTERS_LEN] == 3:
            _new_pending(g, T.S_OVER, -1, p)
        else:
            _back_to_play(g)
        return
    if kind == GARGOK_PLAGUE:
        _open_round(g, r, T.S_CURE)
        return
    if kind == TRAVELING_MERCHANT:
        _open_round(g, r, T.S_KEEP)
        return
    if kind == DANGEROUS_ALCHEMY:
        _alchemy(g, p)
    elif kind == FLASH_FLOOD:
        _flood(g, r)
    else:
        _wasps(g, r)
    _event_done(g)


@pure
def _event_done(g: np.ndarray) -> None:
    g[L.DISCARD + g[L.EVENT]] += 1
    _back_to_play(g)


@pure
def _open_round(g: np.ndarray, r: np.ndarray, step: int) -> None:
    """Gargok Plague's cure round or Traveling Merchant's keep round (rules._open_cure / _open_keep)."""
    n = g[L.NUM_PLAYERS]
    by = g[L.BY]
    seats = 0
    size = 0
    for i in range(n):
        q = (by + i) % n
        asked = _can_cure(g, q) if step == T.S_CURE else hand_size(g, q) >= 2
        if asked:
            seats = _pack_seat(seats, size, q)
            size += 1
    for s in range(n):
        g[L.MARKS + s] = 0 if step == T.S_CURE else -1
    g[L.MARKS_LEN] = n
    if size:
        g[L.STEP] = step
        _set_queue(g, seats, size)
    else:
        _close_round(g, r, step)


@pure
def _next_in_round(g: np.ndarray, r: np.ndarray, step: int) -> None:
    if g[L.QUEUE_LEN]:
        g[L.ACTOR] = _pop_queue(g)
    else:
        _close_round(g, r, step)


@pure
def _close_round(g: np.ndarray, r: np.ndarray, step: int) -> None:
    if step == T.S_CURE:
        _plague(g, r)
    else:
        _merchant(g)
    _event_done(g)


@pure
def _on_cure(g: np.ndarray, r: np.ndarray, a: int) -> None:
    if T_OP[a] == T.OP_PLAY:
        g[L.MARKS + g[L.ACTOR]] = 1
        _spend_interrupt(g, a)
    _next_in_round(g, r, T.S_CURE)


@pure
def _on_keep(g: np.ndarray, r: np.ndarray, a: int) -> None:
    g[L.MARKS + g[L.ACTOR]] = T_DETAIL[a]
    _next_in_round(g, r, T.S_KEEP)


@pure
def _alchemy(g: np.ndarray, drawer: int) -> None:
    """R16: everything on the drawer's side is discarded except the Elder."""
    s = drawer
    g[L.DISCARD + GUB] += g[L.FREE + s] + g[L.SPOUTED + s] + barricades(g, s)
    g[L.DISCARD + SUD_SPOUT] += g[L.SPOUTED + s]
    for b in range(3):
        g[L.DISCARD + BARRICADE_KINDS[b]] += g[L.PROTECTED + s * 3 + b]
        g[L.PROTECTED + s * 3 + b] = 0
    for i in range(3):
        if g[L.RINGS + s * 3 + i]:
            g[L.DISCARD + RB + i] += 1
            g[L.DISCARD + GUB] += RING_SIZE[i]
            g[L.RINGS + s * 3 + i] = 0
    g[L.FREE + s] = 0
    g[L.SPOUTED + s] = 0


@pure
def _flood(g: np.ndarray, r: np.ndarray) -> None:
    """Every Free plain Gub on every side goes back into the deck."""
    for s in range(g[L.NUM_PLAYERS]):
        for _ in range(g[L.FREE + s]):
            insert_into_deck(g, r, GUB)
        g[L.FREE + s] = 0


@pure
def _wasps(g: np.ndarray, r: np.ndarray) -> None:
    """Every Toad Rider in play goes back into the deck with the Gub under it."""
    for s in range(g[L.NUM_PLAYERS]):
        count = g[L.PROTECTED + s * 3 + TOAD_SLOT]
        g[L.PROTECTED + s * 3 + TOAD_SLOT] = 0
        for _ in range(count):
            insert_into_deck(g, r, TOAD_RIDER)
            insert_into_deck(g, r, GUB)


@pure
def _plague(g: np.ndarray, r: np.ndarray) -> None:
    """Every hand not saved goes into the deck, card by card, drawer first (R15)."""
    n = g[L.NUM_PLAYERS]
    drawer = g[L.BY]
    for i in range(n):
        seat = (drawer + i) % n
        if g[L.MARKS + seat]:
            continue
        base = L.HANDS + seat * NK
        for k in range(NK):
            for _ in range(g[base + k]):
                insert_into_deck(g, r, k)
            g[base + k] = 0


@pure
def _merchant(g: np.ndarray) -> None:
    """R19: each player keeps one card and passes the rest to the previous seat, all at once."""
    n = g[L.NUM_PLAYERS]
    kept_kinds = 0  # per seat, 1 + the kind it keeps (0: none), KIND_BITS each: no array to allocate
    for s in range(n):
        base = L.HANDS + s * NK
        keep = g[L.MARKS + s]
        if keep < 0 and hand_size(g, s) == 1:
            for k in range(NK):
                if g[base + k]:
                    keep = k
                    break
        kept_kinds |= (keep + 1) << (KIND_BITS * s)
    # Seat s passes its hand less its kept card to seat s - 1, so it ends with its kept card plus what seat
    # s + 1 passed; one kind at a time, keeping seat 0's old count for the last seat.
    for k in range(NK):
        first = g[L.HANDS + k]
        for s in range(n):
            after = s + 1 if s + 1 < n else 0
            old_after = first if after == 0 else g[L.HANDS + after * NK + k]
            kept = 1 if ((kept_kinds >> (KIND_BITS * s)) & KIND_MASK) == k + 1 else 0
            kept_after = 1 if ((kept_kinds >> (KIND_BITS * after)) & KIND_MASK) == k + 1 else 0
            passed_by_after = old_after - kept_after
            g[L.HANDS + s * NK + k] = kept + passed_by_after


# --- end of turn ---------------------------------------------------------------------------------


@pure
def _end_of_turn(g: np.ndarray) -> None:
    p = g[L.TURN_PLAYER]
    if hand_size(g, p) > HAND_LIMIT:  # R14: checked only now
        _new_pending(g, T.S_DISCARD, p, p)
        return
    _next_turn(g)


@pure
def _on_discard(g: np.ndarray, a: int) -> None:
    p = g[L.TURN_PLAYER]
    kind = T_DETAIL[a]
    g[L.HANDS + p * NK + kind] -= 1
    g[L.DISCARD + kind] += 1
    if hand_size(g, p) <= HAND_LIMIT:
        _next_turn(g)


@pure
def _next_turn(g: np.ndarray) -> None:
    p = (g[L.TURN_PLAYER] + 1) % g[L.NUM_PLAYERS]
    g[L.TURN_PLAYER] = p
    g[L.TURN] += 1
    if g[L.TURN] > g[L.MAX_TURNS]:  # R23
        g[L.TRUNCATED] = 1
        _new_pending(g, T.S_OVER, -1, p)
    else:
        _new_pending(g, T.S_DRAW, p, p)


# --- the end -------------------------------------------------------------------------------------


@pure
def winners_into(g: np.ndarray, out: np.ndarray) -> None:
    """1 in ``out[seat]`` for each winning seat: highest score, then the Elder, then fewest cards (R3)."""
    n = g[L.NUM_PLAYERS]
    out[:] = 0
    best = -1
    for s in range(n):
        best = max(best, score(g, s))
    elder = False
    for s in range(n):
        if score(g, s) == best and g[L.ELDER + s]:
            elder = True
    if elder:
        for s in range(n):
            out[s] = 1 if score(g, s) == best and g[L.ELDER + s] else 0
        return
    fewest = 1 << 30
    for s in range(n):
        if score(g, s) == best:
            fewest = min(fewest, hand_size(g, s))
    for s in range(n):
        out[s] = 1 if score(g, s) == best and hand_size(g, s) == fewest else 0
