"""Determinization: what one seat knows, and full games drawn at random from that knowledge.

:func:`knowledge` reads off a :class:`Knowledge` record: everything one seat may see in a state
(its own hand, the public zones, hand and deck sizes, what its Scout showed, the pending decision as
that seat sees it). :meth:`Knowledge.key` writes it as a canonical string (the information state),
and :func:`sample_world` draws a complete :class:`~gubs_env.engine.state.GameState` from the record
and a seed alone, so a sampled world can hold nothing the seat does not know.

Unknown cards are spread uniformly over the arrangements the record allows; the Letters still in
the deck follow the deal's placement prior (R2) given how far the deck has been drawn. What is and is
not conditioned on is set out in docs/engine.md ("Determinization").
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from math import comb
from typing import TypeVar

import numpy as np

from gubs_env.engine.actions import BLINDFOLDABLE, Action
from gubs_env.engine.cards import COPIES, EVENTS, LETTERS, NUM_KINDS, Kind
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions.serialize import SCOUT_DEPTH, action_to_dict
from gubs_env.engine.rules import cancel_answers, cure_answers, flop_answers
from gubs_env.engine.setup import CARDS_DEALT
from gubs_env.engine.state import GameState, Pending, Side, Step

KEY_VERSION = 1
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
    """What seat ``viewer`` may know in ``st`` (the only input of :func:`sample_world`)."""
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
    them by their placement prior given how far the deck has been drawn (as :func:`sample_world` places them) and
    the other cards uniformly. :func:`redeal_deck` makes a whole world of one deal.
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

    def deck(self, seed: int) -> list[int]:
        """One deal of the deck, bottom first, decided by ``seed`` alone."""
        rnd = random.Random(seed)
        slots = letter_slots(
            self.placement, self.num_players, self.size, self.hidden, self.known_letters, len(self.letters), rnd
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


# --- the Letter placement prior ------------------------------------------------------------------


def thirds_ranges(num_players: int) -> list[range]:
    """Where the deal put each third's Letter, as deck indices counted from the bottom (R2).

    :func:`gubs_env.engine.setup.new_state` shuffles ``L = 67 - n`` other cards, cuts them at
    ``round(L * i / 3)`` and inserts one Letter at a uniform slot of each part. Third ``t``'s Letter
    therefore lies uniformly in ``bound[t] + t .. bound[t + 1] + t``, and the three ranges tile the
    ``70 - n`` cards of the dealt deck.
    """
    rest = sum(COPIES) - len(LETTERS) - num_players
    bounds = [round(rest * i / 3) for i in range(4)]
    return [range(bounds[t] + t, bounds[t + 1] + t + 1) for t in range(3)]


def letter_slots(
    placement: str,
    num_players: int,
    deck_size: int,
    hidden: int,
    known_letters: list[int],
    missing: int,
    rnd: random.Random,
) -> list[int]:
    """Deck indices (from the bottom) for the Letters still in the deck whose place the viewer does not know.

    Args:
        placement: the ``letter_placement`` option.
        num_players: seats at the table (it fixes the dealt deck's size).
        deck_size: cards in the deck now.
        hidden: the bottom ``hidden`` cards are the ones the viewer does not know; the rest, above
            them, it knows.
        known_letters: indices of the known cards that are Letters.
        missing: Letters in the deck among the hidden cards.
        rnd: the sampler's generator.

    Returns:
        ``missing`` distinct indices below ``hidden``, drawn from the exact posterior of the
        placement prior and the deal under the model of docs/engine.md ("Determinization"); the
        uniform posterior where that model can't explain the position.
    """
    if missing == 0:
        return []
    if placement == "thirds":
        slots = _thirds_slots(num_players, deck_size, hidden, known_letters, missing, rnd)
        if slots is not None:
            return slots
    return rnd.sample(range(hidden), missing)


def _thirds_slots(
    num_players: int, deck_size: int, hidden: int, known_letters: list[int], missing: int, rnd: random.Random
) -> list[int] | None:
    """The thirds posterior; ``None`` when no choice of the three thirds fits the position.

    One way of :func:`thirds_ways` by its weight, then each slot Letter uniformly in its cells and the
    Letters put back at distinct uniform hidden places not taken.
    """
    ways = thirds_ways(num_players, deck_size, hidden, known_letters, missing)
    if ways is None:
        return None
    cells, loose = _weighted(rnd, [(weight, (cells, loose)) for weight, cells, loose in ways])
    slots = [rnd.randrange(span.start, span.stop) for span in cells if span is not None]
    taken = set(slots)
    return slots + rnd.sample([x for x in range(hidden) if x not in taken], loose)


def thirds_ways(
    num_players: int, deck_size: int, hidden: int, known_letters: list[int], missing: int
) -> list[tuple[float, tuple[range | None, ...], int]] | None:
    """The thirds posterior as weighted ways; ``None`` when no choice of the three thirds fits the position.

    Each third's Letter either kept its slot (the deal did not reach it) or was dealt and put back
    at a uniform place of the deck (P5). A kept Letter is now drawn (its slot is above the deck),
    known (the viewer knows the card there) or hidden in its slot; one put back is drawn, known, or
    hidden anywhere, each of the ``after_deal`` places alike. The thirds are independent a priori;
    the Letters put back must not share a place with each other or with a kept one.

    Returns:
        Per way (a choice for each third that fits the position): its weight (prior probability times
        the distinct places it leaves the Letters put back), per third the cells its Letter lies in
        uniformly when it is hidden in its slot (``None`` otherwise), and how many hidden Letters were
        put back (each at a distinct uniform hidden place no slot Letter takes).
    """
    ranges = thirds_ranges(num_players)
    after_deal = ranges[-1].stop - CARDS_DEALT * num_players
    if deck_size > after_deal:  # cards were put back since the deal: no longer a cut of the dealt deck
        return None
    per_third: list[list[tuple[float, str, int]]] = []
    for span in ranges:
        kept = range(span.start, min(span.stop, after_deal))
        options = [(1.0, "known", x) for x in known_letters if x in kept]
        drawn = max(0, kept.stop - max(kept.start, deck_size))
        below = max(0, min(kept.stop, hidden) - kept.start)
        options += [(float(w), tag, -1) for w, tag in ((drawn, "drawn"), (below, "slot")) if w]
        dealt = len(span) - len(kept)
        if dealt > 0:
            share = dealt / after_deal
            options += [(share, "known", x) for x in known_letters]
            options += [(share * w, tag, -1) for w, tag in ((after_deal - deck_size, "drawn"), (1, "loose")) if w]
        per_third.append(options)
    ways: list[tuple[float, tuple[range | None, ...], int]] = []
    for combo in product(*per_third):
        tags = [tag for _, tag, _ in combo]
        if sorted(x for _, tag, x in combo if tag == "known") != sorted(known_letters):
            continue
        if tags.count("slot") + tags.count("loose") != missing:
            continue
        weight = float(_fall(hidden - tags.count("slot"), tags.count("loose")))
        for w, _, _ in combo:
            weight *= w
        if weight > 0:
            cells = tuple(
                range(span.start, min(span.stop, hidden, after_deal)) if tag == "slot" else None
                for span, tag in zip(ranges, tags, strict=True)
            )
            ways.append((weight, cells, tags.count("loose")))
    return ways or None


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
    slots = letter_slots(k.options.letter_placement, n, k.deck_size, hidden, known_letters, len(letters), rnd)
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
