"""Actions: typed, hashable values for every choice a player can make.

An :class:`Action` names *what* is done (``op``), with which card (``card``), used as what
(``as_kind``: differs from ``card`` only for Cricket Song), which use of that card (``use``) and its
target (``seat``, ``part``, ``detail``). Seats are absolute here; the RL environment makes them
relative to the actor.

Which uses each card has, and what target each use takes, is data (:data:`PLAY_USES`,
:data:`USE_TARGET`), so the rules, the action table of the environment and the docs all read the same
table.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from gubs_env.engine.cards import BARRICADES, MAX_PLAYERS, RINGS, WILD_AS, Kind


class Op(IntEnum):
    """What kind of step an action is."""

    DRAW = 0
    """Draw the top card of the deck (turn start)."""
    DECLINE = 1
    """Decline to draw (turn start; not two turns running)."""
    PLAY = 2
    """Play a card from the hand: in the play phase, or as an answer inside a window."""
    END_TURN = 3
    """Say "Go": end the play phase."""
    PASS = 4
    """Decline to answer an interrupt window."""
    PICK = 5
    """Ring follow-up: take one Free Gub from ``seat``."""
    TAKE = 6
    """Retreat follow-up: take ``part`` (``detail`` names a Barricade or Ring kind) into the hand."""
    STOP = 7
    """Retreat follow-up: take nothing more."""
    PLACE = 8
    """Scout follow-up: put a card of kind ``detail`` next from the top of the deck."""
    KEEP = 9
    """Traveling Merchant: keep one card of kind ``detail``."""
    DISCARD = 10
    """End of turn: discard one card of kind ``detail`` (hand over the limit)."""


class Use(IntEnum):
    """The ways a card can be used; one card kind may have several (Mushroom protects or removes)."""

    ENTER = 0
    """A Gub (or the Elder) enters the player's own side."""
    PROTECT = 1
    """A Barricade covers one of the player's own Free Gubs."""
    REMOVE = 2
    """Mushroom or Toad Rider removes a Barricade in play (``seat``, ``detail`` = Barricade kind)."""
    SPOUT = 3
    """Sud Spout traps a Free Gub where it stands (``seat``)."""
    RING = 4
    """A Ring traps N Free Gubs, picked one at a time afterwards."""
    LURE = 5
    """Lure moves one Free Gub from ``seat`` to the player."""
    SUPER_LURE = 6
    """Super Lure moves the Free and Protected Gubs of ``seat`` to the player."""
    CYCLONE = 7
    """Cyclone discards the Barricades of ``seat``."""
    STRIKE_ELDER = 8
    """Lightning discards the Esteemed Elder wherever it is in play."""
    STRIKE_HAND = 9
    """Lightning makes ``seat`` discard their hand."""
    BEETLE = 10
    """Omen Beetle discards every Mushroom in play with its Gub."""
    STEAL = 11
    """Smahl Thief takes ``part`` from ``seat`` into the hand."""
    KILL = 12
    """Spear discards one Free Gub at ``seat`` (a Hazard use)."""
    FREE = 13
    """Spear discards a Sud Spout at ``seat``; its Gub stays, Free (a Tool use)."""
    SHATTER = 14
    """Haki Flute discards the Ring ``detail``; its Gubs join the player, Free."""
    RETREAT = 15
    """Retreat: take cards from the own side, picked one at a time afterwards."""
    SCOUT_HAND = 16
    """Scout looks at the hand of ``seat``."""
    SCOUT_DECK = 17
    """Scout looks at the top three cards and orders them (follow-ups)."""
    RETRIEVE = 18
    """Age-Old Cure takes a Gub from the discard pile into the hand."""
    CANCEL = 19
    """Feather or Blindfold cancels the card being played (cancel window)."""
    FLOP = 20
    """Flop Boat sends the drawn Event back into the deck (flop window)."""
    SAVE = 21
    """Age-Old Cure keeps the hand through Gargok Plague (cure window)."""


class Part(IntEnum):
    """A card (or pair) on a side that Smahl Thief or Retreat can take."""

    FREE_GUB = 0
    PROTECTED_GUB = 1
    """A Gub with its Barricade (``detail`` = Barricade kind)."""
    BARRICADE = 2
    """A Barricade alone; its Gub stays, Free (``detail`` = Barricade kind)."""
    SPOUT = 3
    """A Sud Spout card; its Gub stays, Free."""
    SPOUTED_GUB = 4
    """A Gub under a Sud Spout; the Spout is discarded."""
    RING = 5
    """A Ring (``detail`` = Ring kind); its Gubs stay, Free."""


