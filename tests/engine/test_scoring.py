"""End of the game and scoring (docs/rules.md §6, R3) and the end-of-turn hand limit (§3, R14)."""

import pytest

from gubs_env.engine import Step
from tests.helpers import act, legal_texts, table, zones


def finished(num_players=2, hands=None, sides=None):
    """Two Letters out, the third on top of the deck: seat 0 draws it and the game ends."""
    game = table(
        num_players=num_players,
        hands=hands,
        sides=sides,
        letters=["Letter G", "Letter U"],
        deck_top=["Letter B"],
        step="draw",
    )
    act(game, "Draw")
    assert game.is_over and not game.truncated
    return game


# --- score ---------------------------------------------------------------------------------------


def test_score_counts_free_protected_and_elder():
    game = finished(sides=[{"free": 2, "elder": True, "protected": {"Mushroom": 1, "Toad Rider": 1}}, {}])
    assert game.scores() == [5, 0]


def test_score_ignores_trapped_gubs():
    game = finished(sides=[{"free": 1, "spouted": 2, "rings": ["Triple Ring", "Single Ring"]}, {"free": 2}])
    assert game.scores() == [1, 2]
    assert game.winners() == [1]


def test_score_ignores_cards_in_hand():
    game = finished(hands=[{"Gub": 5, "Esteemed Elder": 1}, {}], sides=[{"free": 1}, {"free": 2}])
    assert game.scores() == [1, 2]
    assert game.winners() == [1]


def test_elder_alone_scores_one():
    game = finished(sides=[{"elder": True}, {}])
    assert game.scores() == [1, 0]
    assert game.winners() == [0]


# --- winners -------------------------------------------------------------------------------------


def test_highest_score_wins():
    game = finished(num_players=3, sides=[{"free": 1}, {"free": 4}, {"free": 2, "protected": {"Velvet Moth": 1}}])
    assert game.scores() == [1, 4, 3]
    assert game.winners() == [1]


def test_elder_does_not_matter_without_a_tie():
    game = finished(sides=[{"free": 1, "elder": True}, {"free": 3}])
    assert game.winners() == [1]


def test_tie_broken_by_the_elder_in_play():
    game = finished(hands=[{"Lure": 3}, {}], sides=[{"free": 1, "elder": True}, {"free": 2}])
    assert game.scores() == [2, 2]
    assert game.winners() == [0]  # the Elder beats the smaller hand


def test_tie_without_elder_broken_by_fewest_cards_in_hand():
    game = finished(
        num_players=3,
        hands=[{"Lure": 2}, {"Spear": 1}, {}],
        sides=[{"free": 2}, {"free": 1, "protected": {"Mushroom": 1}}, {"free": 1}],
    )
    assert game.scores() == [2, 2, 1]
    assert game.winners() == [1]  # seat 2 has the fewest cards but is not tied


def test_elder_held_by_a_non_tied_player_does_not_break_the_tie():
    game = finished(num_players=3, hands=[{"Lure": 2}, {}, {}], sides=[{"free": 3}, {"free": 3}, {"elder": True}])
    assert game.winners() == [1]


def test_unbroken_tie_is_a_shared_win():
    # R3
    game = finished(
        num_players=3,
        hands=[{"Lure": 1}, {"Spear": 1}, {}],
        sides=[{"free": 2}, {"free": 1, "protected": {"Mushroom": 1}}, {"free": 1}],
    )
    assert game.winners() == [0, 1]


def test_everyone_at_zero_with_empty_hands_share_the_win():
    game = finished(num_players=3)
    assert game.scores() == [0, 0, 0]
    assert game.winners() == [0, 1, 2]


def test_no_winners_before_the_end():
    game = table(sides=[{"free": 3}, {}])
    assert not game.is_over
    assert game.winners() == []


# --- hand limit at the end of the turn (R14) -----------------------------------------------------


@pytest.mark.parametrize("size", [0, 7, 8])
def test_no_discard_with_eight_cards_or_fewer(size):
    game = table(hands=[{"Feather": 2, "Gub": size - 2} if size >= 2 else {}, {}])
    act(game, "Go (end turn)")
    assert game.current_player == 1
    assert game.pending.step is Step.DRAW
    assert zones(game)["discard"] == {}


def test_over_the_limit_asks_discards_until_eight_remain():
    game = table(hands=[{"Feather": 2, "Lure": 3, "Mushroom": 5}, {}])
    act(game, "Go (end turn)")
    assert game.current_player == 0
    assert game.pending.step is Step.DISCARD
    assert legal_texts(game) == ["Discard Mushroom", "Discard Lure", "Discard Feather"]
    act(game, "Discard Mushroom")
    assert game.pending.step is Step.DISCARD and game.current_player == 0
    act(game, "Discard Lure")
    assert game.current_player == 1 and game.pending.step is Step.DRAW
    z = zones(game)
    assert z["hands"][0] == {"Feather": 2, "Lure": 2, "Mushroom": 4}
    assert z["discard"] == {"Mushroom": 1, "Lure": 1}


def test_nine_cards_one_discard():
    game = table(hands=[{"Gub": 9}, {}])
    act(game, "Go (end turn)")
    assert legal_texts(game) == ["Discard Gub"]
    act(game, "Discard Gub")
    assert game.current_player == 1
    assert sum(zones(game)["hands"][0].values()) == 8


def test_hand_limit_not_checked_during_the_play_step():
    game = table(hands=[{"Gub": 9, "Lure": 1}, {}], sides=[{}, {"free": 1}])
    act(game, "Lure → seat 1")
    assert game.pending.step is Step.PLAY  # still 9 cards, no discard before "Go"
    assert sum(zones(game)["hands"][0].values()) == 9
