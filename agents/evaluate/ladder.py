"""``python -m agents.evaluate.ladder`` (``gubs-ladder``): every shipped bot and search setting, ranked.

For each table size it runs one seat-rotated round robin (:func:`~agents.evaluate.tournament.run_tournament`:
the same deals for every pairing, 95% Wilson intervals, OpenSkill ratings), on every core, then times each
search setting over whole games. It writes, into ``--out``:

- ``ladder.md``: per agent and table size, the win rate against a field of heuristics (with its interval) and the
  OpenSkill ordinal, and the search settings' decision times (median and 99th percentile); then each table size's
  steps: every agent's win rate less the next one down's, against the heuristics on the same deals, with its
  interval over deals (:func:`~agents.evaluate.paired.paired_comparison`), so that a step the deals cannot tell
  apart shows as one;
- ``ladder.csv`` and ``ladder.json``: the same figures as data;
- ``ladder.png``: the win rate against heuristics by table size, and the search's strength against its time;
- ``<N>p/``: each table size's full tournament (tournament.csv, .json, .png).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import sys
import time
from dataclasses import asdict, astuple, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gubs_env.support.cli import (
    EXIT_OK,
    CommandParser,
    add_jobs_argument,
    add_progress_argument,
    non_negative_int,
    player_count,
    positive_int,
    refuse_unwritable_out,
    run_command,
)
from gubs_env.support.progress import progress_bar

if TYPE_CHECKING:
    from agents.bots.spec import AgentSpec
    from agents.evaluate.tournament import TournamentResult

PROG = "python -m agents.evaluate.ladder"
DEFAULT_AGENTS = (
    "random",
    "heuristic",
    "heuristic-tuned",
    "gubs-net",
    "ppo-2p",
    "ppo-4p",
    "selfplay-2p",
    "selfplay-4p",
    "search",
    "selfplay-search",
    "search:base=heuristic",
    "search-hands-seeing",
    "search-all-seeing",
    "ismcts",
)
BASELINE = "heuristic"
DEFAULT_DEALS = 50
"""Deals per pairing at each table size without ``--games``: 50 x PLAYERS games."""
DEFAULT_OUT = Path("results/ladder")
TIMING_GAMES = 2
"""Whole games per table size over which each search setting's decision time is measured."""


@dataclass
class LadderRow:
    """One agent at one table size."""

    agent: str
    players: int
    win_rate_vs_baseline: float | None
    low: float | None
    high: float | None
    ordinal: float
    median_ms: float | None = None
    p99_ms: float | None = None
    adjusted: float | None = None
    """The luck-adjusted win rate against the heuristics (``--adjust-luck``), and its 95% interval."""
    adjusted_low: float | None = None
    adjusted_high: float | None = None
    below: str | None = None
    """The next agent down at this table size, by win rate against the heuristics (None: the last, or unranked)."""
    lead: float | None = None
    """The win rate less ``below``'s against the heuristics on the same deals, and its 95% interval over deals."""
    lead_low: float | None = None
    lead_high: float | None = None
    adjusted_lead: float | None = None
    """The same lead, luck-adjusted (``--adjust-luck``; None where a game's luck was not measured)."""
    adjusted_lead_low: float | None = None
    adjusted_lead_high: float | None = None


def run_ladder(
    agents: list[Any],
    players: list[int],
    deals: int | dict[int, int],
    seed: int = 0,
    jobs: int | None = None,
    out: Path | None = None,
    progress: bool = True,
    fields: list[str] | None = None,
    adjust_luck: bool = False,
) -> list[LadderRow]:
    """Play the ladder (see the module docstring) and return its rows; ``out`` also gets the files.

    ``agents``: specs (text or parsed), or agent classes and instances as :func:`~agents.run_tournament` takes them.
    ``deals``: per pairing, at every table size or (a dict) at each.

    ``fields`` plays only the pairings against those agents (it must name the heuristic, which the table ranks
    against): at 4 to 6 players that skips the tables where a search fills every other seat. ``adjust_luck`` adds
    each row's luck-adjusted win rate (:mod:`agents.evaluate.luck`; not for the all-seeing search).
    """
    from agents.evaluate.tournament import name_agents, run_tournament

    named = name_agents(agents)  # parsed once for every table size
    if fields is not None and BASELINE not in fields:
        raise ValueError(f"the ladder ranks against {BASELINE}: include it in the fields")
    rows: list[LadderRow] = []
    for n in players:
        result = run_tournament(
            named,
            num_players=n,
            deals=deals if isinstance(deals, int) else deals[n],
            seed=seed,
            jobs=jobs,
            progress=progress,
            allow_all_seeing=True,
            fields=fields,
            adjust_luck=adjust_luck,
        )
        if out is not None:
            result.save(out / f"{n}p")
        rows.extend(_rows(result))
    _time_searches(rows, named, players, seed, progress)
    if out is not None:
        _save(rows, players, out)
    return rows


