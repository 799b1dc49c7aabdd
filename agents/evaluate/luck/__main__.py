"""``python -m agents.evaluate.luck DIR_OR_FILES``: the luck-adjusted win rates of saved games.

Every game record given (files, or the ``*.json`` files of folders: a tournament's ``--records``, or anyone's) is
read as data, its actions replayed and its luck measured (:mod:`agents.evaluate.luck`); each agent that sits alone
at its table is reported against its field with the tournament's columns. Exit status: 0 done; 1 with one line for
a record that cannot be read or does not replay; 2 for a bad command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.evaluate.luck import MAX_WORLDS, LuckError, LuckEstimator, LuckSettings, luck_worlds
from agents.evaluate.tournament_report import PairingResult
from gubs_env.records.record import GameRecord

PROG = "python -m agents.evaluate.luck"
JSON_NAME, CSV_NAME = "luck.json", "luck.csv"
"""The files ``--out`` gets."""


@dataclass(frozen=True)
class SeatGame:
    """One seat of one saved game: who played it, against whom, how it ended for that seat, and its luck."""

    agent: str
    opponents: tuple[str, ...]
    players: int
    deal: int
    result: float
    luck: float
    score: int
    margin: int
    truncated: bool


def seat_games(records: Sequence[GameRecord], estimator: LuckEstimator, progress: bool = False) -> list[SeatGame]:
    """Every seat of ``records`` whose player sits alone at its table (no other seat has its name), with its luck.

    A tournament's game gives its agent's seat (and at 2 players the field's too), as the tournament counts it.

    Raises:
        LuckError: a record whose actions this engine does not play to the end.
    """
    from gubs_env.support.progress import progress_bar

    found = []
    for record in progress_bar(records, desc="luck", unit="game", disable=not progress):
        try:
            measured = estimator.record(record)
        except LuckError as err:
            raise LuckError(f"the game dealt with seed {record.seed}: {err}") from None
        for seat, name in enumerate(record.players):
            others = record.players[:seat] + record.players[seat + 1 :]
            if name in others:
                continue
            best_other = max(v for i, v in enumerate(measured.scores) if i != seat)
            found.append(SeatGame(
                name, tuple(sorted(others)), record.num_players, record.seed, float(measured.results[seat]),
                float(measured.luck[seat]), measured.scores[seat], measured.scores[seat] - best_other,
                measured.truncated,
            ))  # fmt: skip
    return found


def pairings(seats: Sequence[SeatGame]) -> list[PairingResult]:
    """One tournament row per agent and field: the plain and the adjusted win rate, the mean luck."""
    groups: dict[tuple[str, tuple[str, ...], int], list[SeatGame]] = {}
    for seat in seats:
        groups.setdefault((seat.agent, seat.opponents, seat.players), []).append(seat)
    rows = []
    for (agent, opponents, players), games in sorted(groups.items()):
        results, luck = [g.result for g in games], [g.luck for g in games]
        row = PairingResult(
            agent=agent,
            games=len(games),
            wins=int(sum(results)),
            truncated=sum(g.truncated for g in games),
            opponent=" + ".join(dict.fromkeys(opponents)),
            players=players,
            mean_score=sum(g.score for g in games) / len(games),
            mean_margin=sum(g.margin for g in games) / len(games),
        )
        row.measure_deals(results, [g.deal for g in games])
        if len(games) > 1:
            row.measure_luck(results, luck, [g.deal for g in games])
        rows.append(row)
    return rows


def build_parser() -> Any:
    """The command line."""
    from gubs_env.support.cli import CommandParser, add_progress_argument, non_negative_int

    parser = CommandParser(
        prog=PROG,
        description="The luck-adjusted win rates of saved games: every JSON game record in the folders or files "
        "given (a tournament's --records), each agent against each field.",
    )
    parser.add_argument("records", nargs="+", type=Path, metavar="PATH", help="game record files or folders of them")
    parser.add_argument(
        "--luck-worlds", type=luck_worlds, default=LuckSettings.worlds, metavar="N",
        help=f"decks dealt again at each chance step, 1 to {MAX_WORLDS} (default: {LuckSettings.worlds})",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=non_negative_int, default=LuckSettings.seed, help="seeds the re-dealt decks (default: 0)"
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help=f"write {JSON_NAME} and {CSV_NAME} into this folder (default: none)"
    )
    add_progress_argument(parser)
    return parser


def _record_files(paths: Sequence[Path]) -> list[Path]:
    """The files given, and the ``*.json`` files of the folders given, in name order."""
    files: list[Path] = []
    for path in paths:
        try:
            files += sorted(path.glob("*.json")) if path.is_dir() else [path]
        except (OSError, ValueError):  # a name the system refuses, a folder it cannot list: reading it says why
            files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    """Read every record (as data: checked, never run), measure each seat's luck, print and write the rows."""
    import csv
    import json

    from gubs_env.records.record import RecordError
    from gubs_env.support.cli import EXIT_OK, failure, unwritable_folder

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = LuckSettings(args.luck_worlds, args.seed)
    except ValueError as err:
        parser.error(f"--seed: {err}")
    if args.out is not None and (problem := unwritable_folder(args.out)):
        parser.error(f"--out: {problem}")
    files = _record_files(args.records)
    if not files:
        parser.error("no game records there: give record files or folders holding *.json records")
    try:
        records = [GameRecord.load(path) for path in files]
    except RecordError as err:
        return failure(PROG, err, argv)
    estimator = LuckEstimator(settings)
    try:
        rows = pairings(seat_games(records, estimator, progress=not args.no_progress))
    except LuckError as err:
        return failure(PROG, err, argv)
    print("\n".join(row.summary() for row in rows))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        config = {"luck_worlds": settings.worlds, "seed": settings.seed, "records": len(records)}
        table = [row.to_row() for row in rows]
        (args.out / JSON_NAME).write_text(json.dumps({"config": config, "pairings": table}, indent=1) + "\n")
        with (args.out / CSV_NAME).open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for row in table for k in row)))
            writer.writeheader()
            writer.writerows(table)
        print(f"wrote {args.out / JSON_NAME}, {args.out / CSV_NAME}")
    return EXIT_OK


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
