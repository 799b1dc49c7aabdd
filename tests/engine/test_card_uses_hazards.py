"""Scenario tests for the Hazards: Lure, Super Lure, Cyclone, Lightning, Omen Beetle, Smahl Thief, Spear."""

from __future__ import annotations

import pytest

from tests.engine.test_card_uses import assert_plays_on, expected, texts_of
from tests.helpers import act, side, table, zones

# --- Lure ------------------------------------------------------------------------------------------


def test_lure_moves_one_free_gub_from_an_opponent():
    game = table(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 2, "elder": True}])
    start = zones(game)
    act(game, "Lure → seat 1")
    assert zones(game) == expected(
        start, discard={"Lure": 1}, hands=[{}, {}], sides=[side(free=2), side(free=1, elder=True)]
    )
    assert_plays_on(game, 0)


def test_lure_offered_only_at_opponents_with_a_free_plain_gub():
    # The Elder, Protected and trapped Gubs can't be lured; the own side is no target (R4).
    game = table(
        num_players=4,
        hands=[{"Lure": 1}, {}, {}, {}],
        sides=[
            {"free": 2},
            {"elder": True, "protected": {"Mushroom": 1}},
            {"spouted": 1, "rings": ["Single Ring"]},
            {"free": 1},
        ],
    )
    assert texts_of(game, "Lure") == ["Lure → seat 3"]


def test_lure_not_offered_when_no_opponent_has_a_free_gub():
    game = table(hands=[{"Lure": 1}, {}], sides=[{"free": 3}, {"elder": True, "protected": {"Velvet Moth": 1}}])
    assert texts_of(game, "Lure") == []


# --- Super Lure ------------------------------------------------------------------------------------


def test_super_lure_moves_free_and_protected_gubs_and_returns_barricades():
    # R8/R17: the Gubs arrive Free, the abandoned Barricades go to the victim's hand; trapped Gubs and
    # the Elder stay.
    game = table(
        hands=[{"Super Lure": 1}, {"Lure": 1}],
        sides=[
            {"free": 1},
            {
                "free": 2,
                "elder": True,
                "protected": {"Mushroom": 1, "Toad Rider": 1},
                "spouted": 1,
                "rings": ["Single Ring"],
            },
        ],
    )
    start = zones(game)
    act(game, "Super Lure → seat 1")
    assert zones(game) == expected(
        start,
        discard={"Super Lure": 1},
        hands=[{}, {"Mushroom": 1, "Toad Rider": 1, "Lure": 1}],
        sides=[side(free=5), side(elder=True, spouted=1, rings=["Single Ring"])],
    )
    assert_plays_on(game, 0)


def test_super_lure_offered_at_an_opponent_with_only_protected_gubs():
    game = table(
        num_players=3,
        hands=[{"Super Lure": 1}, {}, {}],
        sides=[{}, {"protected": {"Velvet Moth": 1}}, {"elder": True, "spouted": 1, "rings": ["Double Ring"]}],
    )
    assert texts_of(game, "Super Lure") == ["Super Lure → seat 1"]


# --- Cyclone ---------------------------------------------------------------------------------------


def test_cyclone_discards_an_opponents_barricades_and_frees_their_gubs():
    game = table(
        hands=[{"Cyclone": 1}, {}],
        sides=[
            {"protected": {"Toad Rider": 1}},
            {"free": 1, "elder": True, "protected": {"Mushroom": 2, "Velvet Moth": 1}, "spouted": 1},
        ],
    )
    start = zones(game)
    act(game, "Cyclone → seat 1")
    assert zones(game) == expected(
        start,
        discard={"Mushroom": 2, "Velvet Moth": 1, "Cyclone": 1},
        hands=[{}, {}],
        sides=[side(protected={"Toad Rider": 1}), side(free=4, elder=True, spouted=1)],
    )
    assert_plays_on(game, 0)


def test_cyclone_not_offered_at_players_without_barricades():
    # R4: the own Barricades are no target either.
    game = table(
        num_players=3,
        hands=[{"Cyclone": 1}, {}, {}],
        sides=[{"protected": {"Mushroom": 1}}, {"free": 3, "elder": True}, {"protected": {"Toad Rider": 1}}],
    )
    assert texts_of(game, "Cyclone") == ["Cyclone → seat 2"]


