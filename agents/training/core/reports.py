"""What a training run reports, the same for every backend: its evaluations, its CSV logs and the lines it prints.

An evaluation plays the learner against the random and heuristic agents (and the run's own opponents) and becomes
eval.csv rows (:func:`evaluation_rows`); every log of a run folder (eval.csv, league.csv, progress.csv) grows by
:func:`append_csv`, never half a row at a time. The run folder's layout and its commit protocol are
:mod:`agents.training.core.runs`'; the learning curve drawn from eval.csv is :mod:`agents.training.core.curves`'.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

from agents.bots.base import Agent
from agents.bots.random_agent import RandomAgent
from agents.bots.spec import AgentSpec
from agents.evaluate.matches import MatchResult, match
from gubs_env.support.files import write_atomically

ADJUSTED_COLUMNS = ("adjusted", "adjusted_low", "adjusted_high")
"""eval.csv's luck-adjusted win rate and its 95% interval, in runs that measure it (``eval_adjust_luck``)."""


def evaluation_rows(
    agent: Agent,
    player_counts: Sequence[int],
    games: int,
    timesteps: int,
    seconds: float,
    progress: bool = False,
    opponents: Sequence[AgentSpec | str] = (),
    adjust_luck: bool = False,
) -> list[dict[str, Any]]:
    """Win rates of ``agent`` against the random and heuristic agents at each table size, as eval.csv rows.

    ``opponents``, agent specs, add a row per table size against each (a run's ``opponent`` and
    ``eval_opponents``). ``adjust_luck`` adds each row's luck-adjusted win rate (``adjusted``, with ``adjusted_low``
    and ``adjusted_high``).

    The same deals for every evaluation of a run (seed ``10_000 * players``), so rows compare across time;
    ``seconds`` is the run's training time when the evaluated policy was taken. ``progress`` shows a bar over
    each match's games (an evaluation takes tens of seconds, in which the training bar stands still).
    """
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.registry import make_agent

    rows = []
    for n in player_counts:
        for other in [RandomAgent(), HeuristicAgent(), *(make_agent(spec) for spec in opponents)]:
            result = match(agent, other, n, games, seed=10_000 * n, progress=progress, adjust_luck=adjust_luck)
            rows.append(evaluation_row(result, n, other.name, timesteps, seconds))
    return rows


def evaluation_row(result: MatchResult, players: int, opponent: str, timesteps: int, seconds: float) -> dict[str, Any]:
    """One eval.csv row: a match's win rate and 95% interval at a run's timesteps and training seconds."""
    low, high = result.interval
    row = {
        "timesteps": timesteps,
        "players": players,
        "opponent": opponent,
        "games": result.games,
        "win_rate": round(result.win_rate, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "seconds": round(seconds, 1),
    }
    if result.adjusted is not None:
        row |= {name: round(value, 4) for name, value in zip(ADJUSTED_COLUMNS, astuple(result.adjusted), strict=True)}
    return row


def rows_at(eval_csv: Path, timesteps: int) -> list[dict[str, Any]]:
    """eval.csv's rows at ``timesteps`` (a run's final evaluation, when it was written before the end).

    Typed as :func:`evaluation_row` makes them (counts as ints, rates as floats).
    """
    if not eval_csv.exists():
        return []
    with eval_csv.open(newline="") as f:
        rows = [row for row in csv.DictReader(f) if row.get("timesteps") == str(timesteps)]
    whole, real = ("timesteps", "players", "games"), ("win_rate", "low", "high", "seconds", *ADJUSTED_COLUMNS)
    return [
        {name: int(value) if name in whole else float(value) if name in real else value for name, value in row.items()}
        for row in rows
    ]


def append_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a CSV file (with a header when the file is new), replacing it atomically: never half a row."""
    if not rows:
        return
    previous = path.read_text() if path.exists() else ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    if not previous:
        writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, (previous + buffer.getvalue()).encode())


def write_csv(path: Path, header: list[str], rows: list[dict[str, Any]]) -> None:
    """Replace a CSV file atomically with ``rows`` under ``header`` (a row's other keys are left out)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, buffer.getvalue().encode())


def describe_evaluation(rows: list[dict[str, Any]], timesteps: int) -> str:
    """One line, as every backend prints it: ``eval at 1,000 steps: 2p vs random 80% [74%, 85%]; ...``."""
    parts = [f"{r['players']}p vs {r['opponent']} {r['win_rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}]" for r in rows]
    parts = [
        part + (f" (luck-adjusted {r['adjusted']:.0%} [{r['adjusted_low']:.0%}, {r['adjusted_high']:.0%}])"
                if "adjusted" in r else "")
        for part, r in zip(parts, rows, strict=True)
    ]  # fmt: skip
    return f"eval at {timesteps:,} steps: " + "; ".join(parts)


def describe_agreement(values: Sequence[float]) -> str:
    """The summary line of a run's gradient agreement: the median over the last half of its updates."""
    last_half = [v for v in values[len(values) // 2 :] if not math.isnan(v)]
    if not last_half:
        return "grad_cosine: no update measured"
    median = sorted(last_half)[len(last_half) // 2]
    verdict = "the updates carry signal" if median >= 0.3 else "the updates are mostly noise (docs/training.md)"
    return f"median grad_cosine over the last half of the updates: {median:.2f} ({verdict})"
