"""An agent of your own, for ``python -m agents.evaluate examples.my_agents:MyAgent random heuristic``."""

import numpy as np

from agents.bots.base import Agent, legal_ids


class MyAgent(Agent):
    """Always plays the legal action with the lowest id (replace ``act`` with your own strategy)."""

    name = "my-agent"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The lowest legal id; draw any randomness from ``self.rng`` (each game reseeds it)."""
        return int(legal_ids(action_mask)[0])
