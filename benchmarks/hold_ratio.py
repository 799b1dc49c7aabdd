"""``python benchmarks/hold_ratio.py``: the search's hold ratios measured again over two-player heuristic games.

How much more often each card kind sits in the other hand than among the cards a seat has not seen, counted at
draw and play steps: what :data:`agents.bots.search.belief.HOLD_RATIO` holds (docs/search_bots.md).
"""

from __future__ import annotations

import sys

import numpy as np

from agents.bots.heuristic import HeuristicAgent
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.engine.cards import CARDS, NUM_KINDS
from gubs_env.engine.positions.determinize import knowledge, unknown_counts
from gubs_env.engine.state import Step
from gubs_env.support.cli import CommandParser, add_progress_argument, non_negative_int, positive_int, run_command
from gubs_env.support.progress import progress_bar


def measure(games: int = 150, seed: int = 0, progress: bool | None = None) -> dict[str, float]:
    """The hold ratios over ``games`` two-player heuristic games (at draw and play steps), by card name.

    ``progress``: a bar over the games on stderr (None: when stderr is a terminal).
    """
    shown = sys.stderr.isatty() if progress is None else progress
    in_hand = np.zeros(NUM_KINDS)
    unseen = np.zeros(NUM_KINDS)
    codec = ActionCodec(2)
    for g in progress_bar(range(seed, seed + games), desc="games", unit="game", disable=not shown):
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


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(
        prog="python benchmarks/hold_ratio.py",
        description="Measure again how much more often each card kind sits in the other hand than among the cards "
        "a seat has not seen (the search's HOLD_RATIO), over two-player heuristic games.",
    )
    parser.add_argument("--games", type=positive_int, default=150, help="games to play (default: 150)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print :data:`~agents.bots.search.belief.HOLD_RATIO` measured again, card by card."""
    args = build_parser().parse_args(argv)
    for name, value in measure(args.games, args.seed, not args.no_progress).items():
        print(f"{name:20s} {value:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
