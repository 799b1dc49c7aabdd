"""``python -m agents.training.baselines``: self-play from scratch, the figure a new algorithm is compared with.

Each run is :func:`agents.training.selfplay.train_selfplay`: no warm start and no hand-written bot at any seat, every
seat the current policy and every seat's decisions learnt from, evaluated along the way against the heuristic and
random play (seat-rotated games on the same deals at every point). The runs go one after another, table size by
table size and seed by seed, each into ``OUT/<players>p-seed<seed>``; then their eval.csv files are gathered into
``OUT/curves.csv`` and drawn as ``OUT/curves_<players>p.png`` (each seed a thin line, their mean a thick one, and
each run's gradient agreement beside them). A run that has spent its minutes is kept, and one cut short resumes,
so the command can be run again to redraw, to finish or to add seeds. docs/results/selfplay-log.md gives the figures.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agents.training.selfplay.charts import smoothed
from agents.training.selfplay.learner import PPOSettings
from agents.training.selfplay.recipe import (
    STATE,
    SelfPlayConfig,
    SelfPlayRunError,
    holds_selfplay_run,
    median_grad_cosine,
    read_rows,
    stored_config,
    train_selfplay,
)
from gubs_env.support.cli import (
    CommandParser,
    add_progress_argument,
    failure,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
)

PROG = "python -m agents.training.baselines"
OPPONENTS = ("heuristic", "random")
"""Whom the curves measure the learner against, in the order they are drawn."""
CURVES_CSV = "curves.csv"


@dataclass(frozen=True)
class BaselineSettings:
    """What every run of one ``python -m agents.training.baselines`` shares, besides its table size and seed.

    Attributes:
        threads: torch threads of each run.
        eval_every, eval_games: the curves' points (None: the recipe's defaults).
        eval_adjust_luck: the points also give the luck-adjusted win rate.
        rule_facts: both networks read the observation and its rule facts (the recipe's ``rule_facts`` lever).
        luck_returns: each decision's return is the outcome less the luck after it (the recipe's
            ``luck_returns`` lever).
    """

    threads: int = 1
    eval_every: int | None = None
    eval_games: int | None = None
    eval_adjust_luck: bool = False
    rule_facts: bool = False
    luck_returns: bool = False


def baseline_config(players: int, seed: int, settings: BaselineSettings | None = None) -> SelfPlayConfig:
    """The from-scratch run of one table size and seed: the recipe's defaults, with ``settings``."""
    settings = settings or BaselineSettings()
    config = SelfPlayConfig(
        players=(players,),
        seed=seed,
        threads=settings.threads,
        eval_adjust_luck=settings.eval_adjust_luck,
        luck_returns=settings.luck_returns,
        ppo=PPOSettings(rule_facts=settings.rule_facts),
    )
    if settings.eval_every is not None:
        config = replace(config, eval_every=settings.eval_every)
    if settings.eval_games is not None:
        config = replace(config, eval_games=settings.eval_games)
    return config


def run_folder(out: Path, players: int, seed: int) -> Path:
    """Where the run of one table size and seed goes."""
    return out / f"{players}p-seed{seed}"


def minutes_spent(folder: Path) -> float:
    """The wall time a run folder has committed (0 for none)."""
    if not holds_selfplay_run(folder):
        return 0.0
    return float(json.loads((folder / STATE).read_text())["seconds"]) / 60


def run_baselines(
    players: Sequence[int],
    seeds: Sequence[int],
    minutes: float,
    out: Path,
    settings: BaselineSettings | None = None,
    progress: bool = True,
) -> list[Path]:
    """Train every run not yet finished in ``out``; returns the run folders.

    A run that has spent its minutes is kept. A run cut short (a killed command, or a session that ended) resumes
    from its last checkpoint for the minutes it has left, with its own config, so the runs can be made a piece at a
    time.

    Raises:
        SelfPlayRunError: a run in ``out`` that cannot be resumed, or one trained with the other ``rule_facts`` or
            ``luck_returns``.
    """
    folders = []
    for n in players:
        for seed in seeds:
            folder = run_folder(out, n, seed)
            folders.append(folder)
            left = minutes - minutes_spent(folder)
            if left <= 0.01 * minutes:
                print(f"{folder}: finished before, kept")
                continue
            resume = holds_selfplay_run(folder)
            config = baseline_config(n, seed, settings)
            if resume:
                _check_levers(folder, stored_config(folder), config)
            what = "resuming" if resume else "self-play from scratch:"
            print(f"{what} {n} players, seed {seed}, {left:.1f} minutes -> {folder}", flush=True)
            train_selfplay(config, out=folder, minutes=left, resume=resume, progress=progress)
    return folders


