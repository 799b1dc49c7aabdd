"""What a training run reports, the same for every backend: its CSV logs and the lines it prints.

An evaluation (:mod:`agents.training.core.evaluation`) becomes eval.csv rows (:func:`evaluation_row`); each
iteration's diagnostics become a progress.csv row with the same columns on every backend (:data:`PROGRESS_COLUMNS`);
every log of a run folder (eval.csv, league.csv, progress.csv) grows by :func:`append_csv`, never half a row at a
time. The run folder's layout and its commit protocol are :mod:`agents.training.core.runs`'; the learning curve
drawn from eval.csv is :mod:`agents.training.core.curves`'.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluate.matches import MatchResult
from gubs_env.support.files import write_atomically

ADJUSTED_COLUMNS = ("adjusted", "adjusted_low", "adjusted_high")
"""eval.csv's luck-adjusted win rate and its 95% interval, in runs that measure it (``eval_adjust_luck``)."""
CURVE_POINTS_SHOWN = 8
"""The curve's points the summary shows at most: the first, the last and others evenly between."""
PROGRESS_COLUMNS = (
    "timesteps",
    "iterations",
    "seconds",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "explained_variance",
    "grad_cosine",
    "value_loss",
    "policy_loss",
    "entropy_coef",
    "learning_rate",
    "luck_scale",
)
"""progress.csv's columns, one row per iteration on every backend; a value a backend does not measure is empty."""


def evaluation_row(
    result: MatchResult, players: int, opponent: str, timesteps: int, seconds: float, deals: str
) -> dict[str, Any]:
    """One eval.csv row: a match's win rate and 95% interval at a run's timesteps and training seconds.

    ``deals`` names the deal set it was played on (:data:`~agents.training.core.evaluation.DEAL_SETS`).
    """
    low, high = result.interval
    row = {
        "timesteps": timesteps,
        "players": players,
        "opponent": opponent,
        "deals": deals,
        "games": result.games,
        "win_rate": round(result.win_rate, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "seconds": round(seconds, 1),
    }
    if result.adjusted is not None:
        row |= {name: round(value, 4) for name, value in zip(ADJUSTED_COLUMNS, astuple(result.adjusted), strict=True)}
    return row


def progress_row(diagnostics: dict[str, float], timesteps: int, iterations: int, seconds: float) -> dict[str, Any]:
    """One progress.csv row: an iteration's diagnostics under :data:`PROGRESS_COLUMNS`, empty where not measured."""
    values = {**diagnostics, "timesteps": timesteps, "iterations": iterations, "seconds": round(seconds, 1)}
    row: dict[str, Any] = {}
    for column in PROGRESS_COLUMNS:
        value = values.get(column)
        if isinstance(value, float):  # five significant digits, not decimals: a step size of 3e-5 keeps its own
            value = None if math.isnan(value) else float(f"{value:.5g}")
        row[column] = "" if value is None else value
    return row


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


def describe_evaluation(rows: list[dict[str, Any]], what: str) -> str:
    """One line of figures: ``curve at 1,000 steps: 2p vs random 80.1% [74.2%, 85.0%]; ...``."""
    parts = []
    for r in rows:
        part = f"{r['players']}p vs {r['opponent']} {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]"
        if "adjusted" in r:
            part += f" (luck-adjusted {r['adjusted']:.1%} [{r['adjusted_low']:.1%}, {r['adjusted_high']:.1%}])"
        parts.append(part)
    return f"{what}: " + "; ".join(parts)


def describe_curve(eval_csv: Path, opponent: str = "heuristic") -> str:
    """The curve against ``opponent`` from its first point, on one line per table size."""
    if not eval_csv.exists():
        return "the curve: no point"
    with eval_csv.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("deals") == "curve" and r.get("opponent") == opponent]
    lines = []
    for players in sorted({int(r["players"]) for r in rows}):
        points = [r for r in rows if int(r["players"]) == players]
        if len(points) > CURVE_POINTS_SHOWN:  # the first and the last, and others evenly between
            picks = np.linspace(0, len(points) - 1, CURVE_POINTS_SHOWN).round().astype(int)
            points = [points[i] for i in picks]
        shown = ", ".join(f"{float(r['win_rate']):.1%} at {_steps(int(r['timesteps']))}" for r in points)
        lines.append(f"the curve against the {opponent}, {players}p (curve deals): {shown}")
    return "\n".join(lines) or "the curve: no point"


def _steps(timesteps: int) -> str:
    """``0``, ``250k``, ``2.0M``: a curve point's timesteps, short."""
    if timesteps >= 1_000_000:
        return f"{timesteps / 1e6:.1f}M"
    return f"{timesteps // 1000}k" if timesteps >= 1000 else str(timesteps)


def describe_agreement(values: Sequence[float]) -> str:
    """The summary line of a run's gradient agreement: the median over the last half of its updates."""
    last_half = [v for v in values[len(values) // 2 :] if not math.isnan(v)]
    if not last_half:
        return "grad_cosine: no update measured"
    median = sorted(last_half)[len(last_half) // 2]
    verdict = "the updates carry signal" if median >= 0.3 else "the updates are mostly noise (docs/training.md)"
    return f"median grad_cosine over the last half of the updates: {median:.2f} ({verdict})"
