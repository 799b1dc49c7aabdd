"""Determinization: what one seat knows, and full games drawn at random from that knowledge.

:func:`knowledge` reads off a :class:`Knowledge` record: everything one seat may see in a state
(its own hand, the public zones, hand and deck sizes, what its Scout showed, the pending decision as
that seat sees it). :meth:`Knowledge.key` writes it as a canonical string (the information state),
and :func:`sample_world` draws a complete :class:`~gubs_env.engine.state.GameState` from the record
and a seed alone, so a sampled world can hold nothing the seat does not know.

Unknown cards are spread uniformly over the arrangements the record allows; the Letters still in
the deck follow their exact posterior given the deal's placement (R2) and the deck's public history since the deal
(``GameState.deck_history``). What is and is not conditioned on is set out in docs/engine.md ("Determinization").
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from math import comb
from typing import NamedTuple, TypeVar

import numpy as np

from gubs_env.engine.actions import BLINDFOLDABLE, Action
from gubs_env.engine.cards import COPIES, EVENTS, LETTERS, NUM_KINDS, Kind
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions.serialize import SCOUT_DEPTH, action_to_dict
from gubs_env.engine.rules import cancel_answers, cure_answers, flop_answers
from gubs_env.engine.setup import CARDS_DEALT
from gubs_env.engine.state import (
    LETTER_DRAWN,
    PUT_BACK,
    PUT_BACK_LETTER,
    DeckEvent,
    GameState,
    Pending,
    Side,
    Step,
)

KEY_VERSION = 2
"""Bumped whenever the information-state string changes shape."""
_WORLD_SALT = 0x6D75_6273
"""Mixed into the seed of a world's own generator, so it never equals the sampler's stream."""
_CANCEL_KINDS = (Kind.FEATHER, Kind.CRICKET_SONG)
_WINDOW_KINDS: dict[Step, tuple[Kind, ...]] = {
    Step.FLOP: (Kind.FLOP_BOAT, Kind.CRICKET_SONG),
    Step.CURE: (Kind.AGE_OLD_CURE, Kind.CRICKET_SONG),
}
_WINDOWS = frozenset({Step.CANCEL, Step.FLOP, Step.CURE})
"""The interrupt windows (docs/rules.md §5)."""
_LETTER_SET = frozenset(int(k) for k in LETTERS)
_EVENT_KINDS = tuple(sorted(int(k) for k in EVENTS))
_OTHER_EVENTS = tuple(sorted(int(k) for k in EVENTS if k not in LETTERS))


T = TypeVar("T")
W = TypeVar("W", int, float)
SideTuple = tuple[int, int, tuple[int, ...], int, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Everything seat ``viewer`` may know about a position, and nothing else.

    Attributes:
        viewer: the seat whose knowledge this is.
        num_players: seats at the table.
        options: the rule options in force.
        turn_player: whose turn it is.
        turn: the turn number.
        declined: per seat, whether it declined its previous draw.
        truncated: whether the game was stopped at the turn limit.
        hand: the viewer's hand, as counts per kind.
        hand_sizes: cards in each seat's hand.
        sides: each side as ``(free, elder, protected, spouted, rings)``.
        discard: the discard pile, as counts per kind.
        letters: the Letters laid out, in the order they were laid.
        deck_size: cards in the deck.
        seen_top: deck top the viewer's Scout showed and still holds, top first.
        seen_top_sizes: per seat, how many deck-top cards its Scout knowledge covers (public: who
            scouted the deck, and how far the deck was drawn since, is seen by the whole table).
        seen_hand: the hand the viewer's Scout last showed, as ``(seat, counts)``, or ``None``.
        seen_hand_seats: per seat, whose hand its Scout last looked at (public), or ``None``.
        step: the pending decision's kind.
        actor: who decides it.
        by: who played the card or drew the Event it is about.
        play: the card use being resolved (public: it was played face up).
        event: the drawn Event being resolved (public).
        picks: RING seats picked or RETREAT parts taken.
        marks: CURE saves (public); KEEP: the viewer's own kept kind, ``None`` for another seat's
            hidden choice, ``-1`` for a seat not asked (or never to be asked).
        scout_cards: SCOUT by the viewer: the seen cards not yet placed; else ``None``.
        scout_placed: SCOUT by the viewer: the cards placed so far, top first; else ``None``.
        scout_sizes: SCOUT: how many cards are still to place and how many were placed (public).
        deck_history: the deck's public events since the deal (:data:`DeckEvent`: each card put back at a random
            place and each Letter drawn, with the deck's size then), which the Letters' posterior follows; ``None``
            where the past is not known (``GameState.deck_history``).
    """

    viewer: int
    num_players: int
    options: RuleOptions
    turn_player: int
    turn: int
    declined: tuple[bool, ...]
    truncated: bool
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    sides: tuple[SideTuple, ...]
    discard: tuple[int, ...]
    letters: tuple[int, ...]
    deck_size: int
    seen_top: tuple[int, ...]
    seen_top_sizes: tuple[int, ...]
    seen_hand: tuple[int, tuple[int, ...]] | None
    seen_hand_seats: tuple[int | None, ...]
    step: Step
    actor: int
    by: int
    play: Action | None
    event: int | None
    picks: tuple[int, ...]
    marks: tuple[int | None, ...]
    scout_cards: tuple[int, ...] | None
    scout_placed: tuple[int, ...] | None
    scout_sizes: tuple[int, int]
    deck_history: tuple[DeckEvent, ...] | None = None

    def key(self) -> str:
        """The canonical information-state string: equal exactly when the records are equal."""
        out = {
            "v": KEY_VERSION,
            "viewer": self.viewer,
            "n": self.num_players,
            "options": [self.options.letter_placement, self.options.max_turns],
            "turn": [self.turn_player, self.turn, list(self.declined), self.truncated],
            "hand": list(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "sides": [[f, e, list(p), s, list(r)] for f, e, p, s, r in self.sides],
            "discard": list(self.discard),
            "letters": list(self.letters),
            "deck": self.deck_size,
            "seen_top": list(self.seen_top),
            "seen_top_sizes": list(self.seen_top_sizes),
            "seen_hand": None if self.seen_hand is None else [self.seen_hand[0], list(self.seen_hand[1])],
            "seen_hand_seats": list(self.seen_hand_seats),
            "pending": {
                "step": int(self.step),
                "actor": self.actor,
                "by": self.by,
                "play": None if self.play is None else action_to_dict(self.play),
                "event": self.event,
                "picks": list(self.picks),
                "marks": list(self.marks),
                "scout_cards": None if self.scout_cards is None else list(self.scout_cards),
                "scout_placed": None if self.scout_placed is None else list(self.scout_placed),
                "scout_sizes": list(self.scout_sizes),
            },
            "deck_history": None if self.deck_history is None else [list(e) for e in self.deck_history],
        }
        return json.dumps(out, sort_keys=True, separators=(",", ":"))

    def known_top(self) -> list[int]:
        """The cards the viewer can place on top of the deck, top first.

        During the viewer's own Scout the whole seen block is known as a set (its order no longer
        matters: finishing the Scout rewrites it), so it follows the viewer's older deck knowledge
        and then ascending kinds. Otherwise it is the viewer's ``seen_top``.
        """
        if self.scout_cards is None or self.scout_placed is None:
            return list(self.seen_top)
        rest = [*self.scout_placed, *self.scout_cards]
        for kind in self.seen_top:
            rest.remove(kind)
        return [*self.seen_top, *sorted(rest)]


def knowledge(st: GameState, viewer: int) -> Knowledge:
    """What seat ``viewer`` may know in ``st`` (the only input of :func:`sample_world`).

    The deck's public history since the deal is the state's (``st.deck_history``); where it is ``None`` the Letters'
    posterior takes it that no card was put back since the deal.
    """
    pend = st.pending
    own_scout = pend.step is Step.SCOUT and pend.by == viewer
    if pend.step is Step.KEEP:
        marks: tuple[int | None, ...] = tuple(
            m if seat == viewer or m < 0 else None for seat, m in enumerate(pend.marks)
        )
    else:
        marks = tuple(pend.marks)
    seen = st.seen_hand[viewer]
    return Knowledge(
        viewer=viewer,
        num_players=st.num_players,
        options=st.options,
        turn_player=st.turn_player,
        turn=st.turn,
        declined=tuple(st.declined),
        truncated=st.truncated,
        hand=tuple(st.hands[viewer]),
        hand_sizes=tuple(sum(h) for h in st.hands),
        sides=tuple((s.free, s.elder, tuple(s.protected), s.spouted, tuple(s.rings)) for s in st.sides),
        discard=tuple(st.discard),
        letters=tuple(st.letters),
        deck_size=len(st.deck),
        seen_top=tuple(st.seen_top[viewer]),
        seen_top_sizes=tuple(len(top) for top in st.seen_top),
        seen_hand=None if seen is None else (seen[0], tuple(seen[1])),
        seen_hand_seats=tuple(None if s is None else s[0] for s in st.seen_hand),
        step=pend.step,
        actor=pend.actor,
        by=pend.by,
        play=pend.play,
        event=None if pend.event is None else int(pend.event),
        picks=tuple(pend.picks),
        marks=marks,
        scout_cards=tuple(pend.cards) if own_scout else None,
        scout_placed=tuple(pend.placed) if own_scout else None,
        scout_sizes=(len(pend.cards), len(pend.placed)),
        deck_history=None if st.deck_history is None else tuple(st.deck_history),
    )


def information_state(st: GameState, viewer: int) -> str:
    """The information-state string of seat ``viewer`` in ``st`` (see :meth:`Knowledge.key`)."""
    return knowledge(st, viewer).key()


def resample(st: GameState, viewer: int, seed: int | None = None) -> GameState:
    """A full state seat ``viewer`` cannot tell from ``st``, drawn from its knowledge and ``seed`` alone."""
    return sample_world(knowledge(st, viewer), seed)


class DeckRedeal:
    """The deck of one position dealt anew, as often as asked: what stays the same between the deals is read once.

    The deck top ``viewer`` knows (its Scout's cards) stays; the cards below it are dealt again, the Letters among
    them by their posterior (:func:`letter_posterior`, given the state's deck history since the deal), the other
    cards uniformly. :func:`redeal_deck` makes a whole world of one deal.
    """

    def __init__(self, st: GameState, viewer: int) -> None:
        self.num_players = st.num_players
        self.placement = st.options.letter_placement
        self.size = len(st.deck)
        self.hidden = self.size - len(knowledge(st, viewer).known_top())
        self.top_bottom_first = st.deck[self.hidden :]
        self.known_letters = [self.hidden + i for i, kind in enumerate(self.top_bottom_first) if kind in _LETTER_SET]
        self.letters = [kind for kind in st.deck[: self.hidden] if kind in _LETTER_SET]
        self.others = [kind for kind in st.deck[: self.hidden] if kind not in _LETTER_SET]
        self.history = None if st.deck_history is None else tuple(st.deck_history)

    def deck(self, seed: int) -> list[int]:
        """One deal of the deck, bottom first, decided by ``seed`` alone."""
        rnd = random.Random(seed)
        slots = letter_slots(
            self.placement,
            self.num_players,
            self.size,
            self.hidden,
            self.known_letters,
            len(self.letters),
            rnd,
            history=self.history,
        )
        letters, others = self.letters[:], self.others[:]
        rnd.shuffle(letters)
        rnd.shuffle(others)
        deck: list[int | None] = [None] * self.hidden
        for slot, letter in zip(slots, letters, strict=True):
            deck[slot] = letter
        rest = iter(others)
        return [next(rest) if kind is None else kind for kind in deck] + self.top_bottom_first


def redeal_deck(st: GameState, viewer: int, seed: int | None = None) -> GameState:
    """``st`` with only the deck dealt anew: what a seat that saw every hand, but not the deck, cannot tell apart.

    Every hand, side and pile stays as it is, and so does the deck top ``viewer`` knows; the rest of the deck is
    dealt again (:class:`DeckRedeal`). Another seat's Scout knowledge of the deck top follows the new deck (in that
    world it saw those cards). The world's generator is seeded from ``seed``, as a sampled world's is.

    No player can know this much: it is for measurement only, the worlds of the hands-seeing search (the ceiling
    of what inferring the other hands could win) and the fair yardstick of ``agents.evaluate.search_gap`` (a
    move's gain averaged over the deck orders the true hands leave possible).
    """
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    world = st.copy()
    world.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _WORLD_SALT])))
    world.deck = DeckRedeal(st, viewer).deck(seed)
    for seat, seen in enumerate(st.seen_top):
        if seat != viewer:
            world.seen_top[seat] = world.deck[: -len(seen) - 1 : -1] if seen else []
    return world


