"""A rule-based Gubs bot: one small scoring function per kind of decision.

The agent reads only its observation and the action mask. It turns the observation back into counts
(:class:`View`), decodes every legal id through :data:`~gubs_env.envs.action_table.TEMPLATES`, gives each
one a score and plays the best (ties are broken by the agent's own seeded generator).

Most scores share one yardstick, the *standing*: the expected worth of the own side minus a blend of
the leading opponent's and the average opponent's worth. A side is worth its Elder, its Protected
Gubs (a little under one point each, by how safe the Barricade is) and its Free Gubs (less: many cards
can take them). A play is worth the change in standing it causes, minus what the card would still be
worth kept in hand; answering a window is worth the harm it prevents, minus the answer card.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from agents.base import Agent, legal_ids
from gubs_env.engine.actions import Action, Op, Part, Use
from gubs_env.engine.cards import BARRICADES, COPIES, HAND_LIMIT, LETTERS, MAX_PLAYERS, NUM_KINDS, RINGS, Kind
from gubs_env.engine.state import Step
from gubs_env.envs.action_table import TEMPLATES
from gubs_env.envs.observation import INV_SCALE, LAYOUT

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
_NO_VALUE = float("-inf")

_SCALE = (1.0 / INV_SCALE).astype(np.float32)


def _one_hot(raw: list[int], name: str) -> int:
    """The position of the first 1 in a field, or -1."""
    values = raw[LAYOUT[name]]
    return values.index(1) if 1 in values else -1


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


# --- reading the observation ---------------------------------------------------------------------------


class View:
    """The observation as counts, seats relative to the viewer (0 = self), trimmed to the table size."""

    __slots__ = (
        "deck",
        "discard",
        "elder",
        "free",
        "free_worth",
        "hand",
        "hand_sizes",
        "known_top",
        "letters",
        "n",
        "pending_as",
        "pending_by",
        "pending_card",
        "pending_detail",
        "pending_part",
        "pending_target",
        "pending_use",
        "protected",
        "ring_picks",
        "rings",
        "score",
        "scout_placed",
        "spouted",
        "step",
        "unseen",
        "worth",
    )

    def __init__(self, observation: np.ndarray) -> None:
        raw = (observation * _SCALE + 0.5).astype(np.int32).tolist()
        self.n = n = sum(raw[LAYOUT["seats"]])
        self.hand = raw[LAYOUT["hand"]]
        self.hand_sizes = raw[LAYOUT["hand_sizes"]][:n]
        self.free = raw[LAYOUT["free"]][:n]
        self.elder = raw[LAYOUT["elder"]][:n]
        flat = raw[LAYOUT["protected"]]
        self.protected = [flat[3 * s : 3 * s + 3] for s in range(n)]
        self.spouted = raw[LAYOUT["spouted"]][:n]
        flat = raw[LAYOUT["rings"]]
        self.rings = [flat[3 * s : 3 * s + 3] for s in range(n)]
        self.score = raw[LAYOUT["score"]][:n]
        self.discard = raw[LAYOUT["discard"]]
        self.letters = sum(raw[LAYOUT["letters"]])
        self.deck = raw[LAYOUT["deck_size"].start]
        top = _one_hot(raw, "known_top")
        self.known_top = top if top < NUM_KINDS else -1
        self.step = _one_hot(raw, "step")
        self.pending_card = _one_hot(raw, "pending_card")
        self.pending_as = _one_hot(raw, "pending_as")
        self.pending_use = _one_hot(raw, "pending_use")
        self.pending_by = _one_hot(raw, "pending_by")
        self.pending_target = _one_hot(raw, "pending_target")
        self.pending_part = _one_hot(raw, "pending_part")
        self.pending_detail = _one_hot(raw, "pending_detail")
        self.ring_picks = raw[LAYOUT["ring_picks"]][:n]
        self.scout_placed = sum(raw[LAYOUT["scout_placed"]])
        self.unseen = self._unseen(observation)
        self.free_worth = self._free_worth()
        self.worth = [self.side_worth(s) for s in range(n)]

    def _unseen(self, observation: np.ndarray) -> list[int]:
        """Copies of each kind that could still be in the deck or in another hand."""
        seen = np.rint(_SEEN @ observation).astype(np.int64)
        unseen = np.maximum(0, _COPIES - seen).tolist()
        # Which Letters are out is not shown, only how many: count the rest under the first kind.
        unseen[Kind.LETTER_G], unseen[Kind.LETTER_U], unseen[Kind.LETTER_B] = 3 - self.letters, 0, 0
        return unseen

    def _free_worth(self) -> float:
        """A Free Gub's worth: lower while many unseen cards can take it, higher as the end nears."""
        unseen_total = max(1, sum(self.unseen))
        threat_share = sum(w * self.unseen[k] for k, w in THREATS.items()) / unseen_total
        worth = 1.0 - FREE_RISK * threat_share * (1.0 - 0.3 * self.letters)
        return min(FREE_WORTH_MAX, max(FREE_WORTH_MIN, worth))

    def barricade_worth(self, barricade: Kind) -> float:
        """How much a Gub under this Barricade is worth, given the cards that can still break it."""
        worth = BARRICADE_WORTH[barricade]
        if barricade is Kind.MUSHROOM and self.unseen[Kind.OMEN_BEETLE]:
            worth -= BEETLE_RISK
        if barricade is Kind.TOAD_RIDER and self.unseen[Kind.RUMOR_OF_WASPS]:
            worth -= WASPS_RISK
        return worth

    def side_worth(self, seat: int) -> float:
        """Expected points of a side: the Elder, Protected Gubs by Barricade, Free Gubs."""
        protected = self.protected[seat]
        return (
            ELDER_WORTH * self.elder[seat]
            + self.free_worth * self.free[seat]
            + sum(self.barricade_worth(b) * protected[i] for i, b in enumerate(_BARRICADES))
        )

    def standing(self, worth: list[float]) -> float:
        """Own worth against a blend of the leading and the average opponent."""
        others = worth[1:]
        return worth[0] - LEADER_WEIGHT * max(others) - (1 - LEADER_WEIGHT) * sum(others) / len(others)

    def gain(self, delta: dict[int, float]) -> float:
        """Change in standing when the seats' worths change by ``delta``."""
        worth = self.worth[:]
        for seat, change in delta.items():
            worth[seat] += change
        return self.standing(worth) - self.standing(self.worth)

    def winning(self) -> bool:
        """Whether the game ending now would count as a win (a shared win counts)."""
        best = max(self.score)
        if self.score[0] < best:
            return False
        tied = [s for s in range(self.n) if self.score[s] == best]
        if len(tied) == 1:
            return True
        with_elder = [s for s in tied if self.elder[s]]
        if with_elder:
            return with_elder == [0]
        return self.hand_sizes[0] <= min(self.hand_sizes[s] for s in tied)

    def hold(self, kind: Kind) -> float:
        """What keeping ``kind`` in hand is worth, compared with spending it now."""
        value = gub_hold_value(self) if kind is Kind.GUB else HOLD_VALUE.get(kind, 0.0)
        value *= HOLD_DECAY[min(self.letters, 2)]
        if sum(self.hand) > HAND_LIMIT:
            value *= OVER_LIMIT_DECAY
        return value


