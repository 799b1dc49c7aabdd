"""Draw compare_<players>p.png: a lever's from-scratch runs against the default recipe's baselines, seed by seed.

``python benchmarks/lever_compare.py LEVER_DIR NAME [OUT_DIR]`` reads LEVER_DIR/curves.csv (gathered by
``python train.py --from-scratch --seeds ...`` or :func:`agents.recipes.seeds.report`) and the baselines'
docs/results/selfplay/curves.csv. For every table size the lever has runs at, it draws the win rate against the
heuristic over timesteps, a panel per seed, into OUT_DIR (default: LEVER_DIR), and prints each seed's mean win rate
over the last quarter of the lever's timesteps beside the baseline's over the same timesteps (its points on the same
deals, a descriptive figure: neighbouring points are of nearly the same network, so they are not independent).

Used for docs/results/selfplay/rule-facts-baselines (``NAME`` "rule facts") and step-size-decay ("step-size decay").
"""

import csv
import sys
from pathlib import Path

from seed_panels import Curve, draw_panels  # the script beside this one

BASELINES = Path(__file__).resolve().parents[1] / "docs" / "results" / "selfplay" / "curves.csv"
LAST_SHARE = 0.25
"""The share of the lever's timesteps, at their end, that the printed means cover."""


def rows(path: Path) -> list[dict[str, str]]:
    """The evaluation rows against the heuristic."""
    with path.open(newline="") as handle:
        return [r for r in csv.DictReader(handle) if r["opponent"] == "heuristic"]


def points(table: list[dict[str, str]], players: int, seed: int) -> Curve:
    """Timesteps (millions) and win rates against the heuristic of one table size and seed."""
    mine = [r for r in table if int(r["players"]) == players and int(r["seed"]) == seed]
    return [int(r["timesteps"]) / 1e6 for r in mine], [float(r["win_rate"]) for r in mine]


def mean_between(curve: Curve, low: float, high: float) -> float:
    """The mean win rate of the points from ``low`` to ``high`` million timesteps."""
    inside = [rate for steps, rate in zip(*curve, strict=True) if low <= steps <= high]
    return sum(inside) / len(inside) if inside else float("nan")


def describe(name: str, players: int, seed: int, lever: Curve, baseline: Curve) -> str:
    """One seed's line: the lever's and the baseline's means over the last quarter of the lever's timesteps."""
    end = max(lever[0])
    start = (1 - LAST_SHARE) * end
    ours, theirs = mean_between(lever, start, end), mean_between(baseline, start, end)
    return (
        f"{players}p seed {seed}, {start:.1f}M to {end:.1f}M timesteps: {name} {ours:.1%}, "
        f"default {theirs:.1%}, difference {100 * (ours - theirs):+.1f} points"
    )


def main(argv: list[str]) -> int:
    """One chart per table size the lever has runs at; a line per seed."""
    if len(argv) not in (2, 3):
        print("usage: python benchmarks/lever_compare.py LEVER_DIR NAME [OUT_DIR]", file=sys.stderr)
        return 2
    here, name = Path(argv[0]), argv[1]
    out = Path(argv[2]) if len(argv) == 3 else here
    if not (here / "curves.csv").is_file():
        print(f"lever_compare.py: no curves.csv in {here} (gather it with train.py --seeds)", file=sys.stderr)
        return 2
    lever, baseline = rows(here / "curves.csv"), rows(BASELINES)
    out.mkdir(parents=True, exist_ok=True)
    colours = {"default": "tab:grey", name: "tab:blue"}
    for players in sorted({int(r["players"]) for r in lever}):
        seeds = sorted({int(r["seed"]) for r in lever if int(r["players"]) == players})
        for seed in seeds:
            print(describe(name, players, seed, points(lever, players, seed), points(baseline, players, seed)))

        def arms(seed: int, players: int = players) -> dict[str, Curve]:
            return {"default": points(baseline, players, seed), name: points(lever, players, seed)}

        draw_panels(players, seeds, out, arms, colours)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
