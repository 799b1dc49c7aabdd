"""The world samplers timed: the reference one (with the conversion to rows) against the compiled batch, per world.

``python benchmarks/world_sampler.py`` draws positions every 17 decisions of random games, reads the acting seat's
knowledge (outside both timings), then times, per world, :func:`~gubs_env.engine.positions.determinize.sample_world`
followed by :func:`~gubs_env.fast.convert.state_to_row`, against one call of
:func:`~gubs_env.fast.determinize.sample_rows` (its plan inside, and shown alone). docs/fast.md
("Determinization in batch") has the figures.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from gubs_env.engine import Game
from gubs_env.engine.positions.determinize import Knowledge, knowledge, sample_world
from gubs_env.fast.convert import state_to_row
from gubs_env.fast.determinize import new_rows, plan_worlds, sample_rows
from gubs_env.support.cli import CommandParser, player_count, positive_int, run_command


def _positions(num_players: int, count: int, seed: int) -> list[Knowledge]:
    """Knowledge of the seat to act at ``count`` positions spread over random games (not their first turns)."""
    rnd = random.Random(seed)
    found: list[Knowledge] = []
    game_seed = seed
    while len(found) < count:
        game = Game(num_players, seed=game_seed, record_log=False)
        game_seed += 1
        steps = 0
        while not game.is_over and len(found) < count:
            legal = game.legal_actions()
            game.apply(legal[rnd.randrange(len(legal))])
            steps += 1
            if steps % 17 == 0 and game.current_player is not None:
                found.append(knowledge(game.state, game.current_player))
    return found


def _cpu_us(run: Callable[[Knowledge], object], positions: list[Knowledge], rounds: int) -> float:
    """The median over ``rounds`` of the CPU µs ``run(k)`` takes per position.

    CPU time of this process rather than the wall clock: on a shared, busy machine it stays close to what
    the work costs on an idle core.
    """
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for k in positions:
            run(k)
        times.append((time.process_time() - start) / len(positions) * 1e6)
    return statistics.median(times)


def build_parser() -> CommandParser:
    """The command line of the timing."""
    parser = CommandParser(
        prog="python benchmarks/world_sampler.py",
        description="Time the reference sampler (with the conversion to rows) against the compiled batch, per world.",
    )
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 5], help="table sizes, 2 to 6 (default: 2 5)"
    )
    parser.add_argument(
        "--worlds", type=positive_int, nargs="+", default=[32, 128], help="worlds per decision (default: 32 128)"
    )
    parser.add_argument("--positions", type=positive_int, default=20, help="positions per table size (default: 20)")
    parser.add_argument("--rounds", type=positive_int, default=5, help="timed rounds, the median shown (default: 5)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Time the reference sampler (with the conversion to rows) against the compiled batch, per world."""
    args = build_parser().parse_args(argv)

    start = time.perf_counter()
    sample_rows(_positions(2, 1, 0)[0], 0, *new_rows(1))
    print(f"compiled sampler loaded in {time.perf_counter() - start:.1f} s")
    print("CPU µs per world; knowledge() outside both timings, the compiled plan inside (and shown alone):")
    print("players  worlds  sample_world+state_to_row  compiled batch  speed-up  (plan per decision)")
    for num_players in args.players:
        positions = _positions(num_players, args.positions, num_players)
        plan_us = _cpu_us(plan_worlds, positions, args.rounds)
        for worlds in args.worlds:
            rows, rngs = new_rows(worlds)

            def reference(k: Knowledge, rows: np.ndarray = rows, rngs: np.ndarray = rngs) -> None:
                for w in range(rows.shape[0]):
                    state_to_row(sample_world(k, w), rows[w], rngs[w])

            def compiled(k: Knowledge, rows: np.ndarray = rows, rngs: np.ndarray = rngs) -> None:
                sample_rows(k, 0, rows, rngs)

            ref = _cpu_us(reference, positions, max(1, args.rounds // 2)) / worlds
            fast = _cpu_us(compiled, positions, args.rounds) / worlds
            print(
                f"{num_players:>7}  {worlds:>6}  {ref:>25.1f}  {fast:>14.2f}  {ref / fast:>7.0f}x  ({plan_us:.0f} µs)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