def gub_hold_value(view: View) -> float:
    """What a Gub card is worth kept in hand rather than put on the side.

    A Gub in hand scores nothing, so it is kept back only in two cases. Far ahead, with a Super Lure
    still unseen, more Gubs on the side only add to what one Super Lure would hand over, while Gubs in
    hand can be played after it. And early on (no Letter laid, no Barricade in hand to cover it at
    once, targets already on the side) while the opponents probably hold cards that take Free Gubs.
    """
    if view.letters < 2 and _lead(view) >= GUB_RESERVE_LEAD and view.unseen[Kind.SUPER_LURE]:
        return GUB_HOLD_VALUE
    if view.letters or any(view.hand[b] for b in _BARRICADES) or view.free[0] < GUB_HOLD_MIN_FREE:
        return 0.0
    unseen_total = max(1, sum(view.unseen))
    per_card = sum(w * view.unseen[k] for k, w in THREATS.items() if k not in _EVENT_KINDS) / unseen_total
    expected_threats = per_card * sum(view.hand_sizes[1:])
    return GUB_HOLD_VALUE if expected_threats >= GUB_HOLD_THREAT else 0.0


def _lead(view: View) -> int:
    """Own score minus the best opponent's."""
    return view.score[0] - max(view.score[1:])


def card_value(view: View, kind: int) -> float:
    """General worth of one card in the own hand (keep, discard, save)."""
    value = CARD_VALUE.get(Kind(kind), 0.0)
    if kind == Kind.HAKI_FLUTE:
        value += HAKI_FLUTE_PER_RING * sum(sum(r) for r in view.rings)  # a Ring in play is a target
    return value


