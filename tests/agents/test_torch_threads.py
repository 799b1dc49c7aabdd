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
