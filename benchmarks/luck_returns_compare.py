"""Draw compare_<players>p.png: runs with luck-adjusted returns against the default recipe's, seed by seed.

``python benchmarks/luck_returns_compare.py [OUT_DIR]`` reads each run folder's eval.csv in
docs/results/selfplay/luck-returns (``<players>p-seed<seed>``, the luck judged by the shipped network, and
``critic-<players>p-seed<seed>`` where there is one, judged by the run's own critic), the default recipe's baselines
(``docs/results/selfplay/curves.csv``) and, for 2 players and seed 0, the default's 30-minute run (``run-30min``),
and draws the win rate against the heuristic over timesteps up to a little past the luck-adjusted runs' end, into
OUT_DIR (default: that folder). It also prints the points side by side.
"""

import csv
import sys
from pathlib import Path

from seed_panels import Curve, draw_panels  # the script beside this one

HERE = Path(__file__).resolve().parents[1] / "docs" / "results" / "selfplay" / "luck-returns"
BASELINES = HERE.parent / "curves.csv"
THIRTY_MINUTES = HERE.parent / "run-30min" / "eval.csv"


def heuristic_points(rows: list[dict[str, str]]) -> Curve:
    """Timesteps (millions) and win rates against the heuristic."""
    mine = [r for r in rows if r["opponent"] == "heuristic"]
    return [int(r["timesteps"]) / 1e6 for r in mine], [float(r["win_rate"]) for r in mine]


def read(path: Path) -> list[dict[str, str]]:
    """A CSV file's rows."""
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def curves(players: int, seed: int) -> dict[str, Curve]:
    """The runs of one table size and seed: the luck-adjusted one and the default recipe's."""
    baseline = [r for r in read(BASELINES) if int(r["players"]) == players and int(r["seed"]) == seed]
    drawn = {
        "default (baseline run)": heuristic_points(baseline),
        "luck judged by the shipped network": heuristic_points(read(HERE / f"{players}p-seed{seed}" / "eval.csv")),
    }
    critic = HERE / f"critic-{players}p-seed{seed}" / "eval.csv"
    if critic.is_file():
        drawn["luck judged by its own critic"] = heuristic_points(read(critic))
    if players == 2 and seed == 0:
        drawn["default (30-minute run)"] = heuristic_points(read(THIRTY_MINUTES))
    return drawn


COLOURS = {
    "default (baseline run)": "tab:grey",
    "default (30-minute run)": "silver",
    "luck judged by the shipped network": "tab:red",
    "luck judged by its own critic": "tab:blue",
}


def shown(players: int, seed: int) -> dict[str, Curve]:
    """The curves of one panel, up to a little past the luck-adjusted runs' end; their points printed side by side."""
    drawn = curves(players, seed)
    end = 1.4 * max(max(drawn[name][0]) for name in drawn if name.startswith("luck"))
    kept = {}
    for name, (steps, rates) in drawn.items():
        points = [(s, r) for s, r in zip(steps, rates, strict=True) if s <= end]
        kept[name] = ([s for s, _ in points], [r for _, r in points])
        print(f"{players}p seed {seed} {name:34s}", " ".join(f"{s:.1f}M:{r:.1%}" for s, r in points))
    return kept


def draw(players: int, seeds: list[int], out: Path) -> None:
    """One chart per table size, a panel per seed."""
    draw_panels(players, seeds, out, lambda seed: shown(players, seed), COLOURS)


def main() -> None:
    """One chart per table size that has luck-adjusted runs."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    runs = sorted(p.name for p in HERE.glob("[0-9]p-seed*") if (p / "eval.csv").is_file())
    for size in sorted({int(name.split("p-")[0]) for name in runs}):
        draw(size, sorted(int(name.rsplit("seed", 1)[1]) for name in runs if name.startswith(f"{size}p-")), out)


if __name__ == "__main__":
    main()
