"""Print one seeded game played by uniformly random players, as every seat saw it.

Usage: ``python -m gubs_env.demo --players 3 --seed 7 --seat 0`` (or ``gubs-demo ...``). Exit status (see
:mod:`gubs_env.support.cli`): 0 when the game was printed; 2 for a bad command line; 130 after Ctrl-C; 141 when
the reader closes the output early.
"""

from __future__ import annotations

import random
import sys

from gubs_env.engine import Game
from gubs_env.support.cli import EXIT_OK, CommandParser, non_negative_int, player_count, run_command


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog="python -m gubs_env.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the game's seed (default: 0)")
    parser.add_argument(
        "--seat", type=non_negative_int, default=None, help="show private facts of this seat too (default: none)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Play and print the game: the table before each turn, then every action and what it did."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.view = args.seat
    if args.view is not None and args.view >= args.players:
        parser.error(f"--seat must be a seat from 0 to {args.players - 1}")
    game = Game(args.players, seed=args.seed)
    pick = random.Random(args.seed)
    while not game.is_over:
        if game.pending.step.name == "DRAW":
            print("\n" + game.render(args.view))
        action = pick.choice(game.legal_actions())
        entry = game.apply(action)
        seen = "; ".join(entry.view(args.view))  # a Ring pick or Retreat take says nothing until it is done
        print(f"  seat {entry.actor}: {entry.action_text(args.view)}" + (f"  ->  {seen}" if seen else ""))
    print("\n" + game.render(args.view))
    print(f"Scores: {game.scores()}  winners: {game.winners()}")
    return EXIT_OK


def script() -> int:
    """The console script ``gubs-demo``."""
    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
