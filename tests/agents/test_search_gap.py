"""The search-gap measurement: paired gains on the same seed, the report's figures, the command's errors."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.search.agent import AllSeeingSearchAgent, SearchAgent, SearchSettings
from agents.evaluate.search_gap import GapPair, _gaps, action_kind, collect_gaps, main, report
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Game

SETTINGS = SearchSettings(worlds=6, top=3)


def _decision_with_choices(seed: int = 3) -> tuple[Game, int, np.ndarray]:
    game = Game(2, seed=seed, record_log=False)
    codec = ActionCodec(2)
    searcher = SearchAgent(settings=SETTINGS)
    while True:
        seat = game.current_player
        assert seat is not None
        candidates = searcher.candidates(game, seat, codec)
        if candidates.size > 2:
            return game, seat, candidates
        game.apply(game.legal_actions()[0])


def test_the_same_worlds_on_both_sides_give_identical_gains():
    game, seat, candidates = _decision_with_choices()
    true = AllSeeingSearchAgent(settings=SETTINGS)
    pairs = _gaps(game, seat, candidates, true, true, seed=11)
    assert [p.alternative for p in pairs] == [int(c) for c in candidates[1:]]
    assert all(p.sampled_gain == p.true_gain for p in pairs)


def test_sampled_and_true_gains_differ_where_the_seat_lacks_information():
    game, seat, candidates = _decision_with_choices()
    pairs = _gaps(game, seat, candidates, SearchAgent(settings=SETTINGS), AllSeeingSearchAgent(settings=SETTINGS), 11)
    assert any(p.sampled_gain != p.true_gain for p in pairs)


def test_the_gains_depend_only_on_the_seed():
    first = collect_gaps(2, games=1, settings=SETTINGS, share=0.3, seed=5, progress=False)
    again = collect_gaps(2, games=1, settings=SETTINGS, share=0.3, seed=5, progress=False)
    assert first and first == again


def test_the_report_gives_the_bias_and_the_favoured_candidates_true_gain():
    draw, decline, go = 0, 1, 2
    pairs = [GapPair(draw, decline, 0.2, -0.1), GapPair(draw, decline, 0.0, -0.3), GapPair(go, draw, -0.1, -0.1)]
    text = report(pairs)
    assert "candidates compared with the heuristic's choice: 3" in text
    assert "bias (sampled minus true, 95%): +0.200" in text
    assert "candidates the sampled worlds favour (gain > 0): 1, their true gain -0.100" in text
    assert "| Draw | Decline to draw | 2 | +0.100 | -0.200 |" in text
    assert report([]).startswith("no decision was measured")


def test_an_action_kind_leaves_out_the_target():
    codec_ids = [i for i in range(200) if action_kind(i).startswith("Sud Spout → another seat")]
    assert len(codec_ids) >= 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--share", "0"], "--share must be in (0, 1]"),
        (["--search", "worlds=0"], "search setting worlds"),
        (["--search", "depth=3"], "unknown search setting"),
        (["--players", "9"], "--players"),
    ],
)
def test_bad_command_lines_stop_with_status_2_and_one_line(argv, words, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_the_command_prints_the_summary(capsys):
    assert main(["--games", "1", "--search", "worlds=4,top=2", "--share", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "correlation of sampled and true gains" in out and "| heuristic's choice |" in out
