"""Benchmark: train.py's learner throughput (sb3), its default settings against other flags, interleaved.

Usage: ``python benchmarks/sb3_throughput.py`` (the default settings alone, 2 players, 3 rounds of 81,920
timesteps), ``--flags "--envs 128 --n-steps 32"`` (those settings beside the default), ``--timesteps N``,
``--rounds K``, ``--players 2 4``.

Each setup is what ``python train.py [flags]`` builds (its environments and learner), with an opponent pool already
holding three snapshots and drawing 10% random, 40% heuristic and 50% snapshot seats, so that every kind of
opponent takes its share of the time. The setups then learn in turns, ``--timesteps`` each per round (whole
rollouts), so a change in the machine's load hits both alike. Evaluations, checkpoints and logging to files are
left out: they are the same work for both. Printed per setup: learner timesteps per wall-clock second and per CPU
second of this process, and the share of the wall time spent inside the environments (opponents included); then,
with ``--flags``, the ratio of the other setup to the default.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
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


def _build(path: str, players: list[int], folder: Path, flags: list[str]) -> tuple[Any, Any, dict[str, Any]]:
    """The environments and learner ``train.py [flags]`` builds, with snapshots in the pool."""
    from dataclasses import replace

    from agents.training.command import parse
    from agents.training.core.config import PoolConfig
    from agents.training.sb3.train import make_envs, new_model

    config = parse(["--players", *map(str, players), *flags]).config
    # the mixed pool of the module docstring, whatever train.py's default pool is
    config = replace(config, pool=PoolConfig(p_random=0.1, p_heuristic=0.4, self_share=0.0)).resolved()
    envs = make_envs(config)
    model = new_model(config, envs)
    snapshots = folder / path / "snapshots"
    snapshots.mkdir(parents=True)
    names = [f"snapshots/step_{i + 1}.zip" for i in range(SNAPSHOTS)]
    for name in names:
        model.save(folder / path / name)
    envs.env_method("set_snapshots", [str(folder / path / name) for name in names])
    shown = ("envs", "n_steps", "batch_size", "epochs", "threads")
    settings = {name: getattr(config, name) for name in shown}
    return envs, model, settings


def _slice(envs, model, timesteps: int, times: PathTimes) -> None:
    """Learn ``timesteps`` more, adding the wall, CPU and environment time to ``times``."""
    env_before, steps_before = envs.env_seconds, model.num_timesteps
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False)  # whole rollouts: may run a little past
    times.wall += time.perf_counter() - wall
    times.cpu += time.process_time() - cpu
    times.env_wall += envs.env_seconds - env_before
    times.timesteps += model.num_timesteps - steps_before


def run(players: list[int], timesteps: int, rounds: int, flags: list[str] | None) -> dict[str, PathTimes]:
    """Time the setups (the default; with ``flags``, those too) in ``rounds`` interleaved slices, after a warm-up."""
    from agents.training.sb3.train import learner_threads

    # learner_threads also sets numba's thread wait policy, which must come before torch is first imported
    with learner_threads(1), tempfile.TemporaryDirectory(prefix="gubs-train-bench-") as tmp:
        setups = {DEFAULT: []} if flags is None else {DEFAULT: [], OTHER: flags}
        built = {path: _build(path, players, Path(tmp), given) for path, given in setups.items()}
        times = {path: PathTimes(path, settings=built[path][2]) for path in setups}
        for path in setups:  # first rollouts, numba's first calls, torch's first allocations: not timed
            with learner_threads(built[path][2]["threads"]):
                _slice(built[path][0], built[path][1], timesteps, PathTimes(path))
        for _ in range(rounds):
            for path in setups:
                with learner_threads(built[path][2]["threads"]):
                    _slice(built[path][0], built[path][1], timesteps, times[path])
        for envs, _, _ in built.values():
            envs.close()
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
