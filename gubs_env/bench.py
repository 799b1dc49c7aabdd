"""Benchmark: random legal play through the engine and through the PettingZoo environments.

Usage: ``python -m gubs_env.bench`` (2, 4 and 6 players), ``--players 2 --games 10000``, ``--engine-only``.

Engine rows play uniformly random legal games (event log off) and give games/s and decisions/s. Environment
rows step ``raw_env`` and ``env()`` with uniformly random masked actions, next to PettingZoo's own
``connect_four_v3`` ``env()`` driven by the same loop in the same run, and give the ratio. Figures depend on
the machine and its load: compare rows of one run, not across runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
import warnings
from dataclasses import dataclass

from tqdm import tqdm

from gubs_env.cli import non_negative_int, player_count, positive_int
from gubs_env.engine import Game


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


class EnvRunner:
    """Steps one AEC env with uniformly random masked actions, in slices of time that can be interleaved."""

    def __init__(self, make_env, seed: int = 0) -> None:
        import numpy as np

        self._np = np
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.seed, self.episodes, self.steps, self.seconds = seed, 0, 0, 0.0
        self._agents = iter(())

    def run(self, seconds: float) -> None:
        """Step for about ``seconds`` more, carrying on with the episode in progress."""
        env, flatnonzero, choice = self.env, self._np.flatnonzero, self.rng.choice
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                if next(self._agents, None) is None:
                    env.reset(seed=self.seed + self.episodes)
                    self.episodes += 1
                    self._agents = iter(env.agent_iter())
                    next(self._agents)
                observation, _reward, terminated, truncated, _info = env.last()
                action = None if terminated or truncated else int(choice(flatnonzero(observation["action_mask"])))
                env.step(action)
                self.steps += 1
        self.seconds += time.perf_counter() - start

    @property
    def steps_per_s(self) -> float:
        """Steps per second over every slice so far."""
        return self.steps / self.seconds


def env_table(players: list[int], seconds: int, seed: int = 0, progress: bool = True) -> str:
    """Environment steps/s for Gubs ``raw_env`` and ``env()`` against ``connect_four_v3`` ``env()``.

    Every row runs for ``seconds`` in one-second slices taken in turn, so that a change in the machine's load
    during the run touches all rows alike.
    """
    from pettingzoo.classic import connect_four_v3

    import gubs_env

    rows = {("connect_four_v3 env()", 2): EnvRunner(connect_four_v3.env, seed)}
    for n in players:
        rows[("gubs raw_env", n)] = EnvRunner(lambda n=n: gubs_env.raw_env(num_players=n), seed)
        rows[("gubs env()", n)] = EnvRunner(lambda n=n: gubs_env.env(num_players=n), seed)
    for _ in tqdm(range(seconds), desc="environments", unit="round", disable=not progress, leave=False):
        for runner in rows.values():
            runner.run(1.0)
    reference = rows[("connect_four_v3 env()", 2)].steps_per_s
    lines = [
        "| environment | players | steps/s | steps measured | ratio to connect_four_v3 env() |",
        "|---|---:|---:|---:|---:|",
    ]
    for (name, n), runner in rows.items():
        lines.append(
            f"| {name} | {n} | {runner.steps_per_s:,.0f} | {runner.steps} | {runner.steps_per_s / reference:.2f} |"
        )
    return "\n".join(lines)


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


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m gubs_env.bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 4, 6], help="player counts to measure (default: 2 4 6)"
    )
    parser.add_argument("--games", type=positive_int, default=2000, help="games per player count (default: 2000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="first game seed (default: 0)")
    parser.add_argument(
        "--env-seconds", type=positive_int, default=5, help="seconds of stepping per environment row (default: 5)"
    )
    parser.add_argument("--engine-only", action="store_true", help="skip the environment rows")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a Markdown table."""
    args = parse_args(argv)
    print(f"Random legal play, engine only, one process - Python {platform.python_version()} on {platform.machine()}")
    rows = [random_games(p, args.games, args.seed, progress=not args.no_progress) for p in args.players]
    print(_table(rows))
    if args.engine_only:
        return 0
    try:
        with warnings.catch_warnings():  # pygame's import warns about a deprecated packaging API
            warnings.simplefilter("ignore")
            import pettingzoo.classic.connect_four_v3  # noqa: F401 - needs pettingzoo and pygame
    except ImportError as err:
        print(f"\nEnvironment rows skipped: {err}. Install them with: pip install -e '.[env]'")
        return 0
    print(f"\nEnvironments, random masked actions, {args.env_seconds} s per row in interleaved slices, one process")
    print(env_table(args.players, args.env_seconds, args.seed, progress=not args.no_progress))
    return 0


if __name__ == "__main__":
    sys.exit(main())
