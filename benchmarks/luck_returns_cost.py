"""What a batch of luck-adjusted returns costs: CPU seconds to play it, to measure its luck, and to learn from it.

Run on a self-play run folder that holds a checkpoint::

    python benchmarks/luck_returns_cost.py RUN_DIR [--players N] [--batches B] [--worlds W]

It plays B + 1 batches (the first warms the compiled code and is not counted) of the run's batch size with the
checkpoint's policy, on deals no run uses, and prints the mean CPU seconds per batch of each part: the games, the
luck judged by the shipped luck network, by the run's critic as a run asks it (each distinct observation once), and
by the critic asked of every row (how it was asked before), and one update of the learner. All in one process, one
thread, on the same games, so the ratios compare even on a busy machine. The luck judged both ways by the critic
must agree to float32's precision: the largest difference is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from luck_returns_paired import checkpoint_learner  # the script beside this one

from agents.bots.threads import set_torch_threads
from agents.evaluate.luck import LuckEstimator, LuckSettings, ObservationValue, luck_worlds
from agents.training.core.config import PoolConfig
from agents.training.core.games import SelfPlayGames
from agents.training.core.seating import Seating
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.support.cli import positive_int


class EveryRow(ObservationValue):
    """The critic's judgement with every row asked, duplicates included: the reference for the timing."""

    def _each_outcome(self, observations: np.ndarray) -> np.ndarray:
        return np.asarray(self.outcome(observations), dtype=np.float64)


def main(argv: list[str] | None = None) -> int:
    """Print the CPU seconds of each part of a batch, and the two critic paths' largest difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a native run folder with a checkpoint")
    parser.add_argument(
        "--players",
        type=int,
        choices=range(2, MAX_PLAYERS + 1),
        default=None,
        help="table size (default: the run's own)",
    )
    parser.add_argument("--batches", type=positive_int, default=4, help="batches timed (default: 4)")
    worlds = LuckSettings().worlds
    parser.add_argument(
        "--worlds", type=luck_worlds, default=worlds, help=f"re-dealt decks a chance step (default: {worlds})"
    )
    args = parser.parse_args(argv)
    set_torch_threads(1)
    config, learner = checkpoint_learner(args.run)
    games = config.envs or 256
    table = SelfPlayGames(Seating(games, PoolConfig(), seed=0), args.players or config.players)  # all the learner
    settings = LuckSettings(worlds=args.worlds)
    judges = {
        "luck (shipped)": LuckEstimator(settings),
        "luck (critic)": LuckEstimator(settings, ObservationValue(learner.outcome)),
        "luck (critic, every row)": LuckEstimator(settings, EveryRow(learner.outcome)),
    }
    seconds = dict.fromkeys(["play", *judges, "update"], 0.0)
    largest = 0.0
    for b in range(args.batches + 1):
        seeds = np.arange(games, dtype=np.uint64) + 9_000_000_000 + b * games
        history: list[list[int]] = [[] for _ in seeds]
        spent = {"play": time.process_time()}
        table.deal(seeds, np.zeros(games, dtype=np.int64))
        batch = table.play(learner.decide, history=history)  # as a run plays: forced ids no samples
        luck = {}
        for name, judge in judges.items():
            spent[name] = time.process_time()
            played = zip(table.players, seeds, history, strict=True)
            luck[name] = np.concatenate([judge.game(int(n), int(s), ids).luck for n, s, ids in played])
        spent["update"] = time.process_time()
        learner.update(batch, 0)
        spent["end"] = time.process_time()
        largest = max(largest, float(np.abs(luck["luck (critic)"] - luck["luck (critic, every row)"]).max()))
        if b:  # the first batch compiled what it ran
            marks = list(spent.values())
            for name, start, stop in zip(seconds, marks[:-1], marks[1:], strict=True):
                seconds[name] += (stop - start) / args.batches
    print(
        f"{len(table.players)} games a batch at {table.players[0]} players, {args.worlds} re-dealt decks a chance step"
    )
    print("CPU seconds a batch: " + ", ".join(f"{name} {value:.2f}" for name, value in seconds.items()))
    print(f"critic's luck, each distinct observation against every row: largest difference {largest:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
