"""The heuristic's decision, compiled: one game or a whole batch, ties split by the player's own generator.

A tie (scores within ``TIE_TOLERANCE`` of the best) is split by ``Generator.integers`` on the player's PCG64
state, which the compiled engine's generator (:func:`~gubs_env.fast.integers`) reproduces bit for bit, so a seeded
bot decides the same way alone or in a batch.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from agents.bots.heuristic.scoring import _score_step
from agents.bots.heuristic.tables import (
    COUNT_ROWS,
    FLOAT_SLOTS,
    NUM_ACTIONS,
    NUM_KINDS,
    OBS_SIZE,
    TABLES,
    TIE_TOLERANCE,
    HeuristicTables,
)
from agents.bots.heuristic.view import _read_view
from gubs_env.fast import RNG_WORDS, integers, state_from_numpy, state_to_numpy
from gubs_env.support.compiling import announce_compiling

COMPILE_SECONDS = 60
"""About how long the decision takes to compile from nothing on 2 cores, for the announcement."""

_announce_pending = True
"""Whether this process has yet to look at the decision's cache (once: the decision is called in hot loops)."""


@nb.njit(cache=True)
def new_scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh work arrays for :func:`choose_among`: (raw, counts, floats, ids, scores)."""
    return (
        np.zeros(OBS_SIZE, dtype=np.int64),
        np.zeros((COUNT_ROWS, NUM_KINDS), dtype=np.int64),
        np.zeros(FLOAT_SLOTS, dtype=np.float64),
        np.zeros(NUM_ACTIONS, dtype=np.int64),
        np.zeros(NUM_ACTIONS, dtype=np.float64),
    )


@nb.njit(cache=True)
def choose_among(
    obs: np.ndarray,
    ids: np.ndarray,
    count: int,
    rng_state: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    raw: np.ndarray,
    c: np.ndarray,
    f: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The heuristic's choice among the legal ids ``ids[:count]`` (at least one), from observation ``obs``.

    Ties are split by ``rng_state`` (a PCG64 row, advanced only when there is a tie). ``ids`` is reordered.
    The search bot's rollouts call this inside their own compiled loops.
    """
    if count == 1:
        return ids[0]
    _read_view(obs, ti, tf, raw, c, f)
    best = -math.inf
    for j in range(count):
        scores[j] = _score_step(ti, tf, c, f, ids[j])
        if j == 0 or scores[j] > best:
            best = scores[j]
    top = 0
    for j in range(count):
        if scores[j] >= best - TIE_TOLERANCE:
            ids[top] = ids[j]
            top += 1
    return ids[0] if top == 1 else ids[integers(rng_state, top)]


@nb.njit(cache=True)
def _decide(
    obs: np.ndarray,
    mask: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
) -> None:
    """The decision for each game in ``rows``, ties drawn from generator ``rng_states[rng_rows[k]]``."""
    games, actions = mask.shape
    raw, c, f, ids, scores = new_scratch()
    for k in range(rows.shape[0]):  # checked before any decision, so a bad call changes nothing
        if rows[k] < 0 or rows[k] >= games or rng_rows[k] < 0 or rng_rows[k] >= rng_states.shape[0]:
            raise ValueError("a row or generator row is out of range")
    for k in range(rows.shape[0]):
        g = rows[k]
        count = 0
        for a in range(actions):
            if mask[g, a] != 0:
                ids[count] = a
                count += 1
        if count == 0:
            raise ValueError("the action mask allows no action: this agent is not the one to act")
        out[g] = choose_among(obs[g], ids, count, rng_states[rng_rows[k]], ti, tf, raw, c, f, scores)


def heuristic_actions(
    observations: np.ndarray,
    masks: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
    tables: HeuristicTables = TABLES,
) -> None:
    """The heuristic's decision for the games ``rows`` of a batch, in one compiled call; the ids go to ``out[rows]``.

    Args:
        observations: ``(G, 512)`` float32, each game's observation of the player to act.
        masks: ``(G, 356)`` int8, that player's legal ids (non-zero).
        rows: int64, the games to decide.
        rng_rows: int64, one per entry of ``rows``: the row of ``rng_states`` its player draws ties from.
        rng_states: ``(R, 6)`` uint64 PCG64 states (the compiled engine's, :data:`~gubs_env.fast.RNG_WORDS`
            words), advanced in place exactly as the agent's ``Generator`` would be.
        out: ``(G,)`` int64, receives the chosen ids at ``rows`` (other entries are left alone).
        tables: the heuristic's numbers (:data:`TABLES`).

    Raises:
        ValueError: a shape or dtype other than the above, a row out of range, or a mask with no legal id.
    """
    global _announce_pending
    _check_batch(observations, masks, rows, rng_rows, rng_states, out)
    if _announce_pending:
        _announce_pending = False
        announce_compiling([_decide], "the heuristic bot", COMPILE_SECONDS)
    if rows.shape[0]:
        _decide(observations, masks, rows, rng_rows, rng_states, out, tables.ints, tables.floats)


