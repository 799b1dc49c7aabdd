"""Determinization in batch: many worlds drawn from one seat's knowledge, written straight into game rows.

:func:`gubs_env.engine.positions.determinize.sample_world` draws one full position from a seat's
:class:`~gubs_env.engine.positions.determinize.Knowledge`; a search bot that wants W of them, as rows of the compiled
engine, pays for W Python samples and W conversions. Here the knowledge is read once, in Python, into a
:class:`WorldPlan`: a *template row* holding everything the seat knows (its hand, the public zones, the
known deck top, the pending decision), and the lists of cards whose place it does not know, with the
weights of every choice the reference sampler makes by weight (where the Letters lie, how the open window's
answer cards split between the asked seat, the other hands and the deck), taken from the reference module's
own functions (``letter_posterior``, ``answer_splits``). One compiled call then writes W worlds: each copies the
template and redistributes the unknown cards with the same steps as the reference sampler, drawing from its
own PCG64 stream seeded from ``(seed, w)``.

The worlds are not the reference sampler's worlds for the same seed (that one draws from
:class:`random.Random`), but they follow the same distribution: every random step below mirrors one of
:mod:`gubs_env.engine.positions.determinize` (named in its comment), and tests/fast/test_determinize.py checks both
samplers against exact distributions. A plan is a function of the knowledge alone, so nothing the seat
cannot see reaches a world.

``python benchmarks/world_sampler.py`` times both ways (docs/fast.md, "Determinization in batch").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from gubs_env.engine.cards import EVENTS, LETTERS, NUM_KINDS
from gubs_env.engine.options import LETTER_PLACEMENTS
from gubs_env.engine.positions.determinize import (
    DeckEvent,
    DeckRedeal,
    Knowledge,
    PosteriorSteps,
    _answer_kinds,  # one definition of which kinds answer the open window, shared with the reference sampler
    answer_splits,
    letter_posterior,
    put_back,
    rising_weights,
    unknown_counts,
    window_demands,
)
from gubs_env.engine.state import GameState, Step
from gubs_env.fast.convert import history_cells, row_history, state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.rng import RNG_WORDS, covering_mask, next_uint64, random_interval, seed_pcg64
from gubs_env.fast.core.rules import _can_cancel, _can_cure, _can_flop, hand_size

_LETTER_SET = frozenset(int(k) for k in LETTERS)
_OTHER_EVENTS = tuple(sorted(int(k) for k in EVENTS if k not in LETTERS))
_EVENT_SET = frozenset(int(k) for k in EVENTS)
_MAX_WEIGHT = 1 << 62
"""Choice weights are integers below this; larger totals are scaled down (a relative error under 2**-60)."""
_SAMPLER_STREAM = 1
_WORLD_STREAM = 2
"""Which of a world's two generators a seed is derived for: the sampler's draws, or the world's own future."""

# The header of a plan: the scalars the kernel reads, by index.
H_VIEWER, H_PLAYERS, H_HIDDEN, H_SCOUT, H_SCOUT_CARDS = range(5)
_HEADER = 5


@dataclass(frozen=True, slots=True)
class WorldPlan:
    """One seat's knowledge as the compiled sampler reads it (built by :func:`plan_worlds`).

    Attributes:
        header: int64 scalars: the viewer, the player count, the hidden deck cells (the bottom ones, whose
            cards the viewer does not know), whether another seat's Scout is open and how many cards it holds.
        template: the int32 row of every world before its unknown cards are placed.
        letters: the Letters still in the hidden deck.
        letter_cells: thirds placement: each set of hidden cells the Letters can lie in, one row each
            (``determinize.letter_posterior``; no rows: the hidden Letters lie uniformly in the hidden deck).
        letter_cumulative: the running sum of those ways' probabilities (float64).
        events: the other Events in the hidden deck.
        answers: the open window's answer cards whose place is unknown (empty when no seat is constrained).
        split_weights: the weight of each split of ``answers`` (as many arrangements as it allows).
        split_counts: per split, the answers for each seat of ``demand_seats``, then for the other hands
            together, then for the deck.
        demand_seats: the seats the window constrains, ascending.
        other_seats: the seats with unknown hand cards that the window does not constrain.
        rest: every other card whose place is unknown.
        room: per seat, the hand cards whose kind the viewer does not know.
        hidden_marks: per seat, 1 where the pending Traveling Merchant keep is another seat's secret.
    """

    header: np.ndarray
    template: np.ndarray
    letters: np.ndarray
    letter_cells: np.ndarray
    letter_cumulative: np.ndarray
    events: np.ndarray
    answers: np.ndarray
    split_weights: np.ndarray
    split_counts: np.ndarray
    demand_seats: np.ndarray
    other_seats: np.ndarray
    rest: np.ndarray
    room: np.ndarray
    hidden_marks: np.ndarray


