"""Benchmark: train.py's learner throughput on each engine path, measured in one process, interleaved.

Usage: ``python benchmarks/sb3_throughput.py`` (2 players, 3 rounds of 81,920 timesteps per path), ``--timesteps N``,
``--rounds K``, ``--players 2 4``.

Each path is what ``python train.py --engine <path>`` builds (its environments, its learner settings, its
policy class), with an opponent pool already holding three snapshots and drawing 10% random, 40% heuristic and
50% snapshot seats (train.py's pool before its default became the heuristic at every seat), so that every kind of
opponent takes its share of the time. The paths then learn in turns, ``--timesteps`` each per
round (whole rollouts: a multiple of both paths' rollout sizes), so a change in the machine's load hits both alike.
Evaluations, checkpoints and logging to files are left out: they are the same work for both paths.
Printed per path: learner timesteps per wall-clock second and per CPU second of this process, and the share of the
wall time spent inside the environments (opponents included); then the ratio of the fast path to the reference
path.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gubs_env.support.cli import CommandParser, player_count, positive_int, run_command

PATHS = ("reference", "fast")
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
    """The environments and learner ``train.py --engine path [flags]`` builds, with snapshots in the pool."""
    from dataclasses import replace

    from agents.training.command import parse
    from agents.training.core.config import PoolConfig
    from agents.training.sb3.train import make_envs, new_model

    config = parse(["--engine", path, "--players", *map(str, players), *flags]).config
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
    settings = {name: getattr(config, name) for name in shown} | {"lean_policy": config.engine == "fast"}
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


def run(players: list[int], timesteps: int, rounds: int, fast_flags: list[str]) -> dict[str, PathTimes]:
    """Build both paths, warm them up with one slice each, then time ``rounds`` interleaved slices."""
    from agents.training.sb3.train import learner_threads

    # learner_threads also sets numba's thread wait policy, which must come before torch is first imported
    with learner_threads(1), tempfile.TemporaryDirectory(prefix="gubs-train-bench-") as tmp:
        built = {path: _build(path, players, Path(tmp), fast_flags if path == "fast" else []) for path in PATHS}
        times = {path: PathTimes(path, settings=built[path][2]) for path in PATHS}
        for path in PATHS:  # first rollouts, numba's first calls, torch's first allocations: not timed
            with learner_threads(built[path][2]["threads"]):
                _slice(built[path][0], built[path][1], timesteps, PathTimes(path))
        for _ in range(rounds):
            for path in PATHS:
                with learner_threads(built[path][2]["threads"]):
                    _slice(built[path][0], built[path][1], timesteps, times[path])
        for envs, _, _ in built.values():
            envs.close()
    return times


def _check_fast_flags(flags: list[str]) -> None:
    """Let train.py's own parser refuse bad ``--fast-flags`` (a one-line error, status 2) before anything is built."""
    from agents.training.command import parse

    parse(["--engine", "fast", *flags])


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog="python benchmarks/sb3_throughput.py", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=player_count, nargs="+", default=[2], help="table sizes, 2 to 6 (default: 2)")
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        default=81_920,
        help="timesteps per path and round, a multiple of 4,096 (default: 81920)",
    )
    parser.add_argument("--rounds", type=positive_int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument(
        "--fast-flags",
        default="",
        metavar="FLAGS",
        help='train.py flags for the fast path, to try other settings (e.g. "--envs 128 --n-steps 32"; default: none)',
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse, measure, print."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.timesteps % 4096:
        parser.error("--timesteps must be a multiple of 4,096: whole rollouts of both paths")
    _check_fast_flags(args.fast_flags.split())
    times = run(args.players, args.timesteps, args.rounds, args.fast_flags.split())
    print(f"{'path':<10} {'timesteps/s':>12} {'per CPU second':>14} {'env share':>9}   settings")
    for path in PATHS:
        print(times[path].row())
    fast, reference = times["fast"], times["reference"]
    wall_ratio = (fast.timesteps / fast.wall) / (reference.timesteps / reference.wall)
    cpu_ratio = (fast.timesteps / fast.cpu) / (reference.timesteps / reference.cpu)
    print(f"fast / reference: {wall_ratio:.2f}x per wall-clock second, {cpu_ratio:.2f}x per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
