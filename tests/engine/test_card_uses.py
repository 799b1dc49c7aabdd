"""Scenario tests for every card use: Gubs, the Esteemed Elder and the Barricades.

Each test sets a table by hand, plays by readable action text and checks the exact zones afterwards.
The other card kinds are in the sibling files ``test_card_uses_*.py``, which share the helpers here.
"""

from __future__ import annotations

from typing import Any

import pytest

from gubs_env.engine import Game, Step
from tests.helpers import act, legal_texts, side, table, zones


def expected(
    start: dict[str, Any],
    *,
    discard: dict[str, int],
    hands: list[dict[str, int]],
    sides: list[dict[str, Any]],
    deck: list[str] | None = None,
) -> dict[str, Any]:
    """The zones a test expects: the deck and Letters as at ``start`` unless ``deck`` is given."""
    return {
        "deck": start["deck"] if deck is None else deck,
        "discard": discard,
        "letters": start["letters"],
        "hands": hands,
        "sides": sides,
    }


def assert_plays_on(game: Game, seat: int = 0) -> None:
    """``seat`` is back in its play phase with nothing left pending."""
    assert game.current_player == seat
    assert game.pending.step is Step.PLAY
    assert game.pending.play is None


def texts_of(game: Game, card: str) -> list[str]:
    """Legal actions that play ``card`` (as itself)."""
    return [t for t in legal_texts(game) if t.startswith(card + ":") or t.startswith(card + " →")]


# --- P1: a card is offered only when it can have an effect ---------------------------------------


@pytest.mark.parametrize(
    "card, sides, discard",
    [
        ("Sud Spout", [{"elder": True}, {"protected": {"Mushroom": 1}, "spouted": 1}], {}),
        ("Lure", [{"free": 2}, {"elder": True, "protected": {"Mushroom": 1}}], {}),
        ("Super Lure", [{"free": 2}, {"elder": True, "spouted": 1, "rings": ["Single Ring"]}], {}),
        ("Cyclone", [{"protected": {"Mushroom": 1}}, {"free": 2}], {}),
        ("Lightning", [{"free": 1}, {"free": 1}], {"Esteemed Elder": 1}),
        ("Omen Beetle", [{"protected": {"Toad Rider": 1}}, {"protected": {"Velvet Moth": 1}}], {}),
        ("Smahl Thief", [{"free": 2}, {"elder": True, "rings": ["Single Ring"]}], {}),
        ("Spear", [{"protected": {"Mushroom": 1}}, {"elder": True, "rings": ["Single Ring"]}], {}),
        ("Haki Flute", [{"free": 1}, {"spouted": 1}], {}),
        ("Retreat", [{"elder": True}, {"free": 1}], {}),
        ("Age-Old Cure", [{"free": 1}, {"free": 1}], {"Esteemed Elder": 1}),
    ],
)
def test_card_not_offered_when_it_can_have_no_effect(card, sides, discard):
    game = table(hands=[{card: 1}, {}], sides=sides, discard=discard)
    assert legal_texts(game) == ["Go (end turn)"]


# --- Gub and Esteemed Elder ----------------------------------------------------------------------


