"""Judges of luck side by side: the luck-adjusted interval each value network gives on the same games.

    python benchmarks/luck_judges.py [--agent SPEC] [--opponent SPEC] [--players N] [--games G] [--seed S]
                                     [--worlds W] [VALUE.npz ...]

plays ``--agent`` against ``--opponent`` at every other seat, seat-rotated (game ``g``: seat ``g % n``, deal ``seed
+ g // n``, as ``agents.evaluate`` deals them), then measures the same games' luck with each judge: the shipped
judge of the table size first (``agents/bots/models/luck_value_2p.npz`` at 2 players, ``luck_value.npz`` at any
other; give ``luck_value.npz`` to compare it at 2 players), then each value network file given (``python -m
agents.recipes.search_nets --target win`` writes one). For each it prints the agent's adjusted win rate, the
adjusted interval's width over the plain one's (both over deals, as tournaments measure them), the agent's mean luck
(its interval holds 0 for an honest judge) and the CPU milliseconds a game of the adjustment. The games are the same
for every judge, so their widths compare directly. Pick ``--seed`` away from the deals a judge was fitted on (the
shipped ones: deals 1,000,000 on, and 3,000,000 to 3,599,999 for the 2-player one).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from luck_cost import rotated_games  # the script beside this one

from agents.bots.model_file import ModelFileError
from agents.bots.registry import make_agent
from agents.bots.search.value import ValueNet
from agents.bots.spec import AgentSpecError
from agents.bots.threads import set_torch_threads
from agents.evaluate.luck import LuckEstimator, LuckSettings, NetworkValue, luck_worlds
from agents.evaluate.matches import MatchResult
from gubs_env.support.cli import CommandParser, non_negative_int, player_count, positive_int, run_command

SHIPPED = "shipped"
"""The name the shipped luck network's row goes by."""


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/luck_judges.py",
        description="The luck-adjusted interval each judge of luck gives on the same games.",
    )
    parser.add_argument("values", nargs="*", type=Path, metavar="VALUE.npz", help="value network files to compare")
    parser.add_argument("--agent", default="gubs-net", metavar="SPEC", help="the agent measured (default: gubs-net)")
    parser.add_argument("--opponent", default="heuristic", metavar="SPEC", help="every other seat (default: heuristic)")
    parser.add_argument("--players", type=player_count, default=2, help="table size (default: 2)")
    parser.add_argument("--games", type=positive_int, default=2000, help="seat-rotated games (default: 2000)")
    parser.add_argument("--seed", type=non_negative_int, default=9_000_000, help="the first deal (default: 9000000)")
    parser.add_argument(
        "--worlds", type=luck_worlds, default=LuckSettings.worlds,
        help=f"decks dealt again a chance step (default: {LuckSettings.worlds}, the estimator's)",
    )  # fmt: skip
    return parser


def judged(
    name: str, estimator: LuckEstimator, n: int, deals: list[int], played: list[list[int]], results: list[float]
) -> str:
    """One row of the table: ``name``'s adjusted rate, width, mean luck and cost on these games."""
    estimator.game(n, deals[0], played[0])  # compiles what a first game compiles, untimed
    start = time.process_time()
    luck = [
        float(estimator.game(n, deal, ids).luck[g % n]) for g, (deal, ids) in enumerate(zip(deals, played, strict=True))
    ]
    ms = (time.process_time() - start) / len(played) * 1e3
    match = MatchResult(name, len(results), int(sum(results)), 0)
    match.measure_deals(results, deals)
    match.measure_luck(results, luck, deals)
    assert match.adjusted is not None and match.luck is not None and match.width_ratio is not None
    a, x = match.adjusted, match.luck
    return (
        f"| {name} | {a.mean:.1%} [{a.low:.1%}, {a.high:.1%}] | {match.width_ratio:.3f}× | "
        f"{100 * x.mean:+.2f} [{100 * x.low:+.2f}, {100 * x.high:+.2f}] | {ms:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Play the games once, then print each judge's row."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        agent, opponent = make_agent(args.agent, args.seed), make_agent(args.opponent, args.seed + 1)
        judges = {SHIPPED: NetworkValue()} | {str(path): NetworkValue(ValueNet.load(path)) for path in args.values}
    except (AgentSpecError, ModelFileError) as error:
        parser.error(str(error))
    set_torch_threads(1)
    n = args.players
    games = rotated_games(agent, opponent, n, args.games, args.seed)
    deals, played, results = (list(column) for column in zip(*games, strict=True))
    match = MatchResult(args.agent, len(results), int(sum(results)), 0)
    match.measure_deals(results, deals)
    low, high = match.interval
    print(f"{args.agent} against {args.opponent}, {n} players, {args.games} games from deal {args.seed}: "
          f"{match.win_rate:.1%} [{low:.1%}, {high:.1%}] plain, {args.worlds} worlds")  # fmt: skip
    print("| judge | adjusted win rate | width | mean luck, points | ms a game |")
    print("|---|---|---:|---|---:|")
    for name, value in judges.items():
        print(
            judged(name, LuckEstimator(LuckSettings(worlds=args.worlds), value), n, deals, played, results), flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
