"""The heuristic's golden games: fixed deals and tables, and every choice the heuristic made in them.

``python -m tests.agents.heuristic_golden`` writes ``heuristic_golden.json`` beside this file. It was written once
from the heuristic as it stood when its Python and numba copies were merged into one; the test
(``test_heuristic.py``) plays the same games with today's heuristic and requires the same choices.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic import HeuristicAgent
from agents.bots.random_agent import RandomAgent
from agents.evaluate.matches import play_game

GOLDEN = Path(__file__).with_name("heuristic_golden.json")
GAMES = [(players, seed, mixed) for players in range(2, 7) for seed in range(4) for mixed in (False, True)]
"""(players, deal seed, whether the odd seats are random players) for every golden game."""


class Recorder(Agent):
    """Plays as ``inner`` and keeps every id it chose."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.choices: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        choice = self.inner.act(observation, action_mask)
        self.choices.append(choice)
        return choice


def golden_choices(players: int, seed: int, mixed: bool) -> list[list[int]]:
    """Every seat's choices in one golden game (random seats' lists included: they pin the positions)."""
    table = [Recorder(RandomAgent() if mixed and seat % 2 else HeuristicAgent()) for seat in range(players)]
    play_game(table, seed, engine="reference")
    return [seat.choices for seat in table]


def main() -> None:
    """Write the golden file."""
    games = [{"players": p, "seed": s, "mixed": m, "choices": golden_choices(p, s, m)} for p, s, m in GAMES]
    GOLDEN.write_text(json.dumps(games, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
