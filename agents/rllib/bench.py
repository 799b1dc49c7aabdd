"""Throughput and memory of RLlib training with 0, 1, 2 env runners, beside train.py's default backend.

``python -m agents.rllib.bench --minutes 1.5`` runs, one after the other, ``train.py`` (the sb3 backend) and
``train.py --backend rllib`` with each ``--env-runners`` count for the same wall-clock budget, each in a fresh
process with its output in a temporary folder. It prints each run's learner steps/s and env steps/s (training
time only: start-up and evaluations excluded) and the peak resident memory of the run's processes by kind
(driver, env runners, Ray's services), read from ``/proc`` (Linux) once a second.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gubs_env.support.cli import CommandParser, non_negative_int, positive_float, run_command

_RLLIB_RATE = re.compile(r"([\d,]+) learner steps/s, ([\d,]+) env steps/s")
_SB3_RATE = re.compile(r"trained [\d,]+ timesteps in [\d.]+ min \(([\d,]+) steps/s\)")


@dataclass
class Run:
    """One measured command."""

    label: str
    command: list[str]
    learner_rate: float = 0.0
    env_rate: float | None = None
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
        process = subprocess.Popen(run.command, stdout=log, stderr=subprocess.STDOUT)
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
    rates = _RLLIB_RATE.findall(output)
    if rates:
        learner, env = rates[-1]
        run.learner_rate, run.env_rate = float(learner.replace(",", "")), float(env.replace(",", ""))
    else:
        found = _SB3_RATE.search(output)
        if found is None:
            raise RuntimeError(f"{run.label}: no throughput in its output:\n{output[-2000:]}")
        run.learner_rate = float(found[1].replace(",", ""))
    return run


def runs(minutes: float, runner_counts: list[int], folder: Path) -> list[Run]:
    """The commands measured, in order."""
    sb3 = [sys.executable, "train.py", "--minutes", str(minutes), "--no-progress", "--eval-every", "10000000"]
    out = [
        Run("train.py (sb3, default)", [*sb3, "--eval-games", "20", "--out", str(folder / "sb3")]),
    ]
    for count in runner_counts:
        command = [sys.executable, "train.py", "--backend", "rllib", "--minutes", str(minutes)]
        command += ["--env-runners", str(count), "--eval-every", "0", "--eval-games", "20"]
        out.append(Run(f"rllib, {count} env runners", [*command, "--out", str(folder / f"rllib-{count}")]))
    return out


def report(measured: list[Run]) -> str:
    """A Markdown table of the figures."""
    lines = [
        "| run | learner steps/s | env steps/s | driver MiB | each env runner MiB | Ray services MiB | total MiB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in measured:
        mib = run.peak_mib
        env_rate = "-" if run.env_rate is None else f"{run.env_rate:,.0f}"
        runner = f"{mib['each env runner']:,.0f}" if "each env runner" in mib else "-"
        services = f"{mib['ray services']:,.0f}" if "ray services" in mib else "-"
        lines.append(
            f"| {run.label} | {run.learner_rate:,.0f} | {env_rate} | {mib.get('driver', 0):,.0f} | {runner} | "
            f"{services} | {mib.get('total', 0):,.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table."""
    parser = CommandParser(prog="python -m agents.rllib.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=positive_float, default=1.5, help="training budget of each run")
    parser.add_argument("--env-runners", type=non_negative_int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        measured = []
        for run in runs(args.minutes, args.env_runners, Path(folder)):
            print(f"measuring {run.label}: {' '.join(run.command[1:])}", flush=True)
            measured.append(measure(run))
    print(report(measured))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
