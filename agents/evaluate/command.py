"""``python -m agents.evaluate`` (``gubs-eval``): a round robin with win rates, a payoff matrix and ratings.

Prints a line per pairing, then the pairings table, the payoff matrix and the ratings; with ``--fields``, also each
two agents' paired comparison against those fields (:mod:`agents.evaluate.paired`); ``--out DIR`` also writes
tournament.csv, tournament.json and tournament.png (and paired.txt, the comparisons as printed), ``--records DIR``
every game as a JSON record. With ``--out`` every game is also written to ``DIR/games.jsonl`` as it finishes
(:mod:`agents.evaluate.journal`), and ``--resume`` goes on from it; ``--until`` plays deals in rounds and stops once
its question is answered (:mod:`agents.evaluate.sequential`). Exit status (see :mod:`gubs_env.support.cli`): 0
done; 2, with one line on stderr, for bad input (an agent that cannot be built, a model file that cannot be loaded,
an output folder that cannot be written, a journal that is not this tournament's) before anything is played or
written; 1 when an output cannot be written after all, or when an agent could not play on (a model server that
stayed down: one line, every finished game kept for ``--resume``); 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gubs_env.support.cli import EXIT_OK, failure, run_command, unwritable_file, unwritable_folder

if TYPE_CHECKING:
    from agents.bots.spec import AgentSpec
    from agents.evaluate.luck import LuckSettings
    from agents.evaluate.sequential import StopRule
    from agents.evaluate.tournament import TournamentResult

PROG = "python -m agents.evaluate"
PAIRED_NAME = "paired.txt"
"""The file of ``--out`` that keeps the paired comparisons, as printed."""
DESCRIPTION = """A tournament: each agent against a field of each other, on the same seat-rotated deals. Prints a
line per pairing, the pairings table, the payoff matrix and the ratings. With --fields, also each two agents'
difference of win rates against those fields on the same deals, with its 95% interval over deals: is A better
than B?"""
EPILOG = """Exit status: 0 done; 2 bad command line, agent or journal (before any game); 1 an output that could not
be written after all, or an agent that could not play on (every finished game kept: --resume); 130 Ctrl-C; 141
output closed."""


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluate A B [C ...]``: run the tournament (see the module docstring); the exit status."""
    from agents.bots.spec import AgentSpecError
    from agents.evaluate.journal import JOURNAL_NAME, JournalError
    from agents.evaluate.tournament import TournamentStopped, run_tournament

    parser = build_parser()
    args = parser.parse_args(argv)
    agents, fields = _parsed_agents(parser, args)
    _check_outputs(parser, args)
    until = _stop_rule(parser, args)
    deals = math.ceil(args.games / args.players)
    try:
        result = run_tournament(
            agents,
            num_players=args.players,
            deals=deals,
            seed=args.seed,
            jobs=args.jobs,
            progress=not args.no_progress,
            records_dir=args.records,
            fields=fields,
            adjust_luck=_luck_settings(args),
            journal=None if args.out is None else args.out / JOURNAL_NAME,
            resume=args.resume,
            until=until,
        )
    except (AgentSpecError, JournalError) as err:  # raised before any game is played
        parser.error(str(err))
    except TournamentStopped as stopped:
        kept = f"all {stopped.played} kept in {stopped.journal}" if stopped.journal else "none kept (no --out)"
        return _failed(
            f"stopped after {stopped.played} of {stopped.total} games: {stopped}; {kept}: run the same command with "
            "--resume to go on"
        )
    except OSError as err:  # a game record that could not be written after all (a full disk)
        return _failed(f"cannot write the game records: {err}")
    compared = [] if fields is None else [name for name, spec in agents.items() if spec not in fields]
    paired = _paired_table(result, compared) if len(compared) > 1 else None
    saved = []
    if args.out is not None:  # before printing: a reader that leaves early (``| head``) must not cost the files
        try:
            saved = result.save(args.out)
            if paired is not None:
                path = args.out / PAIRED_NAME
                path.write_text(paired + "\n", encoding="utf-8")
                saved.append(path)
        except OSError as err:
            return _failed(f"cannot write the results to {args.out}: {err}")
    if until is None and result.games_per_pairing != args.games:
        print(
            f"--games {args.games} rounded up to {result.games_per_pairing} games per pairing: "
            f"whole deals of {args.players} games, one with the agent at each seat"
        )
    print("\n".join(p.summary() for p in result.pairings), end="\n\n")
    print(result.table())
    if paired is not None:
        print("\n" + paired)
    if saved:
        print("\nwrote " + ", ".join(str(path) for path in saved))
    if args.records is not None:
        print(f"wrote {len(result.games)} game records to {args.records}")
    return EXIT_OK


def _paired_table(result: TournamentResult, compared: list[str]) -> str:
    """Each two of the ``compared`` agents' paired comparison against the fields, in the order given."""
    from agents.evaluate.paired import paired_comparison

    fields = [name for name in result.agents if name not in compared]
    lines = [
        paired_comparison(result, agent, other, fields).summary()
        for i, agent in enumerate(compared)
        for other in compared[i + 1 :]
    ]
    title = (
        f"Paired comparisons against {', '.join(fields)} (the first agent's win rate less the second's on the same "
        "deals; 95% interval over deals, each deal's games one unit):\n"
    )
    return title + "\n".join(lines)


def _stop_rule(parser: argparse.ArgumentParser, args: argparse.Namespace) -> StopRule | None:
    """``--until`` and ``--round`` as the sequential mode's rule (None without ``--until``)."""
    from agents.evaluate.sequential import StopRule

    if args.until is None:
        if args.round is not None:
            parser.error("--round sets the deals between two looks of --until: give --until too")
        return None
    try:
        return StopRule.parse(args.until, args.round or StopRule.round_deals)
    except ValueError as err:
        parser.error(str(err))