# --- the Letter posterior ------------------------------------------------------------------------
#
# The Letters still to come are followed as their heights in the deck (cells counted from the bottom, as the deck
# list is stored), sorted from the lowest: a distribution over them is a k-dimensional array ``p`` whose cell
# ``p[h_0, ..., h_{k-1}]`` (``h_0 < ... < h_{k-1}``) is the probability of the Letters lying there, up to a common
# factor. Drawing a card other than a Letter removes the top card and moves no Letter; a card put back at a uniform
# place moves every Letter at or above that place up one cell (R15, R20). docs/engine.md ("The Letter posterior")
# gives the model and what it conditions on.

_ROOM = sum(COPIES)
"""Heights run below this: a deck never holds more cards than the game."""
_OTHER_EVENTS_COUNT = len(EVENTS) - len(LETTERS)
_MASS_LEFT = 1e-15
"""The deal's loop over Events drawn and put back stops once this share of the probability is left in it."""


def thirds_ranges(num_players: int) -> list[range]:
    """Where the set-up put each third's Letter, as deck cells counted from the bottom (R2).

    :func:`gubs_env.engine.setup.new_state` shuffles ``L = 67 - n`` other cards, cuts them at
    ``round(L * i / 3)`` and inserts one Letter at a uniform slot of each part. Third ``t``'s Letter
    therefore lies uniformly in ``bound[t] + t .. bound[t + 1] + t``, and the three ranges tile the
    ``70 - n`` cards of the deck before the deal.
    """
    rest = sum(COPIES) - len(LETTERS) - num_players
    bounds = [round(rest * i / 3) for i in range(4)]
    return [range(bounds[t] + t, bounds[t + 1] + t + 1) for t in range(3)]


