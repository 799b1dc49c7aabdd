"""Whether a batch carries a signal: the gradient agreement every trainer logs as ``grad_cosine``.

Two disjoint halves of one update's batch, split by game, each give a policy gradient. Near 1 the halves point the
same way and a step follows what the games showed; near 0 the step follows noise that the next batch would not
confirm (docs/training.md). The self-play core splits its batch by slot, sb3 by environment, RLlib by episode: each
passes its rows' games and a function that computes the gradient of some rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch


def cosine(a: torch.Tensor, b: torch.Tensor) -> float:
    """The cosine of two vectors (0 when either is zero)."""
    norm = float(a.norm() * b.norm())
    return 0.0 if norm == 0 else float(a @ b) / norm


def halves(games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of two halves of a batch: its games alternately, in the order they first appear in ``games``."""
    _, first, inverse = np.unique(games, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first))  # each distinct game's place by its first row
    parity = rank[inverse.reshape(-1)] % 2
    return np.flatnonzero(parity == 0), np.flatnonzero(parity == 1)


def agreement(games: np.ndarray, gradient: Callable[[np.ndarray], torch.Tensor]) -> float:
    """The cosine between ``gradient`` of the two :func:`halves` of the rows (nan with fewer than two games)."""
    first, second = halves(games)
    if not len(first) or not len(second):
        return float("nan")
    return cosine(gradient(first), gradient(second))
