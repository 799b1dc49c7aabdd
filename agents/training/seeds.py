"""One config trained on several seeds, and their curves drawn together: ``python train.py --seeds 0 1``.

Each seed is a run of its own in ``OUT/seed-<seed>`` (:func:`agents.training.train`). The budget is each run's in
all: a run that has spent it is kept, and one cut short (a killed command, a session that ended) resumes for what it
has left, so the command can be run again to finish, to redraw or to add seeds. Then every run's eval.csv is
gathered into ``OUT/curves.csv`` and drawn as ``OUT/curves_<players>p.png``: each seed a thin line, their mean a
thick one, and each run's gradient agreement beside them. This is how the from-scratch figures of
docs/results/selfplay-log.md are made (``python train.py --from-scratch --seeds 0 1 --minutes 120``).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.training.core.config import DEFAULT_MINUTES, TrainingConfig
from agents.training.core.curves import read_progress
from agents.training.core.reports import describe_agreement
from agents.training.core.runs import RUN_FILE, RunState
from agents.training.trainer import load_state, stored_config, train

CURVES_CSV = "curves.csv"
FINISHED = 0.99
"""A run that has spent this share of its budget is finished (its last update may stop a little short of it)."""


def seed_folder(out: Path, seed: int) -> Path:
    """Where the run of one seed goes."""
    return out / f"seed-{seed}"


def train_seeds(
    config: TrainingConfig, seeds: Sequence[int], out: Path, progress: bool = True, verbose: bool = False
) -> list[Path]:
    """Train ``config`` on each seed not yet finished in ``out``; returns the run folders, in the order of ``seeds``.

    Raises:
        RunSetupError: a run in ``out`` that cannot be resumed with ``config`` (another backend, other networks).
        ConfigError: settings the config refuses once its defaults are filled in.
    """
    if config.minutes is None and config.steps is None and config.iterations is None:
        config = replace(config, minutes=DEFAULT_MINUTES)  # each run's in all, as any other budget given here
    folders = []
    for seed in seeds:
        folder = seed_folder(out, seed)
        folders.append(folder)
        wanted = replace(config, seed=seed)
        if not (folder / RUN_FILE).exists():
            print(f"seed {seed}: a new run in {folder}", flush=True)
            train(wanted, out=folder, progress=progress, verbose=verbose)
            continue
        state = load_state(folder)
        if _spent(wanted, state):
            print(f"seed {seed}: {folder} has spent its budget, kept", flush=True)
            continue
        print(f"seed {seed}: resuming {folder}", flush=True)
        left = replace(wanted, minutes=_minutes_left(wanted, state))
        train(left, out=folder, resume=True, progress=progress, verbose=verbose)
    return folders


def _spent(config: TrainingConfig, state: RunState) -> bool:
    """Whether a run has spent ``config``'s budget: its steps or iterations (totals already), or its minutes."""
    if config.steps is not None and state.timesteps >= FINISHED * config.steps:
        return True
    if config.iterations is not None and state.iterations >= config.iterations:
        return True
    return config.minutes is not None and state.seconds / 60 >= FINISHED * config.minutes


def _minutes_left(config: TrainingConfig, state: RunState) -> float | None:
    """What is left of the run's time budget in all (None: it has none)."""
    return None if config.minutes is None else config.minutes - state.seconds / 60


