"""Warm start by imitation: demonstrations are legal and the policy learns to copy them."""

import numpy as np
import pytest

from agents.bots.heuristic import HeuristicAgent
from agents.bots.ppo import PPOAgent
from agents.training.imitation.demonstrations import _collect_compiled, collect, fit
from agents.training.sb3.backend import sb3_heads
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
    fitted = fit(model.policy.parameters(), sb3_heads(model), data, epochs=4, progress=False)
    assert fitted.losses[-1] < fitted.losses[0] and fitted.epochs == 4 and not fitted.cut
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


def test_the_warm_start_says_when_the_budget_cut_it_short():
    import time
    from dataclasses import replace

    from agents.training.core.config import TrainingConfig
    from agents.training.imitation.demonstrations import Fitted
    from agents.training.imitation.warm_start import WarmStartDeadlines, describe_warm_start, warm_start_data

    config = TrainingConfig(minutes=2, imitate_games=1000).resolved()
    # the games stop at a quarter of the 2 minutes, the fit at half, both counted from the run's start
    assert WarmStartDeadlines.of(config, 100.0) == WarmStartDeadlines(100.0 + 30, 100.0 + 60)
    assert WarmStartDeadlines.of(TrainingConfig(minutes=None, steps=10).resolved(), 100.0) == WarmStartDeadlines(
        None, None
    )
    data, what = warm_start_data(config, None, False, 0.99, deadline=time.perf_counter() - 1)
    assert data.games < 1000 and f"from {data.games:,} games" in what
    line = describe_warm_start(config, data, what, Fitted([1.5, 1.2], 1.4, 4))
    assert f"{data.games:,} of 1,000 teacher games" in line and "1.4 of 4 epochs" in line
    assert "2-minute budget" in line and "--minutes" in line and "--imitate-games" in line
    whole = describe_warm_start(config, replace(data, games=1000), what, Fitted([1.5, 1.2], 4, 4))
    assert whole == f"imitated {what} (cross-entropy 1.500 -> 1.200)"  # nothing cut, nothing more said


def test_a_deadline_cuts_the_fit_after_its_first_batch_and_says_how_far_it_got():
    import time

    from sb3_contrib import MaskablePPO

    data = collect(HeuristicAgent(0), [2], games=20, seed=0, progress=False)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), seed=0)
    calls = []

    def count() -> None:
        calls.append(1)

    past = time.perf_counter() - 1
    heads = sb3_heads(model)
    fitted = fit(model.policy.parameters(), heads, data, epochs=3, batch_size=32, progress=False, deadline=past,
                 between=count)  # fmt: skip
    batches = -(-len(data) // 32)
    assert fitted.cut and fitted.planned == 3 and fitted.epochs == pytest.approx(1 / batches)
    assert len(fitted.losses) == 1 and calls == [1]  # one batch, and the thread check before it
    whole = fit(model.policy.parameters(), heads, data, epochs=2, batch_size=32, progress=False, between=count)
    assert whole.epochs == 2 and not whole.cut and len(whole.losses) == 2
    assert len(calls) == 1 + -(-2 * batches // 16)  # every 16 batches