def hand_value(view: View) -> float:
    """The whole own hand."""
    return sum(card_value(view, k) * c for k, c in enumerate(view.hand) if c)


# --- what a play does to the table ----------------------------------------------------------------------


def play_delta(view: View, use: int, actor: int, target: int, part: int, detail: int) -> dict[int, float]:
    """Change of each seat's worth when ``actor`` makes this play (``target`` etc. as in the observation).

    Cards that land in a hand count for their holder at a share of their value. Gains that depend on the
    own hand (follow-ups) are left to :func:`score_play`.
    """
    free = view.free_worth
    if use == Use.ENTER:  # detail: the card entering
        return {actor: ELDER_WORTH if detail == Kind.ELDER else free}
    if use == Use.PROTECT:  # detail: the Barricade
        return {actor: view.barricade_worth(Kind(detail)) - free}
    if use == Use.REMOVE:
        return {target: free - view.barricade_worth(Kind(detail))}
    if use in (Use.SPOUT, Use.KILL):
        return {target: -free}
    if use == Use.FREE:
        return {target: free}
    if use == Use.LURE:
        return _merge({target: -free}, {actor: free})
    if use == Use.SUPER_LURE:
        gubs = view.free[target] + sum(view.protected[target])
        return _merge({target: -view.worth[target] + ELDER_WORTH * view.elder[target]}, {actor: free * gubs})
    if use == Use.CYCLONE:
        return {
            target: sum((free - view.barricade_worth(b)) * view.protected[target][i] for i, b in enumerate(_BARRICADES))
        }
    if use == Use.STRIKE_ELDER:
        return {view.elder.index(1): -ELDER_WORTH} if 1 in view.elder else {}
    if use == Use.STRIKE_HAND:
        lost = hand_value(view) if target == 0 else HAND_CARD_WORTH * view.hand_sizes[target]
        return {target: -lost}
    if use == Use.BEETLE:
        return {s: -view.barricade_worth(Kind.MUSHROOM) * view.protected[s][0] for s in range(view.n)}
    if use == Use.STEAL:
        return _steal_delta(view, actor, target, part, detail)
    if use == Use.RING:
        return {s: -free * picks for s, picks in enumerate(view.ring_picks) if picks}
    return {}


def _steal_delta(view: View, actor: int, target: int, part: int, detail: int) -> dict[int, float]:
    """Smahl Thief: what the victim loses and what the thief's hand gains."""
    free = view.free_worth
    gub_in_hand = CARD_TO_HAND_SHARE * CARD_VALUE[Kind.GUB] + (1 - CARD_TO_HAND_SHARE) * free
    if part == Part.FREE_GUB:
        return _merge({target: -free}, {actor: gub_in_hand})
    if part == Part.PROTECTED_GUB:
        return _merge({target: -view.barricade_worth(Kind(detail))}, {actor: gub_in_hand})
    if part == Part.BARRICADE:
        card = CARD_TO_HAND_SHARE * CARD_VALUE[Kind(detail)]
        return _merge({target: free - view.barricade_worth(Kind(detail))}, {actor: card})
    if part == Part.SPOUT:
        return _merge({target: free}, {actor: CARD_TO_HAND_SHARE * CARD_VALUE[Kind.SUD_SPOUT]})
    if part == Part.SPOUTED_GUB:
        return {actor: gub_in_hand}
    return {}


