"""Uniformly random legal play."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.bots.base import Agent, legal_ids

if TYPE_CHECKING:
    from gubs_env.engine import Game


class RandomAgent(Agent):
    """Picks uniformly among the legal ids, from its own seeded generator."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """A uniformly random legal id."""
        ids = legal_ids(action_mask)
        return int(ids[self.rng.integers(ids.size)])
