"""Batch kernels: the compiled loops over games that :class:`gubs_env.fast.FastGames` calls.

Every kernel runs its games in a ``numba.prange`` loop. Games never share state, and every random draw
comes from the game's own generator row, so results do not depend on the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numba as nb
import numpy as np

from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.core.jit import NO_REFCOUNT, pure
from gubs_env.fast.core.observe import encode
from gubs_env.fast.core.rng import seed_pcg64
from gubs_env.fast.core.rules import advance, legal_mask, new_game, score, winners_into
from gubs_env.support.compiling import compiling

N_ACTIONS = T.N_ACTIONS
OBS_LEN = T.OBS_LEN
S_OVER = T.S_OVER

WARM_UP_SECONDS = {
    "one game": 60,
    "a batch": 120,
    "the self-play loop": 75,
    "self-play deals": 2,
    "whole games": 45,
    "random legal ids": 15,
}
"""About how long each part of the engine takes to compile from nothing on a 2-core machine shared with other work
(one game: 35 s beside one busy process, 112 s at a load average of 11), for the announcement (docs/fast.md,
"Compiling"): the parts a first run uses are compiled up front, before its first game."""

_warm: set[str] = set()
"""The parts this process has warmed up: :func:`warm_up` costs a set lookup afterwards."""


def warm_up(part: str, dispatchers: Sequence[Any], exercise: Callable[[], object]) -> None:
    """Once per process, compile (or load from numba's cache) every kernel of a part of the engine, up front.

    ``exercise`` calls each of ``dispatchers`` once, through the code that calls them in play, so that each is
    compiled for the very types play uses. When any is not cached, the compile is announced on stderr with its
    progress every few seconds (:func:`~gubs_env.support.compiling.compiling`); when all are, they load in a
    fraction of a second and nothing is printed. Either way the first games after it run at full speed: no kernel
    compiles or loads in the middle of them.

    Args:
        part: a key of :data:`WARM_UP_SECONDS`.
        dispatchers: the numba dispatchers that ``exercise`` calls.
        exercise: a tiny run of the part (it may call code that calls :func:`warm_up` for the same part again:
            that call returns at once).
    """
    if part in _warm:
        return
    _warm.add(part)
    with compiling(dispatchers, f"the game engine ({part})", WARM_UP_SECONDS[part]):
        exercise()


@nb.njit(cache=True)
def reset_one(g: np.ndarray, r: np.ndarray, seed: np.uint64, players: int, max_turns: int, uniform: int) -> None:
    """Seed the generator row as ``default_rng(seed)`` and set up a new game in the row."""
    seed_pcg64(r, seed)
    new_game(g, r, players, max_turns, uniform)


@nb.njit(cache=True, parallel=True)
def reset_kernel(
    states: np.ndarray,
    rngs: np.ndarray,
    slots: np.ndarray,
    seeds: np.ndarray,
    players: np.ndarray,
    max_turns: int,
    uniform: int,
) -> None:
    """New games in ``slots``, from ``seeds`` and ``players`` (one each)."""
    for j in nb.prange(slots.shape[0]):
        i = slots[j]
        reset_one(states[i], rngs[i], seeds[j], np.int64(players[j]), np.int64(max_turns), np.int64(uniform))


@pure
def _write_view(
    g: np.ndarray, actor: np.ndarray, mask: np.ndarray, legal: np.ndarray, obs: np.ndarray, i: int, no_ids: np.ndarray
) -> None:
    """The seat to act (-1 once over), its mask and its observation (seat 0's once over).

    ``legal`` gets a private copy of the mask: :func:`check_kernel` reads it, so that a caller writing into
    the public mask can never make the engine apply an illegal action. ``no_ids`` is an empty array, made once
    per kernel call: legal_mask is asked for the mask only.
    """
    if g[L.STEP] == S_OVER:
        actor[i] = -1
        legal[i, :] = 0
        encode(g, np.int64(0), obs[i])
    else:
        actor[i] = g[L.ACTOR]
        legal_mask(g, legal[i], no_ids)
        encode(g, np.int64(g[L.ACTOR]), obs[i])
    _copy_row(legal[i], mask[i])


@nb.njit(cache=True, inline="always", **NO_REFCOUNT)
def _copy_row(source: np.ndarray, target: np.ndarray) -> None:
    """``target[:] = source`` for two rows of one length.

    An explicit loop: numba compiles an array-to-array slice assignment to a generic strided copy that cost
    about 200 ns per 356-byte mask, ten times this loop.
    """
    for a in range(source.shape[0]):
        target[a] = source[a]


@nb.njit(cache=True, parallel=True)
def observe_kernel(states: np.ndarray, viewers: np.ndarray, obs: np.ndarray) -> None:
    """Write each game's observation as ``viewers[i]`` sees it."""
    for i in nb.prange(states.shape[0]):
        encode(states[i], np.int64(viewers[i]), obs[i])


@nb.njit(cache=True)
def check_kernel(legal: np.ndarray, actions: np.ndarray) -> int:
    """The first game whose action is neither a legal id nor -1 (leave the game as it is), or -1 if none."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a == -1:
            continue
        if a < 0 or a >= N_ACTIONS or legal[i, a] == 0:
            return i
    return -1


@nb.njit(cache=True, parallel=True)
def step_kernel(
    states: np.ndarray,
    rngs: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    auto_reset: bool,
    seeds: np.ndarray,
    seed_stride: np.uint64,
    actor: np.ndarray,
    mask: np.ndarray,
    legal: np.ndarray,
    obs: np.ndarray,
    refresh: bool,
) -> None:
    """Apply one (already checked) action per game; write rewards, end flags and the next views.

    A game that ends gets +1 for each winner and -1 for each other seat (0 for all when truncated); with
    ``auto_reset`` its slot then starts the game of seed ``seeds[i] + seed_stride``. A game whose action is
    -1 is left as it is, with rewards 0; with ``refresh`` its views are rewritten instead and its rewards and
    flags kept (how the views are written after a reset or an import: one kernel to compile, not two).
    """
    no_ids = np.empty(0, dtype=np.int64)
    for i in nb.prange(states.shape[0]):
        g = states[i]
        a = actions[i]
        if a < 0 and refresh:
            _write_view(g, actor, mask, legal, obs, np.int64(i), no_ids)
            continue
        rewards[i, :] = 0
        terminated[i] = False
        truncated[i] = False
        if a < 0:
            continue  # a skipped game: its views stay as they are
        advance(g, rngs[i], a)
        if g[L.STEP] == S_OVER:
            if g[L.TRUNCATED]:
                truncated[i] = True
            else:
                terminated[i] = True
                won = np.zeros(L.SEATS, dtype=np.int64)
                winners_into(g, won)
                for s in range(g[L.NUM_PLAYERS]):
                    rewards[i, s] = 1.0 if won[s] else -1.0
            if auto_reset:
                seeds[i] += seed_stride
                players, turns, uniform = np.int64(g[L.NUM_PLAYERS]), np.int64(g[L.MAX_TURNS]), np.int64(g[L.UNIFORM])
                reset_one(g, rngs[i], seeds[i], players, turns, uniform)
        _write_view(g, actor, mask, legal, obs, np.int64(i), no_ids)


@nb.njit(cache=True, **NO_REFCOUNT)  # see gubs_env.fast.core.jit
def _splitmix(state: np.ndarray, i: int) -> np.uint64:
    """A small, fast generator for choosing random actions (not the game's own generator)."""
    state[i] += np.uint64(0x9E3779B97F4A7C15)
    z = state[i]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


_HIGH_BITS = np.uint64(0xFEFEFEFEFEFEFEFE)
"""Every bit of eight bytes but their lowest: set in the OR of a mask's bytes only if some entry is not 0 or 1."""


@nb.njit(cache=True)
def _zeros_and_ones(mask: np.ndarray) -> bool:
    """Whether every entry of a C-contiguous int8 mask is 0 or 1.

    The bytes are ORed eight at a time, as 64-bit words (about 8 µs for 1,024 rows, a quarter of checking each
    row as it is counted); a mask whose memory does not start on a word boundary is read byte by byte.
    """
    flat = mask.reshape(mask.size)
    n = flat.size
    words = n // 8 if flat.ctypes.data % 8 == 0 else 0
    seen = np.uint64(0)
    if words:
        wide = flat[: words * 8].view(np.uint64)
        for k in range(words):
            seen |= wide[k]
    for k in range(words * 8, n):
        seen |= np.uint64(np.uint8(flat[k]))
    return (seen & _HIGH_BITS) == 0


@nb.njit(cache=True, parallel=True)
def sample_kernel(mask: np.ndarray, chooser: np.ndarray, actions: np.ndarray) -> None:
    """A uniformly random legal id per game (-1 where the mask is empty); every non-zero entry is a legal id.

    The legal ids of a row are counted by summing it, which compiles to vector instructions and is exact for
    the engine's 0/1 masks. A mask holding any other value (2, -1) is counted entry by entry instead: its sum
    made a 2 count twice and a -1 cancel a 1, so the pick ran past the last legal id and left ``actions[i]``
    unwritten, or reported no legal id at all.
    """
    exact = not _zeros_and_ones(mask)
    for i in nb.prange(mask.shape[0]):
        count = 0
        if exact:
            for a in range(N_ACTIONS):
                if mask[i, a] != 0:
                    count += 1
        else:
            for a in range(N_ACTIONS):
                count += mask[i, a]
        if count == 0:
            actions[i] = -1
            continue
        pick = np.int64(_splitmix(chooser, i) % np.uint64(count))
        for a in range(N_ACTIONS):
            if mask[i, a] != 0:
                if pick == 0:
                    actions[i] = a
                    break
                pick -= 1


# --- one game at a time --------------------------------------------------------------------------
# Serial functions with few arguments, for :class:`gubs_env.fast.single.FastGame`: a parallel kernel costs a few
# microseconds per call to launch even on one thread, and numba's dispatcher a fraction of a microsecond per
# array argument, which for one game is more than the rules themselves.


@nb.njit(cache=True)
def view_game(g: np.ndarray, legal: np.ndarray) -> int:
    """Write the legal ids of the seat to act into ``legal`` (all 0 once over); return that seat, -1 once over."""
    legal_mask(g, legal, np.empty(0, dtype=np.int64))
    return -1 if g[L.STEP] == S_OVER else np.int64(g[L.ACTOR])


@nb.njit(cache=True)
def start_game(
    g: np.ndarray, r: np.ndarray, legal: np.ndarray, seed: np.uint64, players: int, max_turns: int, uniform: int
) -> int:
    """A new game in the row, as :func:`reset_one`; then :func:`view_game`."""
    reset_one(g, r, seed, players, max_turns, uniform)
    return view_game(g, legal)


@nb.njit(cache=True)
def step_game(g: np.ndarray, r: np.ndarray, a: int, legal: np.ndarray) -> int:
    """Apply the legal (already checked) id ``a``; then :func:`view_game`."""
    advance(g, r, a)
    return view_game(g, legal)


# --- whole games ----------------------------------------------------------------------------------


@nb.njit(cache=True, parallel=True)
def play_kernel(
    states: np.ndarray,
    rngs: np.ndarray,
    choosers: np.ndarray,
    slot_game: np.ndarray,
    seeds: np.ndarray,
    setup: np.ndarray,
    random_seat: np.ndarray,
    actions: np.ndarray,
    waiting: np.ndarray,
    mask: np.ndarray,
    obs: np.ndarray,
    results: np.ndarray,
    scores: np.ndarray,
    winners: np.ndarray,
) -> None:
    """Play the games of every slot until each waits on a seat that is not random, or has no games left.

    Slot ``i`` plays games ``i``, ``i + B``, ``i + 2B``, ... (``B`` slots, game ``j`` dealt from ``seeds[j]``,
    ``setup`` = players, max turns, uniform), starting the next one in its row when one ends; ``slot_game[i]``
    is the game it plays now, -1 once it has none left. A seat with ``random_seat[seat]`` chooses uniformly
    among the legal ids with the slot's SplitMix64 state ``choosers[i]`` (set to the game's seed when the game
    starts). ``actions[i] >= 0`` is first applied to the slot's waiting decision (a checked legal id).

    On return ``waiting[i]`` is the seat the slot's game waits on (-1: the slot is done), with that seat's
    ``mask[i]`` and ``obs[i]``. When game ``j`` ends, ``results[j]`` = (decisions, turns, truncated),
    ``scores[j]`` its points per seat and ``winners[j]`` 1 for each winner (none after a truncation);
    ``results[j, 0]`` counts the decisions while the game is played.
    """
    no_ids = np.empty(0, dtype=np.int64)
    no_mask = np.empty(0, dtype=np.int8)  # a uniform choice among the ids needs no mask
    stride = slot_game.shape[0]
    for i in nb.prange(stride):
        j = slot_game[i]
        waiting[i] = -1
        if j < 0:
            continue
        g, r = states[i], rngs[i]
        ids = np.empty(N_ACTIONS, dtype=np.int64)
        if actions[i] >= 0:
            advance(g, r, actions[i])
            results[j, 0] += 1
        while True:
            if g[L.STEP] == S_OVER:
                _record_outcome(g, results[j], scores[j], winners[j])
                j += stride
                if j >= seeds.shape[0]:
                    slot_game[i] = -1
                    break
                slot_game[i] = j
                choosers[i] = seeds[j]
                reset_one(g, r, seeds[j], np.int64(setup[0]), np.int64(setup[1]), np.int64(setup[2]))
                continue
            seat = np.int64(g[L.ACTOR])
            if random_seat[seat]:
                count = legal_mask(g, no_mask, ids)
                advance(g, r, ids[np.int64(_splitmix(choosers, i) % np.uint64(count))])
                results[j, 0] += 1
                continue
            waiting[i] = seat
            legal_mask(g, mask[i], no_ids)
            encode(g, seat, obs[i])
            break


@nb.njit(cache=True)
def _record_outcome(g: np.ndarray, result: np.ndarray, score_row: np.ndarray, won: np.ndarray) -> None:
    """Turns, truncation, points and winners of the finished game ``g`` (the decisions are counted already)."""
    result[1] = g[L.TURN]
    result[2] = g[L.TRUNCATED]
    for s in range(g[L.NUM_PLAYERS]):
        score_row[s] = score(g, np.int64(s))
    if g[L.TRUNCATED]:
        won[:] = 0
    else:
        winners_into(g, won)
