"""Warm start by imitation: demonstrations are legal and the policy learns to copy them."""

import numpy as np
import pytest

from agents.bots.heuristic import HeuristicAgent
from agents.bots.ppo import PPOAgent
from agents.training.imitation.demonstrations import _collect_compiled, collect, pretrain
from gubs_env.envs.selfplay import SelfPlayEnv


def test_demonstrations_record_legal_choices_at_every_table_size():
    data = collect(HeuristicAgent(0), [2, 3], games=4, seed=0, progress=False)
    assert len(data) == len(data.masks) == len(data.observations) > 100
    assert data.observations.dtype == np.float16 and data.observations.shape[1] == 512
    assert all(mask[action] for mask, action in zip(data.masks, data.actions, strict=True))


def test_the_compiled_heuristic_collects_the_reference_demonstrations():
    class OneAtATime(HeuristicAgent):
        """The same teacher, which collect plays game by game on the reference engine (a subclass is not batched)."""

    for counts, games in (([2], 6), ([2, 3, 5], 6)):
        batched = collect(HeuristicAgent(), counts, games=games, seed=3, progress=False)
        reference = collect(OneAtATime(), counts, games=games, seed=3, progress=False)
        for field in ("observations", "masks", "actions", "returns"):
            assert np.array_equal(getattr(batched, field), getattr(reference, field)), field
            assert getattr(batched, field).dtype == getattr(reference, field).dtype, field
    in_chunks = _collect_compiled([2, 3, 5], games=6, seed=3, progress=False, gamma=0.995, batch=4)
    assert np.array_equal(in_chunks.returns, reference.returns) and np.array_equal(in_chunks.actions, reference.actions)


def test_a_tuned_teacher_is_collected_with_its_own_weights_in_the_batch():
    from agents.bots.registry import make_agent

    class OneAtATime(HeuristicAgent):
        """The tuned teacher, played game by game on the reference engine."""

    tuned = make_agent("heuristic-tuned")
    batched = collect(tuned, [2, 4], games=6, seed=5, progress=False)
    reference = collect(OneAtATime(tables=tuned.tables), [2, 4], games=6, seed=5, progress=False)
    default = collect(HeuristicAgent(), [2, 4], games=6, seed=5, progress=False)
    assert np.array_equal(batched.actions, reference.actions) and np.array_equal(batched.returns, reference.returns)
    assert len(batched) != len(default) or not np.array_equal(batched.actions, default.actions)  # other choices


@pytest.mark.slow
def test_pretraining_lowers_the_loss_and_copies_the_teacher():
    from sb3_contrib import MaskablePPO

    data = collect(HeuristicAgent(0), [2], games=30, seed=0, progress=False)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), seed=0)
    student = PPOAgent(model)

    def agreement():
        picks = [student.act(o.astype(np.float32), m) for o, m in zip(data.observations, data.masks, strict=True)]
        return float(np.mean(np.array(picks) == data.actions))

    before = agreement()
    losses = pretrain(model, data, epochs=4, progress=False)
    assert losses[-1] < losses[0]
    assert agreement() > max(before, 0.9)


def test_demonstration_returns_are_each_seats_discounted_outcome():
    import random

    from agents.training.imitation.demonstrations import _discounted_outcomes
    from gubs_env.engine import Game

    for seed in range(50):  # a game with one winner
        game, pick, seats = Game(2, seed=seed, record_log=False), random.Random(seed), []
        while not game.is_over:
            seats.append(game.current_player)
            game.apply(pick.choice(game.legal_actions()))
        if len(game.winners()) == 1:
            break
    returns = _discounted_outcomes(game, seats, gamma=0.5)
    winner = game.winners()[0]
    last = {seat: max(i for i, s in enumerate(seats) if s == seat) for seat in (0, 1)}
    assert returns[last[winner]] == 1.0 and returns[last[1 - winner]] == -1.0
    earlier = max(i for i in range(last[winner]) if seats[i] == winner)
    assert returns[earlier] == 0.5  # one more own decision to come: discounted once

    data = collect(HeuristicAgent(0), [2], games=2, seed=0, progress=False)
    assert data.returns.shape == data.actions.shape and np.all(np.abs(data.returns) <= 1)


def test_a_deadline_stops_the_teachers_games_after_the_first():
    """A run's time budget bounds its warm start: past the deadline no new game starts, and the count says so."""
    import time

    from agents.bots.random_agent import RandomAgent

    past = time.perf_counter() - 1
    assert collect(RandomAgent(), [2], 50, deadline=past).games == 1
    compiled = collect(HeuristicAgent(), [2, 3], 1000, deadline=past)
    assert 0 < compiled.games < 1000 and len(compiled) > 0  # one batch of games, played to their ends
    assert collect(RandomAgent(), [2], 3).games == 3  # no deadline: every game


def test_the_warm_start_says_when_the_budget_cut_it_short(monkeypatch):
    import time

    from agents.training.core.config import TrainingConfig
    from agents.training.imitation.warm_start import warm_start_data, warm_start_deadline

    config = TrainingConfig(minutes=2, imitate_games=1000).resolved()
    assert warm_start_deadline(config, 100.0) == 100.0 + 60  # half of the 2 minutes, counted from the start
    assert warm_start_deadline(TrainingConfig(minutes=None, steps=10).resolved(), 100.0) is None
    data, what = warm_start_data(config, None, False, 0.99, deadline=time.perf_counter() - 1)
    assert data.games < 1000 and f"from {data.games:,} games (of 1,000" in what and "--imitate-games" in what


def test_set_up_that_took_most_of_the_budget_is_reported():
    from agents.training.core.runs import describe_setup

    assert describe_setup(30, 120, 50_000) == ""
    assert describe_setup(10, None, 64) == ""
    line = describe_setup(100, 120, 64)
    assert "100 s of the 120 s budget" in line and "64 timesteps" in line and "--minutes" in line
