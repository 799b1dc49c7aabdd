"""Scenario tests for the Tools and Age-Old Cure: Haki Flute, Retreat, Scout, Age-Old Cure retrieval."""

from __future__ import annotations

import pytest

from gubs_env.engine import Step
from tests.engine.test_card_uses import assert_plays_on, expected, texts_of
from tests.helpers import act, legal_texts, side, table, zones

# --- Haki Flute ------------------------------------------------------------------------------------


def test_haki_flute_shatters_a_ring_on_another_side_and_takes_its_gubs():
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{"free": 1}, {"free": 1, "rings": ["Double Ring"]}])
    start = zones(game)
    act(game, "Haki Flute → Double Ring")
    assert zones(game) == expected(
        start, discard={"Double Ring": 1, "Haki Flute": 1}, hands=[{}, {}], sides=[side(free=3), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_haki_flute_shatters_a_ring_on_own_side():
    # R12: any Ring on any side, the own included.
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{"rings": ["Triple Ring"]}, {"free": 1}])
    start = zones(game)
    act(game, "Haki Flute → Triple Ring")
    assert zones(game) == expected(
        start, discard={"Triple Ring": 1, "Haki Flute": 1}, hands=[{}, {}], sides=[side(free=3), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_haki_flute_offers_every_ring_in_play_and_nothing_without_one():
    game = table(
        num_players=3,
        hands=[{"Haki Flute": 1}, {}, {}],
        sides=[{"rings": ["Single Ring"]}, {}, {"rings": ["Double Ring", "Triple Ring"]}],
    )
    assert texts_of(game, "Haki Flute") == [
        "Haki Flute → Single Ring",
        "Haki Flute → Double Ring",
        "Haki Flute → Triple Ring",
    ]
    bare = table(hands=[{"Haki Flute": 1}, {}], sides=[{"free": 1, "spouted": 1}, {"free": 1}])
    assert texts_of(bare, "Haki Flute") == []


# --- Retreat ---------------------------------------------------------------------------------------

FULL_SIDE = {
    "free": 1,
    "elder": True,
    "protected": {"Mushroom": 1, "Velvet Moth": 1},
    "spouted": 1,
    "rings": ["Double Ring"],
}


def test_retreat_offers_every_own_part_but_the_elder_and_no_done_before_a_take():
    # R13: the Elder is never taken; at least one card must be taken.
    game = table(hands=[{"Retreat": 1}, {}], sides=[FULL_SIDE, {"free": 1, "protected": {"Toad Rider": 1}}])
    act(game, "Retreat: retreat")
    assert game.current_player == 0
    assert game.pending.step is Step.RETREAT
    assert sorted(legal_texts(game)) == sorted(
        [
            "Retreat: take a Free Gub",
            "Retreat: take a Gub under Mushroom",
            "Retreat: take the Mushroom alone",
            "Retreat: take a Gub under Velvet Moth",
            "Retreat: take the Velvet Moth alone",
            "Retreat: take a Sud Spout alone",
            "Retreat: take the Double Ring",
        ]
    )


@pytest.mark.parametrize(
    "part, hand, own_side",
    [
        (
            "a Free Gub",
            {"Gub": 1},
            side(elder=True, protected={"Mushroom": 1, "Velvet Moth": 1}, spouted=1, rings=["Double Ring"]),
        ),
        (
            "the Mushroom alone",
            {"Mushroom": 1},
            side(free=2, elder=True, protected={"Velvet Moth": 1}, spouted=1, rings=["Double Ring"]),
        ),
        (
            "a Gub under Velvet Moth",
            {"Gub": 1, "Velvet Moth": 1},
            side(free=1, elder=True, protected={"Mushroom": 1}, spouted=1, rings=["Double Ring"]),
        ),
        (
            "a Sud Spout alone",
            {"Sud Spout": 1},
            side(free=2, elder=True, protected={"Mushroom": 1, "Velvet Moth": 1}, rings=["Double Ring"]),
        ),
        # R13: the Ring goes to the hand, its Gubs stay Free.
        (
            "the Double Ring",
            {"Double Ring": 1},
            side(free=3, elder=True, protected={"Mushroom": 1, "Velvet Moth": 1}, spouted=1),
        ),
    ],
)
def test_retreat_takes_one_part_of_own_side_into_the_hand(part, hand, own_side):
    game = table(hands=[{"Retreat": 1}, {}], sides=[FULL_SIDE, {"free": 1}])
    start = zones(game)
    act(game, "Retreat: retreat", f"Retreat: take {part}")
    assert game.pending.step is Step.RETREAT
    assert "Retreat: done" in legal_texts(game)
    act(game, "Retreat: done")
    assert zones(game) == expected(start, discard={"Retreat": 1}, hands=[hand, {}], sides=[own_side, side(free=1)])
    assert_plays_on(game, 0)


def test_retreat_takes_several_cards_one_at_a_time_then_done():
    game = table(hands=[{"Retreat": 1}, {}], sides=[FULL_SIDE, {"free": 1}])
    start = zones(game)
    act(
        game,
        "Retreat: retreat",
        "Retreat: take the Double Ring",
        "Retreat: take a Free Gub",
        "Retreat: take a Free Gub",
        "Retreat: take a Gub under Mushroom",
    )
    assert legal_texts(game) == [
        "Retreat: take a Free Gub",
        "Retreat: take a Gub under Velvet Moth",
        "Retreat: take the Velvet Moth alone",
        "Retreat: take a Sud Spout alone",
        "Retreat: done",
    ]
    act(game, "Retreat: done")
    assert zones(game) == expected(
        start,
        discard={"Retreat": 1},
        hands=[{"Gub": 3, "Mushroom": 1, "Double Ring": 1}, {}],
        sides=[side(free=1, elder=True, protected={"Velvet Moth": 1}, spouted=1), side(free=1)],
    )
    assert_plays_on(game, 0)


def test_retreat_of_everything_but_the_elder_leaves_only_done():
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"free": 1, "elder": True}, {"free": 1}])
    start = zones(game)
    act(game, "Retreat: retreat", "Retreat: take a Free Gub")
    assert legal_texts(game) == ["Retreat: done"]
    act(game, "Retreat: done")
    assert zones(game) == expected(
        start, discard={"Retreat": 1}, hands=[{"Gub": 1}, {}], sides=[side(elder=True), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_retreat_does_not_discard_for_hand_size():
    # R14: the hand limit is checked only at the end of the turn.
    hand = {"Retreat": 1, "Lure": 3, "Spear": 2, "Scout": 1, "Feather": 1}
    game = table(hands=[hand, {}], sides=[{"free": 2, "protected": {"Toad Rider": 1}}, {"free": 1}])
    start = zones(game)
    act(
        game,
        "Retreat: retreat",
        "Retreat: take a Free Gub",
        "Retreat: take a Free Gub",
        "Retreat: take a Gub under Toad Rider",
        "Retreat: done",
    )
    big_hand = {"Gub": 3, "Toad Rider": 1, "Lure": 3, "Spear": 2, "Scout": 1, "Feather": 1}
    assert zones(game) == expected(start, discard={"Retreat": 1}, hands=[big_hand, {}], sides=[side(), side(free=1)])
    assert_plays_on(game, 0)
    act(game, "Go (end turn)")
    assert game.pending.step is Step.DISCARD


def test_retreat_not_offered_with_only_the_elder_on_own_side():
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"elder": True}, {"free": 1, "rings": ["Single Ring"]}])
    assert texts_of(game, "Retreat") == []


