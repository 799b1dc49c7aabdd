"""Random play in compiled code: whole games for the benchmark, and random legal ids for a batch."""

from __future__ import annotations

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.fast import kernels
from gubs_env.fast.boundary import describe, writable_out


def random_games(
    seeds: np.ndarray, num_players: int = 2, *, threads: int | None = None, **rule_options: object
) -> np.ndarray:
    """Play one uniformly random legal game per seed, entirely in compiled code.

    The deal of each game is that of ``Game(num_players, seed=seed)``; the random choices come from a
    separate generator seeded by the same seed.

    Returns:
        int64 ``(len(seeds), 3)``: decisions, turns and 1 when truncated, per game.

    Raises:
        ValueError: a bad player count, thread count, seed array or rule option.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(f"num_players must be an int, not {num_players!r}")
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, not {num_players}")
    options = RuleOptions.from_dict(dict(rule_options))
    seed_array = np.asarray(seeds)
    if seed_array.ndim != 1 or not np.issubdtype(seed_array.dtype, np.integer) or (seed_array < 0).any():
        raise ValueError("seeds must be a 1-d array of ints >= 0")
    _set_threads(threads)
    results = np.zeros((seed_array.shape[0], 3), dtype=np.int64)
    uniform = LETTER_PLACEMENTS.index(options.letter_placement)
    kernels.announce(kernels.random_games_kernel)
    kernels.random_games_kernel(seed_array.astype(np.uint64), num_players, options.max_turns, uniform, results)
    return results


def sample_legal(mask: np.ndarray, chooser: np.ndarray, out: np.ndarray, *, threads: int | None = None) -> None:
    """Write a uniformly random legal id per row of ``mask`` into ``out`` (-1 for an empty mask).

    ``chooser`` is a ``uint64`` array, one state per row, advanced in place (seed it with anything).

    Args:
        mask: int8 ``(N, 356)``, C-contiguous; every non-zero entry is a legal id (so a mask of 0/1, the
            engine's, and any other int8 values agree on which ids are legal). Only read: it may be read-only.
        chooser: uint64 ``(N,)``, writable and C-contiguous.
        out: int64 ``(N,)``, writable and C-contiguous.
        threads: threads for the kernel (``None``: all numba has).

    Raises:
        ValueError: an array of another type, shape, layout or writability; nothing is written.
    """
    if (
        not isinstance(mask, np.ndarray)
        or mask.dtype != np.int8
        or mask.ndim != 2
        or mask.shape[1] != NUM_ACTIONS
        or not mask.flags.c_contiguous
    ):
        raise ValueError(f"mask must be a C-contiguous int8 array of shape (N, {NUM_ACTIONS}), not {describe(mask)}")
    rows = mask.shape[0]
    states = writable_out(chooser, (rows,), np.uint64, "chooser")
    ids = writable_out(out, (rows,), np.int64, "out")
    _set_threads(threads)
    kernels.announce(kernels.sample_kernel)
    # The kernel is compiled for a writable mask (the batch's own); a read-only one is copied rather than
    # compiled for, which would stall this call while numba compiles a second version of the kernel.
    source = mask if type(mask) is np.ndarray else mask.view(np.ndarray)
    kernels.sample_kernel(source if source.flags.writeable else np.array(source), states, ids)


def _set_threads(threads: int | None) -> None:
    top = int(nb.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if threads is None:
        nb.set_num_threads(top)
        return
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= top:
        raise ValueError(f"threads must be an int from 1 to {top}, not {threads!r}")
    nb.set_num_threads(threads)
