"""Benchmark: train.py's learner throughput (sb3), its default settings against other flags, interleaved.

Usage: ``python benchmarks/sb3_throughput.py`` (the default settings alone, 2 players, 3 rounds of 81,920
timesteps), ``--flags "--envs 128 --n-steps 32"`` (those settings beside the default), ``--timesteps N``,
``--rounds K``, ``--players 2 4``.

Each setup is what ``python train.py --backend sb3 [flags]`` builds (its backend: the environments and the learner),
with a league already holding three snapshots and drawing 10% random, 40% heuristic and 50% snapshot seats, so that
every kind of opponent takes its share of the time. The setups then learn in turns, ``--timesteps`` each per round
(whole rollouts), so a change in the machine's load hits both alike. Evaluations, checkpoints and logging to files are
left out: they are the same work for both. Printed per setup: learner timesteps per wall-clock second and per CPU
second of this process, and the share of the wall time spent inside the environments (opponents included); then,
with ``--flags``, the ratio of the other setup to the default.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from gubs_env.support.cli import CommandParser, player_count, positive_int, run_command

DEFAULT, OTHER = "default", "flags"
"""The setups: train.py's defaults, and with ``--flags``."""
SNAPSHOTS = 3


@dataclass
class PathTimes:
    """What the slices of one path measured, summed."""

    name: str
    timesteps: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    env_wall: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    def row(self) -> str:
        """One line of the printed table."""
        return (
            f"{self.name:<10} {self.timesteps / self.wall:>12,.0f} {self.timesteps / self.cpu:>14,.0f} "
            f"{self.env_wall / self.wall:>9.1%}   {self.settings}"
        )


def _build(players: list[int], flags: list[str]) -> tuple[Any, dict[str, Any]]:
    """The sb3 backend ``train.py --backend sb3 [flags]`` builds, with snapshots in its league."""
    from dataclasses import replace

    from agents.training.command import parse
    from agents.training.core.config import PoolConfig
    from agents.training.sb3.backend import Sb3Backend

    config = parse(["--backend", "sb3", "--players", *map(str, players), *flags]).config
    # the mixed league of the module docstring, whatever train.py's default is
    config = replace(config, pool=PoolConfig(p_random=0.1, p_heuristic=0.4, self_share=0.0)).resolved()
    backend = Sb3Backend(config)
    backend.set_league([(f"step_{i + 1}", backend.policy()) for i in range(SNAPSHOTS)], [1.0] * SNAPSHOTS)
    shown = ("envs", "n_steps", "batch_size", "epochs", "threads")
    return backend, {name: getattr(config, name) for name in shown}


def _slice(backend: Any, timesteps: int, times: PathTimes) -> None:
    """Learn ``timesteps`` more (whole rollouts: maybe a little past), adding the wall, CPU and games' time."""
    from agents.training.core.phases import ENVIRONMENTS

    wall, cpu, done = time.perf_counter(), time.process_time(), 0
    while done < timesteps:
        step = backend.iterate()
        done += step.timesteps
        times.env_wall += step.seconds[ENVIRONMENTS]
    times.wall += time.perf_counter() - wall
    times.cpu += time.process_time() - cpu
    times.timesteps += done


def run(players: list[int], timesteps: int, rounds: int, flags: list[str] | None) -> dict[str, PathTimes]:
    """Time the setups (the default; with ``flags``, those too) in ``rounds`` interleaved slices, after a warm-up."""
    from agents.bots.threads import one_blas_thread, set_torch_threads

    setups = {DEFAULT: []} if flags is None else {DEFAULT: [], OTHER: flags}
    with one_blas_thread():
        built = {path: _build(players, given) for path, given in setups.items()}
        times = {path: PathTimes(path, settings=built[path][1]) for path in setups}
        for path in setups:  # first rollouts, numba's first calls, torch's first allocations: not timed
            set_torch_threads(built[path][1]["threads"])
            _slice(built[path][0], timesteps, PathTimes(path))
        for _ in range(rounds):
            for path in setups:
                set_torch_threads(built[path][1]["threads"])
                _slice(built[path][0], timesteps, times[path])
    return times


def _check_flags(flags: list[str]) -> None:
    """Let train.py's own parser refuse bad ``--flags`` (a one-line error, status 2) before anything is built."""
    from agents.training.command import parse

    parse(flags)


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog="python benchmarks/sb3_throughput.py", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=player_count, nargs="+", default=[2], help="table sizes, 2 to 6 (default: 2)")
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        default=81_920,
        help="timesteps per setup and round, a multiple of 4,096 (default: 81920)",
    )
    parser.add_argument("--rounds", type=positive_int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument(
        "--flags",
        metavar="FLAGS",
        help='train.py flags to time beside the default settings (e.g. "--envs 128 --n-steps 32"; default: none)',
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse, measure, print."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.timesteps % 4096:
        parser.error("--timesteps must be a multiple of 4,096: whole rollouts")
    flags = None if args.flags is None else args.flags.split()
    if flags is not None:
        _check_flags(flags)
    times = run(args.players, args.timesteps, args.rounds, flags)
    print(f"{'setup':<10} {'timesteps/s':>12} {'per CPU second':>14} {'env share':>9}   settings")
    for path in times.values():
        print(path.row())
    if OTHER in times:
        other, default = times[OTHER], times[DEFAULT]
        wall_ratio = (other.timesteps / other.wall) / (default.timesteps / default.wall)
        cpu_ratio = (other.timesteps / other.cpu) / (default.timesteps / default.cpu)
        print(f"flags / default: {wall_ratio:.2f}x per wall-clock second, {cpu_ratio:.2f}x per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
