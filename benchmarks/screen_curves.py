"""The curves of a screen's runs side by side: each arm's win rate and learning diagnostics, a chart per seed.

``python benchmarks/screen_curves.py RUN_DIR... --out DIR`` reads run folders named ``<arm>-s<seed>`` (each with the
eval.csv and progress.csv every backend writes). For every seed it prints a markdown table, a row per arm: the curve's
points against the heuristic, and the means over the last quarter of the run's timesteps of the entropy, the
approximate KL, the explained variance and ``grad_cosine``; and it draws ``DIR/screen_s<seed>.png``, a panel per
figure with a line per arm. Used for docs/results/regularised-selfplay.md.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from agents.training.core.curves import CURVE_DEALS, Series, read_progress
from gubs_env.support.cli import CommandParser, run_command

PROG = "python benchmarks/screen_curves.py"
PANELS = ("entropy", "approx_kl", "explained_variance", "grad_cosine")
"""The diagnostics drawn and tabled beside the win rate."""
_NAME = re.compile(r"(.+)-s(\d+)")


def build_parser() -> CommandParser:
    """The command line: the run folders and where the charts go."""
    parser = CommandParser(prog=PROG, description="The curves of a screen's runs side by side, a chart per seed.")
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders named <arm>-s<seed>")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="where screen_s<seed>.png go")
    return parser


def curve(run: Path) -> list[tuple[int, float]]:
    """The run's curve points against the heuristic: (timesteps, win rate)."""
    with (run / "eval.csv").open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["deals"] == CURVE_DEALS and r["opponent"] == "heuristic"]
    return [(int(r["timesteps"]), float(r["win_rate"])) for r in rows]


def tail_mean(points: list[tuple[int, float]]) -> float:
    """The mean value over the last quarter of the points' timesteps."""
    if not points:
        return float("nan")
    start = 0.75 * points[-1][0]
    tail = [value for steps, value in points if steps >= start]
    return sum(tail) / len(tail)


def table(arms: dict[str, Path], diagnostics: dict[str, Series]) -> str:
    """A markdown row per arm: its curve's points and its diagnostics' tail means."""
    lines = ["| arm | win rate at each curve point | " + " | ".join(PANELS) + " |", "|---|---|" + "---:|" * len(PANELS)]
    for arm, run in arms.items():
        rates = ", ".join(f"{rate:.1%} at {steps / 1e6:.1f}M" for steps, rate in curve(run))
        means = " | ".join(f"{tail_mean(diagnostics[arm][name]):.4g}" for name in PANELS)
        lines.append(f"| {arm} | {rates} | {means} |")
    return "\n".join(lines)


def draw(seed: int, arms: dict[str, Path], diagnostics: dict[str, Series], out: Path) -> None:
    """``out/screen_s<seed>.png``: the win rate and each diagnostic in a panel, a line per arm."""
    fig, axes = plt.subplots(1, 1 + len(PANELS), figsize=(5 * (1 + len(PANELS)), 4))
    for arm, run in arms.items():
        points = curve(run)
        axes[0].plot([s / 1e6 for s, _ in points], [r for _, r in points], marker=".", label=arm)
        for ax, name in zip(axes[1:], PANELS, strict=True):
            series = diagnostics[arm][name]
            ax.plot([s / 1e6 for s, _ in series], [v for _, v in series], lw=0.8, label=arm)
    for ax, title in zip(axes, ("win rate against the heuristic", *PANELS), strict=True):
        ax.set_title(f"seed {seed}: {title}", fontsize=10)
        ax.set_xlabel("timesteps (millions)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"screen_s{seed}.png", dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """A table and a chart per seed."""
    parser = build_parser()
    args = parser.parse_args(argv)
    by_seed: dict[int, dict[str, Path]] = {}
    for run in args.runs:
        named = _NAME.fullmatch(run.name)
        if named is None or not (run / "eval.csv").is_file():
            parser.error(f"{run}: not a run folder named <arm>-s<seed> with an eval.csv")
        by_seed.setdefault(int(named.group(2)), {})[named.group(1)] = run
    args.out.mkdir(parents=True, exist_ok=True)
    for seed, arms in sorted(by_seed.items()):
        diagnostics = {arm: read_progress(run / "progress.csv") for arm, run in arms.items()}
        print(f"seed {seed}:\n{table(arms, diagnostics)}\n")
        draw(seed, arms, diagnostics, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
