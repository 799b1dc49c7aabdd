"""Blunders: choices a Gubs player would call mistakes, each defined from the position and the chosen action.

A kind is flagged only where the choice is beaten in every way the rules let a player care about: it costs the
player a Gub, the Elder or cards for certain, and an alternative open to them at that decision (or, for a discard
at the hand limit, a moment earlier in the same turn) keeps what it throws away and gives up nothing else. A choice
that trades a certain loss for a guessed gain is a tactic, not a blunder, and no kind flags it: hiding one's own
Gub under one's own Sud Spout from a Lure one fears, saving a Feather for a bigger threat than the one on the table,
holding Gubs in hand where no Lure, Spear or Flash Flood can reach them. docs/evaluation.md ("Blunder audit")
gives each definition with its argument, and says which candidate kinds were left out and why.

A decision with one legal action is no choice and is never flagged: its blunder, if any, was made earlier (the
``gub-discarded`` kind flags the "Go" that makes a Gub's discard certain).

>>> from gubs_env.engine import Game
>>> from gubs_env.engine.positions import position
>>> game = Game.from_dict(position(hands=[{"Sud Spout": 1}, {}], sides=[{"free": 1}, {"free": 1}]))
>>> [(str(a), blunders(game, a)) for a in game.legal_actions()]
[('Sud Spout → seat 0', ('own-trap',)), ('Sud Spout → seat 1', ()), ('Go (end turn)', ())]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gubs_env.engine import Action, Game, GameState, Kind, Op, Step, Use
from gubs_env.engine.cards import COPIES, HAND_LIMIT
from gubs_env.engine.rules import cancel_answers, cure_answers

GUB_CARDS = (Kind.GUB, Kind.ELDER)
"""The cards that score when played: a plain Gub and the Esteemed Elder."""
ELDER_STRIKERS = (Kind.LIGHTNING, Kind.CRICKET_SONG)
"""The only cards that can remove the Elder from play: Lightning, and Cricket Song played as Lightning."""


@dataclass(frozen=True)
class BlunderKind:
    """One kind of blunder: its name in tables, what it is in one line, and its test."""

    name: str
    summary: str
    committed_by: Callable[[Game, Action], bool]
    """Whether ``action``, taken by the player to act in ``game`` (the position before it), is this blunder."""


def _free_gub_elsewhere(state: GameState, seat: int, picked: Sequence[int] = ()) -> bool:
    """Whether a side other than ``seat``'s has a Free Gub that the Ring's ``picked`` seats have not yet taken."""
    return any(side.free > picked.count(s) for s, side in enumerate(state.sides) if s != seat)


def traps_own_gub(game: Game, action: Action) -> bool:
    """A Sud Spout on one's own Gub, or a Ring's pick of one's own Gub, while an opponent's Free Gub was there to take.

    The same card on the opponent's Gub costs them the point instead of oneself (R4, R12: a trap may take a Free Gub
    on any side; a Ring sits on its player's side whichever Gubs it holds).
    """
    state = game.state
    seat = state.pending.actor
    if action.seat != seat:
        return False
    if action.op is Op.PLAY and action.use is Use.SPOUT:
        return _free_gub_elsewhere(state, seat)
    if action.op is Op.PICK:
        return _free_gub_elsewhere(state, seat, state.pending.picks)
    return False


def kills_own_gub(game: Game, action: Action) -> bool:
    """A Spear's kill of one's own Free Gub while an opponent had one; or Lightning on one's own Elder.

    Spear may kill on any side (R10), so the kill could have cost an opponent the point. The Elder is immune to
    everything but Lightning (R18), so striking one's own guards it from nothing and loses its point and its tie-break.
    """
    if action.op is not Op.PLAY:
        return False
    state = game.state
    seat = state.pending.actor
    if action.use is Use.KILL:
        return action.seat == seat and _free_gub_elsewhere(state, seat)
    return action.use is Use.STRIKE_ELDER and bool(state.sides[seat].elder)


def throws_hand_away(game: Game, action: Action) -> bool:
    """A pass that loses the whole hand when one card of it would have kept the rest.

    Passing on a Lightning hand strike aimed at oneself (the hand is discarded) or on Gargok Plague (the hand goes
    into the deck) while holding the answer and at least one other card: the answer is lost with the hand anyway,
    so keeping it back saves nothing, and answering keeps every other card (R5, R11).
    """
    if action.op is not Op.PASS:
        return False
    state = game.state
    pending = state.pending
    seat = pending.actor
    hand = state.hands[seat]
    if state.hand_size(seat) < 2:
        return False
    if pending.step is Step.CURE:
        return bool(cure_answers(hand))
    played = pending.play
    return (
        pending.step is Step.CANCEL
        and played is not None
        and played.use is Use.STRIKE_HAND
        and played.seat == seat
        and bool(cancel_answers(hand, played))
    )


def throws_gub_away(game: Game, action: Action) -> bool:
    """Discarding a Gub or the Elder at the hand limit, where it could have been played before "Go".

    Playing it before "Go" would have put it on the side and made this discard unnecessary (a Gub's play is always
    legal, and the limit is checked only after "Go": R14). Flagged on the discard of a Gub while the cards still
    to discard could all be other cards, and on the "Go" itself when more cards must go than the hand holds cards
    other than Gubs, so that a Gub's discard is already certain.
    """
    state = game.state
    seat = state.pending.actor
    hand = state.hands[seat]
    size = state.hand_size(seat)
    over_limit = size - HAND_LIMIT
    not_gubs = size - sum(hand[k] for k in GUB_CARDS)
    if action.op is Op.DISCARD:
        return action.detail in GUB_CARDS and not_gubs >= over_limit
    return action.op is Op.END_TURN and over_limit > not_gubs


def holds_untouchable_elder(game: Game, action: Action) -> bool:
    """Saying "Go" with the Elder in hand once every card that could strike it is in the discard pile.

    With Lightning and Cricket Song both discarded, nothing can ever remove the Elder from play (R16-R18), while in
    hand it scores nothing and can still be lost (a Plague, a Traveling Merchant, the third Letter).
    """
    if action.op is not Op.END_TURN:
        return False
    state = game.state
    holds = state.hands[state.pending.actor][Kind.ELDER] > 0
    return holds and all(state.discard[k] == COPIES[k] for k in ELDER_STRIKERS)


def _same_effect(one: Action, other: Action) -> bool:
    """Whether two plays do the same thing: the same use on the same target (Feather and Blindfold both cancel)."""
    return (one.use, one.seat, one.part, one.detail) == (other.use, other.seat, other.part, other.detail)


def wastes_wild_card(game: Game, action: Action) -> bool:
    """Cricket Song played for an effect that another card in the hand offers at the same decision.

    Cricket Song can do whatever that card does and more (FAQ 3, R21), so the card kept is the weaker one.
    """
    if action.op is not Op.PLAY or action.card is not Kind.CRICKET_SONG:
        return False
    return any(
        other.op is Op.PLAY and other.card is not Kind.CRICKET_SONG and _same_effect(other, action)
        for other in game.legal_actions()
    )


BLUNDER_KINDS: tuple[BlunderKind, ...] = (
    BlunderKind("own-trap", "trapped an own Gub while an opponent's Free Gub could be taken", traps_own_gub),
    BlunderKind("own-kill", "speared an own Gub while an opponent had one, or struck the own Elder", kills_own_gub),
    BlunderKind("hand-thrown", "let a hand strike or Plague take the hand while holding its answer", throws_hand_away),
    BlunderKind("gub-discarded", "discarded a Gub or the Elder it could have played before Go", throws_gub_away),
    BlunderKind("elder-held", "ended the turn holding the Elder when nothing can strike it", holds_untouchable_elder),
    BlunderKind("wild-wasted", "played Cricket Song where a card of the hand did the same", wastes_wild_card),
)
"""Every kind the audit counts, in table order."""

KIND_NAMES: tuple[str, ...] = tuple(kind.name for kind in BLUNDER_KINDS)


def blunders(game: Game, action: Action) -> tuple[str, ...]:
    """The names of the kinds that ``action`` commits at ``game``'s current decision (empty for a clean choice).

    A decision with a single legal action is no choice: nothing is flagged there.
    """
    if len(game.legal_actions()) < 2:
        return ()
    return tuple(kind.name for kind in BLUNDER_KINDS if kind.committed_by(game, action))


def chances(game: Game) -> tuple[str, ...]:
    """The names of the kinds that some legal action of ``game``'s current decision would commit."""
    legal = game.legal_actions()
    if len(legal) < 2:
        return ()
    return tuple(kind.name for kind in BLUNDER_KINDS if any(kind.committed_by(game, a) for a in legal))
