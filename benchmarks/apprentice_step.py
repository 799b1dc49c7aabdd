"""Expert iteration's apprentice at several step sizes: how much of the search's gain each fit keeps.

``python benchmarks/apprentice_step.py --labels runs/ei/round-1/labels.npz --network selfplay-2p --rates 3e-5 1e-4
3e-4 1e-3 --seed 7000000`` fits the network to the labels once per step size
(:func:`agents.training.expert.rounds.fit_apprentice`, the rounds' own fit), then plays each apprentice and the
network against the heuristic on the same deals (``--games`` each, seat-rotated, from ``--seed``) and prints, per
step size, the held-out label agreement, the share of the search's corrections the apprentice learnt, both win
rates and their difference paired by deal. docs/results/selfplay-log.md ("Expert iteration from pure self-play")
has the figures.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from agents.bots.model_file import ModelFileError, load_policy, save_policy
from agents.bots.spec import AgentSpec
from agents.evaluate.paired import compare_agents
from agents.training.expert.labels import LabelsFileError, load_labels
from agents.training.expert.rounds import fit_apprentice
from agents.training.search_nets.playout import network_file
from gubs_env.support.cli import (
    CommandParser,
    add_jobs_argument,
    jobs_or_cores,
    non_negative_int,
    positive_float,
    positive_int,
    run_command,
)


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/apprentice_step.py",
        description="Fit expert iteration's apprentice at several step sizes and measure each against the heuristic.",
    )
    parser.add_argument("--labels", type=Path, required=True, metavar="FILE", help="a labels file of the network")
    parser.add_argument("--network", default="selfplay-2p", help="the labelled network (default: selfplay-2p)")
    parser.add_argument(
        "--rates", type=positive_float, nargs="+", default=[0.0001], metavar="LR", help="step sizes (default: 0.0001)"
    )
    parser.add_argument("--epochs", type=positive_int, default=4, help="passes over the labels (default: 4)")
    parser.add_argument(
        "--games", type=positive_int, default=2000, help="games each plays, seat-rotated at 2 players (default: 2000)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=7_000_000, help="the first deal (default: 7000000)")
    add_jobs_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """One line per step size."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        weights = load_policy(network_file(args.network))
        labels = load_labels(args.labels)
    except (ModelFileError, LabelsFileError, OSError) as err:
        parser.error(str(err))
    base = AgentSpec.parse(args.network)
    with tempfile.TemporaryDirectory() as folder:
        for rate in args.rates:
            layers, fitted = fit_apprentice(weights, labels, args.epochs, rate, 1, False)
            path = save_policy(Path(folder) / f"apprentice-{rate:g}.npz", layers, weights.activation)
            result = compare_agents(
                AgentSpec.for_model_file(path), base, fields=["heuristic"], deals=-(-args.games // 2), seed=args.seed,
                jobs=jobs_or_cores(args.jobs), progress=False,
            )  # fmt: skip
            d = result.difference
            print(
                f"step {rate:g}: held-out labels {fitted.agreement_before:.1%} -> {fitted.agreement_after:.1%}, "
                f"corrections learnt {fitted.corrections_learnt:.1%}; against the heuristic {result.rate:.1%} "
                f"(network {result.other_rate:.1%}), {d.mean * 100:+.1f} pts [{d.low * 100:+.1f}, {d.high * 100:+.1f}] "
                f"over {d.deals} deals",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
