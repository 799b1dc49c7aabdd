"""Replay a saved game record and check that it reaches the recorded final state.

Usage: ``python -m gubs_env.replay FILE [--seat SEAT] [--quiet]`` (or ``gubs-replay FILE ...``).
Exit status (:mod:`gubs_env.support.cli`): 0 when
the record replays to its recorded result; 1, with one ``error:`` line, when the file cannot be read, is too
large, is not a record, or does not replay to its recorded result; 2 for a bad command line (a ``--seat``
the record does not have included); 130 after Ctrl-C; 141 when the reader closes the output early.
``--html PAGE [--seat SEAT|all]`` writes a self-contained page that steps through the game instead of the log.
"""

from __future__ import annotations

import sys

from gubs_env.engine import Game
from gubs_env.records.record import GameRecord, RecordError, replay
from gubs_env.records.transcript import transcript
from gubs_env.support.cli import EXIT_OK, CommandParser, failure, run_command
from gubs_env.viz.replay_html import ALL_SEEING, view_choice, write_replay_html

PROG = "python -m gubs_env.replay"


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("file", metavar="FILE", help="a JSON game record")
    parser.add_argument(
        "--seat",
        type=view_choice,
        default=None,
        help="also show the private facts this seat saw; with --html, the view shown first: a seat or all "
        "(default: none; with --html, all)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument(
        "--html",
        metavar="PAGE",
        help="write a self-contained HTML page that steps through the game (default: none, print the log)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Replay FILE: print each action and what it did, then the result and whether it matches."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.view = args.seat
    if args.view == ALL_SEEING and args.html is None:
        parser.error("--seat all applies only with --html")
    try:
        record = GameRecord.load(args.file)
    except RecordError as err:
        return failure(PROG, err, argv)
    if isinstance(args.view, int) and args.view >= record.num_players:
        parser.error(f"--seat must be a seat from 0 to {record.num_players - 1}, not {args.view}")
    try:
        game = replay(record)
    except RecordError as err:
        return failure(PROG, err, argv)
    if args.html is not None:
        try:
            page = write_replay_html(record, args.html, ALL_SEEING if args.view is None else args.view)
        except (OSError, ValueError) as err:  # ValueError: a path the system cannot take
            return failure(PROG, f"cannot write the page {args.html}: {err}", argv)
        print(f"Replay page written to {page}")
    elif not args.quiet:
        _print_game(record, game, args.view)
    if not game.is_over:
        print(f"The game was left unfinished on turn {game.state.turn}.")
    print(f"Scores: {game.scores()}  winners: {game.winners() or 'none'}  ({len(record.actions)} actions)")
    print("The replay reaches the recorded final state." if record.result else "The record has no result to check.")
    return EXIT_OK


def _print_game(record: GameRecord, game: Game, view: int | None) -> None:
    """The table, the log as ``view`` saw it, and the final table."""
    seats = ", ".join(f"seat {i}: {name}" for i, name in enumerate(record.players))
    print(f"{record.num_players} players ({seats}), seed {record.seed}, options {record.options}")
    # not game.history(): its action texts would show every seat's hidden choices (cards kept, Scout orders)
    print("\n".join(transcript(game.log, view, record.players)))
    print("\n" + game.render(view))


def script() -> int:
    """The console script ``gubs-replay``."""
    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
