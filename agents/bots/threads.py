"""Thread counts: torch's, set so that the compiled engine's thread pool cannot undo it later; numpy's BLAS."""

from __future__ import annotations

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
