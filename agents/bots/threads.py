"""Torch's thread count, set so that the compiled engine's thread pool cannot undo it later."""

from __future__ import annotations


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
