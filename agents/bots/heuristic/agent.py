"""The heuristic as an :class:`~agents.bots.base.Agent`: the compiled decision, asked one observation at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic.decide import heuristic_action, rng_state, set_rng_state
from agents.bots.heuristic.tables import TABLES, HeuristicTables

if TYPE_CHECKING:
    from gubs_env.engine import Game


class HeuristicAgent(Agent):
    """Scores every legal id with hand-written rules and plays the best one (see :mod:`agents.bots.heuristic`).

    Equal scores are split by the agent's own seeded generator, through the compiled decision, so the same seed
    gives the same games here, in :func:`~agents.bots.heuristic.decide.heuristic_actions` batches and in the
    training environments. ``tables`` holds the numbers it weighs: ``None`` for the defaults
    (:data:`~agents.bots.heuristic.tables.TABLES`), or a weight set such as the tuned one
    (:mod:`~agents.bots.heuristic.weights_file`).
    """

    name = "heuristic"

    # None rather than TABLES as the default: a signature shows its defaults, and TABLES is a page of arrays
    def __init__(self, seed: int | None = None, tables: HeuristicTables | None = None) -> None:
        super().__init__(seed)
        self.tables = TABLES if tables is None else tables

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """The legal id with the highest score; equal scores are split by the generator."""
        state = rng_state(self.rng)
        choice = heuristic_action(observation, action_mask, state, self.tables)
        set_rng_state(self.rng, state)
        return choice