def gather_curves(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """Every evaluation row of the runs, with the run's seed (read from its run.json)."""
    rows = []
    for folder in folders:
        seed = stored_config(load_state(folder), folder).seed
        with (folder / "eval.csv").open(newline="") as file:
            for row in csv.DictReader(file):
                rows.append(
                    {
                        "players": int(row["players"]),
                        "seed": seed,
                        "timesteps": int(row["timesteps"]),
                        "opponent": row["opponent"],
                        "win_rate": float(row["win_rate"]),
                        "low": float(row["low"]),
                        "high": float(row["high"]),
                        "games": int(row["games"]),
                    }
                )
    return rows


def opponents_of(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The opponents the rows measure, the heuristic first (the curve that matters most), then as they come."""
    names = list(dict.fromkeys(row["opponent"] for row in rows))
    return sorted(names, key=lambda name: name != "heuristic")


def write_curves(rows: list[dict[str, Any]], out: Path, folders: Sequence[Path] = ()) -> list[Path]:
    """``curves.csv`` and one chart per table size: the win rates and each run's gradient agreement.

    The agreement is read from the progress.csv of ``folders``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    with (out / CURVES_CSV).open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    charts = []
    opponents = opponents_of(rows)
    for n in sorted({row["players"] for row in rows}):
        fig, axes = plt.subplots(1, len(opponents) + 1, figsize=(4.7 * (len(opponents) + 1), 3.8), squeeze=False)
        for ax, opponent in zip(axes[0], opponents, strict=False):
            _plot_seeds(ax, [r for r in rows if r["players"] == n and r["opponent"] == opponent])
            ax.axhline(1 / n, color="grey", ls=":", lw=0.8)  # an equal share of the wins
            ax.set_title(f"{n}p vs {opponent}")
        axes[0][0].legend(fontsize=7)
        _plot_agreement(axes[0][-1], folders)
        fig.suptitle(f"{n} players, {len(folders)} seeds")
        fig.tight_layout()
        chart = out / f"curves_{n}p.png"
        fig.savefig(chart, dpi=110)
        plt.close(fig)
        charts.append(chart)
    return charts


def _plot_seeds(ax: Any, rows: list[dict[str, Any]]) -> None:
    """Each seed's win rates (thin), and their mean at each point at least two of them reached (thick)."""
    by_seed: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_seed.setdefault(row["seed"], []).append(row)
    for seed, seed_rows in sorted(by_seed.items()):
        steps = [r["timesteps"] / 1e6 for r in seed_rows]
        ax.plot(steps, [r["win_rate"] for r in seed_rows], lw=0.8, alpha=0.6, label=f"seed {seed}")
    runs = list(by_seed.values())
    enough = 1 if len(runs) == 1 else 2
    steps, mean = [], []
    for i in range(max((len(r) for r in runs), default=0)):
        points = [r[i] for r in runs if len(r) > i]
        if len(points) >= enough:
            steps.append(sum(p["timesteps"] for p in points) / len(points) / 1e6)
            mean.append(sum(p["win_rate"] for p in points) / len(points))
    ax.plot(steps, mean, color="black", lw=2, label="mean")
    ax.set_ylim(0, 1)
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylabel(f"win rate ({rows[0]['games'] if rows else 0} games per point)")
    ax.grid(alpha=0.3)


def _plot_agreement(ax: Any, folders: Sequence[Path]) -> None:
    """Each run's grad_cosine per update, smoothed over 25 updates."""
    for folder in folders:
        points = read_progress(folder / "progress.csv").get("grad_cosine", [])
        if points:
            steps = [step / 1e6 for step, _ in points]
            ax.plot(steps, smoothed([value for _, value in points], 25), lw=1, label=folder.name)
    ax.axhline(0.3, color="tab:green", ls=":", lw=1)
    ax.set_title("grad_cosine (two halves of each batch)")
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylim(-0.2, 1)
    ax.grid(alpha=0.3)


def smoothed(values: list[float], window: int) -> list[float]:
    """A trailing mean over ``window`` values (fewer at the start)."""
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def summarize(rows: list[dict[str, Any]], folders: Sequence[Path] = ()) -> list[str]:
    """Per table size and opponent, each seed's first and last point; each run's gradient agreement (last half)."""
    lines = []
    for n in sorted({row["players"] for row in rows}):
        for opponent in opponents_of(rows):
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            for seed in sorted({r["seed"] for r in mine}):
                series = sorted((r for r in mine if r["seed"] == seed), key=lambda r: r["timesteps"])
                first, last = series[0], series[-1]
                lines.append(
                    f"{n}p vs {opponent}, seed {seed}: {first['win_rate']:.1%} at the start, {last['win_rate']:.1%} "
                    f"[{last['low']:.1%}, {last['high']:.1%}] at {last['timesteps']:,} timesteps"
                )
    for folder in folders:
        values = [value for _, value in read_progress(folder / "progress.csv").get("grad_cosine", [])]
        lines.append(f"{folder.name}: {describe_agreement(values)}")
    return lines


def report(folders: Sequence[Path], out: Path) -> list[str]:
    """Gather and draw the runs' curves; the summary's lines, the files' line last."""
    rows = gather_curves(folders)
    charts = write_curves(rows, out, folders)
    return [*summarize(rows, folders), f"curves: {out / CURVES_CSV}  charts: {', '.join(str(c) for c in charts)}"]
