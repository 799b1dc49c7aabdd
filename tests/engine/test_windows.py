"""Interrupt windows (docs/rules.md §5): cancel, flop and cure, who is asked and in which order."""

from collections import Counter

import pytest

from gubs_env.engine import Step
from tests.helpers import act, legal_texts, side, table, zones

# --- helpers -------------------------------------------------------------------------------------


def assert_back_in_play_step(game, seat=0):
    """R5: after a window closes, the turn player decides again in the play step."""
    assert game.current_player == seat
    assert game.pending.step is Step.PLAY
    assert game.pending.play is None
    assert game.pending.event is None


def minus(hand, *cards):
    out = Counter(hand)
    out.subtract(cards)
    return {k: n for k, n in out.items() if n}


# --- cancel window: Feather ----------------------------------------------------------------------

HAZARDS_AND_TRAPS = [
    ("Lure", "Lure → seat 1"),
    ("Super Lure", "Super Lure → seat 1"),
    ("Cyclone", "Cyclone → seat 1"),
    ("Lightning", "Lightning: strike the Esteemed Elder"),
    ("Lightning", "Lightning → seat 1: strike a hand"),
    ("Omen Beetle", "Omen Beetle: devour every Mushroom"),
    ("Smahl Thief", "Smahl Thief → seat 1: a Free Gub"),
    ("Spear", "Spear → seat 1: kill a Free Gub"),
    ("Sud Spout", "Sud Spout → seat 1"),
    ("Cricket Song", "Cricket Song as Lure → seat 1"),
    ("Cricket Song", "Cricket Song as Spear → seat 1: kill a Free Gub"),
]


def hazard_table(card, answers):
    return table(
        hands=[{card: 1}, dict(answers)],
        sides=[{"free": 1}, {"free": 2, "elder": True, "protected": {"Mushroom": 1}}],
    )


@pytest.mark.parametrize(("card", "text"), HAZARDS_AND_TRAPS)
def test_feather_cancels_hazard_or_trap_with_no_effect(card, text):
    game = hazard_table(card, {"Feather": 1, "Gub": 1})
    before = zones(game)
    act(game, text)
    assert game.current_player == 1
    assert game.pending.step is Step.CANCEL
    assert "Feather: cancel it" in legal_texts(game)
    act(game, "Feather: cancel it")
    after = zones(game)
    assert after["sides"] == before["sides"]  # targets untouched
    assert after["deck"] == before["deck"]
    assert after["hands"] == [minus(before["hands"][0], card), {"Gub": 1}]
    assert after["discard"] == {card: 1, "Feather": 1}  # the cancelled card and the interrupt
    assert_back_in_play_step(game)


def test_feather_cancels_lure_target_gub_stays():
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1", "Feather: cancel it")
    assert zones(game)["sides"] == [side(free=1), side(free=1)]


