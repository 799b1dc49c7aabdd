"""Env-runner sampling rates, and throughput and memory of RLlib training, beside train.py's default.

``python benchmarks/rllib_throughput.py --part sampling`` measures what the env runners alone sustain, with no
learning in between: the env runners ``train.py --backend rllib`` builds with its defaults
(:class:`~agents.training.rllib.runner.FastEnvRunner`, 64 games per runner) in each layout (1 env runner and 2 on a
local Ray, then 2 on a local two-node cluster, one runner on each node, with the code shipped to the workers as on a
real cluster): the env steps all runners sample together per second of wall time, the runners sampling in parallel
(``foreach_env_runner``), after one warm-up round. It prints a table of the rates.

``python benchmarks/rllib_throughput.py --minutes 1.5`` runs, one after the other, ``train.py`` (the native backend,
the default), ``train.py --backend sb3`` and ``train.py --backend rllib`` with each ``--env-runners`` count for the
same wall-clock budget, each in a fresh process with its output in a temporary folder. It prints each run's learner
timesteps per second of its iterations (start-up and evaluations excluded), read from the summary every backend
prints, and the peak resident memory of the run's processes by kind (driver, env runners, Ray's services), read from
``/proc`` (Linux) once a second.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gubs_env.support.cli import CommandParser, non_negative_int, positive_float, run_command

LAYOUTS = (("local", 1), ("local", 2), ("two-node cluster", 2))
"""Where the sampling runs: (Ray layout, env runners)."""

_SUMMARY = re.compile(r"trained ([\d,]+) timesteps in ([\d.]+) min; the time went to: (.+)")
_ITERATIONS = re.compile(r"\b(?:environments|training iterations) (\d+)%")
"""The phases of train.py's summary that are sb3's training: its time is their shares of the run's wall time."""


@dataclass
class Run:
    """One measured command."""

    label: str
    command: list[str]
    learner_rate: float = 0.0
    peak_mib: dict[str, float] = field(default_factory=dict)
    """Peak resident memory per process kind, and of all of them together at one time (``total``)."""


def _descendants(root: int) -> list[int]:
    """``root`` and every process under it (from /proc)."""
    parents: dict[int, list[int]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(fields[1])].append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, []))
    return found


def _kind(pid: int, root: int) -> str:
    """driver, env runner or Ray services, by the process's command line (Ray names its actor processes)."""
    if pid == root:
        return "driver"
    try:
        command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "ray services"
    return "env runner" if "EnvRunner" in command else "ray services"


def _rss_mib(pid: int) -> float:
    try:
        for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(run: Run) -> Run:
    """Run the command to its end, sampling its processes' memory every second; parse its throughput."""
    with tempfile.TemporaryFile("w+") as log:
        # each run starts its own Ray, as train.py on a fresh machine does: a cluster this process may have joined
        # (its RAY_ADDRESS) would make the run connect to it instead
        env = {name: value for name, value in os.environ.items() if name != "RAY_ADDRESS"}
        process = subprocess.Popen(run.command, stdout=log, stderr=subprocess.STDOUT, env=env)
        while process.poll() is None:
            by_kind: dict[str, float] = defaultdict(float)
            count: dict[str, int] = defaultdict(int)
            for pid in _descendants(process.pid):
                kind = _kind(pid, process.pid)
                by_kind[kind] += _rss_mib(pid)
                count[kind] += 1
            if count["env runner"]:
                by_kind["each env runner"] = by_kind["env runner"] / count["env runner"]
            by_kind["total"] = sum(v for k, v in by_kind.items() if k in ("driver", "env runner", "ray services"))
            for kind, mib in by_kind.items():
                run.peak_mib[kind] = max(run.peak_mib.get(kind, 0.0), mib)
            time.sleep(1.0)
        log.seek(0)
        output = log.read()
    if process.returncode != 0:
        raise RuntimeError(f"{run.label} failed (exit {process.returncode}):\n{output[-2000:]}")
    run.learner_rate = training_rate(output, run.label)
    return run


def training_rate(output: str, label: str) -> float:
    """Timesteps per second of the iterations (the games and the updates) from train.py's summary line."""
    found = _SUMMARY.search(output)
    if found is None:
        raise RuntimeError(f"{label}: no throughput in its output:\n{output[-2000:]}")
    shares = sum(int(share) for share in _ITERATIONS.findall(found[3])) / 100
    seconds = float(found[2]) * 60 * shares
    return int(found[1].replace(",", "")) / seconds if seconds > 0 else 0.0


