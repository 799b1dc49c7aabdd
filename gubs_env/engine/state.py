"""The game state as plain data: zones as counts, the deck as a list, and the pending decision.

Nothing here knows the rules of play; :mod:`gubs_env.engine.rules` reads and changes these objects.
A side is stored as counts (docs/rules.md §4: plain Gubs are interchangeable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from gubs_env.engine.actions import Action
from gubs_env.engine.cards import BARRICADES, CARDS, NUM_KINDS, RINGS, Kind
from gubs_env.engine.options import RuleOptions

RING_SIZES: tuple[int, ...] = tuple(CARDS[r].ring_size for r in RINGS)
BARRICADE_BASE = int(BARRICADES[0])
RING_BASE = int(RINGS[0])

PUT_BACK = 0
"""A deck event: a card other than a Letter put back at a uniformly random place (R15, R20)."""
PUT_BACK_LETTER = 1
"""A deck event: a Letter put back at a uniformly random place (a flopped Letter, R20)."""
LETTER_DRAWN = 2
"""A deck event: a Letter drawn from the top (laid out, or about to be flopped)."""
DeckEvent = tuple[int, int]
"""One public event of the deck since the deal: ``(cards in the deck just before it, PUT_BACK | ...)``."""
MAX_DECK_EVENTS = 96
"""The most deck events a game can have since the deal. Each way a card goes back into the deck happens at most once
a game or once a card: Flash Flood's Free plain Gubs (at most 13), Rumor of Wasps' Toad Riders with their Gubs (8),
Gargok Plague's hands (at most 66 cards: every card but the Letters and the Plague), a flop (2: Flop Boat and
Cricket Song are each discarded once used); and at most 5 Letters are drawn (3 laid, 2 flopped). 94 in all."""


class Step(IntEnum):
    """The kind of decision the game is waiting for."""

    DRAW = 0
    """Turn player: draw or decline."""
    PLAY = 1
    """Turn player: play a card or end the turn."""
    DISCARD = 2
    """Turn player: discard down to the hand limit after ending the turn."""
    CANCEL = 3
    """Cancel window: may the asked player cancel the Hazard or Trap being played?"""
    FLOP = 4
    """Flop window: may the asked player flop the drawn Event?"""
    CURE = 5
    """Cure window: may the asked player keep their hand through Gargok Plague?"""
    KEEP = 6
    """Traveling Merchant: the asked player chooses the card to keep."""
    RING = 7
    """Ring follow-up: the player picks the next Free Gub to trap."""
    RETREAT = 8
    """Retreat follow-up: the player takes the next card, or stops."""
    SCOUT = 9
    """Scout follow-up: the player chooses the next card from the top of the deck."""
    OVER = 10
    """The game has ended (or was truncated): nobody acts."""


class Side:
    """The cards on one player's side, as counts.

    ``protected[i]`` counts Gubs under a Barricade of kind ``BARRICADES[i]``; ``rings[i]`` is 1 when the
    Ring ``RINGS[i]`` sits here with its Gubs; ``spouted`` counts Gubs under a Sud Spout (one Spout each).
    """

    __slots__ = ("elder", "free", "protected", "rings", "spouted")

    def __init__(
        self,
        free: int = 0,
        elder: int = 0,
        protected: list[int] | None = None,
        spouted: int = 0,
        rings: list[int] | None = None,
    ) -> None:
        self.free = free
        self.elder = elder
        self.protected = protected if protected is not None else [0] * len(BARRICADES)
        self.spouted = spouted
        self.rings = rings if rings is not None else [0] * len(RINGS)

    def copy(self) -> Side:
        """An independent copy."""
        return Side(self.free, self.elder, self.protected[:], self.spouted, self.rings[:])

    def score(self) -> int:
        """Free and Protected Gubs, the Elder included (docs/rules.md §6)."""
        return self.free + self.elder + sum(self.protected)

    def barricades(self) -> int:
        """Barricades on this side."""
        return sum(self.protected)

    def card_counts(self, counts: list[int]) -> None:
        """Add the cards on this side to a per-kind count vector."""
        ring_gubs = sum(size for size, here in zip(RING_SIZES, self.rings, strict=True) if here)
        counts[Kind.GUB] += self.free + sum(self.protected) + self.spouted + ring_gubs
        counts[Kind.ELDER] += self.elder
        counts[Kind.SUD_SPOUT] += self.spouted
        for i, n in enumerate(self.protected):
            counts[BARRICADE_BASE + i] += n
        for i, here in enumerate(self.rings):
            counts[RING_BASE + i] += here

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Side) and all(getattr(self, a) == getattr(other, a) for a in Side.__slots__)

    def __repr__(self) -> str:
        return (
            f"Side(free={self.free}, elder={self.elder}, protected={self.protected}, "
            f"spouted={self.spouted}, rings={self.rings})"
        )


@dataclass(slots=True)
class Pending:
    """The decision the game waits for, and the context it needs (explicit data, not control flow).

    ``play`` is the card use being resolved (its card is *in transit*: out of the hand, not yet in
    its destination zone); ``event`` is the drawn Event being resolved (also in transit).
    """

    step: Step
    actor: int
    by: int = 0
    """Who played the card or drew the Event that opened this decision."""
    play: Action | None = None
    event: Kind | None = None
    queue: list[int] = field(default_factory=list)
    """Players to ask after ``actor`` in a window, KEEP or CURE round."""
    picks: list[int] = field(default_factory=list)
    """RING: seats picked so far. RETREAT: one entry per card taken."""
    cards: list[int] = field(default_factory=list)
    """SCOUT: kinds seen and not yet placed."""
    placed: list[int] = field(default_factory=list)
    """SCOUT: kinds placed so far, top first."""
    marks: list[int] = field(default_factory=list)
    """CURE: 1 per seat that kept its hand. KEEP: kind kept per seat, -1 for none yet."""

    def copy(self) -> Pending:
        """An independent copy (actions are immutable and shared)."""
        return Pending(
            self.step,
            self.actor,
            self.by,
            self.play,
            self.event,
            self.queue[:],
            self.picks[:],
            self.cards[:],
            self.placed[:],
            self.marks[:],
        )

    def transit(self) -> list[int]:
        """Cards out of every zone while this decision is open."""
        cards = []
        if self.play is not None:
            assert self.play.card is not None  # a play always names its card
            cards.append(int(self.play.card))
        if self.event is not None:
            cards.append(int(self.event))
        return cards


class GameState:
    """Every fact of a position. The deck is bottom first: ``deck[-1]`` is the top card."""

    __slots__ = (
        "deck",
        "deck_history",
        "declined",
        "discard",
        "hands",
        "letters",
        "num_players",
        "options",
        "pending",
        "rng",
        "seen_hand",
        "seen_top",
        "sides",
        "truncated",
        "turn",
        "turn_player",
    )

    def __init__(self, num_players: int, options: RuleOptions, rng: np.random.Generator) -> None:
        self.num_players = num_players
        self.options = options
        self.rng = rng
        self.deck: list[int] = []
        self.discard: list[int] = [0] * NUM_KINDS
        self.letters: list[int] = []
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(num_players)]
        self.sides: list[Side] = [Side() for _ in range(num_players)]
        self.turn_player = 0
        self.turn = 1
        """Turns started so far, counting every player's turns (R23)."""
        self.declined: list[bool] = [False] * num_players
        """Whether each player declined to draw on their previous turn."""
        self.pending = Pending(Step.DRAW, 0)
        self.seen_top: list[list[int]] = [[] for _ in range(num_players)]
        """Per player: the top cards of the deck they know for certain (top first), from a Scout."""
        self.seen_hand: list[tuple[int, list[int]] | None] = [None] * num_players
        """Per player: the last hand their Scout showed (seat, counts), or None."""
        self.truncated = False
        self.deck_history: list[DeckEvent] | None = None
        """The deck's public events since the deal, oldest first: each card put back at a random place and each
        Letter drawn, with the deck's size just before it (the Letters' posterior follows them). Every seat saw them
        all. ``None`` where the past is not known (a hand-built position, or one saved without it)."""

    def copy(self) -> GameState:
        """An independent deep copy, the random generator included."""
        rng = np.random.Generator(type(self.rng.bit_generator)())
        rng.bit_generator.state = self.rng.bit_generator.state
        other = GameState(self.num_players, self.options, rng)
        other.deck = self.deck[:]
        other.discard = self.discard[:]
        other.letters = self.letters[:]
        other.hands = [h[:] for h in self.hands]
        other.sides = [s.copy() for s in self.sides]
        other.turn_player = self.turn_player
        other.turn = self.turn
        other.declined = self.declined[:]
        other.pending = self.pending.copy()
        other.seen_top = [s[:] for s in self.seen_top]
        other.seen_hand = [None if s is None else (s[0], s[1][:]) for s in self.seen_hand]
        other.truncated = self.truncated
        other.deck_history = None if self.deck_history is None else self.deck_history[:]
        return other

    def note_deck_event(self, event: int) -> None:
        """Record a deck event (:data:`PUT_BACK`, ...) that happens now, while the deck holds its size before it.

        A history already :data:`MAX_DECK_EVENTS` long, which no game dealt by the rules reaches (a hand-made one
        can), becomes unknown rather than longer.
        """
        history = self.deck_history
        if history is not None:
            if len(history) < MAX_DECK_EVENTS:
                history.append((len(self.deck), event))
            else:
                self.deck_history = None

    def card_counts(self) -> list[int]:
        """How many cards of each kind are in all zones together (70 in all when conserved)."""
        counts = self.discard[:]
        for kind in self.deck:
            counts[kind] += 1
        for kind in self.letters:
            counts[kind] += 1
        for hand in self.hands:
            for kind, n in enumerate(hand):
                counts[kind] += n
        for side in self.sides:
            side.card_counts(counts)
        for kind in self.pending.transit():
            counts[kind] += 1
        return counts

    def hand_size(self, player: int) -> int:
        """Cards in a player's hand."""
        return sum(self.hands[player])

    def free_total(self) -> int:
        """Free plain Gubs on all sides (what a Ring can take, R12)."""
        return sum(side.free for side in self.sides)