def test_feather_cancels_spear_kill_gub_survives():
    game = table(hands=[{"Spear": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 1: kill a Free Gub", "Feather: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1)]
    assert z["discard"] == {"Spear": 1, "Feather": 1}
    assert "Gub" not in z["discard"]


def test_feather_cancels_sud_spout_gub_stays_free():
    game = table(hands=[{"Sud Spout": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Sud Spout → seat 1", "Feather: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1)]
    assert z["discard"] == {"Sud Spout": 1, "Feather": 1}


def test_ring_cancel_window_opens_only_after_all_picks():
    game = table(hands=[{"Double Ring": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    act(game, "Double Ring: trap Free Gubs")
    assert game.current_player == 0 and game.pending.step is Step.RING
    act(game, "Ring: take a Free Gub from seat 1")
    assert game.current_player == 0 and game.pending.step is Step.RING
    act(game, "Ring: take a Free Gub from seat 0")
    assert game.current_player == 1 and game.pending.step is Step.CANCEL
    assert legal_texts(game) == ["Pass", "Feather: cancel it"]


def test_feather_cancels_ring_after_picks_and_picked_gubs_stay_free():
    game = table(hands=[{"Double Ring": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    act(
        game,
        "Double Ring: trap Free Gubs",
        "Ring: take a Free Gub from seat 1",
        "Ring: take a Free Gub from seat 1",
        "Feather: cancel it",
    )
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=2)]
    assert z["discard"] == {"Double Ring": 1, "Feather": 1}
    assert z["hands"] == [{}, {}]
    assert_back_in_play_step(game)


def test_ring_resolves_when_window_passes():
    game = table(hands=[{"Single Ring": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    act(game, "Single Ring: trap Free Gubs", "Ring: take a Free Gub from seat 1", "Pass")
    z = zones(game)
    assert z["sides"] == [side(free=1, rings=["Single Ring"]), side(free=1)]
    assert z["hands"] == [{}, {"Feather": 1}]
    assert_back_in_play_step(game)


# --- cancel window: Blindfold --------------------------------------------------------------------


def test_blindfold_cancels_lure():
    game = table(hands=[{"Lure": 1}, {"Blindfold": 1}], sides=[{"free": 1}, {"free": 2}])
    act(game, "Lure → seat 1")
    assert legal_texts(game) == ["Pass", "Blindfold: cancel it"]
    act(game, "Blindfold: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=2)]
    assert z["discard"] == {"Lure": 1, "Blindfold": 1}
    assert_back_in_play_step(game)


def test_blindfold_cancels_super_lure_barricades_stay():
    game = table(
        hands=[{"Super Lure": 1}, {"Blindfold": 1}],
        sides=[{"free": 1}, {"free": 1, "protected": {"Mushroom": 1}}],
    )
    act(game, "Super Lure → seat 1", "Blindfold: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1, protected={"Mushroom": 1})]
    assert z["hands"] == [{}, {}]
    assert z["discard"] == {"Super Lure": 1, "Blindfold": 1}


def test_blindfold_cancels_cricket_song_as_lure():
    game = table(hands=[{"Cricket Song": 1}, {"Blindfold": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Cricket Song as Lure → seat 1", "Blindfold: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1)]
    assert z["discard"] == {"Cricket Song": 1, "Blindfold": 1}


NON_LURE_HAZARDS = [(c, t) for c, t in HAZARDS_AND_TRAPS if "Lure" not in t]


@pytest.mark.parametrize(("card", "text"), NON_LURE_HAZARDS)
def test_blindfold_holder_is_not_asked_against_other_hazards(card, text):
    game = hazard_table(card, {"Blindfold": 1})
    before = zones(game)
    act(game, text)
    assert_back_in_play_step(game)  # resolved at once: no window
    assert zones(game) != before  # the card took effect


def test_only_feather_offered_against_spear_to_feather_and_blindfold_holder():
    game = table(hands=[{"Spear": 1}, {"Feather": 1, "Blindfold": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 1: kill a Free Gub")
    assert legal_texts(game) == ["Pass", "Feather: cancel it"]


def test_feather_and_blindfold_both_offered_against_lure():
    game = table(hands=[{"Lure": 1}, {"Feather": 1, "Blindfold": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1")
    assert legal_texts(game) == ["Pass", "Feather: cancel it", "Blindfold: cancel it"]


# --- cancel window: Cricket Song -----------------------------------------------------------------


def test_cricket_song_offered_only_as_feather_against_spear_kill():
    game = table(hands=[{"Spear": 1}, {"Cricket Song": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 1: kill a Free Gub")
    assert legal_texts(game) == ["Pass", "Cricket Song as Feather: cancel it"]


def test_cricket_song_as_feather_cancels_spear_kill():
    game = table(hands=[{"Spear": 1}, {"Cricket Song": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 1: kill a Free Gub", "Cricket Song as Feather: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1)]
    assert z["discard"] == {"Spear": 1, "Cricket Song": 1}
    assert_back_in_play_step(game)


def test_cricket_song_offered_as_feather_and_blindfold_against_lure():
    game = table(hands=[{"Lure": 1}, {"Cricket Song": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1")
    assert legal_texts(game) == [
        "Pass",
        "Cricket Song as Feather: cancel it",
        "Cricket Song as Blindfold: cancel it",
    ]


def test_cricket_song_as_blindfold_cancels_lure():
    game = table(hands=[{"Lure": 1}, {"Cricket Song": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1", "Cricket Song as Blindfold: cancel it")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(free=1)]
    assert z["discard"] == {"Lure": 1, "Cricket Song": 1}
    assert z["hands"] == [{}, {}]
    assert_back_in_play_step(game)


def test_cricket_song_is_not_offered_as_a_tool_in_a_cancel_window():
    # R21: as a Tool it keeps the "on your turn" timing; only interrupt answers here.
    game = table(
        hands=[{"Sud Spout": 1}, {"Cricket Song": 1}],
        sides=[{"free": 1}, {"free": 1, "rings": ["Single Ring"]}],
    )
    act(game, "Sud Spout → seat 1")
    assert legal_texts(game) == ["Pass", "Cricket Song as Feather: cancel it"]


# --- cancel window: asking order -----------------------------------------------------------------


def four_seat_lure():
    """Seat 2 lures from seat 0; seat 3 has no answer, seats 0 and 1 do."""
    return table(
        num_players=4,
        turn_player=2,
        hands=[{"Feather": 1}, {"Blindfold": 1}, {"Lure": 1}, {"Gub": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}, {"free": 1}],
    )


def test_cancel_window_asks_from_next_seat_skipping_players_without_answer():
    game = four_seat_lure()
    act(game, "Lure → seat 0")
    assert game.pending.step is Step.CANCEL
    assert game.current_player == 0  # seat 3 holds no answer: not asked


def test_cancel_window_pass_moves_to_next_holder_then_resolves():
    game = four_seat_lure()
    act(game, "Lure → seat 0", "Pass")
    assert game.current_player == 1
    assert legal_texts(game) == ["Pass", "Blindfold: cancel it"]
    act(game, "Pass")
    z = zones(game)
    assert z["sides"][0] == side(free=0)
    assert z["sides"][2] == side(free=2)
    assert z["discard"] == {"Lure": 1}
    assert z["hands"] == [{"Feather": 1}, {"Blindfold": 1}, {}, {"Gub": 1}]
    assert_back_in_play_step(game, seat=2)


def test_first_cancel_ends_the_window():
    game = four_seat_lure()
    act(game, "Lure → seat 0", "Feather: cancel it")
    z = zones(game)
    assert z["hands"][1] == {"Blindfold": 1}  # seat 1 was never asked
    assert z["discard"] == {"Lure": 1, "Feather": 1}
    assert_back_in_play_step(game, seat=2)


def test_cancel_window_order_wraps_around_the_table():
    game = table(
        num_players=4,
        turn_player=1,
        hands=[{"Feather": 1}, {"Spear": 1}, {"Cricket Song": 1}, {"Blindfold": 1, "Feather": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}, {"free": 1}],
    )
    act(game, "Spear → seat 0: kill a Free Gub")
    asked = []
    while game.pending.step is Step.CANCEL:
        asked.append(game.current_player)
        act(game, "Pass")
    assert asked == [2, 3, 0]
    assert zones(game)["sides"][0] == side(free=0)


def test_card_player_is_never_asked_in_own_cancel_window():
    game = table(
        num_players=3,
        hands=[{"Lure": 1, "Feather": 1}, {"Feather": 1}, {}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
    )
    act(game, "Lure → seat 1", "Pass")
    assert_back_in_play_step(game)  # seat 0 was not asked although it holds a Feather
    z = zones(game)
    assert z["hands"][0] == {"Feather": 1}
    assert z["sides"][0] == side(free=2)


def test_no_window_when_only_the_card_player_holds_an_answer():
    game = table(hands=[{"Spear": 1, "Feather": 1, "Cricket Song": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 1: kill a Free Gub")
    assert_back_in_play_step(game)
    assert zones(game)["sides"][1] == side(free=0)


def test_no_window_when_nobody_holds_an_answer_state_as_if_all_passed():
    skipped = table(num_players=3, hands=[{"Lure": 1}, {"Gub": 1}, {}], sides=[{"free": 1}, {"free": 1}, {}])
    act(skipped, "Lure → seat 1")
    passed = table(num_players=3, hands=[{"Lure": 1}, {"Gub": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}, {}])
    act(passed, "Lure → seat 1", "Pass")
    zs, zp = zones(skipped), zones(passed)
    assert zs["sides"] == zp["sides"]
    assert zs["discard"] == zp["discard"]
    assert_back_in_play_step(skipped)


# --- no window: Tools, Barricade removals, Spear freeing (R6) -------------------------------------

NOT_CANCELLABLE = [
    ("Mushroom", "Mushroom: remove Mushroom at seat 1"),
    ("Toad Rider", "Toad Rider: remove Mushroom at seat 1"),
    ("Mushroom", "Mushroom: protect a Free Gub"),
    ("Gub", "Gub: put into play"),
    ("Spear", "Spear → seat 1: break a Sud Spout"),
    ("Haki Flute", "Haki Flute → Single Ring"),
    ("Retreat", "Retreat: retreat"),
    ("Scout", "Scout → seat 1: look at a hand"),
    ("Scout", "Scout: look at the deck"),
    ("Age-Old Cure", "Age-Old Cure: take a Gub from the discard pile"),
    ("Cricket Song", "Cricket Song as Spear → seat 1: break a Sud Spout"),
    ("Cricket Song", "Cricket Song as Haki Flute → Single Ring"),
]


@pytest.mark.parametrize(("card", "text"), NOT_CANCELLABLE)
def test_no_cancel_window_for_tools_barricades_and_spear_freeing(card, text):
    game = table(
        hands=[{card: 1}, {"Feather": 1, "Blindfold": 1}],
        sides=[
            {"free": 1, "rings": ["Single Ring"]},
            {"free": 1, "spouted": 1, "protected": {"Mushroom": 1}},
        ],
        discard={"Gub": 1},
    )
    act(game, text)
    assert game.current_player == 0
    assert game.pending.step is not Step.CANCEL
    assert zones(game)["hands"][1] == {"Feather": 1, "Blindfold": 1}


def test_cricket_song_as_hazard_opens_cancel_window():
    game = table(hands=[{"Cricket Song": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Cricket Song as Spear → seat 1: kill a Free Gub")
    assert game.current_player == 1 and game.pending.step is Step.CANCEL


# --- no chains (R5) ------------------------------------------------------------------------------


def test_no_chain_after_cancel_turn_player_back_in_play_step():
    # The turn player holds a Feather too, but nothing cancels an interrupt.
    game = table(hands=[{"Lure": 1, "Feather": 1, "Cricket Song": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1", "Feather: cancel it")
    assert_back_in_play_step(game)
    assert zones(game)["hands"][0] == {"Feather": 1, "Cricket Song": 1}
    assert "Go (end turn)" in legal_texts(game)


def test_play_continues_after_cancel_with_another_card():
    game = table(hands=[{"Lure": 2}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    act(game, "Lure → seat 1", "Feather: cancel it", "Lure → seat 1")
    assert_back_in_play_step(game)  # the Feather is gone: the second Lure resolves at once
    assert zones(game)["sides"] == [side(free=2), side(free=1)]


# --- flop window ---------------------------------------------------------------------------------


def test_flop_boat_on_plain_event_sends_it_back_into_deck_without_effect():
    game = table(hands=[{}, {"Flop Boat": 1}], sides=[{"free": 2}, {"free": 1}], deck_top=["Flash Flood"], step="draw")
    before = zones(game)
    act(game, "Draw")
    assert game.current_player == 1 and game.pending.step is Step.FLOP
    assert legal_texts(game) == ["Pass", "Flop Boat: flop the Event"]
    act(game, "Flop Boat: flop the Event")
    z = zones(game)
    assert z["sides"] == before["sides"]  # R20: no effect
    assert Counter(z["deck"]) == Counter(before["deck"])  # the Event is back in the deck
    assert len(z["deck"]) == len(before["deck"])
    assert z["discard"] == {"Flop Boat": 1}
    assert z["hands"] == [{}, {}]
    assert_back_in_play_step(game)


def test_flop_boat_on_third_letter_game_does_not_end():
    game = table(hands=[{}, {"Flop Boat": 1}], letters=["Letter G", "Letter U"], deck_top=["Letter B"], step="draw")
    act(game, "Draw", "Flop Boat: flop the Event")
    assert not game.is_over
    z = zones(game)
    assert z["letters"] == ["Letter G", "Letter U"]
    assert z["deck"].count("Letter B") == 1
    assert z["discard"] == {"Flop Boat": 1}
    assert_back_in_play_step(game)


def test_drawer_may_flop_own_draw():
    game = table(
        hands=[{"Flop Boat": 1}, {}],
        sides=[{"free": 1, "protected": {"Toad Rider": 1}}, {}],
        deck_top=["Rumor of Wasps"],
        step="draw",
    )
    act(game, "Draw")
    assert game.current_player == 0 and game.pending.step is Step.FLOP
    act(game, "Flop Boat: flop the Event")
    z = zones(game)
    assert z["sides"][0] == side(free=1, protected={"Toad Rider": 1})
    assert "Rumor of Wasps" in z["deck"]
    assert_back_in_play_step(game)


def test_flop_window_asks_drawer_first_then_clockwise():
    game = table(
        num_players=3,
        turn_player=1,
        hands=[{"Flop Boat": 1}, {"Cricket Song": 1}, {"Gub": 1}],
        deck_top=["Flash Flood"],
        step="draw",
    )
    act(game, "Draw")
    assert game.current_player == 1
    assert legal_texts(game) == ["Pass", "Cricket Song as Flop Boat: flop the Event"]
    act(game, "Pass")
    assert game.current_player == 0  # seat 2 holds no answer: skipped
    assert legal_texts(game) == ["Pass", "Flop Boat: flop the Event"]


def test_flop_window_starts_after_drawer_without_answer():
    game = table(
        num_players=3,
        turn_player=1,
        hands=[{"Flop Boat": 1}, {}, {"Cricket Song": 1}],
        deck_top=["Flash Flood"],
        step="draw",
    )
    act(game, "Draw")
    asked = []
    while game.pending.step is Step.FLOP:
        asked.append(game.current_player)
        act(game, "Pass")
    assert asked == [2, 0]


def test_flop_window_all_pass_event_takes_effect():
    game = table(hands=[{}, {"Flop Boat": 1}], sides=[{"free": 2}, {"free": 1}], deck_top=["Flash Flood"], step="draw")
    act(game, "Draw", "Pass")
    z = zones(game)
    assert z["sides"] == [side(), side()]
    assert z["discard"] == {"Flash Flood": 1}
    assert z["hands"][1] == {"Flop Boat": 1}
    assert_back_in_play_step(game)


def test_cricket_song_as_flop_boat_flops_a_letter():
    game = table(hands=[{}, {"Cricket Song": 1}], deck_top=["Letter G"], step="draw")
    act(game, "Draw", "Cricket Song as Flop Boat: flop the Event")
    z = zones(game)
    assert z["letters"] == []
    assert z["deck"].count("Letter G") == 1
    assert z["discard"] == {"Cricket Song": 1}
    assert_back_in_play_step(game)


def test_no_flop_window_without_a_holder():
    game = table(hands=[{"Feather": 1}, {"Blindfold": 1}], deck_top=["Letter G"], step="draw")
    act(game, "Draw")
    assert zones(game)["letters"] == ["Letter G"]
    assert_back_in_play_step(game)


# --- cure window ---------------------------------------------------------------------------------


def test_age_old_cure_saves_hand_in_gargok_plague():
    game = table(
        num_players=3,
        hands=[{"Lure": 1}, {"Age-Old Cure": 1, "Spear": 2}, {"Scout": 1}],
        deck_top=["Gargok Plague"],
        step="draw",
    )
    deck_before = zones(game)["deck"]
    act(game, "Draw")
    assert game.current_player == 1 and game.pending.step is Step.CURE
    assert legal_texts(game) == ["Pass", "Age-Old Cure: keep the hand"]
    act(game, "Age-Old Cure: keep the hand")
    z = zones(game)
    assert z["hands"] == [{}, {"Spear": 2}, {}]
    assert z["discard"] == {"Age-Old Cure": 1, "Gargok Plague": 1}
    expected = Counter(deck_before[1:]) + Counter({"Lure": 1, "Scout": 1})
    assert Counter(z["deck"]) == expected
    assert_back_in_play_step(game)


def test_cricket_song_as_age_old_cure_saves_hand():
    # R11: Cricket Song may act as Age-Old Cure in the Plague save.
    game = table(hands=[{"Lure": 1}, {"Cricket Song": 1, "Feather": 1}], deck_top=["Gargok Plague"], step="draw")
    act(game, "Draw")
    assert game.pending.step is Step.FLOP  # a Cricket Song holder is first asked to flop
    act(game, "Pass")
    assert game.pending.step is Step.CURE
    assert legal_texts(game) == ["Pass", "Cricket Song as Age-Old Cure: keep the hand"]
    act(game, "Cricket Song as Age-Old Cure: keep the hand")
    z = zones(game)
    assert z["hands"] == [{}, {"Feather": 1}]
    assert z["discard"] == {"Cricket Song": 1, "Gargok Plague": 1}
    assert "Lure" in z["deck"]


def test_cure_window_asks_holders_drawer_first_and_several_may_save():
    game = table(
        num_players=4,
        turn_player=1,
        hands=[
            {"Age-Old Cure": 1, "Gub": 1},
            {"Age-Old Cure": 1, "Lure": 1},
            {"Mushroom": 2},
            {"Cricket Song": 1, "Spear": 1},
        ],
        deck_top=["Gargok Plague"],
        step="draw",
    )
    act(game, "Draw", "Pass")  # seat 3 declines to flop with its Cricket Song
    asked = []
    while game.pending.step is Step.CURE:
        asked.append(game.current_player)
        act(game, game.legal_actions()[1])  # every holder saves
    assert asked == [1, 3, 0]  # drawer first; seat 2 holds nothing to save with
    z = zones(game)
    assert z["hands"] == [{"Gub": 1}, {"Lure": 1}, {}, {"Spear": 1}]
    assert z["discard"] == {"Age-Old Cure": 2, "Cricket Song": 1, "Gargok Plague": 1}
    assert z["deck"].count("Mushroom") == 7  # seat 2's two Mushrooms went back in
    assert_back_in_play_step(game, seat=1)


def test_cure_holder_who_passes_loses_hand_with_the_cure():
    game = table(hands=[{"Lure": 1}, {"Age-Old Cure": 1, "Spear": 1}], deck_top=["Gargok Plague"], step="draw")
    deck_before = zones(game)["deck"]
    act(game, "Draw", "Pass")
    z = zones(game)
    assert z["hands"] == [{}, {}]
    assert z["discard"] == {"Gargok Plague": 1}
    assert Counter(z["deck"]) == Counter(deck_before[1:]) + Counter({"Lure": 1, "Age-Old Cure": 1, "Spear": 1})


def test_holder_with_two_cures_keeps_the_second():
    game = table(hands=[{}, {"Age-Old Cure": 2}], deck_top=["Gargok Plague"], step="draw")
    act(game, "Draw", "Age-Old Cure: keep the hand")
    z = zones(game)
    assert z["hands"] == [{}, {"Age-Old Cure": 1}]
    assert z["discard"] == {"Age-Old Cure": 1, "Gargok Plague": 1}


def test_flop_window_comes_before_cure_window():
    game = table(hands=[{"Flop Boat": 1, "Lure": 1}, {"Age-Old Cure": 1}], deck_top=["Gargok Plague"], step="draw")
    act(game, "Draw")
    assert game.pending.step is Step.FLOP and game.current_player == 0
    act(game, "Flop Boat: flop the Event")
    z = zones(game)
    assert z["hands"] == [{"Lure": 1}, {"Age-Old Cure": 1}]  # flopped: nobody loses a hand
    assert "Gargok Plague" in z["deck"]
    assert_back_in_play_step(game)
