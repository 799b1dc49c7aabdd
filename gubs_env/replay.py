"""Replay a saved game record and check that it reaches the recorded final state.

Usage: ``python -m gubs_env.replay FILE [--view SEAT] [--quiet]``. Exits with 1 and a message when the file
cannot be read, is not a record, or does not replay to its recorded result.
"""

from __future__ import annotations

import argparse
import sys

from gubs_env.record import GameRecord, RecordError, replay
from gubs_env.transcript import transcript


def main(argv: list[str] | None = None) -> int:
    """Replay FILE: print each action and what it did, then the result and whether it matches."""
    parser = argparse.ArgumentParser(prog="python -m gubs_env.replay", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a JSON game record")
    parser.add_argument("--view", type=int, default=None, help="also show the private facts this seat saw")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    args = parser.parse_args(argv)
    try:
        record = GameRecord.load(args.file)
        if args.view is not None and not 0 <= args.view < record.num_players:
            raise RecordError(f"--view must be a seat from 0 to {record.num_players - 1}")
        game = replay(record)
    except (OSError, RecordError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if not args.quiet:
        seats = ", ".join(f"seat {i}: {name}" for i, name in enumerate(record.players))
        print(f"{record.num_players} players ({seats}), seed {record.seed}, options {record.options}")
        # not game.history(): its action texts would show every seat's hidden choices (cards kept, Scout orders)
        print("\n".join(transcript(game.log, args.view, record.players)))
        print("\n" + game.render(args.view))
    winners = game.winners()
    if not game.is_over:
        print(f"The game was left unfinished on turn {game.state.turn}.")
    print(f"Scores: {game.scores()}  winners: {winners or 'none'}  ({len(record.actions)} actions)")
    print("The replay reaches the recorded final state." if record.result else "The record has no result to check.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
