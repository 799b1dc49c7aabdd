"""``selfplay-search`` with another distilled playout policy, against the shipped one on the same deals.

``python benchmarks/playout_width.py --playout runs/playout-64/playout.npz --games 1200 --seed 49000000 --out DIR``
plays ``selfplay-search`` and the same search whose playouts play the policy in ``--playout`` (made by
``python -m agents.recipes.search_nets.playout --network selfplay-2p --hidden 64 ...``) against the heuristic,
seat-rotated on the same deals, and prints the tournament with their difference paired by deal, luck-adjusted
(``python -m agents.evaluate``'s report, written to ``--out``). Before it, each search plays ``--timing-games``
games against the heuristic in this process, on one core, and its time a searched decision is printed. Does a
playout policy nearer its network (more hidden units) make a stronger search? It did: docs/search_bots.md has the
figures, measured while 64 units were shipped, that made 256 the shipped width.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from agents.bots.model_file import ModelFileError
from agents.bots.search import SearchAgent, SearchSettings
from agents.bots.search.playout_net import load_playout
from gubs_env.support.cli import CommandParser, add_jobs_argument, non_negative_int, positive_int, run_command

PLAYOUT_FILE = "GUBS_BENCH_PLAYOUT"
"""The environment variable that names the playout file: the tournament's worker processes build the agent from
its spec alone, and inherit the environment."""
TIMING_SEED = 51_000_000
"""The deals the decision times are measured on, apart from the tournament's."""
TRIED = "playout_width:FilePlayoutSearch"
"""The tried search's spec: this file's module as the script's folder (first on the path, the workers' too) names it."""


class FilePlayoutSearch(SearchAgent):
    """``selfplay-search`` whose playouts play the policy in the file ``$GUBS_BENCH_PLAYOUT``."""

    name = "selfplay-search, playouts from --playout"

    def __init__(self, seed: int | None = None) -> None:
        playout = load_playout(os.environ[PLAYOUT_FILE])
        super().__init__(seed, SearchSettings(base="selfplay-2p", rollout="base"), playout=playout)


def print_decision_times(games: int) -> None:
    """The two searches' decision times (median, mean, 99th percentile), after a game that compiles what they use."""
    from agents.bots.spec import AgentSpec
    from agents.evaluate.ladder import decision_seconds

    def milliseconds(spec: AgentSpec, count: int) -> np.ndarray:
        return 1000 * np.array(
            [t for game in range(count) for t in decision_seconds(spec, 2, TIMING_SEED + game, game)]
        )

    searches = {name: AgentSpec.parse(name) for name in ("selfplay-search", TRIED)}
    milliseconds(searches["selfplay-search"], 1)
    print(f"time a searched decision, one core, {games} games against the heuristic each:")
    for name, spec in searches.items():
        times = milliseconds(spec, games)
        median, mean, p99 = np.median(times), times.mean(), np.percentile(times, 99)
        spread = f"median {median:.0f} ms, mean {mean:.0f} ms, 99th percentile {p99:.0f} ms"
        print(f"  {name}: {spread} ({times.size} decisions)")


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/playout_width.py",
        description="selfplay-search with another playout policy against the shipped one, on the same deals.",
    )
    parser.add_argument("--playout", type=Path, required=True, metavar="FILE", help="the playout policy to try")
    parser.add_argument("--games", type=positive_int, default=1200, help="games each, seat-rotated (default: 1200)")
    parser.add_argument(
        "--seed", type=non_negative_int, default=49_000_000, help="the first deal's seed (default: 49000000)"
    )
    parser.add_argument("--out", type=Path, metavar="DIR", help="write the tournament's files there")
    parser.add_argument(
        "--timing-games", type=non_negative_int, default=12, metavar="N",
        help="games each search plays first to time its decisions (0: none; default: 12)",
    )  # fmt: skip
    add_jobs_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Check the playout file, then play the tournament; status 2 (one line) for a bad command line or file."""
    from agents.evaluate.command import main as evaluate

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        load_playout(args.playout)
    except ModelFileError as error:
        parser.error(f"--playout: {error}")
    os.environ[PLAYOUT_FILE] = str(args.playout.resolve())
    if args.timing_games:
        print_decision_times(args.timing_games)
    command = ["selfplay-search", TRIED, "--fields", "heuristic", "--players", "2"]
    command += ["--games", str(args.games), "--seed", str(args.seed), "--adjust-luck"]
    command += [] if args.jobs is None else ["--jobs", str(args.jobs)]
    command += [] if args.out is None else ["--out", str(args.out)]
    return evaluate(command)


if __name__ == "__main__":
    run_command(main)
