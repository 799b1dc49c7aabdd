"""Self-play on RLlib: who plays each seat, the snapshot pool, and pushing snapshots to every env runner.

Modules of the multi-agent module: ``main`` (the one trained), ``random`` and ``heuristic`` (fixed agents) and
``pool_size`` snapshot slots ``snapshot_0``, ``snapshot_1``, ... (frozen copies of ``main``). In each episode
:class:`SeatMapping` puts ``main`` at one random seat and draws every other seat from the pool, as train.py's
backend does: the random agent with ``p_random``, the heuristic with ``p_heuristic``, a snapshot otherwise
(newer ones more often); before the first snapshot the two fixed agents share every seat.

A snapshot is written into the next slot of the learner's module and straight into that slot's module on
every env runner (:func:`push_snapshots`). RLlib's ``add_module`` + ``set_state`` route leaves env runners
playing an untrained copy for a whole iteration: an env runner skips module weights whose sequence number
it has already seen. Writing the module's state directly has no such check.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.training.config import HEURISTIC as HEURISTIC  # the fixed agents' modules take the pool's names
from agents.training.config import RANDOM as RANDOM
from agents.training.config import PoolConfig, snapshot_index
from agents.training.rllib.env import parse_agent_id

MAIN = "main"
SNAPSHOT_PREFIX = "snapshot_"

ACTIVE_SNAPSHOTS: list[str] = []
"""The snapshot slots that hold weights in this process, oldest first.

Each env runner process keeps its own copy, written by :func:`push_snapshots` together with the weights (and
the driver's, for the checkpoint and for env runners started again after a failure); :class:`SeatMapping`
reads it when it draws an opponent.
"""


def snapshot_slot(index: int) -> str:
    """The module id of snapshot slot ``index``."""
    return f"{SNAPSHOT_PREFIX}{index}"


def slots(pool: PoolConfig) -> list[str]:
    """Every snapshot slot's module id."""
    return [snapshot_slot(i) for i in range(pool.pool_size)]


def _stream(episode_id: str, *key: int) -> np.random.Generator:
    """A generator fixed by the episode and ``key``: every call for one episode and seat draws the same."""
    return np.random.default_rng([zlib.crc32(episode_id.encode()), *key])


def learner_seat(episode_id: str, num_players: int) -> int:
    """The seat ``main`` plays in an episode."""
    return int(_stream(episode_id).integers(num_players))


class SeatMapping:
    """RLlib's agent-to-module mapping for self-play: ``main`` at one random seat, the pool at the others."""

    def __init__(self, pool: PoolConfig) -> None:
        self.pool = pool

    def __call__(self, agent: str, episode: Any, **kwargs: Any) -> str:
        """The module that plays ``agent`` in ``episode`` (the same for every call of one episode)."""
        seat, players = parse_agent_id(agent)
        if seat == learner_seat(episode.id_, players):
            return MAIN
        return self.opponent(_stream(episode.id_, seat + 1).random(), list(ACTIVE_SNAPSHOTS))

    def opponent(self, u: float, snapshots: Sequence[str]) -> str:
        """The opponent module for a uniform draw ``u`` in [0, 1) when ``snapshots`` hold weights.

        The pool's rule (:meth:`PoolConfig.fixed_kind`), with the snapshot chosen by the rest of the same draw:
        one number per seat and episode, so every call for a seat maps it alike.
        """
        kind = self.pool.fixed_kind(u, len(snapshots))
        if kind is not None:
            return kind
        p_random, p_heuristic = self.pool.fixed_shares(True)
        rest = (u - p_random - p_heuristic) / (1 - p_random - p_heuristic)
        return snapshots[snapshot_index(rest, len(snapshots))]


def next_slot(active: Sequence[str], pool: PoolConfig) -> str:
    """The slot the next snapshot goes to: a free one, else the oldest."""
    free = [slot for slot in slots(pool) if slot not in active]
    return free[0] if free else active[0]


def take_snapshot(algorithm: Any, pool: PoolConfig) -> str:
    """Copy ``main``'s weights into the next slot, on the learners and every env runner; returns the slot."""
    slot = next_slot(ACTIVE_SNAPSHOTS, pool)
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]

    def copy_main(learner: Any) -> None:
        learner.module[slot].set_state(weights)

    algorithm.learner_group.foreach_learner(copy_main)
    active = [s for s in ACTIVE_SNAPSHOTS if s != slot] + [slot]
    push_snapshots(algorithm, active)
    return slot


def push_snapshots(algorithm: Any, active: Sequence[str], env_runner_ids: Sequence[int] | None = None) -> None:
    """Write the learner's weights of the ``active`` slots into every env runner (or those of ``env_runner_ids``).

    Also records ``active`` as this process's :data:`ACTIVE_SNAPSHOTS` (the driver's copy).
    """
    active = list(active)
    weights = algorithm.learner_group.get_weights(module_ids=active) if active else {}
    ACTIVE_SNAPSHOTS[:] = active
    # a module-level function travels by reference: in the env runner it writes that process's list
    install = functools.partial(_install_snapshots, weights=weights, active=active)
    group = algorithm.env_runner_group
    if env_runner_ids is None:
        group.foreach_env_runner(install, local_env_runner=True)
    else:
        group.foreach_env_runner(install, local_env_runner=False, remote_worker_ids=list(env_runner_ids))


def _install_snapshots(env_runner: Any, weights: dict[str, Any], active: list[str]) -> None:
    """In an env runner: load the snapshot weights into its modules, then record which slots are active."""
    for slot, state in weights.items():
        env_runner.module[slot].set_state(state)
    ACTIVE_SNAPSHOTS[:] = active
