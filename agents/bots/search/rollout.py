"""Compiled playouts for the search bots: copies of sampled worlds, one candidate id each, played to the end.

Every seat of a playout is played by the heuristic (:func:`~agents.bots.heuristic.decide.choose_among`), each
seat with its own weight set (``tfs[seat]``: the searching seat may play out with the tuned weights, the others
with the default ones), inside one compiled loop over the engine's rows (:mod:`gubs_env.fast`): no Python runs
per playout step. A candidate's playouts in world ``w`` share their world's deck, the world's generator and the
tie-break generator with every other candidate's playout in that world (common random numbers), so the
difference between two candidates' values is the difference their own choice makes, not the luck of two draws.

A playout may also stop a few decisions after the candidate (:class:`Leaves`), where a value network
(:mod:`~agents.bots.search.value`) judges the position instead of the draws still to come. The compiled loop
writes each open playout's features; the network judges all of a round's leaves in one numpy call.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from agents.bots.heuristic.decide import choose_among, new_scratch
from agents.bots.search.playout_net import NO_NET, PlayoutNet, choose_by_net
from agents.bots.search.value import FEATURES, ValueNet, leaf_features
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.fast import S_OVER, advance, encode, legal_mask, score, seed_pcg64, winners_into
from gubs_env.fast import layout as L

MARGIN_WEIGHT = 0.05
"""Weight of the final score margin (own score minus the best other, in points) added to a playout's win share.

A playout's outcome is mostly win or loss, decided by the draws; the margin separates a near win from a rout and
so lowers the variance of a candidate's mean without changing which candidate wins more often by much."""


def seat_tables(others: np.ndarray, seat: int = -1, own: np.ndarray | None = None) -> np.ndarray:
    """``(SEATS, F)`` float tables for the playouts: ``others`` at every seat, ``own`` at ``seat`` if given."""
    tfs = np.tile(others, (L.SEATS, 1))
    if own is not None:
        tfs[seat] = own
    return tfs


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
    tfs: np.ndarray,
    scratch_obs: np.ndarray,
    mask: np.ndarray,
    raw: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    ids: np.ndarray,
    scores: np.ndarray,
    max_decisions: int,
    net: PlayoutNet,
) -> int:
    """Play the row until it ends or ``max_decisions`` are made; returns them.

    Every seat plays ``net``'s choice if it is a net; with :data:`NO_NET`, the heuristic: seat ``s`` with the float
    tables ``tfs[s]``.
    """
    made = 0
    hidden = np.empty(net.first_bias.shape[0], dtype=np.float32)
    while g[L.STEP] != S_OVER and made < max_decisions:
        count = legal_ids(g, mask, ids)
        if count == 1:
            a = ids[0]
        else:
            actor = g[L.ACTOR]
            encode(g, actor, scratch_obs)
            if hidden.shape[0] > 0:
                a = choose_by_net(scratch_obs, ids, count, net, hidden)
            else:
                a = choose_among(scratch_obs, ids, count, tie, ti, tfs[actor], raw, c, f, scores)
        advance(g, r, a)
        made += 1
    return made


