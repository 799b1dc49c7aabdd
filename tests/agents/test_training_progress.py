"""The training bar (both backends) has a total and an ETA for either budget; the time budget counts from the start."""

from __future__ import annotations

import time

from agents.training.core.budget import BudgetBar


def test_a_step_budget_counts_steps_to_its_total() -> None:
    bar = BudgetBar(None, 5000, 1200, time.perf_counter(), enabled=True)  # a resumed run starts part of the way
    try:
        assert (bar.bar.total, bar.bar.n, bar.bar.unit) == (5000, 1200, "step")
        bar.update(2000)
        assert bar.bar.n == 2000
        assert not bar.over(4999) and bar.over(5000)
    finally:
        bar.close()


def test_a_time_budget_counts_seconds_with_the_steps_beside_them() -> None:
    started = time.perf_counter() - 30  # set-up and compiling took 30 s of the budget already
    bar = BudgetBar(600.0, None, 0, started, enabled=True)
    try:
        assert (bar.bar.total, bar.bar.unit) == (600, "s")
        assert 30 <= bar.bar.n <= 32
        assert "{remaining}" in bar.bar.bar_format  # the ETA: the time left of the budget
        bar.start -= 2.0  # two seconds of training and of the budget: the bar moves, with the rate beside it
        bar.budget_start -= 2.0
        bar.update(4096)
        assert 32 <= bar.bar.n <= 34
        assert "4,096 steps" in bar.bar.postfix
    finally:
        bar.close()


def test_the_time_budget_includes_what_came_before_training() -> None:
    spent = BudgetBar(60.0, None, 0, time.perf_counter() - 61, enabled=False)
    assert spent.over(0)  # the budget is spent: training stops at once
    fresh = BudgetBar(60.0, None, 0, time.perf_counter(), enabled=False)
    assert not fresh.over(10**9)
    fresh.update(10)  # a bar that is off does nothing


def test_the_diagnostics_of_every_invocations_log_are_read_in_order_and_summed_up(tmp_path) -> None:
    import math

    from agents.training.core.curves import plot_learning_curve
    from agents.training.core.reports import describe_agreement
    from agents.training.sb3.train import read_diagnostics

    header = "time/total_timesteps,train/entropy_loss,train/approx_kl,train/clip_fraction,train/explained_variance,"
    for folder, rows in (
        # killed after its commit at 200, having logged an update the resumed run made again
        ("from_000000000", ["100,-0.5,0.01,0.1,0.2,0.5", "200,,,,,0.1", "300,-0.9,0.09,0.9,0.9,0.9"]),
        ("from_000000200", ["300,-0.4,0.02,0.2,0.3,nan"]),
    ):
        (tmp_path / "logs" / folder).mkdir(parents=True)
        (tmp_path / "logs" / folder / "progress.csv").write_text(header + "grad_cosine\n" + "\n".join(rows) + "\n")
    series = read_diagnostics(tmp_path / "logs")
    assert series["grad_cosine"] == [(100, 0.5), (200, 0.1)]  # nan and empty cells are skipped, the dead row too
    assert series["entropy"] == [(100, 0.5), (300, 0.4)]  # SB3 logs minus the entropy
    assert describe_agreement([0.9, 0.9, 0.1, 0.2, 0.3]).startswith(
        "median grad_cosine over the last half of the updates: 0.20"
    )
    assert "no update" in describe_agreement([math.nan])
    (tmp_path / "eval.csv").write_text(
        "timesteps,players,opponent,games,win_rate,low,high,seconds\n0,2,heuristic,4,0.5,0.2,0.8,1\n"
    )
    plot_learning_curve(tmp_path / "eval.csv", tmp_path / "curve.png", series)
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
