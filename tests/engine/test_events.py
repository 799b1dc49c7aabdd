"""Events drawn from the deck (docs/rules.md §1, §3, R15, R16, R19) and the draw step."""

from collections import Counter

import pytest

from gubs_env.engine import Step
from tests.helpers import act, legal_texts, side, table, zones

EVENT_NAMES = ["Dangerous Alchemy", "Flash Flood", "Gargok Plague", "Rumor of Wasps", "Traveling Merchant"]


def assert_play_step(game, seat=0):
    assert game.current_player == seat
    assert game.pending.step is Step.PLAY
    assert game.pending.event is None


def assert_conserved(game):
    assert sum(game.state.card_counts()) == 70


# --- Letters -------------------------------------------------------------------------------------


def test_first_letter_is_laid_out():
    game = table(deck_top=["Letter U"], step="draw")
    act(game, "Draw")
    z = zones(game)
    assert z["letters"] == ["Letter U"]
    assert "Letter U" not in z["deck"]
    assert z["discard"] == {}
    assert z["hands"] == [{}, {}]
    assert not game.is_over
    assert_play_step(game)


def test_second_letter_is_laid_out_beside_the_first():
    game = table(letters=["Letter B"], deck_top=["Letter G"], step="draw")
    act(game, "Draw")
    assert zones(game)["letters"] == ["Letter B", "Letter G"]
    assert not game.is_over
    assert_play_step(game)


def test_third_letter_ends_the_game_at_once():
    game = table(
        hands=[{"Lure": 1}, {}],
        sides=[{"free": 1}, {"free": 1}],
        letters=["Letter G", "Letter U"],
        deck_top=["Letter B"],
        step="draw",
    )
    act(game, "Draw")
    assert game.is_over
    assert not game.truncated
    assert game.current_player is None
    assert game.legal_actions() == ()
    assert zones(game)["letters"] == ["Letter G", "Letter U", "Letter B"]
    assert zones(game)["hands"][0] == {"Lure": 1}  # nothing else happens


def test_no_action_is_accepted_after_the_third_letter():
    game = table(letters=["Letter G", "Letter U"], deck_top=["Letter B"], step="draw")
    act(game, "Draw")
    with pytest.raises(ValueError):
        game.apply("Go (end turn)")


# --- Dangerous Alchemy (R16) ---------------------------------------------------------------------


def test_dangerous_alchemy_discards_everything_on_drawers_side_but_the_elder():
    game = table(
        num_players=3,
        turn_player=1,
        hands=[{}, {"Lure": 1}, {}],
        sides=[
            {"free": 1},
            {
                "free": 2,
                "elder": True,
                "protected": {"Mushroom": 1, "Velvet Moth": 1},
                "spouted": 1,
                "rings": ["Double Ring"],
            },
            {"free": 1, "spouted": 1},
        ],
        deck_top=["Dangerous Alchemy"],
        step="draw",
    )
    act(game, "Draw")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(elder=True), side(free=1, spouted=1)]
    assert z["discard"] == {
        "Gub": 2 + 2 + 1 + 2,  # Free, Protected, Spouted, in the Ring
        "Mushroom": 1,
        "Velvet Moth": 1,
        "Sud Spout": 1,
        "Double Ring": 1,
        "Dangerous Alchemy": 1,
    }
    assert z["hands"][1] == {"Lure": 1}
    assert_play_step(game, seat=1)
    assert_conserved(game)


def test_dangerous_alchemy_on_empty_side_just_goes_to_discard():
    game = table(sides=[{}, {"free": 1}], deck_top=["Dangerous Alchemy"], step="draw")
    act(game, "Draw")
    z = zones(game)
    assert z["sides"] == [side(), side(free=1)]
    assert z["discard"] == {"Dangerous Alchemy": 1}


# --- Flash Flood ---------------------------------------------------------------------------------


def test_flash_flood_washes_every_free_plain_gub_into_the_deck():
    game = table(
        num_players=3,
        sides=[
            {"free": 2, "elder": True},
            {"free": 1, "protected": {"Toad Rider": 1}, "spouted": 1, "rings": ["Single Ring"]},
            {"free": 3},
        ],
        deck_top=["Flash Flood"],
        step="draw",
    )
    deck_before = zones(game)["deck"]
    act(game, "Draw")
    z = zones(game)
    assert z["sides"] == [
        side(elder=True),
        side(protected={"Toad Rider": 1}, spouted=1, rings=["Single Ring"]),
        side(),
    ]
    assert Counter(z["deck"]) == Counter(deck_before[1:]) + Counter({"Gub": 6})
    assert len(z["deck"]) == len(deck_before) - 1 + 6
    assert z["discard"] == {"Flash Flood": 1}
    assert_play_step(game)
    assert_conserved(game)


