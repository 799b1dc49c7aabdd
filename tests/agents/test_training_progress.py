"""The training bar has a total and an ETA for either budget; the time budget counts from the command's start."""

from __future__ import annotations

import time
from pathlib import Path

from agents.training.runs import RunState, TrainingCallback


def _callback(tmp_path: Path, seconds: float | None, steps: int | None, budget_start: float | None = None):
    return TrainingCallback(
        tmp_path,
        RunState(settings={}),
        [2],
        seconds,
        steps,
        snapshot_every=10**9,
        pool_size=1,
        eval_every=10**9,
        eval_games=2,
        checkpoint_every=10**9,
        progress=True,
        budget_start=budget_start,
    )


def test_a_step_budget_counts_steps_to_its_total(tmp_path: Path) -> None:
    callback = _callback(tmp_path, None, 5000)
    callback.num_timesteps = 1200  # a resumed run starts part of the way
    callback.start = time.perf_counter()
    bar = callback._new_bar()
    try:
        assert (bar.total, bar.n, bar.unit) == (5000, 1200, "step")
        callback.num_timesteps = 2000
        callback._bar = bar
        callback._update_bar()
        assert bar.n == 2000
    finally:
        bar.close()


def test_a_time_budget_counts_seconds_with_the_steps_beside_them(tmp_path: Path) -> None:
    started = time.perf_counter() - 30  # set-up and compiling took 30 s of the budget already
    callback = _callback(tmp_path, 600.0, None, budget_start=started)
    callback.start = time.perf_counter()
    callback.budget_start = started
    bar = callback._new_bar()
    try:
        assert (bar.total, bar.unit) == (600, "s")
        assert 30 <= bar.n <= 32
        assert "{remaining}" in bar.bar_format  # the ETA: the time left of the budget
        callback._bar = bar
        callback.num_timesteps = 4096
        callback.start -= 2.0  # two seconds of training and of the budget: the bar moves, with the rate beside it
        callback.budget_start -= 2.0
        callback._update_bar()
        assert 32 <= bar.n <= 34
        assert "4,096 steps" in bar.postfix
    finally:
        bar.close()


def test_the_time_budget_includes_what_came_before_training(tmp_path: Path) -> None:
    callback = _callback(tmp_path, 60.0, None, budget_start=time.perf_counter() - 61)
    callback.start = time.perf_counter()
    callback._bar = None
    callback._marks = {"snapshot": 0, "eval": 0, "checkpoint": 0}
    assert callback._on_step() is False  # the budget is spent: training stops at once
    fresh = _callback(tmp_path, 60.0, None)
    fresh.start = fresh.budget_start = time.perf_counter()
    fresh._bar = None
    fresh._marks = {"snapshot": 0, "eval": 0, "checkpoint": 0}
    assert fresh._on_step() is True
