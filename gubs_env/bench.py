"""Benchmark: uniformly random legal games, games/s and decisions/s per player count.

    python -m gubs_env.bench                  # 2, 4 and 6 players, 2000 games each
    python -m gubs_env.bench --players 2 --games 10000

The random players draw from their own ``random.Random``; the engine's generator is only used for the
game's own chance events. Figures depend on the machine: compare rows of one run, not across runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from dataclasses import dataclass

from tqdm import tqdm

from gubs_env.engine import Game
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS


@dataclass
class EngineFigures:
    """What one batch of random games measured."""

    players: int
    games: int
    seconds: float
    decisions: int
    turns: int
    truncated: int

    @property
    def games_per_s(self) -> float:
        """Games per second."""
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        """Decisions (applied actions) per second."""
        return self.decisions / self.seconds


def random_games(players: int, games: int, seed: int = 0, progress: bool = True) -> EngineFigures:
    """Play ``games`` uniformly random games without the event log and time them."""
    decisions = turns = truncated = 0
    start = time.perf_counter()
    for i in tqdm(range(games), desc=f"{players} players", unit="game", disable=not progress, leave=False):
        game = Game(players, seed=seed + i, record_log=False)
        pick = random.Random(seed + i).random
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[int(pick() * len(legal))])
            decisions += 1
        turns += game.state.turn
        truncated += game.truncated
    return EngineFigures(players, games, time.perf_counter() - start, decisions, turns, truncated)


def _table(rows: list[EngineFigures]) -> str:
    lines = [
        "| players | games | games/s | decisions/s | decisions/game | turns/game | truncated |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.players} | {r.games} | {r.games_per_s:,.0f} | {r.decisions_per_s:,.0f} | "
            f"{r.decisions / r.games:.0f} | {r.turns / r.games:.0f} | {r.truncated} |"
        )
    return "\n".join(lines)


def _player_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"player counts go from {MIN_PLAYERS} to {MAX_PLAYERS}, not {value}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m gubs_env.bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--players", type=_player_count, nargs="+", default=[2, 4, 6], help="player counts to measure (default: 2 4 6)"
    )
    parser.add_argument("--games", type=_positive, default=2000, help="games per player count (default: 2000)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default: 0)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table."""
    args = parse_args(argv)
    print(f"Random legal play, engine only, one process - Python {platform.python_version()} on {platform.machine()}")
    rows = [random_games(p, args.games, args.seed, progress=not args.no_progress) for p in args.players]
    print(_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
