"""A learner's torch thread count survives the compiled engine's thread pool starting after it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.snippets import ROOT

# In a fresh interpreter: set torch's count, use torch, then start the compiled engine's pool the way training does
# (a batch of games reset and stepped), and print torch's count. numba's pool starts once per process, hence the
# subprocess.
SCRIPT = """
import sys
import numpy as np
{set_threads}
import torch
torch.ones(1_000_000).tanh()  # the learner builds and uses its model before the first batch of games
from gubs_env.fast import FastGames
games = FastGames(8, 2)
games.reset(np.arange(8))
games.step(np.argmax(games.mask, axis=1))
print(torch.get_num_threads())
"""


def _threads_after_the_pool_starts(set_threads: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "2"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(set_threads=set_threads)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return int(result.stdout.split()[-1])


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: numba's pool has one thread, nothing to undo")
def test_set_torch_threads_holds_after_the_compiled_engine_starts_its_threads():
    assert (
        _threads_after_the_pool_starts("from agents.bots.threads import set_torch_threads; set_torch_threads(1)") == 1
    )


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: numba's pool has one thread, nothing to undo")
def test_torch_set_num_threads_alone_is_undone_by_the_pool_the_hazard_this_guards_against():
    assert _threads_after_the_pool_starts("import torch; torch.set_num_threads(1)") == 2


def test_one_blas_thread_holds_numpys_blas_to_one_thread_inside_the_block_only():
    from threadpoolctl import threadpool_info

    from agents.bots.threads import one_blas_thread

    def blas_threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    before = blas_threads()
    assert before, "numpy's BLAS is not seen by threadpoolctl: the limit would do nothing"
    with one_blas_thread():
        assert set(blas_threads()) == {1}
    assert blas_threads() == before


class FakeMachine:
    """Readings of ``/proc/stat`` and of this process's CPU time, advanced by hand: ``cores`` cores, 100 ticks/s."""

    def __init__(self, monkeypatch, cores: int = 2) -> None:
        import agents.bots.threads as threads

        self.cores, self.busy, self.total, self.own = cores, 0.0, 0.0, 0.0
        monkeypatch.setattr(threads, "_busy_ticks", lambda: (self.busy, self.total))
        monkeypatch.setattr(threads, "_own_seconds", lambda: self.own)
        monkeypatch.setattr(threads.os, "cpu_count", lambda: cores)
        monkeypatch.setattr(threads.os, "sysconf", lambda name: 100)

    def run(self, seconds: float, busy_cores: float, own_cores: float) -> None:
        """``seconds`` pass with ``busy_cores`` cores busy in all, ``own_cores`` of them this process's."""
        self.total += 100 * seconds * self.cores
        self.busy += 100 * seconds * busy_cores
        self.own += seconds * own_cores


def test_the_core_meter_counts_the_others_load_and_not_this_processs_own(monkeypatch):
    from agents.bots.threads import CoreMeter

    machine = FakeMachine(monkeypatch)
    meter = CoreMeter()
    machine.run(2.0, busy_cores=2.0, own_cores=2.0)  # this process alone keeps both cores busy
    assert meter.others() == pytest.approx(0.0) and meter.threads(2) == 2
    machine.run(2.0, busy_cores=2.0, own_cores=0.5)  # others take 1.5 cores
    assert meter.others() == pytest.approx(1.5) and meter.threads(2) == 1
    machine.run(1.0, busy_cores=0.4, own_cores=0.0)
    assert meter.threads(2) == 2 and meter.threads(1) == 1


def test_the_learner_takes_the_free_cores_and_says_when_it_took_fewer(monkeypatch):
    import torch

    from agents.bots.threads import LearnerThreads

    before = torch.get_num_threads()
    try:
        machine = FakeMachine(monkeypatch)
        threads = LearnerThreads(2)
        machine.run(1.0, busy_cores=2.0, own_cores=0.0)  # two busy processes beside it
        assert threads.adapt() == 1 and torch.get_num_threads() == 1
        machine.run(1.0, busy_cores=2.0, own_cores=1.0)  # the others now take one core: one is left
        assert threads.adapt() == 1
        machine.run(1.0, busy_cores=1.0, own_cores=1.0)  # the others stopped
        assert threads.adapt() == 2 and torch.get_num_threads() == 2
        assert "1 torch thread(s) of 2" in threads.describe()
        assert LearnerThreads(1).describe() == "" and LearnerThreads(1).start() == 1
    finally:
        torch.set_num_threads(before)