class Target(IntEnum):
    """The shape of the target a use takes, for generating the action table."""

    NONE = 0
    SEAT = 1
    SEAT_BARRICADE = 2
    """A seat and a Barricade kind."""
    SEAT_PART = 3
    """A seat and a :class:`Part` (with a kind where the part needs one)."""
    RING = 4
    """A Ring kind."""


PLAY_USES: dict[Kind, tuple[Use, ...]] = {
    Kind.GUB: (Use.ENTER,),
    Kind.ELDER: (Use.ENTER,),
    Kind.MUSHROOM: (Use.PROTECT, Use.REMOVE),
    Kind.TOAD_RIDER: (Use.PROTECT, Use.REMOVE),
    Kind.VELVET_MOTH: (Use.PROTECT,),
    Kind.SINGLE_RING: (Use.RING,),
    Kind.DOUBLE_RING: (Use.RING,),
    Kind.TRIPLE_RING: (Use.RING,),
    Kind.SUD_SPOUT: (Use.SPOUT,),
    Kind.LURE: (Use.LURE,),
    Kind.SUPER_LURE: (Use.SUPER_LURE,),
    Kind.CYCLONE: (Use.CYCLONE,),
    Kind.LIGHTNING: (Use.STRIKE_ELDER, Use.STRIKE_HAND),
    Kind.OMEN_BEETLE: (Use.BEETLE,),
    Kind.SMAHL_THIEF: (Use.STEAL,),
    Kind.SPEAR: (Use.KILL, Use.FREE),
    Kind.HAKI_FLUTE: (Use.SHATTER,),
    Kind.RETREAT: (Use.RETREAT,),
    Kind.SCOUT: (Use.SCOUT_HAND, Use.SCOUT_DECK),
    Kind.AGE_OLD_CURE: (Use.RETRIEVE,),
}
"""Uses available in the turn player's play phase, per card kind played as itself."""

WINDOW_USES: dict[Kind, tuple[Use, ...]] = {
    Kind.AGE_OLD_CURE: (Use.SAVE,),
    Kind.BLINDFOLD: (Use.CANCEL,),
    Kind.FEATHER: (Use.CANCEL,),
    Kind.FLOP_BOAT: (Use.FLOP,),
}
"""Uses that answer an interrupt window."""

USE_TARGET: dict[Use, Target] = {
    Use.REMOVE: Target.SEAT_BARRICADE,
    Use.SPOUT: Target.SEAT,
    Use.LURE: Target.SEAT,
    Use.SUPER_LURE: Target.SEAT,
    Use.CYCLONE: Target.SEAT,
    Use.STRIKE_HAND: Target.SEAT,
    Use.STEAL: Target.SEAT_PART,
    Use.KILL: Target.SEAT,
    Use.FREE: Target.SEAT,
    Use.SHATTER: Target.RING,
    Use.SCOUT_HAND: Target.SEAT,
}
"""Target shape per use; a use not listed takes no target."""

CANCELLABLE: frozenset[Use] = frozenset(
    {
        Use.SPOUT,
        Use.RING,
        Use.LURE,
        Use.SUPER_LURE,
        Use.CYCLONE,
        Use.STRIKE_ELDER,
        Use.STRIKE_HAND,
        Use.BEETLE,
        Use.STEAL,
        Use.KILL,
    }
)
"""Hazard and Trap uses: they open a cancel window (docs/rules.md §5, R6). Spear counts only when it kills."""

BLINDFOLDABLE: frozenset[Kind] = frozenset({Kind.LURE, Kind.SUPER_LURE})
"""Cards Blindfold may cancel (as played, or imitated by Cricket Song)."""

