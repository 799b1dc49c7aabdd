"""The deals a figure is reported on are never the deals a candidate was chosen on.

Every tool that chooses among candidates (snapshots, tail-average spans, the heuristic's weights, the training loop's
curve and gate) plays deals from a first seed of its own; the commands that report figures (the tournaments and the
training run's final figure) play from theirs. Each range below is a million deals wide, more than any match plays.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from agents.evaluate import select
from agents.evaluate.command import build_parser as evaluate_parser
from agents.recipes.tune_heuristic import tuning
from agents.training.core.evaluation import CURVE, FINAL, GATE
from benchmarks import tail_average

WIDTH = 1_000_000

CHOOSING = {
    "select": select.VALIDATION_SEED,
    "tail average": tail_average.build_parser().get_default("seed"),
    "heuristic tuning": tuning.VALIDATION_SEED,
    "training curve": CURVE.first,
    "promotion gate": GATE.first,
}
REPORTING = {
    "tournament": evaluate_parser().get_default("seed"),
    "final figure": FINAL.first,
}


@pytest.mark.parametrize("chooser", sorted(CHOOSING))
@pytest.mark.parametrize("reporter", sorted(REPORTING))
def test_a_choosing_tool_and_a_reporting_tool_play_different_deals(chooser, reporter):
    choice, report = CHOOSING[chooser], REPORTING[reporter]
    assert abs(choice - report) >= WIDTH, f"{chooser} chooses on the deals {reporter} reports on"


def test_the_choosing_tools_do_not_share_deals():
    firsts = sorted(CHOOSING.values())
    assert all(b - a >= WIDTH for a, b in pairwise(firsts))