def _check_batch(
    observations: np.ndarray,
    masks: np.ndarray,
    rows: np.ndarray,
    rng_rows: np.ndarray,
    rng_states: np.ndarray,
    out: np.ndarray,
) -> None:
    arrays = {"observations": observations, "masks": masks, "rows": rows, "rng_rows": rng_rows}
    arrays |= {"rng_states": rng_states, "out": out}
    for name, array in arrays.items():
        if not isinstance(array, np.ndarray):
            raise ValueError(f"{name} must be a numpy array, not {type(array).__name__}")
    games = observations.shape[0] if observations.ndim == 2 else -1
    expected = {
        "observations": ((games, OBS_SIZE), np.float32),
        "masks": ((games, NUM_ACTIONS), np.int8),
        "rows": ((rows.shape[0],), np.int64),
        "rng_rows": ((rows.shape[0],), np.int64),
        "rng_states": ((rng_states.shape[0], RNG_WORDS), np.uint64),
        "out": ((games,), np.int64),
    }
    for name, (shape, dtype) in expected.items():
        array = arrays[name]
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(
                f"{name} must be a {np.dtype(dtype).name} array of shape {shape}, "
                f"not {array.dtype.name} of shape {array.shape}"
            )
    if not out.flags.writeable or not rng_states.flags.writeable:
        raise ValueError("out and rng_states must be writeable")


def heuristic_action(
    observation: np.ndarray, mask: np.ndarray, generator_state: np.ndarray, tables: HeuristicTables = TABLES
) -> int:
    """One decision, drawing ties from ``generator_state`` (advanced in place), with the weights of ``tables``.

    Raises:
        ValueError: as :func:`heuristic_actions`.
    """
    out = np.zeros(1, dtype=np.int64)
    heuristic_actions(
        np.asarray(observation, dtype=np.float32).reshape(1, -1),
        np.asarray(mask).astype(np.int8).reshape(1, -1),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        generator_state.reshape(1, -1),
        out,
        tables,
    )
    return int(out[0])


def rng_state(generator: np.random.Generator) -> np.ndarray:
    """A numpy PCG64 generator's state as the uint64 row the compiled heuristic advances."""
    row = np.zeros(RNG_WORDS, dtype=np.uint64)
    state_from_numpy(generator.bit_generator.state, row)
    return row


def set_rng_state(generator: np.random.Generator, row: np.ndarray) -> None:
    """Put a row's state back into a numpy PCG64 generator."""
    generator.bit_generator.state = state_to_numpy(row)


@nb.njit(cache=True)
def _scores_of(obs: np.ndarray, ids: np.ndarray, ti: np.ndarray, tf: np.ndarray, out: np.ndarray) -> None:
    raw, c, f, _, _ = new_scratch()
    _read_view(obs, ti, tf, raw, c, f)
    for j in range(ids.shape[0]):
        out[j] = _score_step(ti, tf, c, f, ids[j])


def heuristic_scores(observation: np.ndarray, ids: np.ndarray, tables: HeuristicTables = TABLES) -> np.ndarray:
    """The heuristic's score of each of ``ids`` (legal ids of the observation's decision): higher is better.

    The search bot ranks candidates by these before it spends playouts on them.
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    if ids.ndim != 1 or (ids.size and (ids.min() < 0 or ids.max() >= NUM_ACTIONS)):
        raise ValueError(f"ids must be a 1-d array of action ids from 0 to {NUM_ACTIONS - 1}")
    out = np.zeros(ids.size, dtype=np.float64)
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"the observation must have shape ({OBS_SIZE},), not {obs.shape}")
    _scores_of(obs, ids, tables.ints, tables.floats, out)
    return out