def test_flash_flood_keeps_the_order_of_the_rest_of_the_deck():
    # R15: each Gub lands at a random position; the other cards keep their order.
    game = table(sides=[{"free": 2}, {"free": 2}], deck_top=["Flash Flood", "Lure", "Spear", "Scout"], step="draw")
    rest_before = [c for c in zones(game)["deck"][1:] if c != "Gub"]
    act(game, "Draw")
    assert [c for c in zones(game)["deck"] if c != "Gub"] == rest_before


# --- Gargok Plague -------------------------------------------------------------------------------


def test_gargok_plague_without_savers_sends_every_hand_into_the_deck():
    game = table(
        num_players=3,
        hands=[{"Lure": 1, "Gub": 1}, {"Feather": 2}, {"Spear": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
        deck_top=["Gargok Plague"],
        step="draw",
    )
    deck_before = zones(game)["deck"]
    act(game, "Draw")
    assert_play_step(game)  # nobody can save: no cure window
    z = zones(game)
    assert z["hands"] == [{}, {}, {}]
    assert Counter(z["deck"]) == Counter(deck_before[1:]) + Counter({"Lure": 1, "Gub": 1, "Feather": 2, "Spear": 1})
    assert z["sides"] == [side(free=1)] * 3
    assert z["discard"] == {"Gargok Plague": 1}
    assert_conserved(game)


# --- Rumor of Wasps ------------------------------------------------------------------------------


def test_rumor_of_wasps_sends_toad_riders_and_their_gubs_into_the_deck():
    game = table(
        num_players=3,
        turn_player=2,
        sides=[
            {"protected": {"Toad Rider": 1, "Mushroom": 1}},
            {"free": 1, "protected": {"Toad Rider": 2, "Velvet Moth": 1}},
            {"free": 1},
        ],
        deck_top=["Rumor of Wasps"],
        step="draw",
    )
    deck_before = zones(game)["deck"]
    act(game, "Draw")
    z = zones(game)
    assert z["sides"] == [
        side(protected={"Mushroom": 1}),
        side(free=1, protected={"Velvet Moth": 1}),
        side(free=1),
    ]
    assert Counter(z["deck"]) == Counter(deck_before[1:]) + Counter({"Toad Rider": 3, "Gub": 3})
    assert z["discard"] == {"Rumor of Wasps": 1}
    assert_play_step(game, seat=2)
    assert_conserved(game)


# --- Traveling Merchant (R19) --------------------------------------------------------------------


def merchant_table():
    """Seat 1 draws the Merchant: seats 0 and 1 hold 2+ cards, seat 2 one card, seat 3 none."""
    return table(
        num_players=4,
        turn_player=1,
        hands=[{"Lure": 1, "Feather": 1}, {"Spear": 2, "Scout": 1}, {"Mushroom": 1}, {}],
        deck_top=["Traveling Merchant"],
        step="draw",
    )


def test_traveling_merchant_asks_players_with_two_or_more_cards_from_the_drawer():
    game = merchant_table()
    act(game, "Draw")
    assert game.pending.step is Step.KEEP
    assert game.current_player == 1
    assert legal_texts(game) == ["Keep Spear", "Keep Scout"]
    act(game, "Keep Scout")
    assert game.current_player == 0  # seats 2 (one card) and 3 (none) are not asked
    assert legal_texts(game) == ["Keep Lure", "Keep Feather"]


def test_traveling_merchant_passes_to_previous_seat_all_at_once():
    game = merchant_table()
    act(game, "Draw", "Keep Scout", "Keep Feather")
    z = zones(game)
    # Seat 0 receives seat 1's Spears and does not pass them on: every pass happens at once.
    assert z["hands"] == [
        {"Feather": 1, "Spear": 2},
        {"Scout": 1},
        {"Mushroom": 1},  # one card: kept
        {"Lure": 1},  # none: only receives (from seat 0)
    ]
    assert z["discard"] == {"Traveling Merchant": 1}
    assert_play_step(game, seat=1)
    assert_conserved(game)


def test_traveling_merchant_keeping_one_of_a_pair():
    game = table(
        num_players=2,
        hands=[{"Lure": 2}, {"Gub": 1, "Spear": 1}],
        deck_top=["Traveling Merchant"],
        step="draw",
    )
    act(game, "Draw", "Keep Lure", "Keep Gub")
    assert zones(game)["hands"] == [{"Lure": 1, "Spear": 1}, {"Gub": 1, "Lure": 1}]


def test_traveling_merchant_with_nobody_to_ask_resolves_at_once():
    game = table(num_players=3, hands=[{"Lure": 1}, {}, {"Spear": 1}], deck_top=["Traveling Merchant"], step="draw")
    act(game, "Draw")
    assert_play_step(game)
    assert zones(game)["hands"] == [{"Lure": 1}, {}, {"Spear": 1}]


# --- after an Event (FAQ 4) ----------------------------------------------------------------------


@pytest.mark.parametrize("event", EVENT_NAMES)
def test_event_goes_to_discard_and_play_continues(event):
    game = table(hands=[{"Gub": 1}, {}], sides=[{"free": 1}, {"free": 1}], deck_top=[event], step="draw")
    act(game, "Draw")
    while game.pending.step is not Step.PLAY:  # a Merchant's or window's choices, if any
        act(game, game.legal_actions()[0])
    assert_play_step(game)
    z = zones(game)
    assert z["discard"].get(event) == 1
    assert event not in z["deck"]
    assert z["letters"] == []
    assert "Go (end turn)" in legal_texts(game)
    assert "Draw" not in legal_texts(game)  # no second draw this turn


@pytest.mark.parametrize("letter", ["Letter G", "Letter U", "Letter B"])
def test_letter_is_laid_out_not_discarded_and_play_continues(letter):
    game = table(hands=[{"Gub": 1}, {}], deck_top=[letter], step="draw")
    act(game, "Draw")
    z = zones(game)
    assert z["letters"] == [letter]
    assert z["discard"] == {}
    assert_play_step(game)
    assert legal_texts(game) == ["Gub: put into play", "Go (end turn)"]


# --- the draw step (§3) --------------------------------------------------------------------------


def test_draw_step_offers_draw_and_decline():
    game = table(step="draw")
    assert legal_texts(game) == ["Draw", "Decline to draw"]


def test_drawing_a_non_event_puts_it_in_the_hand():
    game = table(deck_top=["Lure", "Spear"], step="draw")
    act(game, "Draw")
    z = zones(game)
    assert z["hands"][0] == {"Lure": 1}
    assert z["deck"][0] == "Spear"
    assert_play_step(game)


def test_declining_leads_straight_to_the_play_step():
    game = table(hands=[{"Gub": 1}, {}], deck_top=["Lure"], step="draw")
    before = zones(game)
    act(game, "Decline to draw")
    assert_play_step(game)
    assert zones(game) == before  # nothing drawn
    assert game.to_dict()["turn"]["declined"] == [True, False]
    assert legal_texts(game) == ["Gub: put into play", "Go (end turn)"]


def test_after_declining_the_next_turn_only_draw_is_legal():
    game = table(step="draw")
    act(game, "Decline to draw", "Go (end turn)")
    assert game.current_player == 1
    assert legal_texts(game) == ["Draw", "Decline to draw"]
    act(game, "Decline to draw", "Go (end turn)")
    assert game.current_player == 0
    assert legal_texts(game) == ["Draw"]


def test_after_a_forced_draw_decline_is_allowed_again():
    game = table(step="draw", declined=[True, False], deck_top=["Lure", "Spear", "Scout"])
    assert legal_texts(game) == ["Draw"]
    act(game, "Draw", "Go (end turn)", "Draw", "Go (end turn)")
    assert game.current_player == 0
    assert legal_texts(game) == ["Draw", "Decline to draw"]


def test_no_draw_in_the_play_step():
    game = table(hands=[{"Gub": 1}, {}], step="draw", deck_top=["Lure"])
    act(game, "Draw", "Gub: put into play")
    assert "Draw" not in legal_texts(game)
    assert legal_texts(game)[-1] == "Go (end turn)"