def test_gub_enters_play_free_on_own_side():
    game = table(hands=[{"Gub": 1, "Lure": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    start = zones(game)
    act(game, "Gub: put into play")
    assert zones(game) == expected(start, discard={}, hands=[{"Lure": 1}, {}], sides=[side(free=2), side(free=1)])
    assert_plays_on(game, 0)


def test_esteemed_elder_enters_play_on_own_side():
    game = table(hands=[{"Esteemed Elder": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    start = zones(game)
    act(game, "Esteemed Elder: put into play")
    assert zones(game) == expected(start, discard={}, hands=[{}, {}], sides=[side(free=1, elder=True), side(free=1)])
    assert_plays_on(game, 0)


@pytest.mark.parametrize("barricade", ["Mushroom", "Toad Rider", "Velvet Moth"])
def test_barricade_not_offered_when_only_the_elder_is_on_own_side(barricade):
    # R7: the Elder is always Free and can't be protected.
    game = table(hands=[{barricade: 1}, {}], sides=[{"elder": True}, {"free": 1}])
    assert legal_texts(game) == ["Go (end turn)"]


def test_elder_entering_play_does_not_make_a_barricade_playable():
    game = table(hands=[{"Esteemed Elder": 1, "Velvet Moth": 1}, {}], sides=[{}, {"free": 1}])
    assert legal_texts(game) == ["Esteemed Elder: put into play", "Go (end turn)"]
    act(game, "Esteemed Elder: put into play")
    assert legal_texts(game) == ["Go (end turn)"]


# --- Barricades: protect ---------------------------------------------------------------------------


@pytest.mark.parametrize("barricade", ["Mushroom", "Toad Rider", "Velvet Moth"])
def test_barricade_protects_a_free_gub_on_own_side(barricade):
    game = table(hands=[{barricade: 1}, {}], sides=[{"free": 2, "elder": True}, {"free": 1}])
    start = zones(game)
    act(game, f"{barricade}: protect a Free Gub")
    assert zones(game) == expected(
        start, discard={}, hands=[{}, {}], sides=[side(free=1, elder=True, protected={barricade: 1}), side(free=1)]
    )
    assert_plays_on(game, 0)


@pytest.mark.parametrize("barricade", ["Mushroom", "Toad Rider", "Velvet Moth"])
def test_barricade_needs_a_free_plain_gub_on_own_side(barricade):
    # R7: one Barricade per Gub, own Gubs only; an opponent's Free Gub does not help.
    game = table(
        hands=[{barricade: 1}, {}], sides=[{"elder": True, "protected": {"Velvet Moth": 1}, "spouted": 1}, {"free": 3}]
    )
    assert f"{barricade}: protect a Free Gub" not in legal_texts(game)


# --- Barricades: remove ----------------------------------------------------------------------------


def test_mushroom_removes_a_mushroom_on_another_side():
    game = table(
        hands=[{"Mushroom": 1}, {}], sides=[{"free": 1}, {"free": 1, "protected": {"Mushroom": 1, "Velvet Moth": 1}}]
    )
    start = zones(game)
    act(game, "Mushroom: remove Mushroom at seat 1")
    assert zones(game) == expected(
        start, discard={"Mushroom": 2}, hands=[{}, {}], sides=[side(free=1), side(free=2, protected={"Velvet Moth": 1})]
    )
    assert_plays_on(game, 0)


def test_mushroom_removes_a_mushroom_on_own_side():
    # R7: removal may target any side, the own included.
    game = table(hands=[{"Mushroom": 1}, {}], sides=[{"protected": {"Mushroom": 1}}, {"free": 1}])
    start = zones(game)
    act(game, "Mushroom: remove Mushroom at seat 0")
    assert zones(game) == expected(start, discard={"Mushroom": 2}, hands=[{}, {}], sides=[side(free=1), side(free=1)])
    assert_plays_on(game, 0)


def test_mushroom_removes_only_mushrooms():
    game = table(
        hands=[{"Mushroom": 1}, {}], sides=[{}, {"protected": {"Mushroom": 1, "Toad Rider": 1, "Velvet Moth": 1}}]
    )
    assert texts_of(game, "Mushroom") == ["Mushroom: remove Mushroom at seat 1"]


@pytest.mark.parametrize("barricade", ["Mushroom", "Toad Rider", "Velvet Moth"])
def test_toad_rider_removes_any_barricade_kind(barricade):
    game = table(hands=[{"Toad Rider": 1}, {}], sides=[{"free": 1}, {"free": 1, "protected": {barricade: 1}}])
    start = zones(game)
    act(game, f"Toad Rider: remove {barricade} at seat 1")
    discard = {"Toad Rider": 2} if barricade == "Toad Rider" else {barricade: 1, "Toad Rider": 1}
    assert zones(game) == expected(start, discard=discard, hands=[{}, {}], sides=[side(free=1), side(free=2)])
    assert_plays_on(game, 0)


def test_toad_rider_removes_a_barricade_on_own_side():
    game = table(hands=[{"Toad Rider": 1}, {}], sides=[{"protected": {"Velvet Moth": 1}}, {"free": 1}])
    start = zones(game)
    act(game, "Toad Rider: remove Velvet Moth at seat 0")
    assert zones(game) == expected(
        start, discard={"Velvet Moth": 1, "Toad Rider": 1}, hands=[{}, {}], sides=[side(free=1), side(free=1)]
    )
    assert_plays_on(game, 0)


def test_toad_rider_offers_every_barricade_in_play_on_every_side():
    game = table(
        num_players=3,
        hands=[{"Toad Rider": 1}, {}, {}],
        sides=[{"protected": {"Mushroom": 1}}, {"protected": {"Toad Rider": 1, "Velvet Moth": 1}}, {"free": 1}],
    )
    assert texts_of(game, "Toad Rider") == [
        "Toad Rider: remove Mushroom at seat 0",
        "Toad Rider: remove Toad Rider at seat 1",
        "Toad Rider: remove Velvet Moth at seat 1",
    ]


def test_velvet_moth_only_protects_and_never_removes():
    game = table(
        hands=[{"Velvet Moth": 1}, {}], sides=[{"free": 1}, {"free": 1, "protected": {"Mushroom": 1, "Velvet Moth": 1}}]
    )
    assert legal_texts(game) == ["Velvet Moth: protect a Free Gub", "Go (end turn)"]


def test_barricade_removal_opens_no_cancel_window():
    # R6: Feather does not cancel a Barricade removal.
    game = table(hands=[{"Toad Rider": 1}, {"Feather": 1}], sides=[{}, {"protected": {"Mushroom": 1}}])
    start = zones(game)
    act(game, "Toad Rider: remove Mushroom at seat 1")
    assert zones(game) == expected(
        start, discard={"Mushroom": 1, "Toad Rider": 1}, hands=[{}, {"Feather": 1}], sides=[side(), side(free=1)]
    )
    assert_plays_on(game, 0)
