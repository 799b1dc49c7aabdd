"""The search-gap measurement: paired gains on the same seed, the report's figures, the command's errors."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.search.agent import AllSeeingSearchAgent, HandsSeeingSearchAgent, SearchAgent, SearchSettings
from agents.evaluate.search_gap import GapPair, _gaps, action_kind, collect_gaps, main, report
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Game
from gubs_env.engine.cards import LETTERS

SETTINGS = SearchSettings(worlds=6, top=3)
LETTER_KINDS = {int(k) for k in LETTERS}


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


def _searchers() -> tuple[SearchAgent, ...]:
    return (
        SearchAgent(settings=SETTINGS),
        HandsSeeingSearchAgent(settings=SETTINGS),
        AllSeeingSearchAgent(settings=SETTINGS),
    )


def test_the_same_worlds_on_every_side_give_identical_gains():
    game, seat, candidates = _decision_with_choices()
    true = AllSeeingSearchAgent(settings=SETTINGS)
    pairs = _gaps(game, seat, candidates, (true, true, true), seed=11)
    assert [p.alternative for p in pairs] == [int(c) for c in candidates[1:]]
    assert all(p.sampled_gain == p.fair_gain == p.true_gain for p in pairs)


def test_sampled_fair_and_one_deck_gains_differ_where_the_seat_lacks_information():
    game, seat, candidates = _decision_with_choices()
    pairs = _gaps(game, seat, candidates, _searchers(), 11)
    assert any(p.sampled_gain != p.fair_gain for p in pairs) and any(p.fair_gain != p.true_gain for p in pairs)
    assert all(p.fair_error >= 0 for p in pairs)


def _decision_with_a_known_deck() -> tuple[Game, int, np.ndarray]:
    """A late decision with choices where the seat to act knows every card left in the deck (three, from a Scout).

    Built from a real game: the deck's lower cards (no Letter among them) go to the discard pile, and the seat's
    Scout knowledge covers the three that stay.
    """
    codec = ActionCodec(2)
    searcher = SearchAgent(settings=SETTINGS)
    for seed in range(200):
        game = Game(2, seed=seed, record_log=False)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            deck = game.state.deck
            lower = deck[:-3]
            if len(deck) <= 8 and not any(kind in LETTER_KINDS for kind in lower):
                candidates = searcher.candidates(game, seat, codec)
                if candidates.size > 2:
                    for kind in lower:
                        game.state.discard[kind] += 1
                    del deck[:-3]
                    game.state.seen_top[seat] = deck[::-1]
                    return game, seat, candidates
            game.apply(game.legal_actions()[0])
    raise AssertionError("no such decision in 200 games")


def test_the_fair_gain_is_the_exact_expectation_when_the_deck_is_known():
    # every deck order the seat could be dealt is the true one, so the expected gain over them is the gain on the
    # true position, exactly (same futures, same playouts); on a deck with unknown cards the two differ
    game, seat, candidates = _decision_with_a_known_deck()
    _, hands_seeing, all_seeing = _searchers()
    pairs = _gaps(game, seat, candidates, (all_seeing, hands_seeing, all_seeing), seed=11)
    assert pairs and all(p.fair_gain == p.true_gain for p in pairs)
    game, seat, candidates = _decision_with_choices()
    pairs = _gaps(game, seat, candidates, (all_seeing, hands_seeing, all_seeing), seed=11)
    assert any(p.fair_gain != p.true_gain for p in pairs)


def test_the_gains_depend_only_on_the_seed():
    first = collect_gaps(2, games=1, settings=SETTINGS, share=0.3, seed=5, progress=False, redeals=8)
    again = collect_gaps(2, games=1, settings=SETTINGS, share=0.3, seed=5, progress=False, redeals=8)
    assert first and first == again


def test_the_yardsticks_play_to_the_end_whatever_the_searchers_leaves():
    plain = collect_gaps(2, games=1, settings=SETTINGS, share=0.3, seed=5, progress=False, redeals=8)
    cut = SearchSettings(worlds=6, top=3, leaf=3)
    with_leaves = collect_gaps(2, games=1, settings=cut, share=0.3, seed=5, progress=False, redeals=8)
    assert [(p.fair_gain, p.true_gain) for p in plain] == [(p.fair_gain, p.true_gain) for p in with_leaves]
    assert [p.sampled_gain for p in plain] != [p.sampled_gain for p in with_leaves]


def test_the_report_gives_the_bias_and_the_favoured_candidates_true_gain():
    draw, decline, go = 0, 1, 2
    pairs = [
        GapPair(draw, decline, 0.2, -0.1, 0.01, 0.5, 0.3),
        GapPair(draw, decline, 0.0, -0.3, 0.01, -1.0, 0.4),
        GapPair(go, draw, -0.1, -0.1, 0.01, 0.0, 0.0),
    ]
    text = report(pairs)
    assert "candidates compared with the base's choice: 3" in text
    assert "bias (sampled minus fair, 95%): +0.200" in text
    assert "candidates the sampled worlds favour (gain > 0): 1, their fair gain -0.100" in text
    assert "| Draw | Decline to draw | 2 | +0.100 | -0.200 |" in text
    assert "in one sampled world (root mean square): 0.2887" in text
    assert "mean standard error 0.0100" in text and "one deck order, for contrast" in text
    assert report([]).startswith("no decision was measured")


def test_an_action_kind_leaves_out_the_target():
    codec_ids = [i for i in range(200) if action_kind(i).startswith("Sud Spout → another seat")]
    assert len(codec_ids) >= 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--share", "0"], "--share must be in (0, 1]"),
        (["--redeals", "1"], "--redeals must be at least 2"),
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
    assert "correlation of sampled and fair gains" in out and "| base's choice |" in out
