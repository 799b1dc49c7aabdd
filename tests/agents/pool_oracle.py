"""The readable engine's self-play env with the league's opponents: the oracle of the sb3 backend's vector env.

Training plays on the compiled engine (:class:`agents.training.sb3.fast_vec_env.FastSelfPlayVecEnv`); this is the
same games one at a time on :class:`gubs_env.envs.selfplay.SelfPlayEnv`, written to be read, so that the tests can
hold the vector env to it decision for decision (tests/agents/test_fast_vec_env.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.bots.model_file import PolicyWeights
from agents.training.core.config import PoolConfig
from agents.training.sb3.pool import OpponentPool
from gubs_env.envs.selfplay import SelfPlayEnv


class PoolSelfPlayEnv(SelfPlayEnv):
    """A :class:`SelfPlayEnv` whose opponents are drawn from an :class:`OpponentPool` at every reset.

    ``shaping`` adds a potential-based term to the reward: ``shaping * (phi(after) - phi(before))`` with
    ``phi`` the learner's score minus the best opponent score, and ``phi = 0`` once the game is over. It gives
    credit for gaining ground during the game without changing which policy is best; the win/loss reward
    at the end is unchanged.
    """

    def __init__(self, num_players: int, pool: PoolConfig, seed: int = 0, shaping: float = 0.0, **kwargs: Any) -> None:
        super().__init__(num_players=num_players, **kwargs)
        self.pool = OpponentPool(pool, seed)
        self.shaping = shaping
        self._potential = 0.0
        self.labels: list[str] = []
        """This episode's opponents' seat labels, clockwise from the learner (:mod:`agents.training.core.league`)."""

    def set_snapshots(self, paths: Sequence[str], weights: Sequence[float] | None = None) -> None:
        """Called from the trainer (through ``VecEnv.env_method``) when the snapshots or their weights change."""
        self.pool.set_snapshots(paths, weights)

    def set_learner(self, weights: PolicyWeights) -> None:
        """Called from the trainer before every rollout: the learner's actor for the ``self`` seats."""
        self.pool.set_learner(weights)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Draw this episode's opponents, then deal; a seed fixes both."""
        if seed is not None:
            self.pool.rng = np.random.default_rng([seed, 1])  # a stream apart from the env's own
        drawn = [self.pool.draw() for _ in range(self.num_players - 1)]
        self.labels = [label for label, _ in drawn]
        opponents = [agent for _, agent in drawn]
        for opponent in opponents:
            opponent.reset(int(self.pool.rng.integers(2**31)))
        self.set_opponents(opponents)
        observation, info = super().reset(seed=seed, options=options)
        self._potential = self._margin()
        return observation, info

    def step(self, action: int):
        """The env's step, with the shaping term added to the reward.

        At the end of an episode ``info["opponents"]`` holds the opponents' seat labels clockwise from the learner.
        """
        observation, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            info["opponents"] = list(self.labels)
        if not self.shaping:  # the scores cost time at every step
            return observation, reward, terminated, truncated, info
        potential = 0.0 if terminated or truncated else self._margin()
        reward += self.shaping * (potential - self._potential)
        self._potential = potential
        return observation, reward, terminated, truncated, info

    def _margin(self) -> float:
        scores = self._started().scores()
        me = scores[self.learner]
        return float(me - max(s for seat, s in enumerate(scores) if seat != self.learner))
