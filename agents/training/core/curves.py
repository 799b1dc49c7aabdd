"""A run's learning curve, the same for every backend: eval.csv's curve points, with the learning diagnostics beside.

Every backend's diagnostics are progress.csv's columns (:data:`~agents.training.core.reports.PROGRESS_COLUMNS`),
read back by :func:`read_progress` as :data:`Series` under the names of :data:`DIAGNOSTICS`.
"""

from __future__ import annotations

import csv
from pathlib import Path

DIAGNOSTICS = ("grad_cosine", "entropy", "approx_kl", "clip_fraction", "explained_variance")
"""The learning diagnostics drawn beside a run's curve, each in a panel of its own."""

CURVE_DEALS = "curve"
"""eval.csv's ``deals`` of the curve's points (:data:`agents.training.core.evaluation.CURVE`)."""
Series = dict[str, list[tuple[int, float]]]
"""Per diagnostic, ``(timesteps, value)`` points."""


def read_progress(progress_csv: Path) -> Series:
    """The diagnostics of a ``progress.csv`` whose columns are named as :data:`DIAGNOSTICS`.

    Missing files, columns and values (empty or nan) are skipped.
    """
    series: Series = {name: [] for name in DIAGNOSTICS}
    if not progress_csv.is_file():
        return series
    with progress_csv.open(newline="") as f:
        for row in csv.DictReader(f):
            for name in DIAGNOSTICS:
                text = row.get(name, "")
                if row.get("timesteps") and text and text != "nan":
                    series[name].append((int(float(row["timesteps"])), float(text)))
    return series


def plot_learning_curve(eval_csv: Path, png: Path, diagnostics: Series | None = None) -> None:
    """The curve's points (eval.csv's rows on the curve's deals) against timesteps, with their 95% intervals.

    A colour per table size, a line style per opponent. With ``diagnostics`` that hold any point, each is drawn in a
    panel of its own beside the curve.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with eval_csv.open() as f:
        rows = [row for row in csv.DictReader(f) if row.get("deals") == CURVE_DEALS]
    sizes = sorted({int(r["players"]) for r in rows})
    opponents = sorted({r["opponent"] for r in rows}, key=lambda o: (o != "heuristic", o))
    colours = plt.get_cmap("tab10")
    panels = {name: points for name, points in (diagnostics or {}).items() if points}
    if panels:
        fig, grid = plt.subplots(2, 3, figsize=(15, 7.5))
        ax, others = grid[0][0], [a for row in grid for a in row][1:]
        for panel, (name, points) in zip(others, panels.items(), strict=False):
            panel.plot([p[0] for p in points], [p[1] for p in points], lw=0.8)
            panel.set_title(name)
            panel.set_xlabel("timesteps")
            panel.grid(alpha=0.3)
        for panel in others[len(panels) :]:
            panel.axis("off")
    else:
        fig, ax = plt.subplots(figsize=(9, 4.5))
    for key in sorted({(r["players"], r["opponent"]) for r in rows}):
        series = [r for r in rows if (r["players"], r["opponent"]) == key]
        x = [int(r["timesteps"]) for r in series]
        colour = colours(sizes.index(int(key[0])) % 10)
        style = ("-", "--", "-.")[opponents.index(key[1]) % 3]
        label = f"{key[0]} players vs {key[1]}"
        ax.plot(x, [float(r["win_rate"]) for r in series], marker="o", color=colour, linestyle=style, label=label)
        low, high = [float(r["low"]) for r in series], [float(r["high"]) for r in series]
        ax.fill_between(x, low, high, color=colour, alpha=0.1)
    for n in sizes:  # chance at each table size, in its colour
        ax.axhline(1 / n, color=colours(sizes.index(n) % 10), linestyle=":", linewidth=1)
    ax.set_xlabel("training timesteps (learner decisions)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")  # beside the plot: it hides no point
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
