"""Who plays where in a self-play run: one rule for table sizes and one for seats, whatever the backend.

**Table sizes.** A run's games are played in *slots* (an sb3 environment, an RLlib env runner's game, a row of the
self-play core's batch), numbered across the run. Slot ``i`` plays ``sizes[i % len(sizes)]``, game after game
(:meth:`TableSizes.per_slot <gubs_env.engine.players.TableSizes.per_slot>`, which the vector env follows too): the
shares of the sizes are exact in every batch, rather than drawn. The compiled engine keeps a table size per slot, so
one batch holds every size.

**Seats.** At every new game the learner takes a seat drawn uniformly (by the self-play core,
:class:`gubs_env.fast.SelfPlayTables`), and each other seat draws its player from
one uniform number (:func:`seat_player`, the league's rule :meth:`PoolConfig.kind
<agents.training.core.config.PoolConfig.kind>`): the random agent, the heuristic, the learner's current policy, or
one of its snapshots chosen by the rest of the same number and the league's weights
(:mod:`agents.training.core.league`).
sb3's opponent pool, RLlib's agent-to-module mapping and the native backend's batches all call :func:`seat_player`;
where their uniform numbers come from is theirs (an env's seeded stream on sb3, the episode on RLlib, the seed and
the update count on the native backend, which keeps no snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from agents.training.core.config import SNAPSHOTS, PoolConfig, weighted_index


class SeatPlayer(NamedTuple):
    """Who plays an opponent seat: a kind of :meth:`PoolConfig.shares`, and for a snapshot its index (else -1)."""

    kind: str
    snapshot: int = -1


def seat_player(pool: PoolConfig, u: float, weights: Sequence[float]) -> SeatPlayer:
    """The player of one opponent seat, for a uniform draw ``u`` in [0, 1).

    Args:
        pool: the league's shares.
        u: the seat's one number: its kind, and (through :meth:`PoolConfig.rest`) which snapshot.
        weights: the drawing weight of each snapshot in the pool, oldest first (empty: no snapshot yet).
    """
    kind = pool.kind(u, len(weights) > 0)
    if kind != SNAPSHOTS:
        return SeatPlayer(kind)
    return SeatPlayer(kind, weighted_index(pool.rest(u), weights))
