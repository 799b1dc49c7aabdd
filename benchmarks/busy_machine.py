"""How a training run fares when other processes keep the cores busy: the warm start's fit, and a whole run.

``python benchmarks/busy_machine.py`` measures, in one run, quiet and then beside ``--busy`` CPU-bound processes:

1. with ``--fit``, the warm start's fit, seconds per epoch, with the learner's threads chosen by the load (as
   train.py does) and with a fixed count of two (a thread pool on busy cores);
2. ``python train.py --minutes M`` (skipped with ``--minutes 0``): its wall time, timesteps, the torch threads its
   learner took, how much of a warm start's imitation it kept (the default imitates nothing), and the shares its
   summary printed.

Compare the rows of one run: figures from different runs on a shared machine differ. docs/speed.md has the
figures and the command.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def spin(stop_at: float) -> None:
    """A CPU-bound process: count until ``stop_at`` (a wall-clock time)."""
    n = 0
    while time.time() < stop_at:
        n += 1


@contextmanager
def busy_processes(count: int, seconds: float) -> Iterator[None]:
    """``count`` CPU-bound processes for the ``with`` block (each stops by itself after ``seconds`` at most)."""
    stop_at = time.time() + seconds
    workers = [multiprocessing.Process(target=spin, args=(stop_at,), daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(1.0 if count else 0.0)  # let the load settle before measuring it
        yield
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()


def fit_seconds_per_epoch(games: int, adaptive: bool) -> tuple[float, int]:
    """Seconds per epoch of the warm start's fit on ``games`` teacher games, and the threads the learner took."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.threads import LearnerThreads, set_torch_threads
    from agents.training.imitation.demonstrations import collect, fit
    from agents.training.sb3.backend import sb3_heads
    from gubs_env.envs.selfplay import SelfPlayEnv

    data = collect(HeuristicAgent(0), [2], games, seed=0, progress=False)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), seed=0, policy_kwargs={"net_arch": [256, 256]})
    threads = LearnerThreads(2)
    if adaptive:
        threads.start()
    else:
        set_torch_threads(2)
    start = time.perf_counter()
    between = threads.adapt if adaptive else None
    fitted = fit(model.policy.parameters(), sb3_heads(model), data, epochs=2, progress=False, between=between)
    seconds = (time.perf_counter() - start) / fitted.epochs
    return seconds, torch.get_num_threads()


def fit_in_a_process(games: int, adaptive: bool) -> tuple[float, int]:
    """:func:`fit_seconds_per_epoch` in a fresh process, so that one measurement's threads never carry over."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from benchmarks.busy_machine import fit_seconds_per_epoch; "
        "print(*fit_seconds_per_epoch(int(sys.argv[2]), sys.argv[3] == '1'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), str(games), "1" if adaptive else "0"],
        capture_output=True,
        text=True,
        check=True,
        env={"OMP_WAIT_POLICY": "PASSIVE", **os.environ},  # as train.py sets it before torch starts its threads
    )
    seconds, threads = done.stdout.split()[-2:]
    return float(seconds), int(threads)


def train_run(minutes: float) -> dict[str, str]:
    """``python train.py --minutes M`` in a fresh folder: its wall time, timesteps and summary."""
    with tempfile.TemporaryDirectory(prefix="gubs-busy-") as tmp:
        argv = [sys.executable, str(ROOT / "train.py"), "--minutes", f"{minutes:g}", "--out", f"{tmp}/run"]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=True)
        wall = time.perf_counter() - start
    summary = next((line for line in done.stdout.splitlines() if "the time went to:" in line), "")
    steps = re.search(r"trained ([\d,]+) (?:timesteps|learner steps)", summary)
    imitated = next((line for line in done.stdout.splitlines() if line.startswith("imitated ")), "")
    if not imitated:  # the default starts from a fresh network and imitates nothing
        warm_start = "imitating nothing"
    elif "cut to the" in imitated:
        warm_start = "cut: " + imitated.split("cut to the", 1)[1].split(". More", 1)[0]
    else:
        warm_start = "whole"
    fewer = re.search(r"the learner took (\d+) torch thread", done.stdout)
    return {
        "threads": f"fewest learner threads {fewer.group(1)}" if fewer else "learner threads as configured",
        "wall": f"{wall:.0f} s",
        "timesteps": steps.group(1) if steps else "?",
        "shares": summary.split("the time went to: ", 1)[-1],
        "warm start": warm_start,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the measurements quiet and beside ``--busy`` processes."""
    parser = argparse.ArgumentParser(prog="python benchmarks/busy_machine.py", description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes beside the loaded runs (default 2)")
    parser.add_argument("--games", type=int, default=300, help="teacher games the fit learns from (default 300)")
    parser.add_argument("--minutes", type=float, default=2.0, help="train.py's budget; 0 skips the runs (default 2)")
    parser.add_argument("--fit", action="store_true", help="also time the warm start's fit")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    for label, busy in (("quiet", 0), (f"beside {args.busy} busy processes", args.busy)):
        with busy_processes(busy, seconds=3600):
            for adaptive in (True, False) if args.fit else ():
                seconds, threads = fit_in_a_process(args.games, adaptive)
                how = "threads chosen by the load" if adaptive else "2 threads, fixed"
                print(f"{label}: warm start fit {seconds:.2f} s/epoch ({how}: {threads})", flush=True)
            if args.minutes > 0:
                run = train_run(args.minutes)
                print(
                    f"{label}: train.py --minutes {args.minutes:g}: {run['wall']}, {run['timesteps']} timesteps, "
                    f"{run['threads']}, warm start {run['warm start']}; shares: {run['shares']}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
