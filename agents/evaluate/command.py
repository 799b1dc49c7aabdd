"""``python -m agents.evaluate``: a round robin between agents, with win rates, a payoff matrix and ratings."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from gubs_env.support.cli import EXIT_FAILURE, EXIT_OK, unwritable_file, unwritable_folder

PROG = "python -m agents.evaluate"


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluate A B [C ...]``: a tournament, each agent against a field of each other.

    Prints a line per pairing, then the pairings table, the payoff matrix and the ratings; ``--out DIR`` also
    writes tournament.csv, tournament.json and tournament.png, ``--records DIR`` every game as a JSON record.
    Exit status (see :mod:`gubs_env.support.cli`): 0 done; 2, with one line on stderr, for bad input (an agent that
    cannot be built, a model file that cannot be loaded, an output folder that cannot be written) before
    anything is played or written; 1 when an output cannot be written after all; 130 after Ctrl-C.
    """
    from agents.bots.spec import AgentSpecError
    from agents.evaluate.tournament import run_tournament

    parser = _parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)
    deals = math.ceil(args.games / args.players)
    try:
        result = run_tournament(
            args.agents,
            num_players=args.players,
            deals=deals,
            seed=args.seed,
            jobs=args.jobs,
            progress=sys.stderr.isatty(),
            records_dir=args.records,
            fields=args.fields,
        )
    except AgentSpecError as err:  # raised while the agents are built, before any game
        parser.error(str(err))
    except OSError as err:  # a game record that could not be written after all (a full disk)
        return _failed(f"cannot write the game records: {err}")
    saved = []
    if args.out is not None:  # before printing: a reader that leaves early (``| head``) must not cost the files
        try:
            saved = result.save(args.out)
        except OSError as err:
            return _failed(f"cannot write the results to {args.out}: {err}")
    if result.games_per_pairing != args.games:
        print(
            f"--games {args.games} rounded up to {result.games_per_pairing} games per pairing: "
            f"whole deals of {args.players} games, one with the agent at each seat"
        )
    print("\n".join(p.summary() for p in result.pairings), end="\n\n")
    print(result.table())
    if saved:
        print("\nwrote " + ", ".join(str(path) for path in saved))
    if args.records is not None:
        print(f"wrote {len(result.games)} game records to {args.records}")
    return EXIT_OK


def _failed(message: str) -> int:
    """Report a failure met while running on one stderr line; returns :data:`~gubs_env.support.cli.EXIT_FAILURE`."""
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_FAILURE


def _parser() -> argparse.ArgumentParser:
    from gubs_env.support.cli import CommandParser, add_deal_arguments, positive_int

    parser = CommandParser(prog=PROG, description=main.__doc__)
    parser.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="two or more of: random, heuristic, heuristic-tuned, gubs-net, ppo-2p, ppo-4p (add :sample to sample "
        "the policy), search (search:worlds=64,top=4,...), ismcts, a .zip or .npz model, a .json heuristic weight "
        "set, package.module:Class",
    )
    add_deal_arguments(parser, games=2000, per="pairing")
    parser.add_argument(
        "--fields",
        nargs="+",
        metavar="AGENT",
        help="play only against a field of these (each one of the AGENTs): e.g. --fields heuristic measures "
        "every agent against heuristics without the tables where a costly agent fills every other seat",
    )
    parser.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="write tournament.csv, .json and .png into this folder")
    parser.add_argument(
        "--records", type=Path, metavar="DIR", help="save every game as a JSON game record into this folder"
    )
    return parser


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Argparse-style errors for what the argument types cannot see."""
    from agents.bots.spec import AgentSpecError, index_of, parse_distinct

    if len(args.agents) < 2:
        parser.error(f"give at least two agents to compare, got {len(args.agents)}")
    try:
        specs = parse_distinct(args.agents)
    except AgentSpecError as err:
        parser.error(str(err))
    strangers = [field for field in args.fields or [] if index_of(field, specs) is None]
    if strangers:
        parser.error(f"--fields takes agents given to compare; not among them: {', '.join(strangers)}")
    for flag, folder in (("--out", args.out), ("--records", args.records)):
        problem = folder is not None and unwritable_folder(folder)
        if problem:
            parser.error(f"{flag}: {problem}")
    if args.out is not None:
        from agents.evaluate.tournament import CSV_NAME, JSON_NAME, PNG_NAME

        for name in (CSV_NAME, JSON_NAME, PNG_NAME):
            problem = unwritable_file(args.out / name)
            if problem:
                parser.error(f"--out: {problem}")