def _rows(result: TournamentResult) -> list[LadderRow]:
    """One table size's rows, in the tournament's order, each ranked agent with its lead over the next one down."""
    ordinals = {r.agent: r.ordinal for r in result.ratings}
    versus = {p.agent: p for p in result.pairings if p.opponent == BASELINE}
    rows = []
    for agent in result.agents:
        pairing = versus.get(agent)
        low, high = pairing.interval if pairing else (None, None)
        row = LadderRow(agent, result.num_players, pairing.win_rate if pairing else None, low, high, ordinals[agent])
        if pairing is not None and pairing.adjusted is not None:
            row.adjusted, row.adjusted_low, row.adjusted_high = astuple(pairing.adjusted)
        rows.append(row)
    _add_leads(result, rows)
    return rows


def _add_leads(result: TournamentResult, rows: list[LadderRow]) -> None:
    """Each ranked agent's lead over the next one down: paired by deal against the heuristics (see paired.py).

    Two rates' own intervals overlap long before the deals can no longer tell the agents apart: both played the
    same deals, and the per-deal difference cancels most of their luck.
    """
    from agents.evaluate.paired import paired_comparison

    ranked = sorted((r for r in rows if r.win_rate_vs_baseline is not None), key=lambda r: -_rate(r))
    for upper, lower in itertools.pairwise(ranked):
        step = paired_comparison(result, upper.agent, lower.agent, [BASELINE])
        upper.below = lower.agent
        upper.lead, upper.lead_low, upper.lead_high = step.difference.mean, step.difference.low, step.difference.high
        if step.adjusted is not None:
            upper.adjusted_lead, upper.adjusted_lead_low, upper.adjusted_lead_high = (
                step.adjusted.mean,
                step.adjusted.low,
                step.adjusted.high,
            )


def decision_seconds(spec: AgentSpec, players: int, deal: int, seed: int) -> list[float]:
    """Each searched decision's seconds over one game of ``spec`` (built with ``seed``) against heuristics, one core.

    The game is dealt from ``deal``, ``spec`` at seat 0, and played in this process.
    """
    from agents.bots.registry import make_agent
    from agents.evaluate.matches import play_game

    searcher = make_agent(spec, seed=seed, allow_all_seeing=True)
    table = [searcher] + [make_agent(BASELINE, seed=s) for s in range(1, players)]
    play_game(table, deal)
    return list(getattr(searcher, "decision_seconds", []))


def _time_searches(
    rows: list[LadderRow], agents: dict[str, AgentSpec], players: list[int], seed: int, progress: bool
) -> None:
    """Median and 99th percentile of each search setting's decision time over whole games, one core."""
    from agents.bots.spec import SpecKind

    searches = [name for name, spec in agents.items() if spec.kind is SpecKind.SEARCHER]
    if not searches:
        return
    jobs = [(a, n, g) for a in searches for n in players for g in range(TIMING_GAMES)]
    times: dict[tuple[str, int], list[float]] = {}
    for agent, n, game in progress_bar(jobs, desc="timing searches", unit="game", disable=not progress):
        times.setdefault((agent, n), []).extend(decision_seconds(agents[agent], n, seed + 10_000 + game, game))
    for row in rows:
        measured = times.get((row.agent, row.players))
        if measured:
            row.median_ms = 1000 * float(np.median(measured))
            row.p99_ms = 1000 * float(np.percentile(measured, 99))


def _cell(row: LadderRow) -> str:
    if row.win_rate_vs_baseline is None:
        return "—"
    cell = f"{row.win_rate_vs_baseline:.1%} [{row.low:.1%}, {row.high:.1%}]"
    if row.adjusted is not None:
        cell += f", luck-adjusted {row.adjusted:.1%} [{row.adjusted_low:.1%}, {row.adjusted_high:.1%}]"
    return cell