def runs(minutes: float, runner_counts: list[int], folder: Path) -> list[Run]:
    """The commands measured, in order."""
    common = ["--minutes", str(minutes), "--no-progress", "--eval-every", "1000000000", "--eval-games", "20"]
    common += ["--final-games", "20"]  # no curve point but the start's, a short final figure
    train = [sys.executable, "train.py", *common]
    out = [
        Run("train.py (native, default)", [*train, "--out", str(folder / "native")]),
        Run("train.py --backend sb3", [*train, "--backend", "sb3", "--out", str(folder / "sb3")]),
    ]
    rllib = [*train, "--backend", "rllib"]
    for count in runner_counts:
        command = [*rllib, "--env-runners", str(count), "--out", str(folder / f"rllib-{count}")]
        out.append(Run(f"rllib, {count} env runners", command))
    return out


def report(measured: list[Run]) -> str:
    """A Markdown table of the figures."""
    lines = [
        "| run | learner timesteps/s | driver MiB | each env runner MiB | Ray services MiB | total MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for run in measured:
        mib = run.peak_mib
        runner = f"{mib['each env runner']:,.0f}" if "each env runner" in mib else "-"
        services = f"{mib['ray services']:,.0f}" if "ray services" in mib else "-"
        lines.append(
            f"| {run.label} | {run.learner_rate:,.0f} | {mib.get('driver', 0):,.0f} | {runner} | "
            f"{services} | {mib.get('total', 0):,.0f} |"
        )
    return "\n".join(lines)


@dataclass
class Sampling:
    """One sampling measurement: env steps all runners sampled in ``seconds`` of wall time."""

    layout: str
    runners: int
    steps: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Env steps per second, all runners together."""
        return self.steps / self.seconds if self.seconds else 0.0


def _sampled_steps(env_runner: Any) -> int:
    """In an env runner: one ``sample()`` call as training makes it; the env steps it returned."""
    return sum(episode.env_steps() for episode in env_runner.sample())


def measure_sampling(layout: str, runners: int, seconds: float) -> Sampling:
    """Start Ray in ``layout``, then time training's env runners sampling for about ``seconds``."""
    import ray

    from agents.training import TrainingConfig
    from agents.training.core.config import RllibSettings
    from agents.training.rllib.backend import _project_packages, build_config

    cluster = None
    if layout == "local":
        ray.init(num_cpus=runners + 1, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    else:
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cluster.add_node(num_cpus=runners - 1)  # one runner per node: each asks for a whole CPU
        runtime_env = {"py_modules": _project_packages()}
        ray.init(address=cluster.address, runtime_env=runtime_env, log_to_driver=False, logging_level=logging.WARNING)
    result = Sampling(layout, runners)
    try:
        config = TrainingConfig(backend="rllib", rllib=RllibSettings(env_runners=runners)).resolved()
        algorithm = build_config(config).build_algo()
        try:
            group = algorithm.env_runner_group
            group.foreach_env_runner(_sampled_steps, local_env_runner=False)  # warm-up: deals, compiled code
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                result.steps += sum(group.foreach_env_runner(_sampled_steps, local_env_runner=False))
            result.seconds = time.perf_counter() - start
        finally:
            algorithm.stop()
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
    print(f"  {result.rate:,.0f} env steps/s ({result.steps:,} in {result.seconds:.1f} s)")
    return result


def sampling_report(measured: list[Sampling]) -> str:
    """A Markdown table: env steps/s per layout, all runners together."""
    lines = ["| layout | env runners | env steps/s |", "|---|---:|---:|"]
    lines += [f"| {m.layout} | {m.runners} | {m.rate:,.0f} |" for m in measured]
    return "\n".join(lines)


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog="python benchmarks/rllib_throughput.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--part", choices=("all", "sampling", "training"), default="all", help="what to measure (default: all)"
    )
    parser.add_argument(
        "--minutes", type=positive_float, default=1.5, help="training budget of each training run (default: 1.5)"
    )
    parser.add_argument(
        "--env-runners",
        type=non_negative_int,
        nargs="+",
        default=[0, 1, 2],
        help="the env runner counts of the training runs (default: 0 1 2)",
    )
    parser.add_argument(
        "--sample-seconds",
        type=positive_float,
        default=30.0,
        help="sampling time of each layout (default: 30)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Measure and print the tables."""
    args = build_parser().parse_args(argv)
    if args.part in ("all", "sampling"):
        sampled = []
        for layout, runners in LAYOUTS:
            print(f"sampling on {layout} Ray, {runners} env runner(s), {args.sample_seconds:g} s", flush=True)
            sampled.append(measure_sampling(layout, runners, args.sample_seconds))
        print(sampling_report(sampled), flush=True)
    if args.part in ("all", "training"):
        with tempfile.TemporaryDirectory() as folder:
            measured = []
            for run in runs(args.minutes, args.env_runners, Path(folder)):
                print(f"measuring {run.label}: {' '.join(run.command[1:])}", flush=True)
                measured.append(measure(run))
        print(report(measured))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