# --- Lightning -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_lightning_discards_the_elder_on_any_side(seat):
    # R18: the Elder use hits any side, the own included.
    sides = [{"free": 1}, {"free": 1}]
    sides[seat]["elder"] = True
    game = table(hands=[{"Lightning": 1}, {}], sides=sides)
    start = zones(game)
    act(game, "Lightning: strike the Esteemed Elder")
    assert zones(game) == expected(
        start, discard={"Esteemed Elder": 1, "Lightning": 1}, hands=[{}, {}], sides=[side(free=1), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_lightning_makes_an_opponent_discard_their_whole_hand():
    game = table(hands=[{"Lightning": 1, "Gub": 1}, {"Lure": 2, "Mushroom": 1}], sides=[{"free": 1}, {"free": 1}])
    start = zones(game)
    act(game, "Lightning → seat 1: strike a hand")
    assert zones(game) == expected(
        start,
        discard={"Lure": 2, "Mushroom": 1, "Lightning": 1},
        hands=[{"Gub": 1}, {}],
        sides=[side(free=1), side(free=1)],
    )
    assert_plays_on(game, 0)


def test_lightning_offers_only_opponents_with_cards_and_no_elder_strike_without_an_elder():
    game = table(
        num_players=3,
        hands=[{"Lightning": 1, "Gub": 1}, {}, {"Spear": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
    )
    assert texts_of(game, "Lightning") == ["Lightning → seat 2: strike a hand"]


# --- Omen Beetle -----------------------------------------------------------------------------------


def test_omen_beetle_discards_every_mushroom_with_its_gub_on_every_side():
    game = table(
        hands=[{"Omen Beetle": 1}, {}],
        sides=[
            {"free": 1, "protected": {"Mushroom": 1, "Toad Rider": 1}},
            {"free": 1, "elder": True, "protected": {"Mushroom": 2, "Velvet Moth": 1}},
        ],
    )
    start = zones(game)
    act(game, "Omen Beetle: devour every Mushroom")
    assert zones(game) == expected(
        start,
        discard={"Gub": 3, "Mushroom": 3, "Omen Beetle": 1},
        hands=[{}, {}],
        sides=[side(free=1, protected={"Toad Rider": 1}), side(free=1, elder=True, protected={"Velvet Moth": 1})],
    )
    assert_plays_on(game, 0)


def test_omen_beetle_not_offered_without_a_mushroom_in_play():
    game = table(
        hands=[{"Omen Beetle": 1, "Mushroom": 1}, {}],
        sides=[{"free": 1, "protected": {"Toad Rider": 1}}, {"protected": {"Velvet Moth": 1}}],
    )
    assert texts_of(game, "Omen Beetle") == []


# --- Smahl Thief -----------------------------------------------------------------------------------

VICTIM = {"free": 1, "elder": True, "protected": {"Toad Rider": 1}, "spouted": 1, "rings": ["Single Ring"]}


@pytest.mark.parametrize(
    "target, thief_hand, victim_hand, victim_side, discard",
    [
        (
            "a Free Gub",
            {"Gub": 1},
            {},
            side(elder=True, protected={"Toad Rider": 1}, spouted=1, rings=["Single Ring"]),
            {"Smahl Thief": 1},
        ),
        # R8/R9: the abandoned Barricade goes back to the victim's hand.
        (
            "a Gub under Toad Rider",
            {"Gub": 1},
            {"Toad Rider": 1},
            side(free=1, elder=True, spouted=1, rings=["Single Ring"]),
            {"Smahl Thief": 1},
        ),
        (
            "the Toad Rider alone",
            {"Toad Rider": 1},
            {},
            side(free=2, elder=True, spouted=1, rings=["Single Ring"]),
            {"Smahl Thief": 1},
        ),
        (
            "a Sud Spout alone",
            {"Sud Spout": 1},
            {},
            side(free=2, elder=True, protected={"Toad Rider": 1}, rings=["Single Ring"]),
            {"Smahl Thief": 1},
        ),
        (
            "a Gub under a Sud Spout",
            {"Gub": 1},
            {},
            side(free=1, elder=True, protected={"Toad Rider": 1}, rings=["Single Ring"]),
            {"Sud Spout": 1, "Smahl Thief": 1},
        ),
    ],
)
def test_smahl_thief_takes_each_kind_of_card_from_an_opponents_side(
    target, thief_hand, victim_hand, victim_side, discard
):
    # R9: the taken card goes to the thief's hand.
    game = table(hands=[{"Smahl Thief": 1}, {}], sides=[{"free": 1}, VICTIM])
    start = zones(game)
    act(game, f"Smahl Thief → seat 1: {target}")
    assert zones(game) == expected(
        start, discard=discard, hands=[thief_hand, victim_hand], sides=[side(free=1), victim_side]
    )
    assert_plays_on(game, 0)


def test_smahl_thief_never_targets_the_elder_rings_or_the_own_side():
    # R9/R12: the five parts of an opponent's side only.
    game = table(
        hands=[{"Smahl Thief": 1}, {}],
        sides=[
            {"free": 1, "protected": {"Mushroom": 1}, "spouted": 1, "rings": ["Double Ring"]},
            VICTIM,
        ],
    )
    assert texts_of(game, "Smahl Thief") == [
        "Smahl Thief → seat 1: a Free Gub",
        "Smahl Thief → seat 1: a Gub under Toad Rider",
        "Smahl Thief → seat 1: the Toad Rider alone",
        "Smahl Thief → seat 1: a Sud Spout alone",
        "Smahl Thief → seat 1: a Gub under a Sud Spout",
    ]


def test_smahl_thief_not_offered_when_opponents_have_only_the_elder_and_rings():
    game = table(hands=[{"Smahl Thief": 1}, {}], sides=[{"free": 2}, {"elder": True, "rings": ["Triple Ring"]}])
    assert texts_of(game, "Smahl Thief") == []


# --- Spear -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_spear_kills_a_free_gub_on_any_side(seat):
    # R10: any side, the own included.
    game = table(hands=[{"Spear": 1}, {}], sides=[{"free": 2}, {"free": 2}])
    start = zones(game)
    act(game, f"Spear → seat {seat}: kill a Free Gub")
    sides = [side(free=2), side(free=2)]
    sides[seat] = side(free=1)
    assert zones(game) == expected(start, discard={"Gub": 1, "Spear": 1}, hands=[{}, {}], sides=sides)
    assert_plays_on(game, 0)


def test_spear_never_kills_the_elder_a_protected_or_a_trapped_gub():
    # R10: only the Sud Spout use is left.
    game = table(
        hands=[{"Spear": 1}, {}],
        sides=[
            {"elder": True},
            {"protected": {"Mushroom": 1}, "spouted": 1, "rings": ["Single Ring"]},
        ],
    )
    assert texts_of(game, "Spear") == ["Spear → seat 1: break a Sud Spout"]


@pytest.mark.parametrize("seat", [0, 1])
def test_spear_breaks_a_sud_spout_and_its_gub_stays_free_where_it_stands(seat):
    # FAQ 6: the freed Gub stays on its side.
    sides = [{"free": 1}, {"free": 1}]
    sides[seat]["spouted"] = 1
    game = table(hands=[{"Spear": 1}, {}], sides=sides)
    start = zones(game)
    act(game, f"Spear → seat {seat}: break a Sud Spout")
    expected_sides = [side(free=1), side(free=1)]
    expected_sides[seat] = side(free=2)
    assert zones(game) == expected(start, discard={"Sud Spout": 1, "Spear": 1}, hands=[{}, {}], sides=expected_sides)
    assert_plays_on(game, 0)


def test_spear_breaking_a_sud_spout_opens_no_cancel_window():
    # R6: Spear freeing a Sud Spout is a Tool use, not cancellable.
    game = table(hands=[{"Spear": 1}, {"Feather": 1}], sides=[{"spouted": 1}, {}])
    start = zones(game)
    act(game, "Spear → seat 0: break a Sud Spout")
    assert zones(game) == expected(
        start, discard={"Sud Spout": 1, "Spear": 1}, hands=[{}, {"Feather": 1}], sides=[side(free=1), side()]
    )
    assert_plays_on(game, 0)
