"""The heuristic's numbers: what sides, cards and answers are worth to it.

Every number the heuristic weighs is here, with why it has its value; :mod:`~agents.bots.heuristic.tables` packs
them for the compiled decision. Where a sum runs over a dict (``THREATS``, the Events of a draw), the compiled
code adds in the dict's order, so the order is part of the bot.
"""

from __future__ import annotations

import numpy as np

from gubs_env.encoding.observation import INV_SCALE, LAYOUT
from gubs_env.engine.cards import BARRICADES, COPIES, MAX_PLAYERS, NUM_KINDS, RINGS, Kind

# --- how much things are worth -----------------------------------------------------------------------

ELDER_WORTH = 1.1
"""The Elder scores 1, wins ties and only Lightning can touch it."""
FREE_WORTH_MIN, FREE_WORTH_MAX = 0.6, 0.95
"""A Free Gub is worth less than a point: Lures, Spears, Spouts, Rings and Flash Flood can take it."""
FREE_RISK = 1.6
"""How much the share of threatening cards among the unseen ones lowers a Free Gub's worth."""
BARRICADE_WORTH = {Kind.MUSHROOM: 0.88, Kind.TOAD_RIDER: 0.9, Kind.VELVET_MOTH: 0.98}
"""Velvet Moth can only be blown off by Cyclone or a Toad Rider; a Mushroom also fears Omen Beetle and
every other Mushroom, a Toad Rider fears Rumor of Wasps."""
BEETLE_RISK = 0.06
WASPS_RISK = 0.05
"""Taken off a Mushroom's or a Toad Rider's worth while Omen Beetle or Rumor of Wasps is unseen."""
HAND_CARD_WORTH = 0.3
"""What an unknown card in an opponent's hand is worth (for Lightning, Plague and Merchant)."""
LEADER_WEIGHT = 0.65
"""Standing compares the own worth to this blend of the best opponent's worth and the average one."""

CARD_VALUE: dict[Kind, float] = {
    Kind.GUB: 1.0,
    Kind.ELDER: 1.5,
    Kind.MUSHROOM: 0.55,
    Kind.TOAD_RIDER: 0.65,
    Kind.VELVET_MOTH: 0.7,
    Kind.SINGLE_RING: 0.5,
    Kind.DOUBLE_RING: 0.7,
    Kind.TRIPLE_RING: 0.8,
    Kind.SUD_SPOUT: 0.6,
    Kind.LURE: 0.9,
    Kind.SUPER_LURE: 1.2,
    Kind.CYCLONE: 0.4,
    Kind.LIGHTNING: 0.55,
    Kind.OMEN_BEETLE: 0.3,
    Kind.SMAHL_THIEF: 0.8,
    Kind.SPEAR: 0.6,
    Kind.HAKI_FLUTE: 0.5,
    Kind.RETREAT: 0.3,
    Kind.SCOUT: 0.3,
    Kind.AGE_OLD_CURE: 0.6,
    Kind.BLINDFOLD: 0.6,
    Kind.FEATHER: 0.85,
    Kind.FLOP_BOAT: 0.8,
    Kind.CRICKET_SONG: 1.0,
}
"""What a card in the own hand is worth in general: used to keep, discard and save hands."""
HAKI_FLUTE_PER_RING = 0.3
"""Haki Flute is worth this much more for each Ring in play."""

HOLD_VALUE: dict[Kind, float] = {
    Kind.GUB: 0.0,
    Kind.ELDER: 0.0,
    Kind.MUSHROOM: 0.02,
    Kind.TOAD_RIDER: 0.04,
    Kind.VELVET_MOTH: 0.02,
    Kind.SINGLE_RING: 0.2,
    Kind.DOUBLE_RING: 0.4,
    Kind.TRIPLE_RING: 0.6,
    Kind.SUD_SPOUT: 0.2,
    Kind.LURE: 0.3,
    Kind.SUPER_LURE: 0.9,
    Kind.CYCLONE: 0.2,
    Kind.LIGHTNING: 0.4,
    Kind.OMEN_BEETLE: 0.1,
    Kind.SMAHL_THIEF: 0.4,
    Kind.SPEAR: 0.3,
    Kind.HAKI_FLUTE: 0.3,
    Kind.RETREAT: 0.2,
    Kind.SCOUT: 0.15,
    Kind.AGE_OLD_CURE: 0.35,
    Kind.BLINDFOLD: 0.3,
    Kind.FEATHER: 0.45,
    Kind.FLOP_BOAT: 0.5,
    Kind.CRICKET_SONG: 0.8,
}
"""The cost of spending a card now rather than later: cards whose best moment may still come (Super
Lure on a bigger side, the Triple Ring on three Gubs, Cricket Song as anything) are worth keeping."""
HOLD_DECAY = (1.0, 0.7, 0.3)
"""Hold values shrink with every Letter laid: cards still in hand at the end are worth nothing."""
OVER_LIMIT_DECAY = 0.5
"""Over the hand limit some card will be discarded anyway, so spending one costs less."""

# --- plays that only prepare the next one ---------------------------------------------------------------