def _merge(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    """Sum two per-seat deltas (the actor may also be the target)."""
    out = dict(a)
    for seat, change in b.items():
        out[seat] = out.get(seat, 0.0) + change
    return out


def event_delta(view: View, event: int, drawer: int) -> float:
    """Change in standing if ``event``, drawn by ``drawer``, takes effect (the last Letter included)."""
    if event in LETTERS:
        if view.letters < 2:
            return 0.0
        return END_STAKE if view.winning() else -END_STAKE
    free = view.free_worth
    n = view.n
    if event == Kind.DANGEROUS_ALCHEMY:
        return view.gain({drawer: -(view.worth[drawer] - ELDER_WORTH * view.elder[drawer])})
    if event == Kind.FLASH_FLOOD:
        return view.gain({s: -free * view.free[s] for s in range(n)})
    if event == Kind.RUMOR_OF_WASPS:
        toad = view.barricade_worth(Kind.TOAD_RIDER)
        return view.gain({s: -toad * view.protected[s][1] for s in range(n)})
    if event == Kind.GARGOK_PLAGUE:
        delta = {s: -HAND_CARD_WORTH * view.hand_sizes[s] for s in range(1, n)}
        if view.hand[Kind.AGE_OLD_CURE]:
            delta[0] = -ANSWER_COST[Kind.AGE_OLD_CURE]  # the own hand is saved, at the cost of the Cure
        elif view.hand[Kind.CRICKET_SONG]:
            delta[0] = -ANSWER_COST[Kind.CRICKET_SONG]
        else:
            delta[0] = -hand_value(view)
        return view.gain(delta)
    if event == Kind.TRAVELING_MERCHANT:
        # The own hand but its best card goes to the previous seat; the next seat's comes here.
        kept = max((card_value(view, k) for k, c in enumerate(view.hand) if c), default=0.0)
        given = hand_value(view) - kept
        received = HAND_CARD_WORTH * max(0, view.hand_sizes[1] - 1)
        delta = {0: received - given, n - 1: given}
        if n == 2:
            delta[1] -= received  # the one opponent is both the giver and the receiver
        return view.gain(delta)
    return 0.0


# --- one scoring function per decision --------------------------------------------------------------------


def score_draw(view: View, action: Action) -> float:
    """Draw, unless the top card is more likely to hurt than help, in chances of winning.

    Declining gives up the card a draw brings. Drawing risks the Events still in the deck: the last
    Letter ends the game (welcome when winning, fatal when behind) and Dangerous Alchemy wipes the own
    side. Measured in chances of winning, a player far ahead gains little from one more card and has
    much to lose, so the leader declines more readily.
    """
    if action.op is Op.DECLINE:
        return 0.0
    now = view.standing(view.worth)
    base = win_chance(now)
    ending = (1.0 if view.winning() else 0.0) - base
    flop_cost = ANSWER_COST[Kind.FLOP_BOAT] if view.hand[Kind.FLOP_BOAT] or view.hand[Kind.CRICKET_SONG] else None
    if view.known_top >= 0:
        chances = {view.known_top: 1.0}
    else:
        deck = max(1, view.deck)  # Events never stay in a hand: every unseen one is in the deck
        chances = {e: view.unseen[e] / deck for e in _EVENT_KINDS - set(LETTERS) if view.unseen[e]}
        if view.letters == 2:
            chances[Kind.LETTER_G] = 1 / deck  # one Letter is left, whichever it is
    value = 0.0
    for kind, chance in chances.items():
        if kind in LETTERS:
            change = ending if view.letters == 2 else 0.0
        elif kind in _EVENT_KINDS:
            change = win_chance(now + event_delta(view, kind, 0)) - base
        else:
            continue
        if flop_cost is not None:
            change = max(change, win_chance(now - flop_cost) - base)  # it can be flopped
        value += chance * change
    card_chance = 1.0 - sum(c for k, c in chances.items() if k in _EVENT_KINDS)
    return value + card_chance * (win_chance(now + DRAW_GAIN) - base)


def win_chance(standing: float) -> float:
    """A rough chance of winning from a standing: a logistic curve."""
    return 1.0 / (1.0 + math.exp(-standing / WIN_SCALE))


_Field = TypeVar("_Field")


def _given(value: _Field | None) -> _Field:
    """An optional field of an action that the step being scored always sets (the engine builds it so)."""
    if value is None:
        raise ValueError("the action lacks a field its decision always has")
    return value


def score_play(view: View, action: Action) -> float:
    """A play is worth the change in standing it makes, plus follow-ups, minus the card's hold value.

    Plays that only help opponents (Spear or Sud Spout on the own Gubs, Lightning on the own Elder,
    removing the own Barricade) come out negative, so "Go" (scored 0) beats them.
    """
    if action.op is Op.END_TURN:
        return 0.0
    return _play_gain(view, action) - view.hold(_given(action.card))


def _play_gain(view: View, action: Action) -> float:
    """Change in standing that a play-step use makes, the own hand's follow-ups included."""
    use = _given(action.use)
    if use == Use.RING:
        return _ring_gain(view, RING_SIZE[_given(action.as_kind)])
    if use == Use.SHATTER:
        return view.gain({0: view.free_worth * RING_SIZE[_given(action.detail)]})  # the Ring's Gubs come here
    if use == Use.RETREAT:
        return _retreat_gain(view)
    if use == Use.SCOUT_HAND:
        return SCOUT_HAND_GAIN
    if use == Use.SCOUT_DECK:
        return SCOUT_DECK_ENDGAME_GAIN if view.letters == 2 else SCOUT_DECK_GAIN
    if use == Use.RETRIEVE:
        return view.gain({0: CARD_TO_HAND_SHARE * CARD_VALUE[Kind.GUB]})
    detail: int
    if use == Use.ENTER:
        detail = _given(action.card)
    elif use == Use.PROTECT:
        detail = _given(action.as_kind)
    else:
        detail = -1 if action.detail is None else action.detail
    seat = -1 if action.seat is None else action.seat
    part = -1 if action.part is None else action.part
    return view.gain(play_delta(view, use, 0, seat, part, detail)) + _follow_up_bonus(view, use, seat)


def _follow_up_bonus(view: View, use: int, seat: int) -> float:
    """Stripping Barricades pays when the hand can take the bared Gubs right after."""
    if use not in (Use.CYCLONE, Use.REMOVE) or seat <= 0 or view.free[seat]:
        return 0.0
    takers = view.hand[Kind.LURE] + view.hand[Kind.SPEAR] + view.hand[Kind.SUD_SPOUT]
    return FOLLOW_UP_BONUS if takers else 0.0


def _ring_gain(view: View, size: int) -> float:
    """A Ring's worth: the best ``size`` picks in turn, plus the chance to free its Gubs later."""
    free = view.free[:]
    worth = view.worth[:]
    for _ in range(size):
        seat = _best_pick(view, worth, free)
        free[seat] -= 1
        worth[seat] -= view.free_worth
    gain = view.standing(worth) - view.standing(view.worth)
    if view.hand[Kind.RETREAT] or view.hand[Kind.HAKI_FLUTE]:
        gain += RING_ON_OWN_SIDE_BONUS * size
    return gain


def _best_pick(view: View, worth: list[float], free: list[int]) -> int:
    """The seat whose Free Gub it helps most to trap (never the own unless nothing else is left)."""
    best, best_gain = 0, _NO_VALUE
    for seat in range(view.n):
        if free[seat] <= 0:
            continue
        worth[seat] -= view.free_worth
        gain = view.standing(worth)
        worth[seat] += view.free_worth
        if gain > best_gain:
            best, best_gain = seat, gain
    return best


def _retreat_gain(view: View) -> float:
    """Retreat pays for Rings and Sud Spouts on the own side.

    Their Gubs stay on the side, Free (scoring again), and the cards come back to be played again.
    """
    ring_gubs = sum(size * here for size, here in zip(_RING_SIZES, view.rings[0], strict=True))
    spouts = view.spouted[0]
    if not ring_gubs and not spouts:
        return -1.0
    cards = sum(CARD_TO_HAND_SHARE * CARD_VALUE[r] for r, here in zip(RINGS, view.rings[0], strict=True) if here)
    cards += spouts * CARD_TO_HAND_SHARE * CARD_VALUE[Kind.SUD_SPOUT]
    return view.gain({0: view.free_worth * (ring_gubs + spouts) + cards})


def score_cancel(view: View, action: Action) -> float:
    """Cancel a Hazard or Trap when the harm it does to the own standing exceeds the answer's cost."""
    if action.op is Op.PASS:
        return 0.0
    delta = play_delta(
        view, view.pending_use, view.pending_by, view.pending_target, view.pending_part, view.pending_detail
    )
    harm = -view.gain(delta)
    if delta.get(0, 0.0) >= 0:
        harm -= FOREIGN_HARM_MARGIN  # only others are hit: they may still answer it themselves
    cost = ANSWER_COST[_given(action.card)] * HOLD_DECAY[min(view.letters, 2)]
    return harm - cost - _super_lure_reserve(view)


def _super_lure_reserve(view: View) -> float:
    """Extra cost of spending the last answer that could stop a Super Lure still to come.

    A Super Lure empties a whole side into the attacker's, so with a big side and one still unseen,
    the last Feather (or Blindfold) is kept for it rather than spent on a single Lure.
    """
    if view.pending_as == Kind.SUPER_LURE:
        return 0.0
    answers = view.hand[Kind.FEATHER] + view.hand[Kind.BLINDFOLD] + view.hand[Kind.CRICKET_SONG]
    if answers > 1:
        return 0.0
    threat = view.unseen[Kind.SUPER_LURE] + 0.5 * view.unseen[Kind.CRICKET_SONG]
    if not threat:
        return 0.0
    return SUPER_LURE_RESERVE * min(1.0, threat * SUPER_LURE_REACH) * -view.gain(_super_lure_on_me(view))


def _super_lure_on_me(view: View) -> dict[int, float]:
    """What a Super Lure from the leading opponent against the own side would do."""
    leader = max(range(1, view.n), key=lambda s: view.worth[s])
    return play_delta(view, Use.SUPER_LURE, leader, 0, -1, -1)


def score_flop(view: View, action: Action) -> float:
    """Flop a drawn Event when letting it happen would cost more than the answer card."""
    if action.op is Op.PASS:
        return 0.0
    harm = -event_delta(view, view.pending_card, view.pending_by)
    return harm - ANSWER_COST[_given(action.card)]


def score_cure(view: View, action: Action) -> float:
    """Keep the hand through Gargok Plague when what stays is worth more than the Cure spent."""
    if action.op is Op.PASS:
        return 0.0
    card = _given(action.card)
    kept = hand_value(view) - card_value(view, card)
    return SAVE_SHARE * kept - ANSWER_COST[card]


def score_keep(view: View, action: Action) -> float:
    """Traveling Merchant: keep the most valuable card, the rest goes to the previous seat."""
    return card_value(view, _given(action.detail))


def score_discard(view: View, action: Action) -> float:
    """Over the hand limit: throw away the least useful card."""
    return -card_value(view, _given(action.detail))


def score_pick(view: View, action: Action) -> float:
    """Ring: trap the Gub whose loss helps the own standing most (the leader's; the own only if forced)."""
    seat = _given(action.seat)
    worth = view.worth[:]
    for s, picks in enumerate(view.ring_picks):
        worth[s] -= view.free_worth * picks
    worth[seat] -= view.free_worth
    return view.standing(worth)


def score_retreat(view: View, action: Action) -> float:
    """Retreat: take Rings and Sud Spouts back (their Gubs stay, Free), then stop.

    Other cards are only taken when something must be: a lone Barricade costs the least.
    """
    if action.op is Op.STOP:
        return 0.0
    part = action.part
    if part == Part.RING:
        return 2.0 + RING_SIZE[_given(action.detail)]
    if part == Part.SPOUT:
        return 1.0
    if part == Part.BARRICADE:
        return -1.0
    return -2.0


def score_scout(view: View, action: Action) -> float:
    """Scout: order the top cards for whoever will draw them (the next seat draws the first)."""
    kind = _given(action.detail)
    drawer = (1 + view.scout_placed) % view.n
    if kind in _EVENT_KINDS:
        if kind in LETTERS and view.letters < 2:
            return 0.0
        return event_delta(view, kind, drawer)
    value = card_value(view, kind)
    return value if drawer == 0 else -OPPONENT_CARD_SHARE * value


SCORERS: dict[int, Callable[[View, Action], float]] = {
    Step.DRAW: score_draw,
    Step.PLAY: score_play,
    Step.DISCARD: score_discard,
    Step.CANCEL: score_cancel,
    Step.FLOP: score_flop,
    Step.CURE: score_cure,
    Step.KEEP: score_keep,
    Step.RING: score_pick,
    Step.RETREAT: score_retreat,
    Step.SCOUT: score_scout,
}


class HeuristicAgent(Agent):
    """Scores every legal id with hand-written rules and plays the best one."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The legal id with the highest score; equal scores are split by the generator."""
        ids = legal_ids(action_mask).tolist()
        if len(ids) == 1:
            return ids[0]
        view = View(observation)
        scorer = SCORERS[view.step]
        scores = [scorer(view, TEMPLATES[i]) for i in ids]
        best = max(scores)
        top = [i for i, s in zip(ids, scores, strict=True) if s >= best - 1e-9]
        return top[0] if len(top) == 1 else int(top[self.rng.integers(len(top))])