# --- Scout -----------------------------------------------------------------------------------------


def test_scout_on_a_hand_shows_it_only_to_the_scouter():
    game = table(
        num_players=3,
        hands=[{"Scout": 1}, {"Lure": 1, "Feather": 1}, {"Gub": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
    )
    start = zones(game)
    act(game, "Scout → seat 1: look at a hand")
    assert zones(game) == expected(
        start, discard={"Scout": 1}, hands=[{}, {"Lure": 1, "Feather": 1}, {"Gub": 1}], sides=[side(free=1)] * 3
    )
    assert game.to_dict()["seen"][0] == {"top": [], "hand": {"seat": 1, "cards": {"Lure": 1, "Feather": 1}}}
    secret = "you see seat 1's hand: Lure, Feather"
    assert secret in game.log[-1].view(0)
    for other in (1, 2, None):
        assert secret not in game.log[-1].view(other)
        assert "seat 0 looks at seat 1's hand" in game.log[-1].view(other)
    assert_plays_on(game, 0)


def test_scout_on_a_hand_offered_only_at_opponents_holding_cards():
    game = table(
        num_players=3, hands=[{"Scout": 1, "Gub": 1}, {}, {"Lure": 1}], sides=[{"free": 1}, {"free": 1}, {"free": 1}]
    )
    assert texts_of(game, "Scout") == ["Scout → seat 2: look at a hand", "Scout: look at the deck"]


def test_scout_on_the_deck_puts_the_top_three_back_in_the_chosen_order():
    # R22: the player chooses the new order of the top three, one card at a time.
    game = table(hands=[{"Scout": 1}, {}], sides=[{"free": 1}, {"free": 1}], deck_top=["Lure", "Gub", "Spear"])
    start = zones(game)
    act(game, "Scout: look at the deck")
    assert game.current_player == 0
    assert game.pending.step is Step.SCOUT
    assert legal_texts(game) == ["Scout: put Gub next", "Scout: put Lure next", "Scout: put Spear next"]
    act(game, "Scout: put Spear next")
    assert legal_texts(game) == ["Scout: put Gub next", "Scout: put Lure next"]
    act(game, "Scout: put Gub next")
    new_deck = ["Spear", "Gub", "Lure", *start["deck"][3:]]
    assert zones(game) == expected(
        start, deck=new_deck, discard={"Scout": 1}, hands=[{}, {}], sides=[side(free=1), side(free=1)]
    )
    assert game.to_dict()["seen"][0]["top"] == ["Spear", "Gub", "Lure"]
    assert game.to_dict()["seen"][1] == {"top": [], "hand": None}
    assert_plays_on(game, 0)


def test_scout_on_the_deck_offers_each_seen_kind_once():
    game = table(hands=[{"Scout": 1}, {}], sides=[{"free": 1}, {"free": 1}], deck_top=["Lure", "Spear", "Lure"])
    start = zones(game)
    act(game, "Scout: look at the deck")
    assert legal_texts(game) == ["Scout: put Lure next", "Scout: put Spear next"]
    act(game, "Scout: put Lure next", "Scout: put Lure next")
    assert zones(game)["deck"] == ["Lure", "Lure", "Spear", *start["deck"][3:]]
    assert game.to_dict()["seen"][0]["top"] == ["Lure", "Lure", "Spear"]
    assert_plays_on(game, 0)


# --- Age-Old Cure ----------------------------------------------------------------------------------


def test_age_old_cure_takes_a_gub_from_the_discard_pile():
    game = table(
        hands=[{"Age-Old Cure": 1}, {}],
        sides=[{"free": 1}, {"free": 1}],
        discard={"Gub": 2, "Esteemed Elder": 1, "Lure": 1},
    )
    start = zones(game)
    act(game, "Age-Old Cure: take a Gub from the discard pile")
    assert zones(game) == expected(
        start,
        discard={"Gub": 1, "Esteemed Elder": 1, "Lure": 1, "Age-Old Cure": 1},
        hands=[{"Gub": 1}, {}],
        sides=[side(free=1), side(free=1)],
    )
    assert_plays_on(game, 0)


def test_age_old_cure_not_offered_when_only_the_elder_is_discarded():
    # FAQ 5: never the Elder.
    game = table(
        hands=[{"Age-Old Cure": 1}, {}], sides=[{"free": 1}, {"free": 1}], discard={"Esteemed Elder": 1, "Mushroom": 1}
    )
    assert texts_of(game, "Age-Old Cure") == []
