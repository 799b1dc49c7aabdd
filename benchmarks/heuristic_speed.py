"""``python benchmarks/heuristic_speed.py --positions 5000``: time the heuristic's decisions, alone and batched."""

from __future__ import annotations

import sys
import time

import numpy as np

from agents.bots.heuristic.agent import HeuristicAgent
from agents.bots.heuristic.decide import heuristic_actions, rng_state
from gubs_env.support.cli import EXIT_OK, CommandParser, non_negative_int, positive_int, run_command


def collect_positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` decisions with several legal ids, from heuristic games at 2 to 6 players."""
    from gubs_env.encoding.action_table import ActionCodec
    from gubs_env.encoding.observation import encode
    from gubs_env.engine import Game

    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    game_seed = seed
    while len(observations) < count:
        players = 2 + game_seed % 5
        codec = ActionCodec(players)
        game = Game(players, seed=game_seed, record_log=False)
        agent = HeuristicAgent(game_seed)
        while (seat := game.current_player) is not None and len(observations) < count:
            observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
            if np.count_nonzero(mask) > 1:
                observations.append(observation)
                masks.append(mask)
            game.apply(codec.action(agent.act(observation, mask), seat))
        game_seed += 1
    return np.array(observations, dtype=np.float32), np.array(masks, dtype=np.int8)


def benchmark(positions: int, seed: int, repeats: int) -> dict[str, float]:
    """CPU µs per decision: ``HeuristicAgent.act`` one at a time, one batch of all positions, and batches of 8."""
    observations, masks = collect_positions(positions, seed)
    count = len(observations)
    rows = np.arange(count, dtype=np.int64)
    states = np.tile(rng_state(np.random.default_rng(seed)), (count, 1))
    out = np.zeros(count, dtype=np.int64)
    agent = HeuristicAgent(seed)
    timings: dict[str, list[float]] = {"one_at_a_time": [], "batch_all": [], "batches_of_8": []}
    for _ in range(repeats):  # alternate, so a load change on the machine hits all alike
        start = time.process_time()
        for observation, mask in zip(observations, masks, strict=True):
            agent.act(observation, mask)
        timings["one_at_a_time"].append(time.process_time() - start)
        start = time.process_time()
        heuristic_actions(observations, masks, rows, rows, states, out)
        timings["batch_all"].append(time.process_time() - start)
        start = time.process_time()
        for first in range(0, count, 8):
            part = rows[first : first + 8]
            heuristic_actions(observations, masks, part, part, states, out)
        timings["batches_of_8"].append(time.process_time() - start)
    return {name: 1e6 * min(values) / count for name, values in timings.items()}


def build_parser() -> CommandParser:
    """The command line of the timing."""
    parser = CommandParser(
        prog="python benchmarks/heuristic_speed.py",
        description="Time the heuristic bot's decisions on positions from its own games (CPU time).",
    )
    parser.add_argument("--positions", type=positive_int, default=5000, help="decisions to time (default: 5000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed rounds, best kept (default: 3)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print µs per decision of the heuristic on the same positions, asked in three ways."""
    args = build_parser().parse_args(argv)
    figures = benchmark(args.positions, args.seed, args.repeats)
    print(f"CPU µs per decision over {args.positions} positions (best of {args.repeats}):")
    print(f"  HeuristicAgent.act, one at a time {figures['one_at_a_time']:9.2f}")
    print(f"  one batch of every position       {figures['batch_all']:9.2f}")
    print(f"  batches of 8                      {figures['batches_of_8']:9.2f}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_command(main))
