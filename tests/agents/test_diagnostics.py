"""The gradient agreement every trainer logs: its split by game and its value on known signals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.training.core.diagnostics import agreement, cosine, halves


def test_halves_take_the_games_alternately_in_the_order_they_first_appear():
    games = np.array(["b", "b", "a", "c", "a", "d", "c"])
    first, second = halves(games)
    assert first.tolist() == [0, 1, 3, 6] and second.tolist() == [2, 4, 5]  # b, c | a, d
    assert not set(games[first]) & set(games[second])


def test_one_game_has_no_agreement():
    assert np.isnan(agreement(np.zeros(5, dtype=np.int64), lambda rows: torch.ones(3)))


def test_the_same_signal_in_both_halves_agrees_and_independent_noise_does_not():
    rng = np.random.default_rng(0)
    direction = torch.from_numpy(rng.normal(size=50))
    signal = torch.stack([direction * (1 + 0.1 * i) for i in range(400)])  # every row pushes the same way
    games = np.repeat(np.arange(100), 4)
    assert agreement(games, lambda rows: signal[torch.from_numpy(rows)].mean(0)) == pytest.approx(1.0, abs=1e-6)
    noise = torch.from_numpy(rng.normal(size=(400, 5000)))
    assert abs(agreement(games, lambda rows: noise[torch.from_numpy(rows)].mean(0))) < 0.1
    assert cosine(torch.zeros(3), torch.ones(3)) == 0.0
