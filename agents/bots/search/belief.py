"""What the search bot believes about the other hands: not uniform, because players keep some cards and spend others.

The engine's sampler (:meth:`Game.resample`) deals the unseen cards uniformly: it uses no inference from how
the others have played. But a player who plays Gubs and Barricades at once and keeps Feathers, Flop Boats and
Blindfolds for later has a hand that looks nothing like a uniform draw from the unseen cards: measured over
heuristic games, an opponent's hand holds Flop Boats, Feathers and Blindfolds about three times as often as
uniform dealing would put them there, and Gubs a twelfth as often. Playouts in uniform worlds then meet
defenceless opponents and overrate attacks.

:data:`HOLD_RATIO` is that measurement: per kind, its share among the cards in another player's hand divided by
its share among all the cards that player's opponent cannot see (``python -m agents.bots.search.belief``
measures it again). :func:`reweight_hands` moves a uniform world toward it by Metropolis swaps between the other
hands and the hidden deck, each accepted with the ratio of the two cards' weights. The hands then follow the
uniform deal weighted by the product of ``HOLD_RATIO[kind] ** strength`` over the cards held, and everything the
searching seat knows stays as it is: its own hand, the known top of the deck, an asked seat's answer card, the
Events and Letters in the deck.
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np

from gubs_env.engine.cards import NUM_KINDS, Kind
from gubs_env.engine.positions.determinize import Knowledge, answer_queue
from gubs_env.engine.rules import cancel_answers, cure_answers, flop_answers
from gubs_env.engine.state import GameState, Step

HOLD_RATIO: dict[Kind, float] = {
    Kind.FLOP_BOAT: 3.63,
    Kind.OMEN_BEETLE: 3.21,
    Kind.TRIPLE_RING: 3.11,
    Kind.FEATHER: 2.98,
    Kind.HAKI_FLUTE: 2.94,
    Kind.BLINDFOLD: 2.85,
    Kind.RETREAT: 2.24,
    Kind.DOUBLE_RING: 2.09,
    Kind.CYCLONE: 1.55,
    Kind.SUD_SPOUT: 1.45,
    Kind.SINGLE_RING: 1.28,
    Kind.AGE_OLD_CURE: 1.11,
    Kind.MUSHROOM: 1.10,
    Kind.VELVET_MOTH: 1.06,
    Kind.LURE: 0.94,
    Kind.SPEAR: 0.94,
    Kind.TOAD_RIDER: 0.69,
    Kind.LIGHTNING: 0.62,
    Kind.SUPER_LURE: 0.55,
    Kind.SMAHL_THIEF: 0.31,
    Kind.CRICKET_SONG: 0.09,
    Kind.GUB: 0.08,
    Kind.ELDER: 0.07,
    Kind.SCOUT: 0.03,
}
"""Per kind: how much more often than uniform dealing an opponent's hand holds it (two-player heuristic games,
``python -m agents.bots.search.belief``). Kinds not listed (Events) never sit in a hand."""

SWAPS_PER_CARD = 4
"""Metropolis steps per card in the other hands: enough for the hands to forget the uniform start."""

_TOP_KEPT = 3
"""The top cards of the deck are never swapped: a Scout may have shown them, or be placing them now."""


def _weights(strength: float) -> np.ndarray:
    weights = np.ones(NUM_KINDS)
    for kind, ratio in HOLD_RATIO.items():
        weights[int(kind)] = ratio**strength
    return weights


def _answers(st: GameState, seat: int) -> bool:
    """Whether ``seat`` holds a card that answers the open window (True when no window asks it)."""
    pend = st.pending
    if seat != pend.actor or pend.step not in (Step.CANCEL, Step.FLOP, Step.CURE):
        return True
    hand = st.hands[seat]
    if pend.step is Step.CANCEL:
        assert pend.play is not None  # a cancel window is always about a play
        return bool(cancel_answers(hand, pend.play))
    return bool(flop_answers(hand) if pend.step is Step.FLOP else cure_answers(hand))


def _card_at(hand: list[int], index: int) -> int:
    """The kind of the ``index``-th card of a hand held as counts."""
    for kind, count in enumerate(hand):
        index -= count
        if index < 0:
            return kind
    raise IndexError("no such card in the hand")


def reweight_hands(st: GameState, known: Knowledge, strength: float, seed: int) -> None:
    """Move the other hands of world ``st`` toward :data:`HOLD_RATIO` (in place); see the module docstring.

    Worlds at a Traveling Merchant choice are left uniform: a hidden keep names a card of its seat's hand.
    """
    if strength == 0 or st.pending.step is Step.KEEP:
        return
    weights = _weights(strength)
    rnd = random.Random(seed)
    others = [s for s in range(st.num_players) if s != known.viewer and sum(st.hands[s]) > 0]
    hidden = len(st.deck) - max(_TOP_KEPT, len(known.seen_top))
    deck_slots = [i for i in range(hidden) if weights[st.deck[i]] > 0 and st.deck[i] < Kind.LETTER_G]
    if not others or not deck_slots:
        return
    held = sum(sum(st.hands[s]) for s in others)
    for _ in range(SWAPS_PER_CARD * held):
        seat = rnd.choice(others)
        hand = st.hands[seat]
        out_kind = _card_at(hand, rnd.randrange(sum(hand)))
        slot = rnd.choice(deck_slots)
        in_kind = st.deck[slot]
        if in_kind == out_kind or rnd.random() * weights[out_kind] >= weights[in_kind]:
            continue
        hand[out_kind] -= 1
        hand[in_kind] += 1
        if not _answers(st, seat):  # the asked seat must keep an answer
            hand[in_kind] -= 1
            hand[out_kind] += 1
            continue
        st.deck[slot] = out_kind
    st.pending.queue = answer_queue(known, st)
    for s in range(st.num_players):  # other seats' records of a scouted hand follow the hand they looked at
        seen = st.seen_hand[s]
        if s != known.viewer and seen is not None:
            st.seen_hand[s] = (seen[0], st.hands[seen[0]][:])


def measure(games: int = 150, seed: int = 0, progress: bool | None = None) -> dict[str, float]:
    """:data:`HOLD_RATIO` measured again over ``games`` two-player heuristic games (at draw and play steps).

    ``progress``: a bar over the games on stderr (None: when stderr is a terminal).
    """
    from tqdm import tqdm

    from agents.bots.heuristic import HeuristicAgent
    from gubs_env.encoding.action_table import ActionCodec
    from gubs_env.encoding.observation import encode
    from gubs_env.engine import Game
    from gubs_env.engine.cards import CARDS
    from gubs_env.engine.positions.determinize import knowledge, unknown_counts

    shown = sys.stderr.isatty() if progress is None else progress
    in_hand = np.zeros(NUM_KINDS)
    unseen = np.zeros(NUM_KINDS)
    codec = ActionCodec(2)
    for g in tqdm(range(seed, seed + games), desc="games", unit="game", disable=not shown):
        game = Game(2, seed=g, record_log=False)
        agents = [HeuristicAgent(7 * g + s) for s in range(2)]
        while (seat := game.current_player) is not None:
            if game.pending.step in (Step.DRAW, Step.PLAY):
                in_hand += game.state.hands[1 - seat]
                unseen += unknown_counts(knowledge(game.state, seat))
            observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
            game.apply(codec.action(agents[seat].act(observation, mask), seat))
    ratio = (in_hand / in_hand.sum()) / np.maximum(unseen / unseen.sum(), 1e-12)
    return {CARDS[k].name: round(float(ratio[k]), 2) for k in np.argsort(-ratio) if in_hand[k] > 0}


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from gubs_env.support.cli import CommandParser, add_progress_argument, non_negative_int, positive_int

    parser = CommandParser(
        prog="python -m agents.bots.search.belief",
        description="Measure again how much more often each card kind sits in the other hand than among the cards "
        "a seat has not seen (the search's HOLD_RATIO), over two-player heuristic games.",
    )
    parser.add_argument("--games", type=positive_int, default=150, help="games to play (default: 150)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.bots.search.belief``: print :data:`HOLD_RATIO` measured again, card by card."""
    args = build_parser().parse_args(argv)
    for name, value in measure(args.games, args.seed, False if args.no_progress else None).items():
        print(f"{name:20s} {value:5.2f}")
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
