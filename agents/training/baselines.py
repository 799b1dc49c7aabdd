"""``python -m agents.training.baselines``: PPO self-play from scratch, the figure a new algorithm is compared with.

Each run is :func:`agents.training.train` with :func:`baseline_config`: no warm start, no fixed bot at any seat
(the learner against itself and its snapshots, drawn by the league's rule), evaluated along the way against random
play, the heuristic and gubs-net. The runs go one after another, table size by table size and seed by seed, each
into ``OUT/<players>p-seed<seed>``; then their eval.csv files are gathered into ``OUT/curves.csv`` and drawn as
``OUT/curves_<players>p.png`` (each seed a thin line, their mean a thick one). A run folder that holds a finished
run is kept, so the command can be run again to redraw or to add seeds. docs/training.md gives the figures.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.bots.spec import AgentSpec
from agents.training.config import PoolConfig, TrainingConfig
from gubs_env.engine.players import TableSizes
from gubs_env.support.cli import (
    CommandParser,
    add_progress_argument,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
)

PROG = "python -m agents.training.baselines"
OPPONENTS = ("random", "heuristic", "gubs-net")
"""Whom the curves measure the learner against, in the order they are drawn."""
CURVES_CSV = "curves.csv"


def baseline_config(
    players: int, seed: int, minutes: float, threads: int | None = None, eval_every: int | None = None
) -> TrainingConfig:
    """The from-scratch self-play run: the default league with the fixed bots' shares at 0 and no imitation."""
    return TrainingConfig(
        eval_every=eval_every,
        players=TableSizes.of(players),
        seed=seed,
        minutes=minutes,
        imitate_games=0,
        pool=PoolConfig(p_random=0.0, p_heuristic=0.0),
        eval_opponents=(AgentSpec.parse("gubs-net"),),
        threads=threads,
    )


def run_folder(out: Path, players: int, seed: int) -> Path:
    """Where the run of one table size and seed goes."""
    return out / f"{players}p-seed{seed}"


def run_baselines(
    players: Sequence[int],
    seeds: Sequence[int],
    minutes: float,
    out: Path,
    threads: int | None = None,
    progress: bool = True,
    eval_every: int | None = None,
) -> list[Path]:
    """Train every run not yet finished in ``out``; returns the run folders.

    A finished run has its model and is kept. A run cut short (a killed command, or a session that ended) resumes
    from its last checkpoint for the minutes it has left, so the runs can be made a piece at a time.
    """
    from agents.training.trainer import holds_run, load_state, train

    folders = []
    for n in players:
        for seed in seeds:
            folder = run_folder(out, n, seed)
            folders.append(folder)
            if (folder / "model.zip").is_file():
                print(f"{folder}: finished before, kept")
                continue
            config = baseline_config(n, seed, minutes, threads, eval_every)
            resume = holds_run(folder)
            if resume:  # the wall time it has committed counts against its budget
                left = minutes - load_state(folder).seconds / 60
                config = replace(config, minutes=max(left, 0.1))
            what = "resuming" if resume else "self-play from scratch:"
            print(f"{what} {n} players, seed {seed}, {config.minutes:.1f} minutes -> {folder}", flush=True)
            train(config, out=folder, resume=resume, progress=progress)
    return folders


