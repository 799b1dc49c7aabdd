"""Scenario tests for the Traps: Single, Double and Triple Ring, and Sud Spout."""

from __future__ import annotations

import pytest

from gubs_env.engine import Step
from tests.engine.test_card_uses import assert_plays_on, expected, texts_of
from tests.helpers import act, legal_texts, side, table, zones

# --- Rings -----------------------------------------------------------------------------------------


def test_single_ring_asks_for_one_free_gub_then_traps_it():
    game = table(hands=[{"Single Ring": 1}, {}], sides=[{"free": 1}, {"free": 2}])
    start = zones(game)
    act(game, "Single Ring: trap Free Gubs")
    assert game.current_player == 0
    assert game.pending.step is Step.RING
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 0", "Ring: take a Free Gub from seat 1"]
    act(game, "Ring: take a Free Gub from seat 1")
    assert zones(game) == expected(
        start, discard={}, hands=[{}, {}], sides=[side(free=1, rings=["Single Ring"]), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_double_ring_picks_from_own_side_and_another_side():
    # R12: the player's own Free Gubs may be trapped too.
    game = table(hands=[{"Double Ring": 1}, {}], sides=[{"free": 2}, {"free": 2}])
    start = zones(game)
    act(game, "Double Ring: trap Free Gubs", "Ring: take a Free Gub from seat 0")
    assert game.pending.step is Step.RING
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 0", "Ring: take a Free Gub from seat 1"]
    act(game, "Ring: take a Free Gub from seat 1")
    assert zones(game) == expected(
        start, discard={}, hands=[{}, {}], sides=[side(free=1, rings=["Double Ring"]), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_double_ring_may_take_both_gubs_from_one_side():
    game = table(hands=[{"Double Ring": 1}, {}], sides=[{"free": 1}, {"free": 3}])
    start = zones(game)
    act(game, "Double Ring: trap Free Gubs", "Ring: take a Free Gub from seat 1", "Ring: take a Free Gub from seat 1")
    assert zones(game) == expected(
        start, discard={}, hands=[{}, {}], sides=[side(free=1, rings=["Double Ring"]), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_triple_ring_offers_a_seat_only_while_it_has_free_gubs_not_yet_picked():
    game = table(
        num_players=3,
        hands=[{"Triple Ring": 1}, {}, {}],
        sides=[{"free": 1, "elder": True}, {"free": 1, "protected": {"Mushroom": 1}}, {"free": 2}],
    )
    start = zones(game)
    act(game, "Triple Ring: trap Free Gubs")
    assert legal_texts(game) == [
        "Ring: take a Free Gub from seat 0",
        "Ring: take a Free Gub from seat 1",
        "Ring: take a Free Gub from seat 2",
    ]
    act(game, "Ring: take a Free Gub from seat 1")
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 0", "Ring: take a Free Gub from seat 2"]
    act(game, "Ring: take a Free Gub from seat 2")
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 0", "Ring: take a Free Gub from seat 2"]
    act(game, "Ring: take a Free Gub from seat 0")
    assert zones(game) == expected(
        start,
        discard={},
        hands=[{}, {}, {}],
        sides=[
            side(elder=True, rings=["Triple Ring"]),
            side(protected={"Mushroom": 1}),
            side(free=1),
        ],
    )
    assert_plays_on(game, 0)


@pytest.mark.parametrize("ring, free", [("Single Ring", 0), ("Double Ring", 1), ("Triple Ring", 2)])
def test_ring_not_offered_with_fewer_free_plain_gubs_than_its_number(ring, free):
    # R12: the Elder, Protected and trapped Gubs don't count.
    other_ring = ["Single Ring"] if ring != "Single Ring" else []
    game = table(
        hands=[{ring: 1}, {}],
        sides=[{"free": free, "elder": True, "spouted": 1}, {"protected": {"Mushroom": 1}, "rings": other_ring}],
    )
    assert texts_of(game, ring) == []


@pytest.mark.parametrize("ring, free", [("Single Ring", 1), ("Double Ring", 2), ("Triple Ring", 3)])
def test_ring_offered_with_exactly_its_number_of_free_gubs(ring, free):
    game = table(hands=[{ring: 1}, {}], sides=[{"elder": True}, {"free": free}])
    assert texts_of(game, ring) == [f"{ring}: trap Free Gubs"]


def test_ring_cancel_window_opens_after_all_picks():
    game = table(hands=[{"Double Ring": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    start = zones(game)
    act(game, "Double Ring: trap Free Gubs", "Ring: take a Free Gub from seat 0")
    assert game.current_player == 0
    act(game, "Ring: take a Free Gub from seat 1")
    assert game.current_player == 1
    assert legal_texts(game) == ["Pass", "Feather: cancel it"]
    act(game, "Feather: cancel it")
    assert zones(game) == expected(
        start, discard={"Double Ring": 1, "Feather": 1}, hands=[{}, {}], sides=[side(free=1), side(free=2)]
    )
    assert_plays_on(game, 0)


def test_ring_resolves_when_the_cancel_window_passes():
    game = table(hands=[{"Single Ring": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    start = zones(game)
    act(game, "Single Ring: trap Free Gubs", "Ring: take a Free Gub from seat 1", "Pass")
    assert zones(game) == expected(
        start, discard={}, hands=[{}, {"Feather": 1}], sides=[side(free=1, rings=["Single Ring"]), side()]
    )
    assert_plays_on(game, 0)


# --- Sud Spout -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_sud_spout_traps_a_free_gub_where_it_stands(seat):
    # R4: a Trap may take a Free Gub on any side, the own included.
    game = table(hands=[{"Sud Spout": 1}, {}], sides=[{"free": 2}, {"free": 2}])
    start = zones(game)
    act(game, f"Sud Spout → seat {seat}")
    sides = [side(free=2), side(free=2)]
    sides[seat] = side(free=1, spouted=1)
    assert zones(game) == expected(start, discard={}, hands=[{}, {}], sides=sides)
    assert_plays_on(game, 0)


def test_sud_spout_offered_only_at_sides_with_a_free_plain_gub():
    game = table(
        num_players=3,
        hands=[{"Sud Spout": 1}, {}, {}],
        sides=[{"elder": True}, {"protected": {"Mushroom": 1}, "spouted": 1}, {"free": 1}],
    )
    assert texts_of(game, "Sud Spout") == ["Sud Spout → seat 2"]
