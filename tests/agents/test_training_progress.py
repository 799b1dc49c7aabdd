"""The training bar has a total and an ETA for either budget; the time budget counts from the start; what a run
logs and prints of its progress."""

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


def test_progress_rows_have_every_column_on_every_backend_and_the_curve_reads_them_back(tmp_path) -> None:
    import math

    from agents.training.core.curves import plot_learning_curve, read_progress
    from agents.training.core.reports import PROGRESS_COLUMNS, append_csv, describe_agreement, progress_row

    rows = [
        progress_row({"entropy": 0.5, "grad_cosine": 0.5, "approx_kl": 3e-5}, 100, 1, 1.0),
        progress_row({"entropy": 0.4, "grad_cosine": math.nan}, 200, 2, 2.0),  # not measured this time
        progress_row({}, 300, 3, 3.0),  # a backend that measures none of them
    ]
    assert all(list(row) == list(PROGRESS_COLUMNS) for row in rows)
    assert rows[0]["approx_kl"] == 3e-5 and rows[1]["grad_cosine"] == "" and rows[2]["entropy"] == ""
    append_csv(tmp_path / "progress.csv", rows)
    series = read_progress(tmp_path / "progress.csv")
    assert series["grad_cosine"] == [(100, 0.5)] and series["entropy"] == [(100, 0.5), (200, 0.4)]
    assert describe_agreement([0.9, 0.9, 0.1, 0.2, 0.3]).startswith(
        "median grad_cosine over the last half of the updates: 0.20"
    )
    assert "no update" in describe_agreement([math.nan])
    (tmp_path / "eval.csv").write_text(
        "timesteps,players,opponent,deals,games,win_rate,low,high,seconds\n"
        "0,2,heuristic,curve,4,0.5,0.2,0.8,1\n9,2,heuristic,final,4,0.6,0.3,0.8,1\n"
    )
    plot_learning_curve(tmp_path / "eval.csv", tmp_path / "curve.png", series)
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


def test_the_summary_shows_the_curve_from_its_first_point_at_most_eight_points_a_table_size(tmp_path) -> None:
    from agents.evaluate.matches import MatchResult
    from agents.training.core.reports import append_csv, describe_curve, evaluation_row

    rows = [
        evaluation_row(MatchResult("policy", 100, wins, 0), players, "heuristic", step, 1.0, "curve")
        for players in (2, 4)
        for step, wins in enumerate(range(10, 30))
    ]
    rows.append(evaluation_row(MatchResult("policy", 100, 99, 0), 2, "heuristic", 50, 1.0, "final"))
    append_csv(tmp_path / "eval.csv", rows)
    two, four = describe_curve(tmp_path / "eval.csv").splitlines()
    assert two.startswith("the curve against the heuristic, 2p (curve deals): 10.0% at 0, ")
    assert two.endswith("29.0% at 19") and two.count(" at ") == 8 and "99.0%" not in two
    assert four.startswith("the curve against the heuristic, 4p")
