"""Small adapters that present the PettingZoo env the way another library's own tools read it.

:class:`RLlibObservations` renames the observation dict's keys to those RLlib's action-masking modules read
(``observations`` and ``action_mask``, the mask as float32), so that RLlib's own ``PettingZooEnv`` wrapper and
its ``ActionMaskingTorchRLModule`` train on ``gubs_env.env()`` as they are (docs/integrations.md). The game, the
agents, rewards and episode ends are untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
"""The keys RLlib's action-masking modules read."""


class RLlibObservations(BaseWrapper):
    """``gubs_env.env()`` whose observations are ``{"observations": float32[512], "action_mask": float32[356]}``.

    Args:
        env: the PettingZoo env (``gubs_env.env(...)``, with its standard wrappers).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._space = spaces.Dict(
            {
                OBSERVATIONS: spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                ACTION_MASK: spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )

    def observation_space(self, agent: Any) -> spaces.Dict:
        """The same space for every agent."""
        return self._space

    def observe(self, agent: Any) -> dict[str, np.ndarray] | None:
        """The agent's observation under RLlib's keys (None where the env has none)."""
        seen = super().observe(agent)
        if seen is None:
            return None
        return {
            OBSERVATIONS: np.asarray(seen["observation"], dtype=np.float32),
            ACTION_MASK: np.asarray(seen["action_mask"], dtype=np.float32),
        }
