"""A tiny agent importable as ``tests.agents.sample_agent:FirstLegalAgent``, for ``module:Class`` specs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.bots.base import Agent, legal_ids

if TYPE_CHECKING:
    from gubs_env.engine import Game


class FirstLegalAgent(Agent):
    """Always takes the lowest legal action id."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        return int(legal_ids(action_mask)[0])


class LastLegalPlayer:
    """Always takes the highest legal action id: an agent by its ``act`` alone, without the :class:`Agent` base."""

    name = "last-legal"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        return int(np.flatnonzero(action_mask)[-1])
