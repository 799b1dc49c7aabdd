"""The average of a run's last actors against its last actor: does averaging the weights take the noise out?

On the self-play plateau the policy gradient of a batch agrees with another batch's at a cosine of about 0, so the
late updates are mostly noise, and the weights wander about where the curve has flattened. The mean of the weights
over a stretch of that wandering (Polyak's averaging; "stochastic weight averaging" in deep learning) may lie nearer
the middle than any one point does.

``python benchmarks/tail_average.py --snapshots SNAPS/policy-*.npz --spans 5 10 20 --players 2 --games 6000 --seed
S [--out DIR]`` reads actor files of one run named by their timesteps (a copy of the run folder's ``policy.npz`` at each
checkpoint), averages, for each span (millions of timesteps), the files of the last span before the newest, and
plays each average and the newest file against the heuristic on the same deals, luck-adjusted. It prints one line
per span: the two win rates and their difference paired by deal, plain and luck-adjusted, with 95% intervals.
With ``--out`` each mean is kept as ``DIR/tail-<span>M.npz``, a model file every command plays.
docs/results/selfplay-log.md ("Averaging the last weights") has the figures.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from agents.bots.model_file import ModelFileError, PolicyWeights, load_policy, save_policy
from agents.bots.spec import AgentSpec
from agents.evaluate.paired import compare_agents
from gubs_env.support.cli import (
    CommandParser,
    add_jobs_argument,
    jobs_or_cores,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
    refuse_unwritable_out,
    run_command,
)

CHOICE_SEED = 2_000_000
"""The first deal the spans are chosen on: not the tournaments' (from 0) nor the selection's (from 1,000,000)."""


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/tail_average.py",
        description="Average a run's last actors over several spans and measure each against its newest actor.",
    )
    parser.add_argument(
        "--snapshots", type=Path, nargs="+", required=True, metavar="FILE",
        help="actor files of one run, each named with its timesteps (policy-<timesteps>.npz)",
    )  # fmt: skip
    parser.add_argument(
        "--spans", type=positive_float, nargs="+", default=[10.0], metavar="M",
        help="millions of timesteps each average reaches back from the newest file (default: 10.0)",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="also keep each mean as DIR/tail-<span>M.npz (default: none kept)"
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument("--games", type=positive_int, default=6000, help="games each plays (default: 6000)")
    parser.add_argument(
        "--seed", type=non_negative_int, default=CHOICE_SEED,
        help=f"the first deal (default: {CHOICE_SEED}, apart from the deals that report a chosen span)",
    )  # fmt: skip
    add_jobs_argument(parser)
    return parser


def timesteps_of(path: Path) -> int:
    """The timesteps in a snapshot's name: its last run of digits."""
    found = re.findall(r"\d+", path.stem)
    if not found:
        raise ValueError(f"{path}: no timesteps in the name (policy-<timesteps>.npz)")
    return int(found[-1])


def average(weights: list[PolicyWeights]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layer-by-layer mean of actors of one shape (in float64, stored as float32)."""

    def mean(layer: int, part: int) -> np.ndarray:
        return np.asarray(np.mean([w.layers[layer][part] for w in weights], axis=0, dtype=np.float64))

    return [(mean(i, 0), mean(i, 1)) for i in range(len(weights[0].layers))]


def main(argv: list[str] | None = None) -> int:
    """One line per span."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        stamped = sorted((timesteps_of(path), path) for path in args.snapshots)
        weights = {path: load_policy(path) for _, path in stamped}
    except (ModelFileError, ValueError, OSError) as err:
        parser.error(str(err))
    if args.out is not None:
        refuse_unwritable_out(parser, args.out)
    newest_step, newest = stamped[-1]
    if len({tuple(layer[0].shape for layer in w.layers) for w in weights.values()}) != 1:
        parser.error("the snapshots are not all of one network's shape")
    deals = -(-args.games // args.players)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.out or Path(scratch)
        for span in args.spans:
            chosen = [path for step, path in stamped if step >= newest_step - span * 1e6]
            first = weights[chosen[0]]
            path = save_policy(
                folder / f"tail-{span:g}M.npz", average([weights[p] for p in chosen]), first.activation,
                rule_facts=first.rule_facts,
            )  # fmt: skip
            result = compare_agents(
                AgentSpec.for_model_file(path), AgentSpec.for_model_file(newest), fields=["heuristic"],
                num_players=args.players, deals=deals, seed=args.seed, jobs=jobs_or_cores(args.jobs), progress=False,
                adjust_luck=True,
            )  # fmt: skip
            adjusted = result.adjusted
            assert adjusted is not None
            print(
                f"last {span:g}M timesteps ({len(chosen)} files to {newest_step:,}): {result.rate:.1%} against "
                f"{result.other_rate:.1%}, {result.difference}; luck-adjusted {adjusted}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