# --- the plan: knowledge read once, in Python ----------------------------------------------------------------


def _int32(values: Sequence[int]) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _expand(counts: Sequence[int], kinds: Sequence[int]) -> list[int]:
    return [kind for kind in kinds for _ in range(counts[kind])]


def _scaled(weights: list[int]) -> np.ndarray:
    """The weights as int64 the kernel can sum: exact unless their total reaches 2**62, then scaled to it."""
    total = sum(weights)
    if total >= _MAX_WEIGHT:
        # Scaled to a total near 2**61, rounded down but never to zero: a possible choice stays possible.
        weights = [max(1, w * (_MAX_WEIGHT // 2) // total) for w in weights]
    return np.array(weights, dtype=np.int64)


_NO_WAYS = (np.zeros((0, 3), dtype=np.int32), np.zeros(0, dtype=np.float64))
"""No weighted ways: the hidden Letters at uniform places (uniform placement, or where the model explains nothing)."""


def letter_ways(
    n: int,
    size: int,
    hidden: int,
    known_letters: tuple[int, ...],
    missing: int,
    history: tuple[DeckEvent, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The thirds posterior (``determinize.letter_posterior``, remembered there) as the kernels' arrays.

    Each way's cells (int32, one row each) and the running sum of the ways' probabilities (float64): the kernel
    draws a way as the reference does, by a uniform float in ``[0, total)`` (the arrays are shared: never written).
    The posterior's costliest steps are compiled (:data:`COMPILED_STEPS`).
    """
    posterior = letter_posterior("thirds", n, size, hidden, known_letters, missing, history, COMPILED_STEPS)
    return _NO_WAYS if posterior is None else (posterior.cells, posterior.cumulative)


def compiled_put_back(p: np.ndarray, size: int) -> np.ndarray:
    """``determinize.put_back`` with the three Letters of the deal followed in compiled code.

    With every Letter in the deck its array is a cube of some 200,000 cells, of which only the rising sixth can hold
    Letters: the reference's whole-cube arithmetic took about 2 ms a card put back, a third of the luck adjustment's
    time. Fewer Letters are cheap in numpy, and the reference does those.
    """
    if p.ndim != 3:
        return put_back(p, size)
    return _put_back_three(p, size)  # read in place: the kernel reads no cell at or above size


@nb.njit(cache=True)
def _put_back_three(p: np.ndarray, size: int) -> np.ndarray:
    """``determinize.put_back`` for three Letters, cell by rising cell ``a < b < c`` of the deck after it.

    The card lands above them all (``size - c`` places of ``size + 1``), or moves the Letters from the ``j``-lowest
    up one cell: from ``(a-1, b-1, c-1)`` by ``a`` places, from ``(a, b-1, c-1)`` by ``b-1-a``, from ``(a, b, c-1)``
    by ``c-1-b``; a cell at or above ``size`` held no Letter before, and ``p`` (of side ``size`` or more) is read
    below it only.
    """
    room = size + 1
    out = np.zeros((room, room, room))
    for a in range(room):
        for b in range(a + 1, room):
            for c in range(b + 1, room):
                total = 0.0
                if c < size:
                    total += (size - c) * p[a, b, c]
                if a > 0:
                    total += a * p[a - 1, b - 1, c - 1]
                if b - 1 > a and a < size:
                    total += (b - 1 - a) * p[a, b - 1, c - 1]
                if c - 1 > b and b < size:
                    total += (c - 1 - b) * p[a, b, c - 1]
                out[a, b, c] = total / room
    return out


def compiled_rising_weights(p: np.ndarray, hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """``determinize.rising_weights`` in compiled code: the ways' weights read in place, with their running sum.

    The reference copies the cells below ``hidden`` (some 60,000 with three Letters) to gather the sixth that rise;
    this reads only those. Its running sum adds in the same order as numpy's, so both are the reference's to the bit.
    """
    k = p.ndim
    if k == 0 or hidden < k:
        return rising_weights(p, hidden)
    ways = math.comb(hidden, k)
    weights, running = np.empty(ways), np.empty(ways)
    if k == 1:
        _gather_one(p, hidden, weights, running)
    elif k == 2:
        _gather_two(p, hidden, weights, running)
    else:
        _gather_three(p, hidden, weights, running)
    return weights, running


@nb.njit(cache=True)
def _gather_one(p: np.ndarray, hidden: int, weights: np.ndarray, running: np.ndarray) -> None:
    """:func:`compiled_rising_weights` for one Letter."""
    total = 0.0
    for a in range(hidden):
        weights[a] = p[a]
        total += p[a]
        running[a] = total


@nb.njit(cache=True)
def _gather_two(p: np.ndarray, hidden: int, weights: np.ndarray, running: np.ndarray) -> None:
    """:func:`compiled_rising_weights` for two Letters, cell by rising cell ``a < b``."""
    total, i = 0.0, 0
    for a in range(hidden):
        for b in range(a + 1, hidden):
            weights[i] = p[a, b]
            total += p[a, b]
            running[i] = total
            i += 1


@nb.njit(cache=True)
def _gather_three(p: np.ndarray, hidden: int, weights: np.ndarray, running: np.ndarray) -> None:
    """:func:`compiled_rising_weights` for three Letters, cell by rising cell ``a < b < c``."""
    total, i = 0.0, 0
    for a in range(hidden):
        for b in range(a + 1, hidden):
            for c in range(b + 1, hidden):
                weights[i] = p[a, b, c]
                total += p[a, b, c]
                running[i] = total
                i += 1


COMPILED_STEPS = PosteriorSteps(compiled_put_back, compiled_rising_weights)
"""The reference's posterior with its two costliest steps compiled: what the compiled engine's samplers use."""


def _letter_choices(k: Knowledge, hidden: int, missing: int) -> tuple[np.ndarray, np.ndarray]:
    """The Letters' posterior as the reference computes it (``determinize.letter_posterior``); no ways: uniform."""
    if missing == 0 or k.options.letter_placement != "thirds":
        return _NO_WAYS
    top = k.known_top()[::-1]  # bottom first, as deck cells count
    known_letters = tuple(hidden + i for i, kind in enumerate(top) if kind in _LETTER_SET)
    return letter_ways(k.num_players, k.deck_size, hidden, known_letters, missing, k.deck_history)


def _template(k: Knowledge, hidden: int, top_bottom_first: list[int]) -> np.ndarray:
    """The row every world starts from: what the viewer knows, in the cells ``convert.state_to_row`` writes."""
    n, viewer = k.num_players, k.viewer
    cells = [0] * L.ROW  # filled as a list and copied once, as convert.state_to_row does
    cells[L.NUM_PLAYERS] = n
    cells[L.MAX_TURNS] = k.options.max_turns
    cells[L.UNIFORM] = LETTER_PLACEMENTS.index(k.options.letter_placement)
    cells[L.TURN_PLAYER], cells[L.TURN], cells[L.TRUNCATED] = k.turn_player, k.turn, int(k.truncated)
    cells[L.DECLINED : L.DECLINED + n] = [int(d) for d in k.declined]
    cells[L.DECK_LEN] = k.deck_size
    cells[L.DECK + hidden : L.DECK + k.deck_size] = top_bottom_first
    cells[L.DISCARD : L.DISCARD + L.KINDS] = k.discard
    cells[L.LETTERS : L.LETTERS + len(k.letters)] = k.letters
    cells[L.LETTERS_LEN] = len(k.letters)
    cells[L.HANDS + viewer * L.KINDS : L.HANDS + (viewer + 1) * L.KINDS] = k.hand
    for s, (free, elder, protected, spouted, rings) in enumerate(k.sides):
        cells[L.FREE + s], cells[L.ELDER + s], cells[L.SPOUTED + s] = free, elder, spouted
        cells[L.PROTECTED + s * 3 : L.PROTECTED + s * 3 + 3] = protected
        cells[L.RINGS + s * 3 : L.RINGS + s * 3 + 3] = rings
    cells[L.SEEN_SEAT : L.SEEN_SEAT + L.SEATS] = [-1] * L.SEATS
    for s in range(n):
        seat = k.seen_hand_seats[s]
        cells[L.SEEN_SEAT + s] = -1 if seat is None else seat
        cells[L.SEEN_TOP_LEN + s] = k.seen_top_sizes[s]
    # The viewer's own Scout knowledge is known in full; the others' is filled from each world.
    base = L.SEEN_TOP + viewer * L.SCOUT_DEPTH
    cells[base : base + len(k.seen_top)] = k.seen_top
    if k.seen_hand is not None:
        cells[L.SEEN_HAND + viewer * L.KINDS : L.SEEN_HAND + (viewer + 1) * L.KINDS] = k.seen_hand[1]

    cells[L.STEP], cells[L.ACTOR], cells[L.BY] = int(k.step), k.actor, k.by
    play = k.play
    fields = (L.PLAY_CARD, L.PLAY_AS, L.PLAY_USE, L.PLAY_SEAT, L.PLAY_PART, L.PLAY_DETAIL)
    values = (None,) * 6 if play is None else (play.card, play.as_kind, play.use, play.seat, play.part, play.detail)
    for at, value in zip(fields, values, strict=True):
        cells[at] = -1 if value is None else int(value)
    cells[L.EVENT] = -1 if k.event is None else k.event
    cells[L.QUEUE_LEN] = 0  # the seats still to be asked are not known (P11): each world rebuilds them
    cells[L.PICKS : L.PICKS + len(k.picks)] = k.picks
    cells[L.PICKS_LEN] = len(k.picks)
    cells[L.MARKS : L.MARKS + len(k.marks)] = [-1 if m is None else m for m in k.marks]  # a hidden keep: drawn
    cells[L.MARKS_LEN] = len(k.marks)
    history = history_cells(k.deck_history)
    cells[L.HISTORY_LEN : L.HISTORY_LEN + len(history)] = history
    if k.step is Step.SCOUT:
        if k.scout_cards is not None and k.scout_placed is not None:
            cells[L.CARDS : L.CARDS + len(k.scout_cards)] = k.scout_cards
            cells[L.PLACED : L.PLACED + len(k.scout_placed)] = k.scout_placed
        cells[L.CARDS_LEN], cells[L.PLACED_LEN] = k.scout_sizes
    if len(cells) != L.ROW:
        raise ValueError("a list of the knowledge is longer than the row has room for")
    return np.array(cells, dtype=np.int32)


def plan_worlds(k: Knowledge) -> WorldPlan:
    """Read a seat's knowledge into the arrays the compiled sampler draws worlds from.

    Raises:
        ValueError: the knowledge admits no world (it was not read off a valid position).
    """
    n, viewer = k.num_players, k.viewer
    unknown = unknown_counts(k)
    if min(unknown) < 0:
        raise ValueError("the knowledge places more cards of a kind than the game has")
    top = k.known_top()
    hidden = k.deck_size - len(top)
    # sample_world: Letters and the other Events never sit in a hand; they go to the hidden deck.
    letters = _expand(unknown, [int(x) for x in LETTERS])
    events = _expand(unknown, _OTHER_EVENTS)
    for kind in _EVENT_SET:
        unknown[kind] = 0
    if len(letters) > hidden:
        raise ValueError("more Letters are unknown than the hidden deck holds")
    letter_cells, letter_cumulative = _letter_choices(k, hidden, len(letters))
    if letter_cumulative.size and letter_cells.shape[1] != len(letters):
        raise ValueError("a way of the Letter posterior does not place every hidden Letter")
    free_deck = hidden - len(letters)
    room = [0 if seat == viewer else k.hand_sizes[seat] for seat in range(n)]

    # _place_answers: the answer cards split between the constrained seats, the other hands and the deck,
    # each split weighing the number of full arrangements it allows (answer_splits, shared with the reference).
    demands = {seat: need for seat, need in window_demands(k).items() if seat != viewer}
    answers: list[int] = []
    split_weights: list[int] = []
    splits: list[tuple[int, ...]] = []
    seats: list[int] = []
    others: list[int] = []
    if demands:
        kinds = tuple(int(x) for x in _answer_kinds(k))
        answers = _expand(unknown, kinds)
        for kind in kinds:
            unknown[kind] = 0
        seats, others, options = answer_splits(demands, room, free_deck, len(events), len(answers))
        split_weights = [weight for weight, _ in options]
        splits = [split for _, split in options]
        if not splits:
            raise ValueError("no world gives every asked seat an answer card")
    rest = _expand(unknown, range(NUM_KINDS))
    if len(rest) + len(answers) + len(events) != free_deck + sum(room):
        raise ValueError("the unknown cards do not fill the hidden deck and the other hands")

    own_scout = k.scout_cards is not None
    header = np.zeros(_HEADER, dtype=np.int64)
    header[H_VIEWER], header[H_PLAYERS], header[H_HIDDEN] = viewer, n, hidden
    header[H_SCOUT] = int(k.step is Step.SCOUT and not own_scout)
    header[H_SCOUT_CARDS] = sum(k.scout_sizes)
    return WorldPlan(
        header=header,
        template=_template(k, hidden, top[::-1]),
        letters=_int32(letters),
        letter_cells=letter_cells,
        letter_cumulative=letter_cumulative,
        events=_int32(events),
        answers=_int32(answers),
        split_weights=_scaled(split_weights),
        split_counts=np.array(splits, dtype=np.int32).reshape(len(splits), len(seats) + 2),
        demand_seats=_int32(seats),
        other_seats=_int32(others),
        rest=_int32(rest),
        room=_int32(room),
        hidden_marks=_int32([int(m is None) for m in k.marks] if k.step is Step.KEEP else []),
    )


# --- the compiled sampler ---------------------------------------------------------------------------------------

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_UNIT = 2.0**-53
"""A 53-bit draw times this is a uniform float in [0, 1), as :meth:`random.Random.random` gives."""


@nb.njit(cache=True, inline="always")
def _splitmix(x: np.uint64) -> np.uint64:
    """SplitMix64's finalizer after one increment: a bijection of 64-bit words that mixes every bit."""
    z = x + _GOLDEN
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


@nb.njit(cache=True)
def world_seed(seed: np.uint64, world: int, stream: int) -> np.uint64:
    """The generator seed of world ``world``'s ``stream`` (sampler or future) for a call's ``seed``.

    Hashing ``(seed, world, stream)`` gives a world the same draws whatever the batch size, and keeps a
    world's future independent of the draws that built it.
    """
    return _splitmix(_splitmix(_splitmix(seed) ^ _U64(stream)) + _U64(world))


@nb.njit(cache=True)
def _seed_future(rng: np.ndarray, seed: np.uint64, world: int) -> None:
    """Seed world ``world``'s own future generator for a call's ``seed``."""
    seed_pcg64(rng, world_seed(seed, world, _WORLD_STREAM))


@nb.njit(cache=True)
def seed_futures(seed: np.uint64, rngs: np.ndarray) -> None:
    """Seed ``rngs[w]`` with the future generator :func:`sample_rows` gives world ``w`` for ``seed``.

    For worlds built another way (the true position, or hands drawn by a belief) that must play the futures
    the sampled worlds of the same seed play.
    """
    for w in range(rngs.shape[0]):
        _seed_future(rngs[w], seed, w)


@nb.njit(cache=True)
def _below(rng: np.ndarray, bound: int) -> int:
    """A uniform int in ``[0, bound)``, for bounds up to 2**62 (masked rejection on 64-bit draws)."""
    if bound <= 1:
        return 0
    if bound <= 0xFFFFFFFF:
        return random_interval(rng, bound - 1)
    top = _U64(bound - 1)
    mask = covering_mask(top)
    value = next_uint64(rng) & mask
    while value > top:
        value = next_uint64(rng) & mask
    return np.int64(value)


@nb.njit(cache=True)
def _weighted(rng: np.ndarray, weights: np.ndarray) -> int:
    """An index drawn with probability proportional to its weight (``determinize._weighted``)."""
    total = np.int64(0)
    for w in weights:
        total += w
    pick = _below(rng, total)
    for i in range(weights.size):
        if pick < weights[i]:
            return i
        pick -= weights[i]
    return weights.size - 1


@nb.njit(cache=True)
def _shuffle(rng: np.ndarray, values: np.ndarray, length: int) -> None:
    """Fisher-Yates over ``values[:length]``: every order alike."""
    for i in range(length - 1, 0, -1):
        j = random_interval(rng, i)
        values[i], values[j] = values[j], values[i]


@nb.njit(cache=True)
def can_answer(row: np.ndarray, step: int, seat: int) -> bool:
    """Whether ``seat``'s hand in this world lets it answer the open window (KEEP: choose among two or more)."""
    if step == T.S_CANCEL:
        return _can_cancel(row, seat, row[L.PLAY_AS])
    if step == T.S_FLOP:
        return _can_flop(row, seat)
    if step == T.S_CURE:
        return _can_cure(row, seat)
    return hand_size(row, seat) >= 2


@nb.njit(cache=True)
def rebuild_queue(row: np.ndarray, n: int) -> None:
    """The seats after the asked one that this world's hands let answer, in order (the engine's answer_queue)."""
    step = row[L.STEP]
    count = 0
    if step == T.S_CANCEL or step == T.S_FLOP or step == T.S_CURE or step == T.S_KEEP:
        by, actor = row[L.BY], row[L.ACTOR]
        for i in range((actor - by) % n + 1, n):
            seat = (by + i) % n
            if can_answer(row, step, seat):
                row[L.QUEUE + count] = seat
                count += 1
    row[L.QUEUE_LEN] = count


@nb.njit(cache=True)
def _place_letters(
    rng: np.ndarray,
    row: np.ndarray,
    hidden: int,
    letters: np.ndarray,
    letter_cells: np.ndarray,
    letter_cumulative: np.ndarray,
    slots: np.ndarray,
    order: np.ndarray,
) -> None:
    """``letter_slots``: where the hidden Letters lie (among the deck cells below ``hidden``), then which lies where."""
    n_letters = letters.size
    if n_letters == 0:
        return
    if letter_cumulative.size:
        # letter_slots: one way of the posterior by its probability, from a uniform float as the reference draws.
        pick = np.float64(next_uint64(rng) >> _U64(11)) * _UNIT * letter_cumulative[-1]
        way = min(np.searchsorted(letter_cumulative, pick, side="right"), letter_cumulative.size - 1)
        for j in range(n_letters):
            slots[j] = letter_cells[way, j]
    else:
        # Uniform: distinct cells one after another, each uniform over those not yet taken.
        for j in range(n_letters):
            taken = True
            while taken:
                slots[j] = _below(rng, hidden)
                taken = False
                for i in range(j):
                    taken = taken or slots[i] == slots[j]
    for j in range(n_letters):
        order[j] = letters[j]
    _shuffle(rng, order, n_letters)
    for j in range(n_letters):
        row[L.DECK + slots[j]] = order[j]


@nb.njit(cache=True)
def _deal_into_free_cells(rng: np.ndarray, row: np.ndarray, hidden: int, pile: np.ndarray, size: int) -> None:
    """``pile[:size]`` shuffled into the hidden deck cells still free (-1), bottom first."""
    _shuffle(rng, pile, size)
    at = 0
    for i in range(hidden):
        if row[L.DECK + i] < 0:
            row[L.DECK + i] = pile[at]
            at += 1


@nb.njit(cache=True)
def _sample_kernel(
    header: np.ndarray,
    template: np.ndarray,
    letters: np.ndarray,
    letter_cells: np.ndarray,
    letter_cumulative: np.ndarray,
    events: np.ndarray,
    answers: np.ndarray,
    split_weights: np.ndarray,
    split_counts: np.ndarray,
    demand_seats: np.ndarray,
    other_seats: np.ndarray,
    rest: np.ndarray,
    room: np.ndarray,
    hidden_marks: np.ndarray,
    seed: np.uint64,
    rows: np.ndarray,
    rngs: np.ndarray,
) -> None:
    """Write one world per row of ``rows`` (and its generator into ``rngs``): the plan's cards redistributed."""
    viewer, n, hidden = header[H_VIEWER], header[H_PLAYERS], header[H_HIDDEN]
    deck_len = template[L.DECK_LEN]
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    pile = np.zeros(L.DECK_ROOM, dtype=np.int32)
    dealt = np.zeros(rest.size, dtype=np.int32)
    ans = np.zeros(answers.size, dtype=np.int32)
    slots = np.zeros(3, dtype=np.int64)
    order = np.zeros(3, dtype=np.int32)
    owners = np.zeros(L.DECK_ROOM, dtype=np.int32)  # one cell per unknown hand card
    left = np.zeros(L.SEATS, dtype=np.int64)
    block = np.zeros(L.SCOUT_DEPTH, dtype=np.int32)
    n_dem = demand_seats.size
    for w in range(rows.shape[0]):
        row = rows[w]
        row[:] = template
        seed_pcg64(rng, world_seed(seed, w, _SAMPLER_STREAM))
        for i in range(hidden):
            row[L.DECK + i] = -1  # a cell still to fill from the pile
        for s in range(n):
            left[s] = room[s]

        _place_letters(rng, row, hidden, letters, letter_cells, letter_cumulative, slots, order)

        # _place_answers: a split by its weight, then the shuffled answers dealt by it.
        n_pile = 0
        if split_weights.size:
            split = _weighted(rng, split_weights)
            for i in range(answers.size):
                ans[i] = answers[i]
            _shuffle(rng, ans, answers.size)
            at = 0
            for j in range(n_dem):
                seat = demand_seats[j]
                for _ in range(split_counts[split, j]):
                    row[L.HANDS + seat * L.KINDS + ans[at]] += 1
                    left[seat] -= 1
                    at += 1
            # The other hands' share goes to distinct hand slots, each set of slots alike.
            n_slots = 0
            for seat in other_seats:
                for _ in range(room[seat]):
                    owners[n_slots] = seat
                    n_slots += 1
            for i in range(split_counts[split, n_dem]):
                j = i + random_interval(rng, n_slots - 1 - i)
                owners[i], owners[j] = owners[j], owners[i]
                row[L.HANDS + owners[i] * L.KINDS + ans[at]] += 1
                left[owners[i]] -= 1
                at += 1
            while at < answers.size:
                pile[n_pile] = ans[at]
                n_pile += 1
                at += 1

        # sample_world: the other cards shuffled and dealt to the hands in seat order; what is left, the
        # window's deck share and the Events shuffled into the hidden deck's free cells.
        for i in range(rest.size):
            dealt[i] = rest[i]
        _shuffle(rng, dealt, rest.size)
        at = 0
        for seat in range(n):
            for _ in range(left[seat]):
                row[L.HANDS + seat * L.KINDS + dealt[at]] += 1
                at += 1
        while at < rest.size:
            pile[n_pile] = dealt[at]
            n_pile += 1
            at += 1
        for i in range(events.size):
            pile[n_pile] = events[i]
            n_pile += 1
        _deal_into_free_cells(rng, row, hidden, pile, n_pile)

        # What the other seats' Scouts know is read off this world, as sample_world does.
        for s in range(n):
            if s == viewer:
                continue
            for i in range(row[L.SEEN_TOP_LEN + s]):
                row[L.SEEN_TOP + s * L.SCOUT_DEPTH + i] = row[L.DECK + deck_len - 1 - i]
            seen = row[L.SEEN_SEAT + s]
            if seen >= 0:
                for kind in range(L.KINDS):
                    row[L.SEEN_HAND + s * L.KINDS + kind] = row[L.HANDS + seen * L.KINDS + kind]

        rebuild_queue(row, n)
        # _pending: another seat's hidden keep is one of its cards, each card alike.
        for s in range(hidden_marks.size):
            if hidden_marks[s]:
                size = 0
                for kind in range(L.KINDS):
                    size += row[L.HANDS + s * L.KINDS + kind]
                pick = _below(rng, size)
                for kind in range(L.KINDS):
                    pick -= row[L.HANDS + s * L.KINDS + kind]
                    if pick < 0:
                        row[L.MARKS + s] = kind
                        break
        # _pending: another seat's open Scout saw the deck's top cards, in an order the viewer never saw.
        if header[H_SCOUT]:
            size = header[H_SCOUT_CARDS]
            for i in range(size):
                block[i] = row[L.DECK + deck_len - 1 - i]
            _shuffle(rng, block, size)
            placed = row[L.PLACED_LEN]
            for i in range(placed):
                row[L.PLACED + i] = block[i]
            for i in range(size - placed):
                row[L.CARDS + i] = block[placed + i]

        _seed_future(rngs[w], seed, w)


def sample_rows(k: Knowledge | WorldPlan, seed: int, rows: np.ndarray, rngs: np.ndarray) -> None:
    """Write ``len(rows)`` worlds drawn from one seat's knowledge into game rows, in one compiled call.

    World ``w`` is a full position the seat cannot tell from the real one, drawn from the same distribution
    as :func:`gubs_env.engine.positions.determinize.sample_world`, with its own generator (``rngs[w]``) seeded fresh.
    Both depend on ``(k, seed, w)`` alone: the same seed gives the same worlds, and world ``w`` is the same
    whatever the number of rows.

    Args:
        k: the seat's knowledge, or its :func:`plan_worlds` (to draw several batches from one read).
        seed: an int in ``[0, 2**64)``.
        rows: int32 ``(W, layout.ROW)``, C-contiguous: overwritten with the worlds.
        rngs: uint64 ``(W, 6)``, C-contiguous: overwritten with each world's generator.

    Raises:
        ValueError: a bad seed or array, or knowledge that admits no world.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 1 << 64:
        raise ValueError(f"seed must be an int in [0, 2**64), not {seed!r}")
    if rows.ndim != 2 or rows.shape[1] != L.ROW or rows.dtype != np.int32 or not rows.flags.c_contiguous:
        raise ValueError(f"rows must be a C-contiguous int32 array of shape (W, {L.ROW})")
    if rngs.shape != (rows.shape[0], RNG_WORDS) or rngs.dtype != np.uint64 or not rngs.flags.c_contiguous:
        raise ValueError(f"rngs must be a C-contiguous uint64 array of shape ({rows.shape[0]}, {RNG_WORDS})")
    p = k if isinstance(k, WorldPlan) else plan_worlds(k)
    _sample_kernel(
        p.header,
        p.template,
        p.letters,
        p.letter_cells,
        p.letter_cumulative,
        p.events,
        p.answers,
        p.split_weights,
        p.split_counts,
        p.demand_seats,
        p.other_seats,
        p.rest,
        p.room,
        p.hidden_marks,
        np.uint64(seed),
        rows,
        rngs,
    )


def redeal_rows(st: GameState, viewer: int, seed: int, rows: np.ndarray, rngs: np.ndarray) -> None:
    """Write ``len(rows)`` copies of ``st``, the deck dealt anew: row ``w`` is ``redeal_deck(st, viewer, seed + w)``.

    The hands-seeing worlds (measurement only; see
    :func:`~gubs_env.engine.positions.determinize.redeal_deck`), written straight into the rows: the position is
    converted once, and each world rewrites its deck and the other seats' Scout knowledge of the deck top. The
    generators are the futures :func:`sample_rows` gives the same seed (:func:`seed_futures`).
    """
    state_to_row(st, rows[0], rngs[0])
    rows[1:] = rows[0]
    redeal = DeckRedeal(st, viewer)
    scouted = [(seat, len(seen)) for seat, seen in enumerate(st.seen_top) if seat != viewer and seen]
    for w in range(rows.shape[0]):
        deck = redeal.deck(seed + w)
        rows[w, L.DECK : L.DECK + len(deck)] = deck
        for seat, size in scouted:
            start = L.SEEN_TOP + seat * L.SCOUT_DEPTH
            rows[w, start : start + size] = deck[: -size - 1 : -1]
    seed_futures(np.uint64(seed), rngs)


# --- the deck alone dealt anew: the table's knowledge kept ---------------------------------------------------------


def redeal_deck_rows(row: np.ndarray, known: int, seed: int, rows: np.ndarray, rngs: np.ndarray) -> None:
    """Write ``len(rows)`` copies of game row ``row`` whose deck is dealt anew below its top ``known`` cards.

    :meth:`~gubs_env.engine.positions.determinize.DeckRedeal.deck`'s distribution in one compiled call (the Letters
    by their posterior given the row's deck history since the deal, every other hidden card at a uniform free cell):
    every hand, side, pile and the deck top some seat knows stay. For measurement, as :func:`redeal_rows`: the
    luck-adjusted evaluation's worlds (:mod:`agents.evaluate.luck`). World ``w`` depends on ``(row, known, seed, w)``
    only; each gets a fresh future.

    Args:
        row: the position's int32 game row.
        known: how many cards on top of the deck stay (the deepest Scout knowledge of any seat).
        seed: an int in ``[0, 2**64)``.
        rows: int32 ``(W, layout.ROW)``, C-contiguous: overwritten with the worlds.
        rngs: uint64 ``(W, 6)``, C-contiguous: overwritten with each world's generator.
    """
    hidden = int(row[L.DECK_LEN]) - known
    cells, cumulative = _NO_WAYS
    missing, first, second, third = _letter_cells(row, hidden)
    if missing and LETTER_PLACEMENTS[int(row[L.UNIFORM])] == "thirds":
        known_letters = tuple(int(cell) for cell in (first, second, third) if cell >= 0)
        cells, cumulative = letter_ways(
            int(row[L.NUM_PLAYERS]), int(row[L.DECK_LEN]), hidden, known_letters, int(missing), row_history(row)
        )
    _redeal_kernel(row, hidden, cells, cumulative, np.uint64(seed), rows, rngs)


@nb.njit(cache=True)
def _letter_cells(row: np.ndarray, hidden: int) -> tuple[int, int, int, int]:
    """The Letters in the hidden cells, and the cells (from the bottom) of up to three known ones (-1: none)."""
    missing = 0
    known = np.full(3, -1, dtype=np.int64)
    at = 0
    for i in range(row[L.DECK_LEN]):
        if T.IS_LETTER[row[L.DECK + i]]:
            if i < hidden:
                missing += 1
            elif at < 3:
                known[at] = i
                at += 1
    return missing, known[0], known[1], known[2]


@nb.njit(cache=True)
def _redeal_kernel(
    template: np.ndarray,
    hidden: int,
    letter_cells: np.ndarray,
    letter_cumulative: np.ndarray,
    seed: np.uint64,
    rows: np.ndarray,
    rngs: np.ndarray,
) -> None:
    """Each row: ``template`` with its hidden deck cells dealt anew (``DeckRedeal.deck``), and a fresh future."""
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    slots = np.zeros(3, dtype=np.int64)
    letters = np.zeros(3, dtype=np.int32)
    order = np.zeros(3, dtype=np.int32)
    others = np.zeros(L.DECK_ROOM, dtype=np.int32)
    pile = np.zeros(L.DECK_ROOM, dtype=np.int32)
    n, deck_len = template[L.NUM_PLAYERS], template[L.DECK_LEN]
    n_letters = n_others = 0
    for i in range(hidden):  # the hidden cards, the Letters apart (they follow the placement prior)
        kind = template[L.DECK + i]
        if T.IS_LETTER[kind]:
            letters[n_letters] = kind
            n_letters += 1
        else:
            others[n_others] = kind
            n_others += 1
    for w in range(rows.shape[0]):
        row = rows[w]
        row[:] = template
        seed_pcg64(rng, world_seed(seed, w, _SAMPLER_STREAM))
        for i in range(hidden):
            row[L.DECK + i] = -1
        _place_letters(rng, row, hidden, letters[:n_letters], letter_cells, letter_cumulative, slots, order)
        pile[:n_others] = others[:n_others]
        _deal_into_free_cells(rng, row, hidden, pile, n_others)
        for s in range(n):  # a Scout's knowledge is the world's deck top (unchanged where ``known`` covers it)
            for i in range(row[L.SEEN_TOP_LEN + s]):
                row[L.SEEN_TOP + s * L.SCOUT_DEPTH + i] = row[L.DECK + deck_len - 1 - i]
        _seed_future(rngs[w], seed, w)


def new_rows(worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty ``(rows, rngs)`` arrays for ``worlds`` worlds, in the shapes :func:`sample_rows` fills."""
    return np.zeros((worlds, L.ROW), dtype=np.int32), np.zeros((worlds, RNG_WORDS), dtype=np.uint64)
