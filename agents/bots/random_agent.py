"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from agents.bots.base import Agent, legal_ids


class RandomAgent(Agent):
    """Picks uniformly among the legal ids, from its own seeded generator."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal id."""
        ids = legal_ids(action_mask)
        return int(ids[self.rng.integers(ids.size)])