def placement_prior(placement: str, num_players: int, room: int = _ROOM) -> np.ndarray:
    """The Letters' heights right after the set-up placed them, before the deal (R2), as a 3-d array summing to 1."""
    p = np.zeros((room,) * 3)
    if placement == "thirds":
        first, second, third = thirds_ranges(num_players)
        p[first.start : first.stop, second.start : second.stop, third.start : third.stop] = 1.0
    else:  # three distinct uniform places of the 70 - n cards, each set alike
        p[_increasing(3, room)] = 1.0
        p[..., sum(COPIES) - num_players :] = 0.0
    return p / p.sum()


@functools.lru_cache(maxsize=512)
def _heights(k: int, room: int) -> tuple[np.ndarray, ...]:
    """Per axis of a k-d array of side ``room``, the height each cell stands for (read-only, broadcastable)."""
    grids = np.ogrid[tuple(slice(0, room) for _ in range(k))]
    for grid in grids:
        grid.setflags(write=False)
    return tuple(grids)


@functools.lru_cache(maxsize=256)
def _increasing(k: int, room: int) -> np.ndarray:
    """The cells of a k-d array of side ``room`` whose heights rise strictly (the only places Letters can be)."""
    mask = np.ones((room,) * k, dtype=bool)
    h = _heights(k, room)
    for lower, upper in itertools.pairwise(h):
        mask &= lower < upper
    mask.setflags(write=False)
    return mask


