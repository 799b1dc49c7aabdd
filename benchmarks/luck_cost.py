"""What the luck adjustment costs beside playing the games: CPU ms per game, one thread, in one process.

``python benchmarks/luck_cost.py --agent gubs-net --opponent heuristic --players 4`` plays the agent against the
opponent at every other seat, seat-rotated (game ``g``: seat ``g % n``, deal ``seed + g // n``, as ``agents.evaluate``
deals them), timing each game (:func:`agents.evaluate.matches.play_game`, its action ids kept), then the adjustment
of the same games (:meth:`agents.evaluate.luck.LuckEstimator.game`, which also replays the deck's history). Each
round is timed in CPU time of this process, one BLAS and torch thread, as a tournament worker runs; the first round
also loads what the later ones find cached. ``--reference-steps`` adjusts each round's games a second time with
the reference engine's steps of the Letters' posterior in place of the compiled ones (a card put back, the ways'
weights: an A/B in one process, whose rounds share the machine's load). docs/luck.md ("Cost") has the figures and
the aims.
"""

from __future__ import annotations

import sys
import time
from contextlib import nullcontext
from unittest import mock

from agents.bots.base import Agent
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpecError
from agents.bots.threads import set_torch_threads
from agents.evaluate.luck import LuckEstimator, LuckSettings, luck_worlds
from agents.evaluate.matches import play_game
from gubs_env.support.cli import CommandParser, non_negative_int, player_count, positive_int, run_command


def build_parser() -> CommandParser:
    """The command line of the timing."""
    parser = CommandParser(
        prog="python benchmarks/luck_cost.py",
        description="Time the luck adjustment against playing the same games, CPU ms per game on one thread.",
    )
    parser.add_argument(
        "--agent", default="gubs-net", help="the agent timed, a spec of agents.evaluate (default: gubs-net)"
    )
    parser.add_argument(
        "--opponent", metavar="SPEC", default="heuristic", help="the agent at every other seat (default: heuristic)"
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument("--games", type=positive_int, default=300, help="games per round (default: 300)")
    parser.add_argument("--rounds", type=positive_int, default=2, help="rounds, each timed (default: 2)")
    worlds = LuckSettings().worlds
    parser.add_argument(
        "--worlds", type=luck_worlds, default=worlds, help=f"re-dealt worlds a step (default: {worlds})"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal (default: 0)")
    parser.add_argument(
        "--reference-steps",
        action="store_true",
        help="also adjust each round with the reference's steps of the Letters' posterior (a column more)",
    )
    return parser


def rotated_games(agent: Agent, opponent: Agent, n: int, games: int, seed: int) -> list[tuple[int, list[int], float]]:
    """Each game's deal, action ids and ``agent``'s result (1: a win), ``opponent`` at every other seat.

    As ``agents.evaluate`` deals them: game ``g`` seats the agent at ``g % n`` on deal ``seed + g // n``.
    """
    played = []
    for g in range(games):
        seat, deal = g % n, seed + g // n
        ids: list[int] = []
        game = play_game([opponent] * seat + [agent] + [opponent] * (n - 1 - seat), deal, played=ids)
        played.append((deal, ids, 1.0 if seat in game.winners() else 0.0))
    return played


def adjusting_ms(estimator: LuckEstimator, n: int, games: list[tuple[int, list[int]]], reference: bool) -> float:
    """CPU ms a game to adjust ``games``, nothing remembered from before; ``reference``: the reference's steps."""
    import gubs_env.engine.positions.determinize as det
    import gubs_env.fast.determinize as fd

    det.letter_posterior.cache_clear()
    det._followed.cache_clear()
    step = mock.patch.object(fd, "COMPILED_STEPS", det.REFERENCE_STEPS) if reference else nullcontext()
    with step:
        start = time.process_time()
        for deal, ids in games:
            estimator.game(n, deal, ids)
    return (time.process_time() - start) / len(games) * 1e3


def main(argv: list[str] | None = None) -> int:
    """Play, then adjust, the same games, round after round; one line of CPU ms per game each."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # each spec built once before any game: one that builds nothing is a usage error
        make_agent(args.agent, args.seed), make_agent(args.opponent, args.seed + 1)
    except AgentSpecError as error:
        parser.error(str(error))
    from threadpoolctl import threadpool_limits

    set_torch_threads(1)
    n = args.players
    estimator = LuckEstimator(LuckSettings(worlds=args.worlds))
    print(f"{args.agent} against {args.opponent}, {n} players, {args.games} games a round, {args.worlds} worlds")
    extra = (" | adjusting, reference steps", "|---:") if args.reference_steps else ("", "")
    print(f"| round | playing, ms a game | adjusting, ms a game | adjusting / playing{extra[0]} |")
    print(f"|---:|---:|---:|---:{extra[1]}|")
    with threadpool_limits(1):
        for round_ in range(1, args.rounds + 1):
            agent, opponent = make_agent(args.agent, args.seed), make_agent(args.opponent, args.seed + 1)
            start = time.process_time()
            games = [(deal, ids) for deal, ids, _ in rotated_games(agent, opponent, n, args.games, args.seed)]
            playing = (time.process_time() - start) / args.games * 1e3
            adjusting = adjusting_ms(estimator, n, games, reference=False)
            row = f"| {round_} | {playing:.2f} | {adjusting:.2f} | {adjusting / playing:.2f}× |"
            if args.reference_steps:
                row += f" {adjusting_ms(estimator, n, games, reference=True):.2f} |"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
