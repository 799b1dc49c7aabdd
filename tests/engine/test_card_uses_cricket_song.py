"""Scenario tests for Cricket Song played as each Hazard, Tool and Interrupt usable in the play phase.

Each case is played twice from the same table: once with the real card, once with Cricket Song as that
card. Both must end with the same table, except that Cricket Song (not the imitated card) is discarded.
The real-card outcomes themselves are checked zone by zone in the sibling ``test_card_uses*`` files.
"""

from __future__ import annotations

from typing import Any

import pytest

from gubs_env.engine import CARDS, CardType
from tests.engine.test_card_uses import assert_plays_on
from tests.engine.test_card_uses_tools import FULL_SIDE
from tests.helpers import legal_texts, table, zones

WILD = "Cricket Song"
VICTIM = {"free": 1, "elder": True, "protected": {"Toad Rider": 1}, "spouted": 1, "rings": ["Single Ring"]}


def case(
    card: str,
    texts: list[str],
    *,
    sides: list[dict[str, Any]],
    others: dict[str, int] | None = None,
    discard: dict[str, int] | None = None,
    deck_top: list[str] = (),
    case_id: str,
) -> Any:
    """One scenario: ``texts`` play ``card`` (first) and answer its follow-up decisions."""
    setup = {"sides": sides, "hands": [{}, others or {}], "discard": discard or {}, "deck_top": list(deck_top)}
    return pytest.param(card, texts, setup, id=case_id)


CASES = [
    case("Lure", ["Lure → seat 1"], sides=[{"free": 1}, {"free": 2}], case_id="lure"),
    case("Super Lure", ["Super Lure → seat 1"], others={"Gub": 1}, sides=[{}, VICTIM], case_id="super-lure"),
    case(
        "Cyclone",
        ["Cyclone → seat 1"],
        sides=[{"protected": {"Mushroom": 1}}, {"free": 1, "protected": {"Toad Rider": 1, "Velvet Moth": 1}}],
        case_id="cyclone",
    ),
    case(
        "Lightning",
        ["Lightning: strike the Esteemed Elder"],
        sides=[{"elder": True}, {"free": 1}],
        case_id="lightning-elder-own-side",
    ),
    case(
        "Lightning",
        ["Lightning: strike the Esteemed Elder"],
        sides=[{"free": 1}, {"elder": True}],
        case_id="lightning-elder-other-side",
    ),
    case(
        "Lightning",
        ["Lightning → seat 1: strike a hand"],
        others={"Lure": 2, "Spear": 1},
        sides=[{"free": 1}, {"free": 1}],
        case_id="lightning-hand",
    ),
    case(
        "Omen Beetle",
        ["Omen Beetle: devour every Mushroom"],
        sides=[{"protected": {"Mushroom": 1}}, {"free": 1, "protected": {"Mushroom": 1, "Toad Rider": 1}}],
        case_id="omen-beetle",
    ),
    *[
        case("Smahl Thief", [f"Smahl Thief → seat 1: {part}"], sides=[{"free": 1}, VICTIM], case_id=f"smahl-thief-{n}")
        for n, part in enumerate(
            [
                "a Free Gub",
                "a Gub under Toad Rider",
                "the Toad Rider alone",
                "a Sud Spout alone",
                "a Gub under a Sud Spout",
            ]
        )
    ],
    case("Spear", ["Spear → seat 0: kill a Free Gub"], sides=[{"free": 2}, {"free": 1}], case_id="spear-kill-own"),
    case("Spear", ["Spear → seat 1: kill a Free Gub"], sides=[{"free": 1}, {"free": 2}], case_id="spear-kill-other"),
    case(
        "Spear", ["Spear → seat 1: break a Sud Spout"], sides=[{"free": 1}, {"spouted": 1}], case_id="spear-break-spout"
    ),
    case(
        "Haki Flute",
        ["Haki Flute → Double Ring"],
        sides=[{"free": 1}, {"rings": ["Double Ring"]}],
        case_id="haki-flute",
    ),
    case(
        "Retreat",
        [
            "Retreat: retreat",
            "Retreat: take the Double Ring",
            "Retreat: take a Gub under Mushroom",
            "Retreat: take a Sud Spout alone",
            "Retreat: done",
        ],
        sides=[FULL_SIDE, {"free": 1}],
        case_id="retreat",
    ),
    case(
        "Scout",
        ["Scout → seat 1: look at a hand"],
        others={"Lure": 1, "Gub": 1},
        sides=[{"free": 1}, {"free": 1}],
        case_id="scout-hand",
    ),
    case(
        "Scout",
        ["Scout: look at the deck", "Scout: put Spear next", "Scout: put Gub next"],
        deck_top=["Lure", "Gub", "Spear"],
        sides=[{"free": 1}, {"free": 1}],
        case_id="scout-deck",
    ),
    case(
        "Age-Old Cure",
        ["Age-Old Cure: take a Gub from the discard pile"],
        discard={"Gub": 1, "Esteemed Elder": 1},
        sides=[{"free": 1}, {"free": 1}],
        case_id="age-old-cure-retrieve",
    ),
]


