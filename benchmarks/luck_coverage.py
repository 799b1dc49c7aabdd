"""Do the mean luck's 95% intervals hold? Many sets of deals, an estimate and an interval each, against their scatter.

    python benchmarks/luck_coverage.py --opponent gubs-net --sets 20 --games 1000

plays the heuristic against ``--opponent`` at 2 players in ``--sets`` sets of ``--games`` games (half as many
consecutive deals, each at both seatings; the first set's first deal is ``--seed``), and measures the heuristic's
mean luck in each set with its deal-clustered 95% interval, as a tournament's ``--adjust-luck`` does (16 worlds). If the
intervals are honest, the sets' estimates scatter about their pooled mean as their intervals say: about 95% of the
intervals hold it, and the dispersion (the sum of each estimate's squared distance from the pooled mean over its
variance) follows a chi-square with one degree of freedom fewer than the sets. A small p says the intervals are too
narrow; a pooled interval that misses 0 says the estimator leans. docs/luck.md ("Is the mean honest?") has the
figures.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from agents.bots.base import Agent
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MeanInterval, play_game
from gubs_env.support.cli import CommandParser, non_negative_int, positive_int, run_command

Z = 1.96
"""The 95% intervals' half-width in standard errors."""


def chi_square_survival(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square with ``dof`` (a positive integer) degrees of freedom: the closed forms."""
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:  # e^(-x/2) times the first dof/2 terms of e^(x/2)'s series
        term, total = 1.0, 1.0
        for i in range(1, dof // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    term, total = math.sqrt(x), 0.0  # odd: the normal tail, and the odd terms of the series
    for i in range(dof // 2):
        total += term
        term *= x / (2 * i + 3)
    return min(1.0, math.erfc(math.sqrt(half)) + math.sqrt(2 / math.pi) * math.exp(-half) * total)


@dataclass(frozen=True)
class Dispersion:
    """How a set of estimates, each with its 95% interval, scatters about their pooled (inverse-variance) mean."""

    pooled: MeanInterval
    chi_square: float
    dof: int
    holding: int
    """How many of the intervals hold the pooled mean."""

    @property
    def p(self) -> float:
        """The chance of a dispersion at least this large if every interval is honest."""
        return chi_square_survival(self.chi_square, self.dof)

    @classmethod
    def of(cls, estimates: list[MeanInterval]) -> Dispersion:
        """The dispersion of ``estimates`` (at least two, each of positive width)."""
        weights = [(Z / (e.width / 2)) ** 2 for e in estimates]
        mean = sum(w * e.mean for w, e in zip(weights, estimates, strict=True)) / sum(weights)
        chi_square = sum(w * (e.mean - mean) ** 2 for w, e in zip(weights, estimates, strict=True))
        holding = sum(e.low <= mean <= e.high for e in estimates)
        pooled = MeanInterval.around(mean, Z / math.sqrt(sum(weights)))
        return cls(pooled, chi_square, len(estimates) - 1, holding)


def set_luck(estimator: LuckEstimator, table: list[Agent], first: int, deals: int) -> MeanInterval:
    """The heuristic's mean luck in points over ``deals`` deals from ``first``, both seatings (``table[0]`` is it)."""
    lucks, units = [], []
    for deal in range(first, first + deals):
        for seat in (0, 1):
            ids: list[int] = []
            play_game(table if seat == 0 else table[::-1], deal, played=ids)
            lucks.append(100 * float(estimator.game(2, deal, ids).luck[seat]))
            units.append(deal)
    return MeanInterval.of(lucks, Z, units=units)


def build_parser() -> CommandParser:
    """The command line of the check."""
    parser = CommandParser(
        prog="python benchmarks/luck_coverage.py",
        description="The heuristic's mean luck on many sets of deals: do the sets scatter as their intervals say?",
    )
    parser.add_argument(
        "--opponent",
        default="gubs-net",
        metavar="SPEC",
        help="the heuristic's opponent, an agent spec (default: gubs-net)",
    )
    parser.add_argument("--sets", type=positive_int, default=20, help="sets of deals, at least 2 (default: 20)")
    parser.add_argument(
        "--games", type=positive_int, default=1000, help="games a set: each deal at both seatings (default: 1000)"
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=500_000, help="the first set's first deal (default: 500000)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print each set's mean luck, then the pooled mean and the dispersion."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.sets < 2:
        parser.error("--sets must be at least 2: one set has no scatter to measure")
    try:  # built once before any game: a spec that builds nothing is a usage error
        table = [make_agent("heuristic", seed=0), make_agent(AgentSpec.parse(args.opponent), seed=1)]
    except AgentSpecError as error:
        parser.error(str(error))
    estimator = LuckEstimator(LuckSettings(worlds=16))  # the worlds of docs/luck.md's figures
    estimates = []
    deals = -(-args.games // 2)
    for number in range(args.sets):
        first = args.seed + number * deals
        estimate = set_luck(estimator, table, first, deals)
        estimates.append(estimate)
        print(
            f"set {number + 1} of {args.sets} (deals {first} to {first + deals - 1}): heuristic's mean luck "
            f"{estimate.mean:+.2f} [{estimate.low:+.2f}, {estimate.high:+.2f}] points",
            flush=True,
        )
    found = Dispersion.of(estimates)
    pooled = found.pooled
    print(f"pooled: {pooled.mean:+.2f} [{pooled.low:+.2f}, {pooled.high:+.2f}] points over {args.sets} sets")
    print(
        f"dispersion: chi-square {found.chi_square:.1f} on {found.dof} degrees of freedom, p = {found.p:.3f}; "
        f"{found.holding} of {args.sets} intervals hold the pooled mean"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