def _check_levers(folder: Path, stored: SelfPlayConfig, asked: SelfPlayConfig) -> None:
    """A run is resumed only with the levers it was trained with: ``SelfPlayRunError`` naming the flag otherwise."""
    levers = (
        ("the rule facts", "--rule-facts", stored.ppo.rule_facts, asked.ppo.rule_facts),
        ("luck-adjusted returns", "--luck-returns", stored.luck_returns, asked.luck_returns),
    )
    for what, flag, trained, wanted in levers:
        if trained != wanted:
            how = "with" if trained else "without"
            raise SelfPlayRunError(f"{folder} was trained {how} {what}: give {flag} as it was, or another --out")


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
    for n in sorted({row["players"] for row in rows}):
        fig, axes = plt.subplots(1, len(OPPONENTS) + 1, figsize=(14, 3.8))
        for ax, opponent in zip(axes, OPPONENTS, strict=False):
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            by_seed: dict[int, list[dict[str, Any]]] = {}
            for row in mine:
                by_seed.setdefault(row["seed"], []).append(row)
            for seed, seed_rows in sorted(by_seed.items()):
                steps = [r["timesteps"] / 1e6 for r in seed_rows]
                ax.plot(steps, [r["win_rate"] for r in seed_rows], lw=0.8, alpha=0.6, label=f"seed {seed}")
            _plot_mean(ax, by_seed)
            ax.axhline(1 / n, color="grey", ls=":", lw=0.8)  # an equal share of the wins
            ax.set_ylim(0, 1)
            ax.set_title(f"{n}p vs {opponent}")
            ax.set_xlabel("timesteps (millions)")
            ax.set_ylabel(f"win rate ({mine[0]['games'] if mine else 0} games per point)")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)
        _plot_agreement(axes[-1], [f for f in folders if f.name.startswith(f"{n}p-")])
        fig.suptitle(f"Self-play from scratch, {n} players (no imitation, no hand-written bot at any seat)")
        fig.tight_layout()
        chart = out / f"curves_{n}p.png"
        fig.savefig(chart, dpi=110)
        plt.close(fig)
        charts.append(chart)
    return charts


def _plot_agreement(ax: Any, folders: Sequence[Path]) -> None:
    """Each run's grad_cosine per update, smoothed over 25 updates."""
    for folder in folders:
        progress = read_rows(folder / "progress.csv")
        if not progress:
            continue
        steps = [int(r["timesteps"]) / 1e6 for r in progress]
        values = [float(r["grad_cosine"]) for r in progress]
        ax.plot(steps, smoothed(values, 25), lw=1, label=folder.name.split("-", 1)[1])
    ax.axhline(0.3, color="tab:green", ls=":", lw=1)
    ax.set_title("grad_cosine (two halves of each batch)")
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylim(-0.2, 1)
    ax.grid(alpha=0.3)


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


def summarize(rows: list[dict[str, Any]], folders: Sequence[Path] = ()) -> list[str]:
    """Per table size and opponent, each seed's first and last point; each run's median grad_cosine (last half)."""
    lines = []
    for n in sorted({row["players"] for row in rows}):
        for opponent in OPPONENTS:
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            for seed in sorted({r["seed"] for r in mine}):
                series = sorted((r for r in mine if r["seed"] == seed), key=lambda r: r["timesteps"])
                first, last = series[0], series[-1]
                lines.append(
                    f"{n}p vs {opponent}, seed {seed}: {first['win_rate']:.1%} at the start, {last['win_rate']:.1%} "
                    f"[{last['low']:.1%}, {last['high']:.1%}] at {last['timesteps']:,} timesteps"
                )
    for folder in folders:
        median = median_grad_cosine(read_rows(folder / "progress.csv"))
        lines.append(f"{folder.name}: median grad_cosine over the last half of its updates {median:.2f}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    defaults = SelfPlayConfig()
    parser = CommandParser(prog=PROG, description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 4], help="table sizes, 2 to 6 (default: 2 4)"
    )
    parser.add_argument(
        "--seeds",
        type=non_negative_int,
        nargs="+",
        default=[0, 1],
        help="the training seeds, one run each per table size (default: 0 1)",
    )
    parser.add_argument("--minutes", type=positive_float, default=120.0, help="minutes per run (default: 120)")
    parser.add_argument("--threads", type=positive_int, default=1, help="torch threads of each run (default: 1)")
    parser.add_argument(
        "--eval-every",
        type=positive_int,
        help=f"timesteps between the curves' points (default: {defaults.eval_every:,})",
    )
    parser.add_argument(
        "--eval-games",
        type=positive_int,
        help=f"seat-rotated games per point and opponent (default: {defaults.eval_games:,})",
    )
    parser.add_argument(
        "--eval-adjust-luck",
        action="store_true",
        help="the points also give the luck-adjusted win rate, which varies far less (docs/luck.md)",
    )
    parser.add_argument(
        "--rule-facts",
        action="store_true",
        help="both networks also read the rule facts worked out from the observation (docs/training.md)",
    )
    parser.add_argument(
        "--luck-returns",
        action="store_true",
        help="each decision learns from its outcome less the luck of the draws after it (docs/training.md)",
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
    """Train what is missing, then gather and draw the curves.

    Returns 0; 1 (one line) for a run in ``--out`` that cannot be resumed as asked; 2 for a bad command line.
    """
    args = build_parser().parse_args(argv)
    settings = BaselineSettings(
        args.threads, args.eval_every, args.eval_games, args.eval_adjust_luck, args.rule_facts, args.luck_returns
    )
    try:
        folders = run_baselines(args.players, args.seeds, args.minutes, args.out, settings, not args.no_progress)
    except SelfPlayRunError as error:
        return failure(PROG, error, argv)
    rows = gather_curves(folders)
    charts = write_curves(rows, args.out, folders)
    print("\n".join(summarize(rows, folders)))
    print(f"curves: {args.out / CURVES_CSV}  charts: {', '.join(str(c) for c in charts)}")
    return 0
