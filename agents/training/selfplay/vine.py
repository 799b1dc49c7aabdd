"""Paired playouts: every legal alternative at a decision, each played to the end on the same deck.

A Gubs outcome is mostly the luck of the draw, so the return that follows one decision says little about that
decision. Here a few of a batch's decisions (*branch points*) are copied with the whole position, the deck order
and the engine's generator included, once per legal id; each copy takes its id and is played to the end by the
current policy at every seat. The copies share the deck, so the difference between two alternatives' outcomes is
mostly what the alternative changed, not two draws: a low-noise estimate of each id's value ``Q(s, a)`` at that
position.

The copies see the true position, but the decision they judge was taken from the observation alone, and the true
position is a draw from what that observation allows: the mean over positions of the paired values is the value
of each id given the observation, so the estimate is unbiased for the policy that plays the playouts. The policies
in the playouts read only their own observations.

The playouts' own sampling shares its random numbers across a branch point's copies too: at the ``k``-th round
after branching every copy of one branch point draws its Gumbel noise from the same row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.fast import step_kernel

LogProbs = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``log_probs(observations, masks) -> (k, 356)``: the policy's log-probabilities (illegal ids far below)."""


@dataclass
class Branches:
    """Branch points recorded during a rollout: positions with their generators, and the sample each one is.

    Attributes:
        states: int32 ``(B, row)``; rngs: uint64 ``(B, 6)``: the engine's rows at the decision.
        samples: int64 ``(B,)``: the index of the decision in its :class:`~agents.training.selfplay.rollout.Batch`.
        seats: int64 ``(B,)``: the deciding seat.
    """

    states: np.ndarray
    rngs: np.ndarray
    samples: np.ndarray
    seats: np.ndarray

    def __len__(self) -> int:
        return int(self.samples.shape[0])


@dataclass
class PairedValues:
    """Each legal id's playout outcome at each branch point.

    Attributes:
        point: int64 ``(R,)``: the branch point of each playout; action: int64 ``(R,)``: the id it took first;
        outcome: float32 ``(R,)``: the branch point's seat's reward at the playout's end (+1, -1, or 0 when cut).
        decisions: the decisions the playouts took in all.
    """

    point: np.ndarray
    action: np.ndarray
    outcome: np.ndarray
    decisions: int


class _Rows:
    """Engine rows outside any :class:`~gubs_env.fast.FastGames`, stepped by the same kernel."""

    def __init__(self, states: np.ndarray, rngs: np.ndarray) -> None:
        n = states.shape[0]
        self.states, self.rngs = states, rngs
        self.actor = np.full(n, -1, dtype=np.int64)
        self.mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.legal = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.rewards = np.zeros((n, MAX_PLAYERS), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.seeds = np.zeros(n, dtype=np.uint64)

    def step(self, actions: np.ndarray) -> None:
        """Apply one id per row (-1: leave it), then write each row's views as :meth:`FastGames.step` does."""
        step_kernel(
            self.states, self.rngs, actions, self.rewards, self.terminated, self.truncated, False, self.seeds,
            np.uint64(0), self.actor, self.mask, self.legal, self.obs, False,
        )  # fmt: skip


def play_branches(
    branches: Branches, masks: np.ndarray, log_probs: LogProbs, seed: int, greedy: bool = False
) -> PairedValues:
    """Play every legal id of every branch point to the end with ``decide`` at every seat (forced ids played).

    Args:
        branches: the branch points.
        masks: int8 ``(B, 356)``: each branch point's legal ids.
        log_probs: the policy, at every seat of every playout.
        seed: the playouts' shared noise.
        greedy: every seat of a playout takes its most likely id (no noise at all: the copies of a branch point
            differ only by their first id and what follows from it), so the values are the greedy policy's.
    """
    point, action = np.nonzero(masks)
    rows = _Rows(branches.states[point].copy(), branches.rngs[point].copy())
    rows.step(action.astype(np.int64))
    outcome = rows.rewards[np.arange(point.size), branches.seats[point]].copy()
    live = ~(rows.terminated | rows.truncated)
    actions = np.full(point.size, -1, dtype=np.int64)
    rng = np.random.default_rng(seed)
    decisions = 0
    while live.any():
        actions[:] = -1
        active = np.flatnonzero(live)
        counts = rows.mask[active].sum(axis=1, dtype=np.int64)
        forced = active[counts == 1]
        actions[forced] = np.argmax(rows.mask[forced], axis=1)
        asked = active[counts > 1]
        if asked.size:
            # one noise row per branch point and round: the copies of a point draw alike while they stay alike
            noise = (
                np.full((asked.size, NUM_ACTIONS), 0.5, dtype=np.float32)  # the same Gumbel value for every id
                if greedy
                else rng.random((len(branches), NUM_ACTIONS), dtype=np.float32)[point[asked]]
            )
            actions[asked] = _sample(log_probs, rows.obs[asked], rows.mask[asked], noise)
        decisions += active.size
        rows.step(actions)
        ended = active[(rows.terminated | rows.truncated)[active]]
        outcome[ended] = rows.rewards[ended, branches.seats[point[ended]]]
        live[ended] = False
    return PairedValues(point, action, outcome, decisions)


def _sample(log_probs: LogProbs, obs: np.ndarray, masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Gumbel-max over the policy's log-probabilities with the given uniforms."""
    gumbel = -np.log(-np.log(np.clip(uniforms, 1e-20, 1.0)))
    return np.argmax(np.where(masks != 0, log_probs(obs, masks) + gumbel, -np.inf), axis=1)
