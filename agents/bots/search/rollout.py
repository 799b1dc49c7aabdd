"""Compiled playouts for the search bot: copies of sampled worlds, one candidate id each, played to the end.

Every seat of a playout is played by the heuristic (:func:`~agents.bots.heuristic.decide.choose_among`), inside
one compiled loop over the engine's rows (:mod:`gubs_env.fast`): no Python runs per playout step. A candidate's
playouts in world ``w`` share their world's deck, the world's generator and the tie-break generator with every
other candidate's playout in that world (common random numbers), so the difference between two candidates'
values is the difference their own choice makes, not the luck of two draws.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.bots.heuristic.decide import choose_among, new_scratch
from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.observe import encode
from gubs_env.fast.core.rng import seed_pcg64
from gubs_env.fast.core.rules import advance, legal_mask, score, winners_into

MARGIN_WEIGHT = 0.05
"""Weight of the final score margin (own score minus the best other, in points) added to a playout's win share.

A playout's outcome is mostly win or loss, decided by the draws; the margin separates a near win from a rout and
so lowers the variance of a candidate's mean without changing which candidate wins more often by much."""


@nb.njit(cache=True)
def legal_ids(g: np.ndarray, mask: np.ndarray, ids: np.ndarray) -> int:
    """The pending decision's legal ids in ascending order, the order the heuristic splits ties by; how many."""
    legal_mask(g, mask, ids)
    count = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            ids[count] = i
            count += 1
    return count


@nb.njit(cache=True)
def load_world(worlds: np.ndarray, world_rngs: np.ndarray, w: int, g: np.ndarray, r: np.ndarray) -> None:
    """Copy world ``w`` and its generator into the scratch row ``g`` and generator ``r``.

    Element loops, not slice assignment: numba compiles a slice assignment with its shape-mismatch message,
    which costs a cold compile seconds (see :mod:`agents.bots.heuristic.scoring`).
    """
    for i in range(worlds.shape[1]):
        g[i] = worlds[w, i]
    for i in range(world_rngs.shape[1]):
        r[i] = world_rngs[w, i]


@nb.njit(cache=True)
def play_to_end(
    g: np.ndarray,
    r: np.ndarray,
    tie: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    scratch_obs: np.ndarray,
    mask: np.ndarray,
    raw: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    ids: np.ndarray,
    scores: np.ndarray,
    max_decisions: int,
) -> int:
    """Play the row with the heuristic at every seat until it ends or ``max_decisions`` are made; returns them."""
    made = 0
    while g[L.STEP] != T.S_OVER and made < max_decisions:
        count = legal_ids(g, mask, ids)
        if count == 1:
            a = ids[0]
        else:
            encode(g, g[L.ACTOR], scratch_obs)
            a = choose_among(scratch_obs, ids, count, tie, ti, tf, raw, c, f, scores)
        advance(g, r, a)
        made += 1
    return made


@nb.njit(cache=True)
def outcome_of(g: np.ndarray, seat: int) -> float:
    """``seat``'s value of a finished row: its share of the win (1/k among k winners) plus the weighted margin."""
    n = g[L.NUM_PLAYERS]
    value = 0.0
    if g[L.STEP] == T.S_OVER and not g[L.TRUNCATED]:
        won = np.zeros(L.SEATS, dtype=np.int64)
        winners_into(g, won)
        k = 0
        for s in range(n):
            k += won[s]
        if won[seat] and k > 0:
            value = 1.0 / k
    best_other = -1000
    for s in range(n):
        if s != seat:
            best_other = max(best_other, score(g, s))
    return value + MARGIN_WEIGHT * (score(g, seat) - best_other)


@nb.njit(cache=True)
def candidate_values(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    candidates: np.ndarray,
    seat: int,
    tie_seed: np.uint64,
    ti: np.ndarray,
    tf: np.ndarray,
    out: np.ndarray,
) -> int:
    """``out[w, k]``: ``seat``'s outcome of playing ``candidates[k]`` in world ``w``, then the heuristic to the end.

    Args:
        worlds: ``(W, ROW)`` int32 rows of sampled worlds (not changed).
        world_rngs: ``(W, 6)`` uint64, each world's own generator (not changed).
        candidates: int64 ids legal at every world's pending decision, which ``seat`` makes.
        seat: the searching seat.
        tie_seed: the tie-break generators' seed; world ``w``'s playouts all use ``tie_seed + w``.
        ti: the heuristic's integer tables.
        tf: the heuristic's float tables.
        out: ``(W, K)`` float64, filled.

    Returns:
        How many decisions the playouts made in all (for the cost report).
    """
    obs = np.zeros(T.OBS_LEN, dtype=np.float32)
    mask = np.zeros(T.N_ACTIONS, dtype=np.int8)
    raw, c, f, ids, scores = new_scratch()
    g = np.empty(worlds.shape[1], dtype=np.int32)
    r = np.empty(6, dtype=np.uint64)
    tie = np.empty(6, dtype=np.uint64)
    made = 0
    for w in range(worlds.shape[0]):
        for k in range(candidates.shape[0]):
            load_world(worlds, world_rngs, w, g, r)
            seed_pcg64(tie, tie_seed + np.uint64(w))
            advance(g, r, candidates[k])
            made += 1 + play_to_end(g, r, tie, ti, tf, obs, mask, raw, c, f, ids, scores, 1 << 30)
            out[w, k] = outcome_of(g, seat)
    return made