def _shifted(p: np.ndarray, first: int) -> np.ndarray:
    """``p`` with the Letters from the ``first``-lowest up moved one cell up (nothing falls off: the top is empty)."""
    out = np.zeros_like(p)
    out[_moved(p.ndim, first)] = p[_moved_from(p.ndim, first)]
    return out


def _moved(k: int, first: int) -> tuple[slice, ...]:
    """The cells of a k-d array that the Letters from the ``first``-lowest up reach when they move one cell up."""
    return (slice(None),) * first + (slice(1, None),) * (k - first)


def _moved_from(k: int, first: int) -> tuple[slice, ...]:
    """The cells they come from."""
    return (slice(None),) * first + (slice(None, -1),) * (k - first)


def put_back(p: np.ndarray, size: int) -> np.ndarray:
    """A card other than a Letter put back at one of the ``size + 1`` places of a deck of ``size``, each alike.

    The card lands below the lowest Letter, between two Letters, or above them all, and moves the Letters above it
    one cell up. Counted in the heights after it (``h'``), the places that move the Letters from the ``j``-lowest
    up number ``h'_0`` for ``j = 0`` and ``h'_j - 1 - h'_{j-1}`` for the others; ``size - h'_{k-1}`` move none.

    Like every step here, it reads the heights below the deck's size and returns an array of side the new size.
    """
    k = p.ndim
    if k == 0:
        return p
    h = _heights(k, size + 1)
    before = np.zeros((size + 1,) * k)
    before[(slice(0, size),) * k] = p[(slice(0, size),) * k]
    after = before * np.maximum(size - h[-1], 0)
    for j in range(k):
        lower = h[j - 1] if j else -1
        places = np.broadcast_to(np.maximum(h[j] - 1 - lower, 0), before.shape)
        to = _moved(k, j)
        after[to] += places[to] * before[_moved_from(k, j)]
    return after / (size + 1)


def put_back_letter(p: np.ndarray, size: int) -> np.ndarray:
    """A Letter put back at one of the ``size + 1`` places of a deck of ``size``: one Letter more to follow.

    If it becomes the ``j``-lowest, it stands at its own height ``h'_j`` and the Letters above moved up.
    """
    k = p.ndim
    before = np.zeros((size + 1,) * k)
    before[(slice(0, size),) * k] = p[(slice(0, size),) * k]
    after = np.zeros((size + 1,) * (k + 1))
    for j in range(k + 1):
        after += np.expand_dims(_shifted(before, j), j)
    after *= _increasing(k + 1, size + 1)
    return after / (size + 1)


def draw_letter(p: np.ndarray, size: int) -> np.ndarray:
    """The top card of a deck of ``size`` is a Letter: it is the highest one, and one Letter fewer is followed."""
    return p[(slice(0, size),) * (p.ndim - 1) + (size - 1,)]


def draw_others(p: np.ndarray, size: int) -> np.ndarray:
    """Cards other than Letters drawn until the deck holds ``size``: no Letter stood at or above that height."""
    return p[(slice(0, size),) * p.ndim]


def deal(p: np.ndarray, size: int, cards: int, other_events: int = _OTHER_EVENTS_COUNT) -> np.ndarray:
    """``cards`` cards dealt from a deck of ``size`` holding every Letter; an Event drawn goes back at a uniform place.

    Every Event dealt is put back and replaced from the top (§2 step 3), so ``cards`` cards other than Events leave
    the deck. The top card, when no Letter, is one of the ``other_events`` other Events with their share of the
    cards other than Letters: the model takes them to lie at uniform places among those cards (see docs/engine.md).
    """
    p = draw_others(p, size)
    for _ in range(cards):
        share = other_events / (size - p.ndim)
        dealt = np.zeros((size - 1,) * p.ndim)
        left, total = p, p.sum()
        while left.sum() > _MASS_LEFT * total:  # Events drawn and put back, until a card that stays in the hand
            others = draw_others(left, size - 1)
            dealt += (1 - share) * others
            left = put_back_letter(draw_letter(left, size), size - 1) + share * put_back(others, size - 1)
        p, size = dealt, size - 1
    return p


