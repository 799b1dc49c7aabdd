"""Draw compare_2p.png: the 2-player baselines with the rule facts against those without, seed by seed.

Run from the repository root: ``python docs/results/selfplay/rule-facts-baselines/compare.py``. It reads the
curves.csv of both sets (gathered by ``python -m agents.training.baselines``) and draws the win rate against the
heuristic over timesteps.
"""

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent
SETS = {"default": HERE.parent / "curves.csv", "rule facts": HERE / "curves.csv"}


def points(path: Path, seed: int) -> tuple[list[float], list[float]]:
    """Timesteps (millions) and win rates against the heuristic of one 2-player seed."""
    rows = [
        r
        for r in csv.DictReader(path.open(newline=""))
        if r["players"] == "2" and r["opponent"] == "heuristic" and int(r["seed"]) == seed
    ]
    return [int(r["timesteps"]) / 1e6 for r in rows], [float(r["win_rate"]) for r in rows]


fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
for ax, seed in zip(axes, (0, 1), strict=True):
    for (name, path), colour in zip(SETS.items(), ("tab:grey", "tab:blue"), strict=True):
        steps, rates = points(path, seed)
        ax.plot(steps, rates, color=colour, lw=1.2, label=name)
    ax.axhline(0.5, color="black", ls=":", lw=0.8)
    ax.set_title(f"2 players, seed {seed}: against the heuristic (2,000 games a point)")
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylim(0.3, 0.6)
    ax.grid(alpha=0.3)
axes[0].set_ylabel("win rate")
axes[0].legend()
fig.tight_layout()
fig.savefig(HERE / "compare_2p.png", dpi=110)
