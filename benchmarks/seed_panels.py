"""What the comparison charts of benchmarks/ share: a chart per table size, a panel per seed, each arm a line.

Imported by the scripts beside it (``luck_returns_compare.py``, ``lever_compare.py``), which only say which
curves each panel holds.
"""

from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

Curve = tuple[list[float], list[float]]
"""Timesteps (millions) and win rates against the heuristic."""


def draw_panels(
    players: int, seeds: list[int], out: Path, arms: Callable[[int], dict[str, Curve]], colours: dict[str, str]
) -> None:
    """``out/compare_<players>p.png``: a panel per seed with each of ``arms(seed)``'s curves in its colour."""
    fig, axes = plt.subplots(1, len(seeds), figsize=(6 * len(seeds), 4), sharey=True, squeeze=False)
    for ax, seed in zip(axes[0], seeds, strict=True):
        for name, (steps, rates) in arms(seed).items():
            ax.plot(steps, rates, color=colours[name], lw=1.3, marker=".", label=name)
        ax.axhline(1 / players, color="black", ls=":", lw=0.8)  # chance
        ax.set_title(f"{players} players, seed {seed}: against the heuristic (2,000 games a point)", fontsize=10)
        ax.set_xlabel("timesteps (millions)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win rate")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(out / f"compare_{players}p.png", dpi=110)
    plt.close(fig)