@functools.lru_cache(maxsize=12)
def dealt_letters(placement: str, num_players: int) -> np.ndarray:
    """The Letters' heights right after the deal (a 3-d array summing to 1; read-only)."""
    size = sum(COPIES) - num_players
    p = deal(placement_prior(placement, num_players), size, CARDS_DEALT * num_players)
    p /= p.sum()
    p.setflags(write=False)
    return p


def rising_weights(p: np.ndarray, hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """The weight of each way the Letters of ``p`` (one axis each) can lie in the bottom ``hidden`` cells.

    Returns the weights in :func:`_rising`'s order, and their running sum.
    """
    below = np.ascontiguousarray(p[(slice(0, hidden),) * p.ndim])
    weights = below.reshape(-1)[_rising(p.ndim, hidden)[1]]
    return weights, np.cumsum(weights)


class PosteriorSteps(NamedTuple):
    """The posterior's two costliest steps, which the compiled engine swaps for its own (equal to the bit)."""

    put_back: Callable[[np.ndarray, int], np.ndarray] = put_back
    """How a card other than a Letter put back is followed (:func:`put_back`)."""
    rising_weights: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]] = rising_weights
    """The ways' weights and their running sum (:func:`rising_weights`)."""


REFERENCE_STEPS = PosteriorSteps()


def follow_history(
    p: np.ndarray,
    size: int,
    history: Sequence[DeckEvent],
    deck_size: int,
    put_back_step: Callable[[np.ndarray, int], np.ndarray] = put_back,
) -> np.ndarray | None:
    """The Letters' heights after ``history``, then cards other than Letters drawn down to ``deck_size``.

    Args:
        p: the Letters' heights in a deck of ``size``.
        size: the deck's size that ``p`` is for.
        history: the deck's events since, in order (:data:`DeckEvent`); every Letter drawn is one of them.
        deck_size: the deck's size now.
        put_back_step: what follows a card other than a Letter put back (the compiled engine passes its own).

    Returns:
        The heights now, or ``None`` where the history does not fit (a size it could not reach, a Letter drawn or put
        back that is not there to be).
    """
    for at, what in history:
        if not int(what == LETTER_DRAWN) <= at <= size:
            return None
        p, size = draw_others(p, at), at
        if what == PUT_BACK:
            p, size = put_back_step(p, size), size + 1
        elif what == PUT_BACK_LETTER and p.ndim < len(LETTERS):
            p, size = put_back_letter(p, size), size + 1
        elif what == LETTER_DRAWN and p.ndim:
            p, size = draw_letter(p, size), size - 1
        else:
            return None
    if deck_size > size:
        return None
    return draw_others(p, deck_size)


class LetterPosterior(NamedTuple):
    """Where the hidden Letters lie: each possible set of cells (rows of ``cells``, ascending) and its weight."""

    cells: np.ndarray
    """``(ways, missing)`` int32 deck cells from the bottom, read-only (a way may have probability 0)."""
    cumulative: np.ndarray
    """The running sum of the ways' probabilities (the last is 1 up to rounding), read-only."""


@functools.lru_cache(maxsize=512)
def letter_posterior(
    placement: str,
    num_players: int,
    deck_size: int,
    hidden: int,
    known_letters: tuple[int, ...],
    missing: int,
    history: tuple[DeckEvent, ...] | None = None,
    steps: PosteriorSteps | None = None,
) -> LetterPosterior | None:
    """The exact posterior of the hidden Letters' cells, given the deal, the history and what the viewer knows.

    Args:
        placement: the ``letter_placement`` option.
        num_players: seats at the table (it fixes the deck and the deal).
        deck_size: cards in the deck now.
        hidden: the bottom ``hidden`` cells are the ones the viewer does not know; it knows those above.
        known_letters: the known cells holding a Letter (every other known cell holds no Letter).
        missing: Letters among the hidden cells.
        history: the deck's events since the deal (:data:`DeckEvent`); ``None`` where it was not recorded: no card
            was put back since, and the Letters out of the deck were drawn at any time.
        steps: the steps to follow: the reference's (``None``), or the compiled engine's own.

    Returns:
        The posterior, or ``None`` where the model can't explain the position (the deck is larger than the
        history allows, or no way fits): the caller then takes the hidden Letters at uniform places.
    """
    steps = steps or REFERENCE_STEPS
    if history is None:
        p, after_deal = dealt_letters(placement, num_players), _after_deal(num_players)
        return seen_letters(
            p, after_deal, deck_size, hidden, known_letters, missing, drawn_unrecorded=True, rising=steps.rising_weights
        )
    followed = _followed(placement, num_players, history, steps.put_back)
    if followed is None:
        return None
    p, size = followed
    if deck_size > size:
        return None
    now = p[(slice(0, deck_size),) * p.ndim]  # cards other than Letters drawn since: every Letter lies lower
    return seen_letters(now, deck_size, deck_size, hidden, known_letters, missing, rising=steps.rising_weights)


def _after_deal(num_players: int) -> int:
    """Cards in the deck right after the deal (every Event dealt was put back and replaced)."""
    return sum(COPIES) - (CARDS_DEALT + 1) * num_players


