"""``python benchmarks/selfplay_levers.py``: each lever of self-play from scratch against the default, measured.

Every variant changes one setting of the default run (pure self-play from a fresh network on the native backend)
and trains the same table size from the same seed for the same minutes, one variant after another, each into
``OUT/<variant>``. The table printed at the end gives, per variant, the last curve point against the heuristic
(seat-rotated games on the curve's deals), the timesteps, the updates, and the median ``grad_cosine`` over the last
half of the updates.
A variant whose folder already holds a run is kept, so the command can be run again to print the table or to add
variants. docs/results/selfplay-log.md has the figures. The levers measured as losses (paired playouts, the
action-part head) were removed after commit baf7785, and the rule facts after commit 6939125; those commits have their
variants.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from dataclasses import replace
from pathlib import Path

from agents.training import TrainingConfig, train
from agents.training.core.runs import RUN_FILE
from gubs_env.support.cli import CommandParser, add_progress_argument, player_count, positive_float, training_seed

PROG = "python benchmarks/selfplay_levers.py"


def variants(players: int, seed: int) -> dict[str, TrainingConfig]:
    """The default recipe and each variant of one lever, by name (each run's budget is the command's)."""
    base = TrainingConfig(players=(players,), seed=seed, eval_every=1_000_000)
    return {
        "default": base,
        "small-batch": replace(base, envs=32, batch_size=1024, epochs=5),
        "big-batch": replace(base, envs=1024, batch_size=16384),
        "big-batch-lr": replace(base, envs=1024, batch_size=8192, learning_rate=1e-3),
        "one-seat": replace(base, every_seat=False),
        "forced-samples": replace(base, skip_forced=False),
        "no-entropy": replace(base, ent_coef=0.0, ent_coef_end=0.0),
        "old-discount": replace(base, gamma=0.995, gae_lambda=0.95),
        "luck-returns": replace(base, luck_returns=True),
    }


def read_rows(path: Path) -> list[dict[str, str]]:
    """A CSV file's rows (none when it does not exist)."""
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def describe(name: str, folder: Path) -> str:
    """One line of the table for the run in ``folder``."""
    evaluation = [r for r in read_rows(folder / "eval.csv") if r["opponent"] == "heuristic" and r["deals"] == "curve"]
    progress = read_rows(folder / "progress.csv")
    if not evaluation or not progress:
        return f"{name:15s} no run"
    last = evaluation[-1]
    cosines = [float(r["grad_cosine"]) for r in progress[len(progress) // 2 :] if r["grad_cosine"]]
    return (
        f"{name:15s} {float(last['win_rate']):6.1%} [{float(last['low']):.1%}, {float(last['high']):.1%}]  "
        f"{int(progress[-1]['timesteps']):>10,} timesteps  {len(progress):>4} updates  "
        f"grad_cosine {statistics.median(cosines):+.2f}"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = CommandParser(prog=PROG, description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    names = list(variants(2, 0))
    parser.add_argument(
        "variants", nargs="*", default=[], metavar="VARIANT", help=f"of: {' '.join(names)} (default: all)"
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument("--seed", type=training_seed, default=1, help="every variant's seed (default: 1)")
    parser.add_argument("--minutes", type=positive_float, default=8.0, help="minutes per variant (default: 8)")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/levers"), metavar="DIR", help="the runs' folder (default: runs/levers)"
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Train the variants not yet in ``--out``, then print the table; status 2 (one line) for a bad command line."""
    parser = build_parser()
    args = parser.parse_args(argv)
    configs = variants(args.players, args.seed)
    unknown = [name for name in args.variants if name not in configs]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r}; known: {', '.join(configs)}")
    chosen = args.variants or list(configs)
    for name in chosen:
        folder = args.out / name
        if (folder / RUN_FILE).exists():
            print(f"{folder}: trained before, kept")
            continue
        print(f"{name}: {args.minutes:g} minutes -> {folder}", flush=True)
        train(replace(configs[name], minutes=args.minutes), out=folder, progress=not args.no_progress)
    print(f"last point against the heuristic, {args.players} players, seed {args.seed}, {args.minutes:g} minutes each:")
    for name in chosen:
        print(describe(name, args.out / name))
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