_USE_TEXT: dict[Use, str] = {
    Use.ENTER: "put into play",
    Use.PROTECT: "protect a Free Gub",
    Use.REMOVE: "remove a Barricade",
    Use.SPOUT: "trap a Free Gub",
    Use.RING: "trap Free Gubs",
    Use.LURE: "lure a Free Gub",
    Use.SUPER_LURE: "lure every Gub",
    Use.CYCLONE: "blow away Barricades",
    Use.STRIKE_ELDER: "strike the Esteemed Elder",
    Use.STRIKE_HAND: "strike a hand",
    Use.BEETLE: "devour every Mushroom",
    Use.STEAL: "steal",
    Use.KILL: "kill a Free Gub",
    Use.FREE: "break a Sud Spout",
    Use.SHATTER: "shatter",
    Use.RETREAT: "retreat",
    Use.SCOUT_HAND: "look at a hand",
    Use.SCOUT_DECK: "look at the deck",
    Use.RETRIEVE: "take a Gub from the discard pile",
    Use.CANCEL: "cancel it",
    Use.FLOP: "flop the Event",
    Use.SAVE: "keep the hand",
}

_PART_TEXT: dict[Part, str] = {
    Part.FREE_GUB: "a Free Gub",
    Part.PROTECTED_GUB: "a Gub under {}",
    Part.BARRICADE: "the {} alone",
    Part.SPOUT: "a Sud Spout alone",
    Part.SPOUTED_GUB: "a Gub under a Sud Spout",
    Part.RING: "the {}",
}


def part_text(part: Part, detail: Kind | None) -> str:
    """Words for a part of a side, e.g. ``"a Gub under Mushroom"``."""
    text = _PART_TEXT[part]
    return text.format(detail.label) if detail is not None else text


class Action(NamedTuple):
    """One choice of one player. Immutable and hashable; build it with the helpers below.

    ``str(action)`` is readable, e.g. ``"Lure → seat 2"`` or ``"Cricket Song as Feather: cancel it"``.
    """

    op: Op
    card: Kind | None = None
    as_kind: Kind | None = None
    use: Use | None = None
    seat: int | None = None
    part: Part | None = None
    detail: Kind | None = None

    def __str__(self) -> str:
        return describe(self)

    def __repr__(self) -> str:
        return f"<Action {describe(self)}>"


def play(
    card: Kind,
    use: Use,
    seat: int | None = None,
    part: Part | None = None,
    detail: Kind | None = None,
    as_kind: Kind | None = None,
) -> Action:
    """A card played from the hand; ``as_kind`` is only for Cricket Song."""
    return make(Op.PLAY, card, card if as_kind is None else as_kind, use, seat, part, detail)


_INTERNED: dict[tuple, Action] = {}


def make(
    op: Op,
    card: Kind | None = None,
    as_kind: Kind | None = None,
    use: Use | None = None,
    seat: int | None = None,
    part: Part | None = None,
    detail: Kind | None = None,
) -> Action:
    """The one shared :class:`Action` with these fields (actions are interned: cheap to compare)."""
    key = (op, card, as_kind, use, seat, part, detail)
    action = _INTERNED.get(key)
    if action is None:
        action = Action(*key)
        if not mistyped_fields(action):  # a look-alike (a float or numpy seat, an int op) is never shared
            _INTERNED[key] = action
    return action


FIELD_TYPES: tuple[tuple[str, type], ...] = (
    ("op", Op),
    ("card", Kind),
    ("as_kind", Kind),
    ("use", Use),
    ("seat", int),
    ("part", Part),
    ("detail", Kind),
)
"""The exact type of each :class:`Action` field as the engine builds it (only ``op`` is never ``None``)."""


def mistyped_fields(action: Action) -> list[str]:
    """The names of the fields of ``action`` whose value is not of the engine's own type (empty when none)."""
    return [
        name
        for (name, kind), value in zip(FIELD_TYPES, action, strict=True)
        if type(value) is not kind and (value is not None or name == "op")
    ]


DRAW = make(Op.DRAW)
DECLINE = make(Op.DECLINE)
END_TURN = make(Op.END_TURN)
PASS = make(Op.PASS)
STOP = make(Op.STOP)


def describe(action: Action) -> str:
    """Readable words for an action (a malformed one is shown field by field, in a few words each)."""
    if not mistyped_fields(action):
        try:
            return _describe(action)
        except (AssertionError, AttributeError, KeyError, TypeError, ValueError):
            pass  # fields of the right types that make no action: shown field by field
    fields = ", ".join(f"{k}={_field_text(v)}" for k, v in zip(Action._fields, action, strict=True) if v is not None)
    return f"Action({fields})"


