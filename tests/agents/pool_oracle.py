"""The readable engine's self-play env seated as the sb3 backend's vector env seats it: its oracle.

Training plays on the compiled engine (:class:`agents.training.sb3.fast_vec_env.FastSelfPlayVecEnv`), each episode
seated by a :class:`~agents.training.core.seating.Seating`; this is the same games one at a time on
:class:`gubs_env.envs.selfplay.SelfPlayEnv`, written to be read, with the heuristic at every opponent seat, so that
the tests can hold the vector env to it decision for decision (tests/agents/test_fast_vec_env.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.bots.heuristic import HeuristicAgent
from gubs_env.envs.selfplay import SelfPlayEnv


class SeatedSelfPlayEnv(SelfPlayEnv):
    """A :class:`SelfPlayEnv` whose every opponent is a heuristic seeded from ``draws`` as the seating seeds it.

    Args:
        num_players: the table size.
        draws: the seating's stream, shared by every env of a vector in the order the vector seats them: per
            opponent seat, the draw of its player (the heuristic whatever it is), then its generator's seed.
    """

    def __init__(self, num_players: int, draws: np.random.Generator, **kwargs: Any) -> None:
        super().__init__(num_players=num_players, **kwargs)
        self.draws = draws

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Seat this episode's opponents, then deal; a seed fixes the deals."""
        opponents = []
        for _ in range(self.num_players - 1):
            self.draws.random()  # the player's draw: the heuristic, at every seat
            opponent = HeuristicAgent()
            opponent.reset(int(self.draws.integers(2**63)))
            opponents.append(opponent)
        self.set_opponents(opponents)
        return super().reset(seed=seed, options=options)
