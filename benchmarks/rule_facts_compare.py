"""Draw compare_<players>p.png: the baselines with the rule facts against those without, seed by seed.

``python benchmarks/rule_facts_compare.py [OUT_DIR]`` reads the curves.csv of both sets (gathered by
``python train.py --from-scratch --seeds ...``: docs/results/selfplay/ and its rule-facts-baselines/) and, for every
table size that has runs with the facts, draws the win rate against the heuristic over timesteps, into OUT_DIR (default:
docs/results/selfplay/rule-facts-baselines).
"""

import csv
import sys
from pathlib import Path

from seed_panels import Curve, draw_panels  # the script beside this one

HERE = Path(__file__).resolve().parents[1] / "docs" / "results" / "selfplay" / "rule-facts-baselines"
SETS = {"default": HERE.parent / "curves.csv", "rule facts": HERE / "curves.csv"}


def rows(path: Path) -> list[dict[str, str]]:
    """The evaluation rows against the heuristic."""
    return [r for r in csv.DictReader(path.open(newline="")) if r["opponent"] == "heuristic"]


def points(path: Path, players: int, seed: int) -> Curve:
    """Timesteps (millions) and win rates against the heuristic of one table size and seed."""
    mine = [r for r in rows(path) if int(r["players"]) == players and int(r["seed"]) == seed]
    return [int(r["timesteps"]) / 1e6 for r in mine], [float(r["win_rate"]) for r in mine]


def draw(players: int, seeds: list[int], out: Path) -> None:
    """One chart per table size, a panel per seed."""
    colours = dict(zip(SETS, ("tab:grey", "tab:blue"), strict=True))

    def arms(seed: int) -> dict[str, Curve]:
        return {name: points(path, players, seed) for name, path in SETS.items()}

    draw_panels(players, seeds, out, arms, colours)


def main() -> None:
    """One chart per table size that has runs with the facts."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    with_facts = rows(SETS["rule facts"])
    for players in sorted({int(r["players"]) for r in with_facts}):
        draw(players, sorted({int(r["seed"]) for r in with_facts if int(r["players"]) == players}), out)


if __name__ == "__main__":
    main()
