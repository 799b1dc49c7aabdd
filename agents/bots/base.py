"""The agent interface shared by every bot: observation and action mask in, action id out."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """A policy over the flat action ids of :mod:`gubs_env.encoding.action_table`.

    An agent is also a callable ``(observation, action_mask) -> id``, so it can be given directly as an
    opponent of :class:`gubs_env.envs.selfplay.SelfPlayEnv`. In a PettingZoo loop::

        observation, reward, terminated, truncated, info = env.last()
        action = agent.act(observation["observation"], observation["action_mask"])
    """

    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        """The agent's own generator, for any random choice it makes."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action id (``action_mask[id] == 1``)."""

    def reset(self, seed: int | None = None) -> None:
        """Called before each game: reseeds the agent's generator (``None`` keeps its current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Same as :meth:`act`."""
        return self.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def legal_ids(action_mask: np.ndarray) -> np.ndarray:
    """The ids a mask allows; raises ``ValueError`` when it allows none."""
    ids = np.flatnonzero(action_mask)
    if ids.size == 0:
        raise ValueError("the action mask allows no action: this agent is not the one to act")
    return ids