@nb.njit(cache=True)
def playout_scratch(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of a playout: (observation, mask, game row of ``width`` cells, its generator, tie generator)."""
    return (
        np.zeros(OBS_SIZE, dtype=np.float32),
        np.zeros(NUM_ACTIONS, dtype=np.int8),
        np.empty(width, dtype=np.int32),
        np.empty(6, dtype=np.uint64),
        np.empty(6, dtype=np.uint64),
    )


@nb.njit(cache=True)
def outcome_of(g: np.ndarray, seat: int) -> float:
    """``seat``'s value of a finished row: its share of the win (1/k among k winners) plus the weighted margin."""
    n = g[L.NUM_PLAYERS]
    value = 0.0
    if g[L.STEP] == S_OVER and not g[L.TRUNCATED]:
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
def win_of(g: np.ndarray, seat: int) -> float:
    """1.0 when ``seat`` is among the winners of a finished row (a shared win counts whole, as tournaments count it)."""
    if g[L.STEP] != S_OVER or g[L.TRUNCATED]:
        return 0.0
    won = np.zeros(L.SEATS, dtype=np.int64)
    winners_into(g, won)
    return float(won[seat])


TO_THE_END = 1 << 30
"""The playout depth that plays every playout to the game's end (no value network)."""


@nb.njit(cache=True)
def play_round(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    start: int,
    candidates: np.ndarray,
    playing: np.ndarray,
    seat: int,
    tie_seed: np.uint64,
    ti: np.ndarray,
    tfs: np.ndarray,
    depth: int,
    values: np.ndarray,
    features: np.ndarray,
    at_leaf: np.ndarray,
    net: PlayoutNet,
) -> int:
    """Play the candidates marked ``playing`` in the worlds ``start`` to ``start + len(values)``.

    In each, world ``w`` is loaded, ``candidates[k]`` played, then ``net`` or the heuristic (:func:`play_to_end`)
    for at most ``depth`` more decisions (:data:`TO_THE_END`: to the end). A playout that ends gets its value in
    ``values[w - start, k]``;
    one still going is a leaf: ``at_leaf[w - start, k]`` is set and ``seat``'s
    :func:`~agents.bots.search.value.leaf_features` go to row ``(w - start) * len(candidates) + k`` of
    ``features``, for the value network to judge. Returns the decisions made.
    """
    obs, mask, g, r, tie = playout_scratch(worlds.shape[1])
    raw, c, f, ids, scores = new_scratch()
    made = 0
    for i in range(values.shape[0]):
        w = start + i
        for k in range(candidates.shape[0]):
            at_leaf[i, k] = False
            if not playing[k]:
                continue
            load_world(worlds, world_rngs, w, g, r)
            seed_pcg64(tie, tie_seed + np.uint64(w))
            advance(g, r, candidates[k])
            made += 1 + play_to_end(g, r, tie, ti, tfs, obs, mask, raw, c, f, ids, scores, depth, net)
            if g[L.STEP] == S_OVER:
                values[i, k] = outcome_of(g, seat)
            else:
                at_leaf[i, k] = True
                leaf_features(g, seat, features[i * candidates.shape[0] + k])
    return made


class Leaves(NamedTuple):
    """How playouts end: after ``depth`` decisions, judged by ``value``, each judgement counted ``cost`` decisions.

    The default plays every playout to the end.
    """

    depth: int = TO_THE_END
    value: ValueNet | None = None
    cost: float = 0.0


FULL_PLAYOUTS = Leaves()
"""Every playout played to the end."""


def _round_values(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    start: int,
    end: int,
    candidates: np.ndarray,
    playing: np.ndarray,
    seat: int,
    tie_seed: np.uint64,
    ti: np.ndarray,
    tfs: np.ndarray,
    leaves: Leaves,
    net: PlayoutNet,
) -> tuple[np.ndarray, float]:
    """``(end - start, K)`` values of the ``playing`` candidates in those worlds, and their cost in decisions."""
    if leaves.depth < TO_THE_END and leaves.value is None:
        raise ValueError("playouts cut before the end need a value network to judge them")
    values = np.zeros((end - start, candidates.shape[0]), dtype=np.float64)
    at_leaf = np.zeros(values.shape, dtype=np.bool_)
    rows = values.size if leaves.value is not None else 1
    features = np.zeros((rows, FEATURES), dtype=np.float32)
    made = play_round(
        worlds, world_rngs, start, candidates, playing, seat, tie_seed, ti, tfs, leaves.depth, values, features,
        at_leaf, net,
    )  # fmt: skip
    judged = np.flatnonzero(at_leaf.ravel())
    if judged.size:
        assert leaves.value is not None  # play_round leaves a playout open only below TO_THE_END
        values.ravel()[judged] = leaves.value.values(features[judged])
    return values, made + judged.size * leaves.cost


def candidate_values(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    candidates: np.ndarray,
    seat: int,
    tie_seed: np.uint64,
    ti: np.ndarray,
    tfs: np.ndarray,
    out: np.ndarray,
    leaves: Leaves = FULL_PLAYOUTS,
    net: PlayoutNet | None = None,
) -> float:
    """``out[w, k]``: ``seat``'s outcome of playing ``candidates[k]`` in world ``w``, then the playouts to the end.

    Args:
        worlds: ``(W, ROW)`` int32 rows of sampled worlds (not changed).
        world_rngs: ``(W, 6)`` uint64, each world's own generator (not changed).
        candidates: int64 ids legal at every world's pending decision, which ``seat`` makes.
        seat: the searching seat.
        tie_seed: the tie-break generators' seed; world ``w``'s playouts all use ``tie_seed + w``.
        ti: the heuristic's integer tables.
        tfs: ``(SEATS, F)``, the float tables each seat's heuristic weighs.
        out: ``(W, K)`` float64, filled.
        leaves: where the playouts stop (default: at the end) and what judges them there.
        net: a playout policy every seat plays instead of the heuristic (default: none, the heuristic).

    Returns:
        How many decisions the playouts made in all, the leaves' judgements counted as ``leaves.cost`` each.
    """
    playing = np.ones(candidates.shape[0], dtype=np.bool_)
    values, spent = _round_values(
        worlds, world_rngs, 0, worlds.shape[0], candidates, playing, seat, tie_seed, ti, tfs, leaves, net or NO_NET
    )
    out[:] = values
    return spent


def paired_gains(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    candidates: np.ndarray,
    seat: int,
    tie_seed: np.uint64,
    ti: np.ndarray,
    tfs: np.ndarray,
    budget: int,
    batch: int,
    z: float,
    gains: np.ndarray,
    leaves: Leaves = FULL_PLAYOUTS,
    net: PlayoutNet | None = None,
) -> float:
    """Each candidate's gain over ``candidates[0]``, paired world by world, with playouts spent where they can tell.

    The worlds are played in rounds of ``batch``: in each world ``candidates[0]`` and every candidate still in
    the race, as :func:`candidate_values` plays them. After each round a candidate leaves the race when even
    the rest of the budget is unlikely to show it better than ``candidates[0]``: when its mean gain plus one
    standard error is below what the whole budget's last round would need (``z`` standard errors at the worlds
    it could still reach). The search stops when no candidate is left, or when ``budget`` playout decisions or
    the worlds are spent.

    Args:
        worlds: ``(W, ROW)`` int32 rows of sampled worlds (not changed).
        world_rngs: ``(W, 6)`` uint64, each world's own generator (not changed).
        candidates: int64 ids legal at every world's pending decision, which ``seat`` makes; the first is the
            one the others are compared with.
        seat: the searching seat.
        tie_seed: the tie-break generators' seed; world ``w``'s playouts all use ``tie_seed + w``.
        ti: the heuristic's integer tables.
        tfs: ``(SEATS, F)``, the float tables each seat's heuristic weighs.
        budget: playout decisions to spend at most (a round in progress is finished).
        batch: worlds per round.
        z: the standard errors the caller will ask of a gain before it plays the candidate.
        gains: ``(K, 3)`` float64, filled: per candidate the worlds played and the sum and the sum of squares
            of its gain (row 0 stays zero).
        leaves: where the playouts stop (default: at the end) and what judges them there.
        net: a playout policy every seat plays instead of the heuristic (default: none, the heuristic).

    Returns:
        The playout decisions spent (the leaves' judgements counted as ``leaves.cost`` each).
    """
    racing = np.ones(candidates.shape[0], dtype=np.bool_)
    racing[0] = False
    gains[:] = 0.0
    spent = 0.0
    playouts = 0
    w = 0
    while w < worlds.shape[0] and spent < budget and racing.any():
        end = min(w + batch, worlds.shape[0])
        playing = racing.copy()
        playing[0] = True
        values, cost = _round_values(
            worlds, world_rngs, w, end, candidates, playing, seat, tie_seed, ti, tfs, leaves, net or NO_NET
        )
        spent += cost
        playouts += (end - w) * int(playing.sum())
        differences = values[:, racing] - values[:, :1]
        gains[racing, 0] += end - w
        gains[racing, 1] += differences.sum(axis=0)
        gains[racing, 2] += (differences**2).sum(axis=0)
        w = end
        per_world = spent / playouts * (1 + racing.sum())
        reach_left = max(budget - spent, 0) / per_world
        n = gains[racing, 0]
        mean = gains[racing, 1] / n
        spread = np.sqrt(np.maximum(gains[racing, 2] / n - mean * mean, 1e-12) * n / np.maximum(n - 1.0, 1.0))
        reach = np.minimum(n + reach_left, float(worlds.shape[0]))
        racing[racing] = mean + spread / np.sqrt(n) >= z * spread / np.sqrt(reach)
    return spent