def markdown(rows: list[LadderRow], players: list[int]) -> str:
    """The ladder as a Markdown table: win rate against a field of heuristics, OpenSkill ordinal, search time."""
    agents = list(dict.fromkeys(r.agent for r in rows))
    at = {(r.agent, r.players): r for r in rows}
    head = ["agent"] + [f"{n}p vs heuristic (ordinal)" for n in players] + ["decision ms, median / p99"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for agent in agents:
        cells = [f"{_cell(at[agent, n])} ({at[agent, n].ordinal:.1f})" for n in players]
        timed = [
            f"{n}p {at[agent, n].median_ms:.0f} / {at[agent, n].p99_ms:.0f}"
            for n in players
            if at[agent, n].median_ms is not None
        ]
        lines.append("| " + " | ".join([agent, *cells, "; ".join(timed) or "—"]) + " |")
    return "\n".join(lines) + "\n" + _steps(rows)


def _rate(row: LadderRow) -> float:
    """The win rate against the heuristics (0 where there is none)."""
    return row.win_rate_vs_baseline or 0.0


def _points(mean: float | None, low: float | None, high: float | None) -> str:
    """:func:`~agents.evaluate.paired.points`, or ``—`` where the difference was not measured."""
    from agents.evaluate.paired import points

    if mean is None or low is None or high is None:
        return "—"
    return points(mean, low, high)


def _steps(rows: list[LadderRow]) -> str:
    """The ladder's steps as a Markdown table: each agent less the next one down, paired by deal (empty: no step)."""
    steps = sorted((r for r in rows if r.below is not None), key=lambda r: (r.players, -_rate(r)))  # top down
    if not steps:
        return ""
    adjusted = any(r.adjusted_lead is not None for r in steps)
    head = ["players", "agent", "less", "difference"] + (["luck-adjusted"] if adjusted else [])
    lines = [
        "",
        f"Each agent less the next one down, against {BASELINE} on the same deals (95% interval over deals):",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in steps:
        cells = [str(r.players), r.agent, str(r.below), _points(r.lead, r.lead_low, r.lead_high)]
        if adjusted:
            cells.append(_points(r.adjusted_lead, r.adjusted_lead_low, r.adjusted_lead_high))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _save(rows: list[LadderRow], players: list[int], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "ladder.md").write_text(markdown(rows, players), encoding="utf-8")
    with open(out / "ladder.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)
    (out / "ladder.json").write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n", encoding="utf-8")
    _plot(rows, players, out / "ladder.png")


def _plot(rows: list[LadderRow], players: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_size, by_time) = plt.subplots(1, 2, figsize=(11, 4.2))
    for agent in dict.fromkeys(r.agent for r in rows):
        mine = [r for r in rows if r.agent == agent and r.win_rate_vs_baseline is not None]
        if mine:
            by_size.plot([r.players for r in mine], [r.win_rate_vs_baseline for r in mine], marker="o", label=agent)
    by_size.plot(players, [1 / n for n in players], "k_:", markersize=14, label="chance (1/N)")
    by_size.set(xlabel="players", ylabel="win rate vs a field of heuristics", xticks=players)
    by_size.legend(fontsize=7)
    timed = [r for r in rows if r.median_ms is not None and r.win_rate_vs_baseline is not None]
    for n in players:
        mine = [r for r in timed if r.players == n]
        by_time.scatter([r.median_ms for r in mine], [r.win_rate_vs_baseline for r in mine], label=f"{n}p")
        for r in mine:
            by_time.annotate(r.agent, (r.median_ms, r.win_rate_vs_baseline), fontsize=6)
    times = [r.median_ms for r in timed if r.median_ms]
    wide = bool(times) and max(times) > 10 * min(times)  # a log scale only where the times span a decade
    by_time.set(xlabel="median decision time (ms, one core)", ylabel="win rate vs heuristics")
    by_time.set_xscale("log" if wide else "linear")
    by_time.set_ylim(0, 1.05)
    by_time.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = CommandParser(prog=PROG, description="Every shipped bot and search setting, ranked at each table size.")
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2, 3, 4, 5, 6],
        help="table sizes, 2 to 6, each ranked on its own (default: 2 3 4 5 6)",
    )
    parser.add_argument(
        "--bots",
        nargs="+",
        default=list(DEFAULT_AGENTS),
        metavar="SPEC",
        help=f"the agents to rank (default: {' '.join(DEFAULT_AGENTS)})",
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        default=None,
        help=f"games per pairing at each table size, rounded up to whole deals of PLAYERS games (default: "
        f"{DEFAULT_DEALS} deals, {DEFAULT_DEALS} x PLAYERS games)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal's seed (default: 0)")
    add_jobs_argument(parser)
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="DIR", help=f"folder for the files (default: {DEFAULT_OUT})"
    )
    parser.add_argument(
        "--fields",
        nargs="+",
        metavar="SPEC",
        help=f"play only against these agents (must include {BASELINE}; default: every pairing)",
    )
    parser.add_argument(
        "--adjust-luck",
        action="store_true",
        help="also rank by the luck-adjusted win rate against the heuristics (docs/luck.md)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; see the module docstring."""
    parser = build_parser()
    args: argparse.Namespace = parser.parse_args(argv)
    if BASELINE not in args.bots:
        parser.error(f"the ladder ranks against {BASELINE}: include it in --bots")
    if args.fields is not None:
        if BASELINE not in args.fields:
            parser.error(f"the ladder ranks against {BASELINE}: include it in --fields")
        missing = [f for f in args.fields if f not in args.bots]
        if missing:
            parser.error(f"--fields {missing[0][:60]!r} is not one of --bots")
    refuse_unwritable_out(parser, args.out)
    from agents.bots.registry import AgentSpecError, make_agent

    for spec in args.bots:
        try:
            make_agent(spec, allow_all_seeing=True)
        except AgentSpecError as err:
            parser.error(str(err))
    deals = {n: DEFAULT_DEALS if args.games is None else math.ceil(args.games / n) for n in args.players}
    progress = not args.no_progress
    start = time.time()
    rows = run_ladder(
        args.bots, args.players, deals, args.seed, args.jobs, args.out, progress, args.fields, args.adjust_luck
    )
    print(markdown(rows, args.players))
    print(f"wrote {args.out / 'ladder.md'}, ladder.csv, ladder.json, ladder.png ({math.ceil(time.time() - start)} s)")
    return EXIT_OK


def script() -> int:
    """The console script ``gubs-ladder``."""
    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