def _played(held: str, card: str, setup: dict[str, Any], texts: list[str]):
    """Play ``texts`` holding ``held``: the ``card`` itself, or Cricket Song played as it."""
    hands = [{held: 1}, dict(setup["hands"][1])]
    game = table(hands=hands, sides=setup["sides"], discard=setup["discard"], deck_top=setup["deck_top"])
    first = texts[0] if held == card else texts[0].replace(card, f"{WILD} as {card}", 1)
    assert first in legal_texts(game)
    for text in [first, *texts[1:]]:
        game.apply(text)
    return game


def _without_one(cards: list[str], name: str) -> list[str]:
    out = list(cards)
    out.remove(name)
    return out


@pytest.mark.parametrize("card, texts, setup", CASES)
def test_cricket_song_has_the_same_effect_as_the_card_and_is_discarded(card, texts, setup):
    real = _played(card, card, setup, texts)
    wild = _played(WILD, card, setup, texts)
    got, want = zones(wild), zones(real)
    assert got["hands"] == want["hands"]
    assert got["sides"] == want["sides"]
    assert got["letters"] == want["letters"]
    assert got["discard"].get(WILD) == 1
    want_discard = dict(want["discard"], **{WILD: 1})
    want_discard[card] -= 1
    if not want_discard[card]:
        del want_discard[card]
    assert got["discard"] == want_discard
    # Only the two cards swap places between the decks: every other card keeps its position.
    assert _without_one(got["deck"], card) == _without_one(want["deck"], WILD)
    assert wild.to_dict()["seen"] == real.to_dict()["seen"]
    assert_plays_on(wild, 0)


NOT_WILD_TYPES = (CardType.GUB, CardType.BARRICADE, CardType.TRAP, CardType.LETTER, CardType.EVENT)


def test_cricket_song_is_never_offered_as_a_gub_barricade_trap_or_event():
    # Every Gub, Barricade and Trap use would be possible here for the real card.
    game = table(
        hands=[{WILD: 1, "Lure": 1}, {"Gub": 1}],
        discard={"Gub": 1},
        sides=[
            {"free": 3, "protected": {"Mushroom": 1}, "spouted": 1, "rings": ["Single Ring"]},
            {"free": 3, "elder": True, "protected": {"Toad Rider": 1}},
        ],
    )
    texts = legal_texts(game)
    for spec in CARDS:
        if spec.type in NOT_WILD_TYPES:
            assert not any(t.startswith(f"{WILD} as {spec.name}") for t in texts), spec.name
    played_as = {a.as_kind.label for a in game.legal_actions() if a.card is not None and a.card.label == WILD}
    assert played_as == {
        "Lure",
        "Super Lure",
        "Cyclone",
        "Lightning",
        "Omen Beetle",
        "Smahl Thief",
        "Spear",
        "Haki Flute",
        "Retreat",
        "Scout",
        "Age-Old Cure",
    }