@functools.lru_cache(maxsize=16)
def _followed(
    placement: str,
    num_players: int,
    history: tuple[DeckEvent, ...],
    put_back_step: Callable[[np.ndarray, int], np.ndarray],
) -> tuple[np.ndarray, int] | None:
    """The Letters' heights just after ``history``'s last event, and the deck's size then, remembered (read-only).

    Built on the history less its last event (remembered too): a game asks again after each new event, and the draws
    between events ask the same question.
    """
    if not history:
        return dealt_letters(placement, num_players), _after_deal(num_players)
    previous = _followed(placement, num_players, history[:-1], put_back_step)
    if previous is None:
        return None
    at, what = history[-1]
    size = at - 1 if what == LETTER_DRAWN else at + 1
    p = follow_history(previous[0], previous[1], history[-1:], size, put_back_step)
    if p is None:
        return None
    p.setflags(write=False)
    return p, size


def seen_letters(
    p: np.ndarray,
    size: int,
    deck_size: int,
    hidden: int,
    known_letters: tuple[int, ...],
    missing: int,
    drawn_unrecorded: bool = False,
    rising: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]] = rising_weights,
) -> LetterPosterior | None:
    """The hidden Letters' cells, from their heights ``p`` in a deck of ``size`` and what the viewer knows of it now.

    Args:
        p: the Letters' heights (one axis per Letter followed).
        size: the deck's size that ``p`` is for.
        deck_size: cards in the deck now.
        hidden: the bottom ``hidden`` cells are the ones the viewer does not know; it knows those above.
        known_letters: the known cells holding a Letter (every other known cell holds no Letter).
        missing: Letters among the hidden cells.
        drawn_unrecorded: the Letters followed beyond those in the deck were drawn since, at moments not recorded,
            with no card put back: they are the highest, at or above ``deck_size``. Otherwise every Letter followed
            is in the deck, and ``size == deck_size``.
        rising: as :class:`PosteriorSteps`'.

    Returns:
        As :func:`letter_posterior`.
    """
    if deck_size > size:
        return None
    if drawn_unrecorded:
        for _ in range(p.ndim - missing - len(known_letters)):
            p = p[..., deck_size:].sum(axis=-1)
    if p.ndim != missing + len(known_letters):
        return None
    for cell in sorted(known_letters, reverse=True):  # the known Letters are the highest: the viewer knows the top
        p = p[..., cell]
    # The others lie in the hidden cells, below the known ones, at rising heights.
    weights, running = rising(p, hidden)
    total = weights.sum()
    if not total > 0:
        return None
    cumulative = running / total
    cumulative.setflags(write=False)
    return LetterPosterior(_rising(p.ndim, hidden)[0], cumulative)


@functools.lru_cache(maxsize=256)
def _rising(k: int, room: int) -> tuple[np.ndarray, np.ndarray]:
    """Every set of k rising cells below ``room``, and their flat indices in a k-d array of side ``room``.

    The ways k Letters can lie, one row each, shared (read-only) by every posterior of that shape.
    """
    mask = _increasing(k, room)
    flat = np.flatnonzero(mask)
    cells = np.array(np.unravel_index(flat, mask.shape) if k else (), dtype=np.int32).T.reshape(len(flat), k)
    cells.setflags(write=False)
    flat.setflags(write=False)
    return cells, flat


def letter_slots(
    placement: str,
    num_players: int,
    deck_size: int,
    hidden: int,
    known_letters: list[int],
    missing: int,
    rnd: random.Random,
    history: tuple[DeckEvent, ...] | None = None,
) -> list[int]:
    """Deck cells (from the bottom) for the Letters still in the deck whose place the viewer does not know.

    Args:
        placement: the ``letter_placement`` option.
        num_players: seats at the table.
        deck_size: cards in the deck now.
        hidden: the bottom ``hidden`` cells are the ones the viewer does not know.
        known_letters: the known cells that hold a Letter.
        missing: Letters among the hidden cells.
        rnd: the sampler's generator.
        history: the deck's events since the deal, or ``None`` (:func:`letter_posterior`).

    Returns:
        ``missing`` distinct cells below ``hidden``, drawn from :func:`letter_posterior`; uniform distinct cells
        under uniform placement (the posterior is uniform there, whatever happened) and where the model can't
        explain the position.
    """
    if missing == 0:
        return []
    if placement == "thirds":
        posterior = letter_posterior(
            placement, num_players, deck_size, hidden, tuple(sorted(known_letters)), missing, history
        )
        if posterior is not None:
            way = bisect.bisect_right(posterior.cumulative, rnd.random() * posterior.cumulative[-1])
            return [int(cell) for cell in posterior.cells[min(way, len(posterior.cells) - 1)]]
    return rnd.sample(range(hidden), missing)


# --- the sampler ---------------------------------------------------------------------------------


