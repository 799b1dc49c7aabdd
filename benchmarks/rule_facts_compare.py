"""Draw compare_<players>p.png: the baselines with the rule facts against those without, seed by seed.

``python benchmarks/rule_facts_compare.py [OUT_DIR]`` reads the curves.csv of both sets (gathered by
``python train.py --from-scratch --seeds ...``: docs/results/selfplay/ and its rule-facts-baselines/) and, for every
table size that has runs with the facts, draws the win rate against the heuristic over timesteps, into OUT_DIR (default:
docs/results/selfplay/rule-facts-baselines).
"""

import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parents[1] / "docs" / "results" / "selfplay" / "rule-facts-baselines"
SETS = {"default": HERE.parent / "curves.csv", "rule facts": HERE / "curves.csv"}


def rows(path: Path) -> list[dict[str, str]]:
    """The evaluation rows against the heuristic."""
    return [r for r in csv.DictReader(path.open(newline="")) if r["opponent"] == "heuristic"]


def points(path: Path, players: int, seed: int) -> tuple[list[float], list[float]]:
    """Timesteps (millions) and win rates against the heuristic of one table size and seed."""
    mine = [r for r in rows(path) if int(r["players"]) == players and int(r["seed"]) == seed]
    return [int(r["timesteps"]) / 1e6 for r in mine], [float(r["win_rate"]) for r in mine]


def draw(players: int, seeds: list[int], out: Path) -> None:
    """One chart per table size, a panel per seed."""
    fig, axes = plt.subplots(1, len(seeds), figsize=(6 * len(seeds), 4), sharey=True, squeeze=False)
    for ax, seed in zip(axes[0], seeds, strict=True):
        for (name, path), colour in zip(SETS.items(), ("tab:grey", "tab:blue"), strict=True):
            steps, rates = points(path, players, seed)
            ax.plot(steps, rates, color=colour, lw=1.2, label=name)
        ax.axhline(1 / players, color="black", ls=":", lw=0.8)  # chance
        ax.set_title(f"{players} players, seed {seed}: against the heuristic (2,000 games a point)", fontsize=10)
        ax.set_xlabel("timesteps (millions)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win rate")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(out / f"compare_{players}p.png", dpi=110)


def main() -> None:
    """One chart per table size that has runs with the facts."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    with_facts = rows(SETS["rule facts"])
    for players in sorted({int(r["players"]) for r in with_facts}):
        draw(players, sorted({int(r["seed"]) for r in with_facts if int(r["players"]) == players}), out)


if __name__ == "__main__":
    main()
