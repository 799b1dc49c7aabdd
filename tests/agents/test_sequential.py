"""The sequential mode: its confidence sequence holds however often it is looked at, and a tournament stops as soon
as its question is answered."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from agents.evaluate.command import main
from agents.evaluate.sequential import StopRule, boundary, confidence_sequence, predictable_adjusted
from agents.evaluate.tournament import GameOutcome, run_tournament


def test_the_boundary_is_about_one_and_a_half_fixed_intervals_wide_near_its_horizon():
    for deals in (100, 250, 1000):
        ratio = boundary(deals, 1.0) / (1.96 / math.sqrt(deals))
        assert 1.5 < ratio < 1.65, (deals, ratio)
    assert boundary(20, 1.0) > boundary(40, 1.0) > boundary(400, 1.0)  # it narrows as the deals come
    assert boundary(0, 1.0) == math.inf


def test_the_sequence_covers_the_mean_at_every_look_in_all_but_a_few_runs():
    # Deals of two seat-rotated games each, won with chance 0.6 (values 0, 1/2 or 1): looked at every 20 deals up
    # to 1,000, how many runs does the sequence ever miss the true mean? Time-uniform: at most about 5%.
    rng = np.random.default_rng()
    runs, misses = 400, 0
    for _ in range(runs):
        values = rng.binomial(2, 0.6, size=1000) / 2
        for deals in range(20, 1001, 20):
            s = confidence_sequence(values[:deals])
            if not s.low <= 0.6 <= s.high:
                misses += 1
                break
    assert misses / runs < 0.09


def test_a_few_deals_that_happen_to_agree_give_no_certainty():
    same = confidence_sequence([1.0] * 10)
    assert same.half_width > 0.2  # the variance is shrunk toward a rate's largest, not taken as 0


@pytest.mark.parametrize(
    ("text", "rule"),
    [("better", StopRule("better")), ("width=5", StopRule("width", 0.05)), (" width=2.5 ", StopRule("width", 0.025))],
)
def test_the_until_flag_reads_a_question(text, rule):
    assert StopRule.parse(text) == rule


@pytest.mark.parametrize("bad", ["worse", "width", "width=0", "width=60", "width=x", "better=1", ""])
def test_an_unknown_question_is_refused_in_one_line(bad):
    with pytest.raises(ValueError, match="'better' or 'width=POINTS'"):
        StopRule.parse(bad)


def test_each_rounds_luck_scale_is_fitted_on_the_rounds_before_it_alone():
    rng = np.random.default_rng(3)
    games = [
        (GameOutcome(0, deal, 0, (1, 0), (0,) if rng.random() < 0.5 else (1,), False, (x, -x)), 0)
        for deal, x in enumerate(rng.normal(0, 0.3, size=60))
    ]
    adjusted = predictable_adjusted(games, round_deals=20)
    first = [float(0 in g.winners) - g.luck[0] for g, _ in games[:20]]
    assert adjusted[:20] == pytest.approx(first)  # the first round: the whole luck
    later = [(replace(g, luck=(5.0, -5.0)), seat) for g, seat in games[40:]]
    assert predictable_adjusted(games[:40] + later, 20)[:40] == pytest.approx(adjusted[:40])  # never looks ahead


def test_a_tournament_stops_once_one_agent_is_clearly_better():
    rule = StopRule("better", round_deals=10)
    result = run_tournament(["heuristic", "random"], deals=300, jobs=1, progress=False, until=rule)
    report = result.sequential
    assert report is not None and report.answered and report.answer == "heuristic is better than random"
    assert result.deals == report.deals < 300 and len(result.games) == 2 * result.deals
    assert "heuristic is better than random after" in str(result)


def test_the_command_stops_at_the_width_asked_and_resumes_in_the_same_rounds(tmp_path, capsys):
    argv = ["heuristic", "random", "--games", "400", "--until", "width=12", "--round", "10", "--jobs", "1"]
    argv += ["--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "every rate known to ±12.0 points after" in first
    assert main([*argv, "--resume"]) == 0  # nothing left to play: the same answer from the journal
    assert capsys.readouterr().out.split("Sequential mode")[1] == first.split("Sequential mode")[1]