def _field_text(value: object) -> str:
    """One field of a malformed action: never the full ``repr`` of an unknown (maybe huge or deep) value."""
    if isinstance(value, IntEnum) or (type(value) is int and value.bit_length() <= 64):
        return repr(value)
    return f"<{type(value).__name__[:40]}>"


def _describe(action: Action) -> str:
    op = action.op
    if op is Op.PLAY:
        return _describe_play(action)
    if op is Op.PICK:
        return f"Ring: take a Free Gub from seat {action.seat}"
    if op is Op.TAKE:
        assert action.part is not None
        return f"Retreat: take {part_text(action.part, action.detail)}"
    if op in _CARD_CHOICES:
        assert action.detail is not None  # these choices name a card
        return _CARD_CHOICES[op].format(action.detail.label)
    return {
        Op.DRAW: "Draw",
        Op.DECLINE: "Decline to draw",
        Op.END_TURN: "Go (end turn)",
        Op.PASS: "Pass",
        Op.STOP: "Retreat: done",
    }[op]


_CARD_CHOICES: dict[Op, str] = {Op.PLACE: "Scout: put {} next", Op.KEEP: "Keep {}", Op.DISCARD: "Discard {}"}


def _describe_play(action: Action) -> str:
    assert action.card is not None and action.as_kind is not None and action.use is not None
    name = action.card.label
    if action.as_kind is not None and action.as_kind != action.card:
        name = f"{name} as {action.as_kind.label}"
    use = action.use
    target = USE_TARGET.get(use, Target.NONE)
    if target is Target.SEAT:
        if len(PLAY_USES.get(action.as_kind, ())) > 1:  # Spear, Lightning, Scout: say which use
            return f"{name} → seat {action.seat}: {_USE_TEXT[use]}"
        return f"{name} → seat {action.seat}"
    if target is Target.SEAT_BARRICADE:
        assert action.detail is not None
        return f"{name}: remove {action.detail.label} at seat {action.seat}"
    if target is Target.SEAT_PART:
        assert action.part is not None
        return f"{name} → seat {action.seat}: {part_text(action.part, action.detail)}"
    if target is Target.RING:
        assert action.detail is not None
        return f"{name} → {action.detail.label}"
    return f"{name}: {_USE_TEXT[use]}"


def target_space(as_kind: Kind, use: Use, num_seats: int = MAX_PLAYERS) -> list[tuple]:
    """Every ``(seat, part, detail)`` a use could ever aim at, whatever the position."""
    shape = USE_TARGET.get(use, Target.NONE)
    seats = range(num_seats)
    if shape is Target.SEAT:
        return [(s, None, None) for s in seats]
    if shape is Target.SEAT_BARRICADE:
        removable = (Kind.MUSHROOM,) if as_kind is Kind.MUSHROOM else BARRICADES
        return [(s, None, b) for s in seats for b in removable]
    if shape is Target.SEAT_PART:
        return [(s, part, detail) for s in seats for part, detail in STEAL_PARTS]
    if shape is Target.RING:
        return [(None, None, r) for r in RINGS]
    return [(None, None, None)]


_TAKEABLE: tuple[tuple[Part, Kind | None], ...] = (
    (Part.FREE_GUB, None),
    *((Part.PROTECTED_GUB, b) for b in BARRICADES),
    *((Part.BARRICADE, b) for b in BARRICADES),
    (Part.SPOUT, None),
)
STEAL_PARTS: tuple[tuple[Part, Kind | None], ...] = (*_TAKEABLE, (Part.SPOUTED_GUB, None))
"""What Smahl Thief may take from a side (R9)."""
RETREAT_PARTS: tuple[tuple[Part, Kind | None], ...] = (*_TAKEABLE, *((Part.RING, r) for r in RINGS))
"""What Retreat may take from the own side (R13)."""


def card_uses(window: bool = False) -> tuple[tuple[Kind, Kind, Use], ...]:
    """Every ``(card, as_kind, use)`` of the play phase (or of the windows), Cricket Song included."""
    table = WINDOW_USES if window else PLAY_USES
    own = [(card, card, use) for card, uses in table.items() for use in uses]
    wild = [(Kind.CRICKET_SONG, kind, use) for kind in WILD_AS for use in table.get(kind, ())]
    return (*own, *wild)