def _fall(n: int, k: int) -> int:
    """Ordered ways to put ``k`` distinct cards into ``n`` slots."""
    if k > n:
        return 0
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _answer_kinds(k: Knowledge) -> tuple[Kind, ...]:
    """The kinds that answer the open window (none when no window is open)."""
    if k.step is Step.CANCEL:
        assert k.play is not None  # a cancel window is always about a play
        blind = (Kind.BLINDFOLD,) if k.play.as_kind in BLINDFOLDABLE else ()
        return _CANCEL_KINDS + blind
    return _WINDOW_KINDS.get(k.step, ())


def window_demands(k: Knowledge) -> dict[int, bool]:
    """Per seat the open window constrains: True must hold an answer, False must hold none.

    Only the seat being asked now is constrained (it holds an answer: the table sees it asked). The
    seats still queued are not: nobody has seen them asked yet, so the queue is rebuilt from the
    sampled hands. Seats asked earlier in the window are not either: the state does not record them.
    """
    if k.step not in _WINDOWS:
        return {}
    return {k.actor: True}


def _compositions(caps: list[int], total: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as a sum of parts ``0 <= x[i] <= caps[i]``."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    for x in range(min(total, caps[0]) + 1):
        for rest in _compositions(caps[1:], total - x):
            yield (x, *rest)


def _weighted(rnd: random.Random, items: list[tuple[W, T]]) -> T:
    """One item drawn with probability proportional to its weight (exactly so for integer weights)."""
    total = sum(w for w, _ in items)
    pick = rnd.randrange(total) if isinstance(total, int) else rnd.random() * total
    for weight, item in items:
        if pick < weight:
            return item
        pick -= weight
    return items[-1][1]  # only reached through float rounding


def _expand(counts: list[int], kinds: tuple[int, ...] | range) -> list[int]:
    return [kind for kind in kinds for _ in range(counts[kind])]


def unknown_counts(k: Knowledge) -> list[int]:
    """Cards per kind whose place the viewer does not know (other hands and the hidden deck)."""
    counts = list(COPIES)
    known: list[int] = [*k.known_top(), *k.letters]
    if k.play is not None:
        assert k.play.card is not None  # a play always names its card
        known.append(int(k.play.card))
    if k.event is not None:
        known.append(k.event)
    for kind in known:
        counts[kind] -= 1
    for kind in range(NUM_KINDS):
        counts[kind] -= k.hand[kind] + k.discard[kind]
    on_sides = [0] * NUM_KINDS
    for side_t in k.sides:
        free, elder, protected, spouted, rings = side_t
        Side(free, elder, list(protected), spouted, list(rings)).card_counts(on_sides)
    return [c - s for c, s in zip(counts, on_sides, strict=True)]


def sample_world(k: Knowledge, seed: int | None = None) -> GameState:
    """A full state drawn from the viewer's knowledge ``k`` and ``seed`` alone.

    The world's own random generator is seeded from ``seed`` (not copied from the real game), so its
    future draws say nothing about the real ones. ``seed=None`` draws fresh entropy.
    """
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    rnd = random.Random(seed)
    n, viewer = k.num_players, k.viewer
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _WORLD_SALT])))
    st = GameState(n, k.options, rng)
    st.turn_player, st.turn, st.truncated = k.turn_player, k.turn, k.truncated
    st.deck_history = None if k.deck_history is None else list(k.deck_history)
    st.declined = list(k.declined)
    st.discard = list(k.discard)
    st.letters = list(k.letters)
    st.sides = [Side(f, e, list(p), s, list(r)) for f, e, p, s, r in k.sides]

    unknown = unknown_counts(k)
    top = k.known_top()
    hidden = k.deck_size - len(top)
    # Letters and other Events never sit in a hand: they go to the hidden deck, Letters by the prior.
    letters = _expand(unknown, LETTERS)
    top_bottom_first = top[::-1]
    known_letters = [hidden + i for i, kind in enumerate(top_bottom_first) if kind in _LETTER_SET]
    slots = letter_slots(
        k.options.letter_placement, n, k.deck_size, hidden, known_letters, len(letters), rnd, history=k.deck_history
    )
    rnd.shuffle(letters)
    deck: list[int | None] = [None] * hidden
    for slot, letter in zip(slots, letters, strict=True):
        deck[slot] = letter
    events = _expand(unknown, _OTHER_EVENTS)
    for event in _EVENT_KINDS:
        unknown[event] = 0
    free_deck = hidden - len(letters)

    hands = [[0] * NUM_KINDS for _ in range(n)]
    hands[viewer] = list(k.hand)
    room = [0 if seat == viewer else k.hand_sizes[seat] for seat in range(n)]
    deck_extra = _place_answers(k, unknown, room, free_deck, len(events), hands, rnd)

    rest = _expand(unknown, range(NUM_KINDS))
    rnd.shuffle(rest)
    at = 0
    for seat in range(n):
        for card in rest[at : at + room[seat]]:
            hands[seat][card] += 1
        at += room[seat]
    pile = rest[at:] + deck_extra + events
    rnd.shuffle(pile)
    it = iter(pile)
    st.deck = [next(it) if kind is None else kind for kind in deck] + top_bottom_first
    st.hands = hands

    st.seen_top = [st.deck[: -size - 1 : -1] if size else [] for size in k.seen_top_sizes]
    st.seen_top[viewer] = list(k.seen_top)
    st.seen_hand = [None if seat is None else (seat, hands[seat][:]) for seat in k.seen_hand_seats]
    st.seen_hand[viewer] = None if k.seen_hand is None else (k.seen_hand[0], list(k.seen_hand[1]))
    st.pending = _pending(k, st, rnd)
    return st


