"""The compiled heuristic as a batched policy of ``gubs_env.fast.play_games`` (gubs_env never imports agents)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.bots.heuristic.decide import heuristic_actions, rng_state
from gubs_env.fast import play_games


class HeuristicPolicy:
    """``heuristic_actions`` as a ``(observations, masks) -> ids`` callable; ties drawn from one generator per row."""

    def __init__(self, seed: int, rows: int = 1024) -> None:
        self.states = np.tile(rng_state(np.random.default_rng(seed)), (rows, 1))

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rows = np.arange(masks.shape[0], dtype=np.int64)
        ids = np.zeros(masks.shape[0], dtype=np.int64)
        heuristic_actions(observations, masks, rows, rows, self.states, ids)
        return ids


@pytest.mark.parametrize("num_players", [2, 4])
def test_the_heuristic_beats_random_seats_in_whole_compiled_games(num_players: int) -> None:
    seeds = np.arange(120)
    for seat in (0, num_players - 1):
        seats: list = ["random"] * num_players
        seats[seat] = HeuristicPolicy(seat)
        outcomes = play_games(seeds, num_players, seats=seats, batch=32)
        assert not outcomes.truncated.any()
        win_rate = outcomes.winners[:, seat].mean()
        assert win_rate > 1.5 / num_players, (seat, win_rate)  # a fair share would be 1 / num_players
        others = np.delete(outcomes.winners[:, :num_players], seat, axis=1).mean()
        assert win_rate > 2 * others, (seat, win_rate, others)


def test_heuristic_games_are_reproducible() -> None:
    def run() -> tuple[np.ndarray, ...]:
        heuristic = HeuristicPolicy(7)
        outcomes = play_games(np.arange(40), 3, seats=[heuristic, "random", heuristic], batch=16)
        return outcomes.scores, outcomes.winners, outcomes.decisions

    assert all(np.array_equal(a, b) for a, b in zip(run(), run(), strict=True))
