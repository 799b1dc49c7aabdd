"""What the gradient agreement costs a native update: CPU seconds of one batch, with and without it.

    python benchmarks/agreement_cost.py [--players N] [--games G] [--rounds R]

Each round plays a batch of G whole self-play games with a fresh from-scratch network (as a native run's first
batches are played), then makes the update twice from copies of the same learner: once measuring ``grad_cosine``
and once not, in alternating order. It prints each round's seconds, then the medians of the rounds after the first
(which compiled the games' code) and the share of a batch's CPU (play and update) the agreement takes. One thread,
one process, the same batch both ways: the ratio compares even on a busy machine. The two updates must leave the
same weights; the script checks it.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time

import numpy as np
import torch

from agents.bots.threads import set_torch_threads
from agents.training import PoolConfig, TrainingConfig
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.seating import Seating
from agents.training.native.learner import Learner
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.support.cli import positive_int


def timed_update(learner: Learner, batch: Batch, measure: bool) -> tuple[float, Learner]:
    """The CPU seconds of one update of a copy of ``learner``, and the copy."""
    copied = copy.deepcopy(learner)
    start = time.process_time()
    copied.update(batch, 0, measure)
    return time.process_time() - start, copied


def main(argv: list[str] | None = None) -> int:
    """Print each round's CPU seconds and the agreement's share of a batch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=range(2, MAX_PLAYERS + 1), default=2, help="default: 2")
    parser.add_argument("--games", type=positive_int, default=256, help="games a batch (default: 256, a run's)")
    parser.add_argument("--rounds", type=positive_int, default=4, help="batches (default: 4; the first not counted)")
    args = parser.parse_args(argv)
    set_torch_threads(1)
    learner = Learner(TrainingConfig(players=args.players).resolved())
    table = SelfPlayGames(Seating(args.games, PoolConfig(), seed=0), args.players)  # every seat the learner
    rows = []
    for r in range(args.rounds):
        seeds = np.arange(args.games, dtype=np.uint64) + 9_000_000_000 + r * args.games
        start = time.process_time()
        table.deal(seeds, np.zeros(args.games, dtype=np.int64))
        batch = table.play(learner.decide)  # as a run plays: forced ids no samples
        play = time.process_time() - start
        order = (True, False) if r % 2 else (False, True)
        (first, a), (second, b) = (timed_update(learner, batch, measure) for measure in order)
        same = all(torch.equal(x, y) for x, y in zip(a.model.parameters(), b.model.parameters(), strict=True))
        if not same:
            raise SystemExit("the update with the agreement left other weights than the one without")
        with_it, without = (first, second) if order[0] else (second, first)
        rows.append((play, with_it, without))
        print(f"round {r + 1}: {len(batch):,} samples; play {play:.2f}, update {with_it:.2f} with the agreement, "
              f"{without:.2f} without")  # fmt: skip
    play, with_it, without = np.median(rows[1:] or rows, axis=0)
    share = (with_it - without) / (play + with_it)
    cost = f"{share:.1%} of a batch" if share >= 0 else "less than the timing's noise"
    print(f"median CPU seconds: play {play:.2f}, update {with_it:.2f} with the agreement and {without:.2f} without; "
          f"the agreement costs {cost}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