FOLLOW_UP_BONUS = 0.45
"""Baring a Protected Gub (Cyclone, Barricade removal) is worth this when the hand can then take it."""
RING_ON_OWN_SIDE_BONUS = 0.25
"""Per Gub in a Ring on the own side when the hand holds Retreat or Haki Flute to free them later."""
CARD_TO_HAND_SHARE = 0.5
"""A card stolen or retreated into the hand is worth this share of its card value."""
SCOUT_HAND_GAIN = 0.05
SCOUT_DECK_GAIN = 0.25
SCOUT_DECK_ENDGAME_GAIN = 0.6
"""Scouting the deck matters most when the next Letter ends the game: it can be buried or served."""

# --- Gubs kept in hand -----------------------------------------------------------------------------------

GUB_HOLD_THREAT = 1.6
"""Keep a new Gub in hand while the opponents are expected to hold at least this many threats..."""
GUB_HOLD_MIN_FREE = 2
"""... and the own side already shows at least this many unprotected Gubs to attack..."""
GUB_HOLD_VALUE = 1.0
"""... by giving the Gub card this hold value (before any Letter is laid; none after)."""
GUB_RESERVE_LEAD = 4
"""With this lead in points, and a Super Lure unseen, new Gubs wait in hand until the last Letter."""
THREATS: dict[Kind, float] = {
    Kind.LURE: 1.0,
    Kind.SUPER_LURE: 1.5,
    Kind.SPEAR: 0.8,
    Kind.SUD_SPOUT: 0.8,
    Kind.SMAHL_THIEF: 0.5,
    Kind.SINGLE_RING: 0.7,
    Kind.DOUBLE_RING: 0.9,
    Kind.TRIPLE_RING: 1.0,
    Kind.CRICKET_SONG: 0.5,
    Kind.FLASH_FLOOD: 2.0,
}
"""Unseen cards that take Free Gubs, weighted by how hard they hit."""

# --- windows, draws and the end of the game ---------------------------------------------------------

ANSWER_COST: dict[Kind, float] = {
    Kind.BLINDFOLD: 0.3,
    Kind.FEATHER: 0.45,
    Kind.FLOP_BOAT: 0.4,
    Kind.AGE_OLD_CURE: 0.1,
    Kind.CRICKET_SONG: 0.7,
}
"""What answering a window spends; an answer is given only when it prevents more harm than this."""
FOREIGN_HARM_MARGIN = 0.4
"""Extra harm needed before cancelling a play aimed at someone else: the victim may still answer."""
SUPER_LURE_RESERVE = 1.0
"""Share of a feared Super Lure's harm that the last answer card is worth keeping for."""
SUPER_LURE_REACH = 0.4
"""Chance that one unseen Super Lure is played against the own side before the end."""
END_STAKE = 6.0
"""Ending the game (the last Letter) is worth this much, won or lost, against ordinary gains."""
DRAW_GAIN = 0.5
"""What a plain draw brings: a card, on average."""
WIN_SCALE = 1.5
"""Standing (in points) that moves the rough chance of winning from one half to about three quarters."""
SAVE_SHARE = 0.8
"""Share of the hand's value that a Cure keeps through Gargok Plague."""
OPPONENT_CARD_SHARE = 0.3
"""A card handed to an opponent (a Scout placement) hurts this share of its value."""

RING_SIZE: dict[Kind, int] = {ring: ring.spec.ring_size for ring in RINGS}
_RING_SIZES = tuple(RING_SIZE.values())
_BARRICADES: tuple[Kind, ...] = BARRICADES
"""The order of the per-seat ``protected`` and ``rings`` fields of the observation."""
_EVENT_KINDS = frozenset(range(Kind.LETTER_G, NUM_KINDS))

_SCALE = (1.0 / INV_SCALE).astype(np.float32)


def _seen_matrix() -> np.ndarray:
    """Maps an observation to the copies of each kind it shows (a linear map, scales folded in).

    Seen are the own hand, the discard pile, the card being resolved and every side's cards: Gubs (free,
    protected, spouted, in Rings by the Ring's size), the Elder, the Barricades, Sud Spouts and Rings.
    """
    m = np.zeros((NUM_KINDS, len(_SCALE)), dtype=np.float32)
    at = {name: s.start for name, s in LAYOUT.items()}
    for kind in range(NUM_KINDS):
        for name in ("hand", "discard", "pending_card"):
            m[kind, at[name] + kind] = 1
    for seat in range(MAX_PLAYERS):
        m[Kind.GUB, at["free"] + seat] = 1
        m[[Kind.GUB, Kind.SUD_SPOUT], at["spouted"] + seat] = 1
        m[Kind.ELDER, at["elder"] + seat] = 1
        for i, (barricade, ring) in enumerate(zip(_BARRICADES, RINGS, strict=True)):
            m[[Kind.GUB, barricade], at["protected"] + 3 * seat + i] = 1
            m[Kind.GUB, at["rings"] + 3 * seat + i] = _RING_SIZES[i]
            m[ring, at["rings"] + 3 * seat + i] = 1
    return m * _SCALE


_SEEN = _seen_matrix()
_COPIES = np.array(COPIES, dtype=np.int64)
