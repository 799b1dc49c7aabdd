"""The heuristic as an :class:`~agents.bots.base.Agent`: the compiled decision, asked one observation at a time."""

from __future__ import annotations

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic.decide import heuristic_action, rng_state, set_rng_state


class HeuristicAgent(Agent):
    """Scores every legal id with hand-written rules and plays the best one (see :mod:`agents.bots.heuristic`).

    Equal scores are split by the agent's own seeded generator, through the compiled decision, so the same seed
    gives the same games here, in :func:`~agents.bots.heuristic.decide.heuristic_actions` batches and in the
    training environments.
    """

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The legal id with the highest score; equal scores are split by the generator."""
        state = rng_state(self.rng)
        choice = heuristic_action(observation, action_mask, state)
        set_rng_state(self.rng, state)
        return choice