def _luck_settings(args: argparse.Namespace) -> LuckSettings | bool:
    """``--adjust-luck`` and ``--luck-worlds`` as the tournament's setting."""
    from agents.evaluate.luck import LuckSettings

    return LuckSettings(worlds=args.luck_worlds) if args.adjust_luck else False


def _failed(message: str) -> int:
    """Report a failure met while running on one stderr line; returns :data:`~gubs_env.support.cli.EXIT_FAILURE`."""
    return failure(PROG, message)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from agents.bots.spec import spec_forms
    from agents.evaluate.luck import MAX_WORLDS, LuckSettings, luck_worlds
    from gubs_env.support.cli import (
        CommandParser,
        add_deal_arguments,
        add_jobs_argument,
        add_progress_argument,
        positive_int,
    )

    parser = CommandParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument(
        "agents",
        nargs="+",
        metavar="SPEC",
        help=f"two or more (or one, with --fields of others) of: {spec_forms()}",
    )
    add_deal_arguments(parser, games=2000, per="pairing")
    parser.add_argument(
        "--fields",
        nargs="+",
        metavar="SPEC",
        help="play only against a field of these (a SPEC not among the agents joins as a field only): e.g. "
        "A B --fields heuristic measures A and B against heuristics on the same deals and says whether A is "
        "better than B, without the tables where a costly agent fills every other seat "
        "(default: every agent is a field)",
    )
    parser.add_argument(
        "--adjust-luck",
        action="store_true",
        help="also give each pairing its luck-adjusted win rate and mean luck: the same answer from fewer games "
        "(docs/luck.md)",
    )
    parser.add_argument(
        "--luck-worlds",
        type=luck_worlds,
        default=LuckSettings.worlds,
        metavar="N",
        help=f"with --adjust-luck: decks dealt again at each chance step, 1 to {MAX_WORLDS} "
        f"(default: {LuckSettings.worlds})",
    )
    add_jobs_argument(parser)
    parser.add_argument(
        "--until",
        metavar="QUESTION",
        help="the sequential mode: play the deals in rounds and stop once the question is answered, --games being "
        "the most: 'width=POINTS' (every pairing's win rate known to +-POINTS) or 'better' (the first agent better "
        "than the second, or the other way round, against the same fields); always-valid 95%% confidence "
        "sequences over deals (docs/evaluation.md; default: none, every deal is played)",
    )
    parser.add_argument(
        "--round",
        type=positive_int,
        metavar="DEALS",
        help="with --until: deals played between two looks (default: 20)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write tournament.csv, .json and .png (and paired.txt with --fields, games.csv with a model's usage) into "
        "this folder, and every game to games.jsonl as it finishes (default: none)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on from --out's games.jsonl: the games a stopped run of the same command finished are kept",
    )
    parser.add_argument(
        "--records",
        type=Path,
        metavar="DIR",
        help="save every game as a JSON game record into this folder (default: none)",
    )
    add_progress_argument(parser)
    return parser


def script() -> int:
    """The console script ``gubs-eval``."""
    return run_command(main)


def _parsed_agents(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[dict[str, AgentSpec], list[AgentSpec] | None]:
    """The agents by their names in the results (the ``--fields`` not among them joined after them), and the fields.

    Each spec is parsed here, once. Argparse-style errors for specs that name no agent or repeat one, and for fewer
    than two agents, fields included.
    """
    from agents.bots.spec import AgentSpecError
    from agents.evaluate.tournament import join_fields, name_agents

    try:
        agents = name_agents(args.agents)
    except AgentSpecError as err:
        parser.error(str(err))
    fields = None
    if args.fields is not None:
        try:
            agents, fields = join_fields(agents, args.fields)
        except AgentSpecError as err:
            parser.error(f"--fields: {err}")
    if len(agents) < 2:
        parser.error(f"give at least two agents to compare (or one and --fields), got {len(agents)}")
    args.named_agents = agents
    return agents, fields


def _check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Argparse-style errors for an ``--out`` or ``--records`` folder, or an ``--out`` file, that cannot be written.

    Also for ``--resume`` without ``--out``, and for a language model without ``--out``: its games cost calls, and
    only a journal keeps them when its server stops the tournament.
    """
    from agents.bots.spec import SpecKind

    if args.resume and args.out is None:
        parser.error("--resume goes on from --out's games.jsonl: give --out DIR")
    costly = [name for name, spec in args.named_agents.items() if spec.kind is SpecKind.LANGUAGE_MODEL]
    if costly and args.out is None:
        parser.error(
            f"{costly[0]} costs a model call a decision: give --out DIR, so that every game is kept as it is played "
            "(and --resume goes on after a stop)"
        )
    for flag, folder in (("--out", args.out), ("--records", args.records)):
        problem = folder is not None and unwritable_folder(folder)
        if problem:
            parser.error(f"{flag}: {problem}")
    if args.out is not None:
        from agents.evaluate.tournament_report import CSV_NAME, JSON_NAME, PNG_NAME

        for name in (CSV_NAME, JSON_NAME, PNG_NAME):
            problem = unwritable_file(args.out / name)
            if problem:
                parser.error(f"--out: {problem}")


if __name__ == "__main__":  # the command is agents.evaluate; this module only holds its code
    from gubs_env.support.cli import not_a_command

    sys.exit(not_a_command("agents.evaluate.command", "python -m agents.evaluate"))
