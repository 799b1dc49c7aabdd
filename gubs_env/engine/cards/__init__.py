"""The fixed facts of the Gubs deck: 32 card kinds, 70 cards (docs/rules.md §1).

Everything else in the project (state arrays, action table, observation layout) is derived from
:data:`CARDS`, so a kind is added or changed here and nowhere else.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class CardType(IntEnum):
    """The printed type of a card; types decide which windows and wild uses apply."""

    GUB = 0
    BARRICADE = 1
    TRAP = 2
    HAZARD = 3
    TOOL_OR_HAZARD = 4
    TOOL = 5
    INTERRUPT = 6
    WILD = 7
    LETTER = 8
    EVENT = 9


class Kind(IntEnum):
    """The 32 card kinds, in the order used by every count vector of the engine."""

    GUB = 0
    ELDER = 1
    MUSHROOM = 2
    TOAD_RIDER = 3
    VELVET_MOTH = 4
    SINGLE_RING = 5
    DOUBLE_RING = 6
    TRIPLE_RING = 7
    SUD_SPOUT = 8
    LURE = 9
    SUPER_LURE = 10
    CYCLONE = 11
    LIGHTNING = 12
    OMEN_BEETLE = 13
    SMAHL_THIEF = 14
    SPEAR = 15
    HAKI_FLUTE = 16
    RETREAT = 17
    SCOUT = 18
    AGE_OLD_CURE = 19
    BLINDFOLD = 20
    FEATHER = 21
    FLOP_BOAT = 22
    CRICKET_SONG = 23
    LETTER_G = 24
    LETTER_U = 25
    LETTER_B = 26
    DANGEROUS_ALCHEMY = 27
    FLASH_FLOOD = 28
    GARGOK_PLAGUE = 29
    RUMOR_OF_WASPS = 30
    TRAVELING_MERCHANT = 31

    @property
    def spec(self) -> CardSpec:
        """The table row of this kind."""
        return CARDS[self]

    @property
    def label(self) -> str:
        """The printed name, e.g. ``"Toad Rider"``."""
        return CARDS[self].name


class CardSpec(NamedTuple):
    """One row of the card table."""

    kind: Kind
    name: str
    type: CardType
    copies: int
    ring_size: int = 0
    """Number of Gubs a Ring traps (0 for every other kind)."""


CARDS: tuple[CardSpec, ...] = (
    CardSpec(Kind.GUB, "Gub", CardType.GUB, 13),
    CardSpec(Kind.ELDER, "Esteemed Elder", CardType.GUB, 1),
    CardSpec(Kind.MUSHROOM, "Mushroom", CardType.BARRICADE, 7),
    CardSpec(Kind.TOAD_RIDER, "Toad Rider", CardType.BARRICADE, 4),
    CardSpec(Kind.VELVET_MOTH, "Velvet Moth", CardType.BARRICADE, 2),
    CardSpec(Kind.SINGLE_RING, "Single Ring", CardType.TRAP, 1, ring_size=1),
    CardSpec(Kind.DOUBLE_RING, "Double Ring", CardType.TRAP, 1, ring_size=2),
    CardSpec(Kind.TRIPLE_RING, "Triple Ring", CardType.TRAP, 1, ring_size=3),
    CardSpec(Kind.SUD_SPOUT, "Sud Spout", CardType.TRAP, 4),
    CardSpec(Kind.LURE, "Lure", CardType.HAZARD, 7),
    CardSpec(Kind.SUPER_LURE, "Super Lure", CardType.HAZARD, 2),
    CardSpec(Kind.CYCLONE, "Cyclone", CardType.HAZARD, 1),
    CardSpec(Kind.LIGHTNING, "Lightning", CardType.HAZARD, 1),
    CardSpec(Kind.OMEN_BEETLE, "Omen Beetle", CardType.HAZARD, 1),
    CardSpec(Kind.SMAHL_THIEF, "Smahl Thief", CardType.HAZARD, 1),
    CardSpec(Kind.SPEAR, "Spear", CardType.TOOL_OR_HAZARD, 4),
    CardSpec(Kind.HAKI_FLUTE, "Haki Flute", CardType.TOOL, 2),
    CardSpec(Kind.RETREAT, "Retreat", CardType.TOOL, 1),
    CardSpec(Kind.SCOUT, "Scout", CardType.TOOL, 1),
    CardSpec(Kind.AGE_OLD_CURE, "Age-Old Cure", CardType.INTERRUPT, 2),
    CardSpec(Kind.BLINDFOLD, "Blindfold", CardType.INTERRUPT, 1),
    CardSpec(Kind.FEATHER, "Feather", CardType.INTERRUPT, 2),
    CardSpec(Kind.FLOP_BOAT, "Flop Boat", CardType.INTERRUPT, 1),
    CardSpec(Kind.CRICKET_SONG, "Cricket Song", CardType.WILD, 1),
    CardSpec(Kind.LETTER_G, "Letter G", CardType.LETTER, 1),
    CardSpec(Kind.LETTER_U, "Letter U", CardType.LETTER, 1),
    CardSpec(Kind.LETTER_B, "Letter B", CardType.LETTER, 1),
    CardSpec(Kind.DANGEROUS_ALCHEMY, "Dangerous Alchemy", CardType.EVENT, 1),
    CardSpec(Kind.FLASH_FLOOD, "Flash Flood", CardType.EVENT, 1),
    CardSpec(Kind.GARGOK_PLAGUE, "Gargok Plague", CardType.EVENT, 1),
    CardSpec(Kind.RUMOR_OF_WASPS, "Rumor of Wasps", CardType.EVENT, 1),
    CardSpec(Kind.TRAVELING_MERCHANT, "Traveling Merchant", CardType.EVENT, 1),
)

NUM_KINDS = len(CARDS)
DECK_SIZE = sum(spec.copies for spec in CARDS)
COPIES: tuple[int, ...] = tuple(spec.copies for spec in CARDS)

BARRICADES: tuple[Kind, ...] = tuple(s.kind for s in CARDS if s.type is CardType.BARRICADE)
RINGS: tuple[Kind, ...] = tuple(s.kind for s in CARDS if s.ring_size)
LETTERS: tuple[Kind, ...] = tuple(s.kind for s in CARDS if s.type is CardType.LETTER)
EVENTS: frozenset[Kind] = frozenset(s.kind for s in CARDS if s.type in (CardType.LETTER, CardType.EVENT))
WILD_AS: tuple[Kind, ...] = tuple(
    s.kind for s in CARDS if s.type in (CardType.HAZARD, CardType.TOOL_OR_HAZARD, CardType.TOOL, CardType.INTERRUPT)
)
"""Kinds Cricket Song may be played as: any Hazard, Tool or Interrupt (FAQ 3)."""

HAND_LIMIT = 8
MIN_PLAYERS = 2
MAX_PLAYERS = 6

KIND_BY_NAME: dict[str, Kind] = {spec.name.lower(): spec.kind for spec in CARDS} | {k.name.lower(): k for k in Kind}


def kind_from_name(name: str) -> Kind:
    """Look a kind up by printed name (``"Toad Rider"``) or enum name (``"TOAD_RIDER"``)."""
    try:
        return KIND_BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown card kind {name!r}") from None


assert DECK_SIZE == 70, DECK_SIZE
assert all(spec.kind == i for i, spec in enumerate(CARDS))
