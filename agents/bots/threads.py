"""Thread counts: torch's, set so that the compiled engine's thread pool cannot undo it later; numpy's BLAS."""

from __future__ import annotations

import os
import time
from contextlib import AbstractContextManager
from functools import cache

from threadpoolctl import ThreadpoolController


def set_torch_threads(threads: int) -> None:
    """Let torch use ``threads`` threads in this process (until set again).

    Torch's CPU build and the compiled engine (numba's OpenMP layer) share one OpenMP runtime, and numba sets the
    process's OpenMP thread count to every core when it starts its thread pool: at the first compiled batch step,
    which comes after a learner has set its count. A learner told to use one thread then ran its updates on two, and
    two such runs side by side on 2 cores went 5 to 8 times slower. So numba's pool is started first (where numba is
    installed), and torch's count set after it.
    """
    try:
        import numba
    except ImportError:
        pass
    else:
        numba.get_num_threads()  # starts numba's thread pool if it has not started yet
    import torch

    torch.set_num_threads(threads)


@cache
def _controller() -> ThreadpoolController:
    """The process's native thread pools, looked up once (a lookup costs about 150 us, a limit from it 7 us)."""
    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager[object]:
    """Run numpy's BLAS on one thread inside the ``with`` block.

    numpy's BLAS starts a thread per core for each matrix product, which pays off for large products only: for
    the small ones of a policy's or value network's forward pass inside a search or a training worker, the threads
    wait on each other (a 48-row value pass took twice as long on two threads, and several times as long beside
    another busy process).
    """
    return _controller().limit(limits=1, user_api="blas")


def _busy_ticks() -> tuple[float, float] | None:
    """The machine's busy and total CPU time since boot, in clock ticks, from ``/proc/stat`` (None: not Linux)."""
    try:
        with open("/proc/stat") as f:
            fields = [float(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 5:
        return None
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


def _own_seconds() -> float:
    """This process's CPU time (every thread, user and system), in seconds."""
    times = os.times()
    return times.user + times.system


class CoreMeter:
    """How many cores the other processes of the machine took since the last reading.

    A thread pool of ``n`` threads on cores that other processes keep busy waits at every barrier for the thread
    the scheduler took off: a 2-thread torch update beside two busy processes on 2 cores ran several times slower
    than one thread (docs/speed.md). So a learner takes as many threads as the cores the others leave free.

    The reading is the machine's busy time (``/proc/stat``) less this process's own CPU time, over the time since
    the previous reading: the others' load now, not a minute's average. Where ``/proc/stat`` is missing (not
    Linux) it falls back to the load average, less this process's share.
    """

    def __init__(self) -> None:
        self.cores = os.cpu_count() or 1
        self._mark = self._reading()
        self._last = 0.0

    def _reading(self) -> tuple[float, float, float] | None:
        ticks = _busy_ticks()
        return None if ticks is None else (*ticks, _own_seconds())

    def others(self) -> float:
        """The cores the other processes used, on average, since the previous reading (or since the meter was made).

        Called again before a clock tick has passed, it answers what it answered last.
        """
        before, now = self._mark, self._reading()
        if before is None or now is None:
            return max(0.0, os.getloadavg()[0] - 1) if hasattr(os, "getloadavg") else 0.0
        if now[1] <= before[1]:
            return self._last
        self._mark = now
        busy, total = now[0] - before[0], now[1] - before[1]
        wall = total / self.cores / os.sysconf("SC_CLK_TCK")  # elapsed seconds: every core ticks once a tick
        own = now[2] - before[2]
        self._last = min(float(self.cores), max(0.0, busy / total * self.cores - own / max(wall, 1e-9)))
        return self._last

    def threads(self, wanted: int) -> int:
        """``wanted`` threads, or fewer: as many as the cores the others leave free (rounded), at least one."""
        free = self.cores - self.others()
        return max(1, min(wanted, int(free + 0.5)))


class LearnerThreads:
    """torch's thread count held to the cores that other processes leave free, measured anew at each :meth:`adapt`.

    Args:
        wanted: the most threads the learner takes (a config's ``threads``).
    """

    def __init__(self, wanted: int) -> None:
        self.wanted = max(1, wanted)
        self.meter = CoreMeter()
        self.current = 0
        self.fewest = self.wanted
        """The fewest threads taken so far: what the run's summary reports."""

    def start(self, sample_seconds: float = 0.5) -> int:
        """Measure the others' load for ``sample_seconds`` (skipped when one thread is wanted), then set the count."""
        if self.wanted > 1:
            time.sleep(sample_seconds)
        return self.adapt()

    def adapt(self) -> int:
        """Set torch's threads to the cores free since the last call (at most ``wanted``); returns the count."""
        threads = self.meter.threads(self.wanted) if self.wanted > 1 else 1
        if threads != self.current:
            set_torch_threads(threads)
            self.current = threads
            self.fewest = min(self.fewest, threads)
        return threads

    def describe(self) -> str:
        """A line when other processes made the learner take fewer threads than wanted, else ``""``."""
        if self.fewest >= self.wanted:
            return ""
        return (
            f"other processes kept cores busy: the learner took {self.fewest} torch thread(s) of {self.wanted} at "
            "times (a thread pool on busy cores waits on the scheduler at every step)"
        )