def _place_answers(
    k: Knowledge,
    unknown: list[int],
    room: list[int],
    free_deck: int,
    events: int,
    hands: list[list[int]],
    rnd: random.Random,
) -> list[int]:
    """Deal the open window's answer cards so that every constrained seat is satisfied.

    The answer cards are split between the constrained seats, the other hands together and the deck
    with the exact weight of each split (the number of full arrangements it allows), then dealt; they
    are taken out of ``unknown`` and ``room`` is lowered by the slots they fill.

    Returns:
        The answer cards that go into the deck.
    """
    demands = {seat: need for seat, need in window_demands(k).items() if seat != k.viewer}
    if not demands:
        return []
    kinds = tuple(int(x) for x in _answer_kinds(k))
    answers = _expand(unknown, kinds)
    for kind in kinds:
        unknown[kind] = 0
    seats, others, options = answer_splits(demands, room, free_deck, events, len(answers))
    split = _weighted(rnd, options)
    rnd.shuffle(answers)
    targets = [s for s, x in zip(seats, split, strict=False) for _ in range(x)]
    targets += rnd.sample([s for s in others for _ in range(room[s])], split[-2])
    for seat, kind in zip(targets, answers, strict=False):
        hands[seat][kind] += 1
        room[seat] -= 1
    return answers[len(targets) :]


def answer_splits(
    demands: dict[int, bool], room: list[int], free_deck: int, events: int, answers: int
) -> tuple[list[int], list[int], list[tuple[int, tuple[int, ...]]]]:
    """Every split of an open window's answer cards that satisfies the constrained seats, with its weight.

    Args:
        demands: the constrained seats other than the viewer (:func:`window_demands`).
        room: per seat, the hand cards still to deal (0 for the viewer).
        free_deck: hidden deck places not taken by a Letter.
        events: the other Events, which go to those places too.
        answers: how many answer cards are to place.

    Returns:
        The constrained seats (ascending), the other seats with room, and each possible split with
        its weight (the number of full arrangements it allows, up to a factor common to all splits):
        the answers for each constrained seat, then for the other hands together, then for the deck.
    """
    seats = sorted(demands)
    others = [s for s in range(len(room)) if s not in demands and room[s]]
    pool = sum(room[s] for s in others)
    caps = [room[s] if demands[s] else 0 for s in seats] + [pool, free_deck]
    options = []
    for split in _compositions(caps, answers):
        if any(demands[s] and x == 0 for s, x in zip(seats, split, strict=False)):
            continue
        # Which slots of each zone the answers take, then where the Events go in the deck.
        weight = _fall(free_deck - split[-1], events)
        for slots, x in zip([room[s] for s in seats] + [pool, free_deck], split, strict=True):
            weight *= comb(slots, x)
        if weight:
            options.append((weight, split))
    return seats, others, options


def answer_queue(k: Knowledge, st: GameState) -> list[int]:
    """The seats after the asked one that the world's hands let answer, in order (as the engine asks)."""
    play = k.play

    def can(hand: list[int]) -> bool:
        if k.step is Step.KEEP:
            return sum(hand) >= 2  # R19: only a hand of two or more chooses
        if k.step is Step.CANCEL:
            assert play is not None  # a cancel window is always about a play
            return bool(cancel_answers(hand, play))
        return bool(flop_answers(hand) if k.step is Step.FLOP else cure_answers(hand))

    if k.step not in _WINDOWS and k.step is not Step.KEEP:
        return []
    n = k.num_players
    later = range((k.actor - k.by) % n + 1, n)
    return [seat for seat in ((k.by + i) % n for i in later) if can(st.hands[seat])]


def _pending(k: Knowledge, st: GameState, rnd: random.Random) -> Pending:
    """The pending decision of the world: public fields as known, hidden ones drawn from the world."""
    pend = Pending(k.step, k.actor, k.by, k.play, None if k.event is None else Kind(k.event))
    pend.picks = list(k.picks)
    pend.queue = answer_queue(k, st)
    marks = list(k.marks)
    for seat, mark in enumerate(marks):
        if mark is None:  # another seat's hidden keep: one of its cards, each card alike
            marks[seat] = rnd.choice(_expand(st.hands[seat], range(NUM_KINDS)))
    pend.marks = [int(m) for m in marks if m is not None]
    if k.step is Step.SCOUT:
        if k.scout_cards is not None and k.scout_placed is not None:
            pend.cards, pend.placed = list(k.scout_cards), list(k.scout_placed)
        else:
            left, placed = k.scout_sizes
            block = st.deck[-1 : -SCOUT_DEPTH - 1 : -1][: left + placed]
            rnd.shuffle(block)
            pend.placed, pend.cards = block[:placed], block[placed:]
    return pend
