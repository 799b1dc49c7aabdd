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
    """A :class:`SelfPlayEnv` whose opponents are drawn from an :class:`OpponentPool` at every reset."""

    def __init__(self, num_players: int, pool: PoolConfig, seed: int = 0, **kwargs: Any) -> None:
        super().__init__(num_players=num_players, **kwargs)
        self.pool = OpponentPool(pool, seed)
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
        return super().reset(seed=seed, options=options)

    def step(self, action: int):
        """The env's step; at the end of an episode ``info["opponents"]`` holds the opponents' seat labels clockwise
        from the learner."""
        observation, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            info["opponents"] = list(self.labels)
        return observation, reward, terminated, truncated, info