def gather_curves(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """Every evaluation row of the runs, with the run's seed (read from its folder name)."""
    rows = []
    for folder in folders:
        seed = int(folder.name.rsplit("seed", 1)[1])
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


def write_curves(rows: list[dict[str, Any]], out: Path) -> list[Path]:
    """``curves.csv`` and one chart per table size: win rate against each opponent over learner timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    with (out / CURVES_CSV).open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    charts = []
    for n in sorted({row["players"] for row in rows}):
        fig, axes = plt.subplots(1, len(OPPONENTS), figsize=(12, 3.6), sharey=True)
        for ax, opponent in zip(axes, OPPONENTS, strict=True):
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            by_seed: dict[int, list[dict[str, Any]]] = {}
            for row in mine:
                by_seed.setdefault(row["seed"], []).append(row)
            for seed, seed_rows in sorted(by_seed.items()):
                steps = [r["timesteps"] / 1e6 for r in seed_rows]
                ax.plot(steps, [r["win_rate"] for r in seed_rows], lw=0.8, alpha=0.6, label=f"seed {seed}")
            _plot_mean(ax, by_seed)
            ax.axhline(1 / n, color="grey", ls=":", lw=0.8)  # an equal share of the wins
            ax.set_title(f"{n}p vs {opponent}")
            ax.set_xlabel("learner timesteps (millions)")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("win rate (200 games per point)")
        axes[0].legend(fontsize=7)
        fig.suptitle(f"PPO self-play from scratch, {n} players (no warm start, no fixed bot at any seat)")
        fig.tight_layout()
        chart = out / f"curves_{n}p.png"
        fig.savefig(chart, dpi=110)
        plt.close(fig)
        charts.append(chart)
    return charts


def _plot_mean(ax: Any, by_seed: dict[int, list[dict[str, Any]]]) -> None:
    """The seeds' mean at each evaluation point that at least two of them reached (all of them, with one seed)."""
    runs = list(by_seed.values())
    if not runs:
        return
    enough = 1 if len(runs) == 1 else 2
    steps, mean = [], []
    for i in range(max(len(rows) for rows in runs)):
        points = [rows[i] for rows in runs if len(rows) > i]
        if len(points) >= enough:
            steps.append(sum(r["timesteps"] for r in points) / len(points) / 1e6)
            mean.append(sum(r["win_rate"] for r in points) / len(points))
    ax.plot(steps, mean, color="black", lw=2, label="mean")


def summarize(rows: list[dict[str, Any]]) -> list[str]:
    """Per table size and opponent: each seed's last evaluation and the best the seeds' mean reached."""
    lines = []
    for n in sorted({row["players"] for row in rows}):
        for opponent in OPPONENTS:
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            seeds = sorted({r["seed"] for r in mine})
            last = [max((r for r in mine if r["seed"] == s), key=lambda r: r["timesteps"]) for s in seeds]
            finals = ", ".join(f"{r['win_rate']:.1%} at {r['timesteps']:,}" for r in last)
            lines.append(f"{n}p vs {opponent}: final {finals}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from agents.training.config import DEFAULTS

    own = DEFAULTS["sb3", "fast"]
    parser = CommandParser(prog=PROG, description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 4], help="table sizes, 2 to 6 (default: 2 4)"
    )
    parser.add_argument(
        "--seeds",
        type=non_negative_int,
        nargs="+",
        default=[0, 1, 2],
        help="the training seeds, one run each per table size (default: 0 1 2)",
    )
    parser.add_argument("--minutes", type=positive_float, default=60.0, help="minutes per run (default: 60)")
    parser.add_argument(
        "--threads", type=positive_int, help=f"torch threads of each run (default: train.py's, {own['threads']})"
    )
    parser.add_argument(
        "--eval-every",
        type=positive_int,
        help=f"learner timesteps between the curves' points (default: train.py's, {own['eval_every']:,})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("runs/selfplay"),
        metavar="DIR",
        help="the folder of the runs and curves (default: runs/selfplay)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Train what is missing, then gather and draw the curves; status 2 (one line) for a bad command line."""
    args = build_parser().parse_args(argv)
    progress = not args.no_progress
    folders = run_baselines(args.players, args.seeds, args.minutes, args.out, args.threads, progress, args.eval_every)
    rows = gather_curves(folders)
    charts = write_curves(rows, args.out)
    print("\n".join(summarize(rows)))
    print(f"curves: {args.out / CURVES_CSV}  charts: {', '.join(str(c) for c in charts)}")
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
