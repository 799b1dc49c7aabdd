"""One or more direct tests per ruling R1 … R23 of docs/rules.md §7."""

from collections import Counter

import numpy as np
import pytest

from gubs_env.engine import Game, Step
from gubs_env.engine.cards import CARDS
from tests.helpers import act, legal_texts, side, table, zones

LETTERS = {"Letter G", "Letter U", "Letter B"}


def assert_play_step(game, seat=0):
    assert game.current_player == seat
    assert game.pending.step is Step.PLAY


def targets_of(game, prefix):
    return [t for t in legal_texts(game) if t.startswith(prefix)]


# --- R1 start player -----------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_r1_seat_zero_starts(num_players):
    for seed in range(5):
        game = Game(num_players, seed=seed)
        assert game.current_player == 0
        assert game.pending.step is Step.DRAW
        assert game.to_dict()["turn"]["player"] == 0


def test_r1_play_passes_clockwise_to_next_seat():
    game = table(num_players=4, turn_player=0, step="draw")
    seen = []
    for _ in range(5):
        seen.append(game.current_player)
        act(game, "Decline to draw" if "Decline to draw" in legal_texts(game) else "Draw", "Go (end turn)")
    assert seen == [0, 1, 2, 3, 0]


# --- R2 Letter placement -------------------------------------------------------------------------


def letter_thirds(game):
    """Third (0 bottom, 1 middle, 2 top) of each Letter, measured from the bottom of the deck before
    the deal (dealing takes cards from the top only)."""
    deck_bottom_first = game.to_dict()["deck"][::-1]
    size_before_deal = 70 - game.num_players  # every card but the starting Gubs
    return sorted(3 * i // size_before_deal for i, c in enumerate(deck_bottom_first) if c in LETTERS)


def placement_stats(placement, seeds=range(300)):
    one_per_third = lower_two_thirds = 0
    for seed in seeds:
        thirds = letter_thirds(Game(2, seed=seed, letter_placement=placement, record_log=False))
        one_per_third += thirds == [0, 1, 2]
        lower_two_thirds += 0 in thirds and 1 in thirds
    n = len(seeds)
    return one_per_third / n, lower_two_thirds / n


def test_r2_letters_one_per_third_by_default():
    # A dealt Letter goes back at a random position (§2.3), so the top third's Letter can move:
    # allow for it statistically. The bottom and middle thirds are never dealt from.
    one_per_third, lower_two_thirds = placement_stats("thirds")
    assert one_per_third >= 0.6
    assert lower_two_thirds >= 0.95


def test_r2_uniform_option_spreads_letters_anywhere():
    one_per_third, lower_two_thirds = placement_stats("uniform")
    assert one_per_third <= 0.4  # 2/9 expected for independent uniform positions
    assert lower_two_thirds <= 0.75


def test_r2_letters_in_random_order():
    bottom = set()
    for seed in range(60):
        deck = Game(2, seed=seed, record_log=False).to_dict()["deck"]
        bottom.add([c for c in deck if c in LETTERS][-1])
    assert bottom == LETTERS


def test_r2_letters_are_never_dealt_into_hands():
    for seed in range(50):
        d = Game(6, seed=seed, record_log=False).to_dict()
        assert all(sum(h.values()) == 3 for h in d["hands"])
        assert not any(name in LETTERS for h in d["hands"] for name in h)
        assert Counter(d["deck"])["Letter G"] == 1


# --- R3 unbroken tie -----------------------------------------------------------------------------


def test_r3_unbroken_tie_is_a_shared_win():
    game = table(
        num_players=3,
        hands=[{"Lure": 1}, {"Spear": 1}, {}],
        sides=[{"free": 2}, {"free": 2}, {"free": 1}],
        letters=["Letter G", "Letter U"],
        deck_top=["Letter B"],
        step="draw",
    )
    act(game, "Draw")
    assert game.winners() == [0, 1]


# --- R4 targets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "prefix"),
    [
        ("Lure", "Lure →"),
        ("Super Lure", "Super Lure →"),
        ("Cyclone", "Cyclone →"),
        ("Smahl Thief", "Smahl Thief →"),
        ("Lightning", "Lightning →"),
    ],
)
def test_r4_hazards_target_opponents_only(card, prefix):
    game = table(
        num_players=3,
        hands=[{card: 1, "Gub": 1}, {"Gub": 1}, {}],
        sides=[{"free": 2, "protected": {"Mushroom": 1}}, {"free": 1, "protected": {"Mushroom": 1}}, {}],
    )
    targets = targets_of(game, prefix)
    assert targets, "the card should have an opponent target"
    assert not any("seat 0" in t for t in targets)


def test_r4_spear_kill_may_hit_own_side():
    game = table(hands=[{"Spear": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Spear → seat 0: kill a Free Gub")
    assert zones(game)["sides"] == [side(), side(free=1)]


def test_r4_lightning_elder_use_may_hit_own_side():
    game = table(hands=[{"Lightning": 1}, {}], sides=[{"elder": True}, {}])
    act(game, "Lightning: strike the Esteemed Elder")
    assert zones(game)["sides"][0] == side()
    assert zones(game)["discard"] == {"Lightning": 1, "Esteemed Elder": 1}


def test_r4_omen_beetle_hits_every_side_including_own():
    game = table(
        hands=[{"Omen Beetle": 1}, {}],
        sides=[{"protected": {"Mushroom": 1, "Velvet Moth": 1}}, {"free": 1, "protected": {"Mushroom": 2}}],
    )
    act(game, "Omen Beetle: devour every Mushroom")
    z = zones(game)
    assert z["sides"] == [side(protected={"Velvet Moth": 1}), side(free=1)]
    assert z["discard"] == {"Omen Beetle": 1, "Mushroom": 3, "Gub": 3}


def test_r4_traps_may_take_own_free_gubs():
    game = table(hands=[{"Sud Spout": 1, "Single Ring": 1}, {}], sides=[{"free": 2}, {}])
    assert targets_of(game, "Sud Spout") == ["Sud Spout → seat 0"]
    act(game, "Single Ring: trap Free Gubs")
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 0"]


def test_r4_barricades_protect_own_gubs_only():
    game = table(hands=[{"Velvet Moth": 1}, {}], sides=[{}, {"free": 3}])
    assert legal_texts(game) == ["Go (end turn)"]
    game = table(hands=[{"Velvet Moth": 1}, {}], sides=[{"free": 1}, {"free": 3}])
    act(game, "Velvet Moth: protect a Free Gub")
    assert zones(game)["sides"] == [side(protected={"Velvet Moth": 1}), side(free=3)]


# --- R5 no chains --------------------------------------------------------------------------------


def test_r5_no_chain_an_interrupt_is_never_cancelled():
    game = table(
        num_players=3,
        hands=[{"Lure": 1, "Feather": 1}, {"Feather": 1}, {"Cricket Song": 1}],
        sides=[{}, {"free": 1}, {}],
    )
    act(game, "Lure → seat 1", "Feather: cancel it")
    assert_play_step(game)  # no window opened on seat 1's Feather
    z = zones(game)
    assert z["discard"] == {"Lure": 1, "Feather": 1}
    assert z["hands"] == [{"Feather": 1}, {}, {"Cricket Song": 1}]


# --- R6 Feather ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "text", "window"),
    [
        ("Spear", "Spear → seat 1: kill a Free Gub", True),
        ("Cricket Song", "Cricket Song as Cyclone → seat 1", True),
        ("Sud Spout", "Sud Spout → seat 1", True),
        ("Mushroom", "Mushroom: remove Mushroom at seat 1", False),
        ("Toad Rider", "Toad Rider: remove Mushroom at seat 1", False),
        ("Spear", "Spear → seat 1: break a Sud Spout", False),
        ("Scout", "Scout → seat 1: look at a hand", False),
        ("Haki Flute", "Haki Flute → Single Ring", False),
    ],
)
def test_r6_feather_window_only_for_hazards_and_traps(card, text, window):
    game = table(
        hands=[{card: 1}, {"Feather": 1}],
        sides=[{"rings": ["Single Ring"]}, {"free": 1, "protected": {"Mushroom": 1}, "spouted": 1}],
    )
    act(game, text)
    assert (game.pending.step is Step.CANCEL) == window


# --- R7 Barricades -------------------------------------------------------------------------------


def test_r7_barricade_never_on_the_elder_or_a_protected_gub():
    game = table(
        hands=[{"Mushroom": 1, "Toad Rider": 1, "Velvet Moth": 1}, {}],
        sides=[{"elder": True, "protected": {"Velvet Moth": 1}}, {}],
    )
    assert not any("protect" in t for t in legal_texts(game))


def test_r7_removal_may_target_any_side_including_own():
    game = table(
        hands=[{"Toad Rider": 1}, {}],
        sides=[{"protected": {"Velvet Moth": 1}}, {"protected": {"Mushroom": 1}}],
    )
    assert targets_of(game, "Toad Rider: remove") == [
        "Toad Rider: remove Velvet Moth at seat 0",
        "Toad Rider: remove Mushroom at seat 1",
    ]
    act(game, "Toad Rider: remove Velvet Moth at seat 0")
    assert zones(game)["sides"][0] == side(free=1)
    assert zones(game)["discard"] == {"Toad Rider": 1, "Velvet Moth": 1}


def test_r7_mushroom_removes_only_mushrooms():
    game = table(hands=[{"Mushroom": 1}, {}], sides=[{}, {"protected": {"Toad Rider": 1, "Mushroom": 1}}])
    assert targets_of(game, "Mushroom: remove") == ["Mushroom: remove Mushroom at seat 1"]


# --- R8 abandoned Barricades ---------------------------------------------------------------------


def test_r8_super_lure_returns_barricades_to_their_owners_hand():
    game = table(hands=[{"Super Lure": 1}, {}], sides=[{}, {"free": 1, "protected": {"Mushroom": 1, "Toad Rider": 1}}])
    act(game, "Super Lure → seat 1")
    z = zones(game)
    assert z["sides"] == [side(free=3), side()]
    assert z["hands"] == [{}, {"Mushroom": 1, "Toad Rider": 1}]


def test_r8_smahl_thief_taking_a_protected_gub_returns_its_barricade_to_owner():
    game = table(hands=[{"Smahl Thief": 1}, {}], sides=[{}, {"protected": {"Velvet Moth": 1}}])
    act(game, "Smahl Thief → seat 1: a Gub under Velvet Moth")
    z = zones(game)
    assert z["hands"] == [{"Gub": 1}, {"Velvet Moth": 1}]
    assert z["sides"] == [side(), side()]


def test_r8_cyclone_discards_barricades():
    game = table(hands=[{"Cyclone": 1}, {}], sides=[{}, {"protected": {"Mushroom": 1, "Velvet Moth": 1}}])
    act(game, "Cyclone → seat 1")
    z = zones(game)
    assert z["sides"][1] == side(free=2)
    assert z["hands"] == [{}, {}]
    assert z["discard"] == {"Cyclone": 1, "Mushroom": 1, "Velvet Moth": 1}


# --- R9 Smahl Thief ------------------------------------------------------------------------------


def thief_table():
    return table(
        hands=[{"Smahl Thief": 1}, {}],
        sides=[
            {"free": 1},
            {"free": 1, "elder": True, "protected": {"Mushroom": 1}, "spouted": 1, "rings": ["Single Ring"]},
        ],
    )


def test_r9_smahl_thief_targets():
    assert targets_of(thief_table(), "Smahl Thief") == [
        "Smahl Thief → seat 1: a Free Gub",
        "Smahl Thief → seat 1: a Gub under Mushroom",
        "Smahl Thief → seat 1: the Mushroom alone",
        "Smahl Thief → seat 1: a Sud Spout alone",
        "Smahl Thief → seat 1: a Gub under a Sud Spout",
    ]  # never the Elder, a Ring or a Gub in a Ring, nor the own side


@pytest.mark.parametrize(
    ("part", "thief_hand", "victim_hand", "victim_side", "discard"),
    [
        ("a Free Gub", {"Gub": 1}, {}, dict(free=0, protected={"Mushroom": 1}, spouted=1), {}),
        ("a Gub under Mushroom", {"Gub": 1}, {"Mushroom": 1}, dict(free=1, spouted=1), {}),
        ("the Mushroom alone", {"Mushroom": 1}, {}, dict(free=2, spouted=1), {}),
        ("a Sud Spout alone", {"Sud Spout": 1}, {}, dict(free=2, protected={"Mushroom": 1}), {}),
        (
            "a Gub under a Sud Spout",
            {"Gub": 1},
            {},
            dict(free=1, protected={"Mushroom": 1}),
            {"Sud Spout": 1},
        ),
    ],
)
def test_r9_smahl_thief_effects(part, thief_hand, victim_hand, victim_side, discard):
    game = thief_table()
    act(game, f"Smahl Thief → seat 1: {part}")
    z = zones(game)
    assert z["hands"] == [thief_hand, victim_hand]
    assert z["sides"][1] == side(elder=True, rings=["Single Ring"], **victim_side)
    assert z["discard"] == {"Smahl Thief": 1, **discard}


# --- R10 Spear -----------------------------------------------------------------------------------


def test_r10_spear_kills_only_free_gubs_and_breaks_sud_spouts():
    game = table(
        num_players=4,
        hands=[{"Spear": 1}, {}, {}, {}],
        sides=[
            {"elder": True},
            {"protected": {"Mushroom": 1}, "rings": ["Double Ring"]},
            {"spouted": 1},
            {"free": 1},
        ],
    )
    assert targets_of(game, "Spear") == [
        "Spear → seat 3: kill a Free Gub",
        "Spear → seat 2: break a Sud Spout",
    ]


def test_r10_spear_breaking_a_sud_spout_frees_its_gub_in_place():
    game = table(hands=[{"Spear": 1}, {}], sides=[{}, {"spouted": 1}])
    act(game, "Spear → seat 1: break a Sud Spout")
    z = zones(game)
    assert z["sides"] == [side(), side(free=1)]
    assert z["discard"] == {"Spear": 1, "Sud Spout": 1}


# --- R11 Age-Old Cure ----------------------------------------------------------------------------


def test_r11_retrieval_in_own_play_phase_takes_a_gub():
    game = table(hands=[{"Age-Old Cure": 1}, {}], discard={"Gub": 2, "Esteemed Elder": 1})
    act(game, "Age-Old Cure: take a Gub from the discard pile")
    z = zones(game)
    assert z["hands"][0] == {"Gub": 1}
    assert z["discard"] == {"Gub": 1, "Esteemed Elder": 1, "Age-Old Cure": 1}


def test_r11_retrieval_never_takes_the_elder():
    game = table(hands=[{"Age-Old Cure": 1}, {}], discard={"Esteemed Elder": 1})
    assert legal_texts(game) == ["Go (end turn)"]


def test_r11_cure_holder_is_not_asked_in_others_windows():
    game = table(hands=[{"Lure": 1}, {"Age-Old Cure": 1}], sides=[{}, {"free": 1}], discard={"Gub": 1})
    act(game, "Lure → seat 1")
    assert_play_step(game)  # no answer for seat 1: Age-Old Cure is not an answer to a Hazard


def test_r11_plague_save_is_per_player():
    game = table(
        num_players=3,
        hands=[{"Age-Old Cure": 1, "Lure": 1}, {"Spear": 1}, {"Scout": 1}],
        deck_top=["Gargok Plague"],
        step="draw",
    )
    act(game, "Draw", "Age-Old Cure: keep the hand")
    assert zones(game)["hands"] == [{"Lure": 1}, {}, {}]


def test_r11_cricket_song_as_age_old_cure_in_both_uses():
    game = table(hands=[{"Cricket Song": 1}, {}], discard={"Gub": 1})
    act(game, "Cricket Song as Age-Old Cure: take a Gub from the discard pile")
    assert zones(game)["hands"][0] == {"Gub": 1}
    game = table(hands=[{"Lure": 1}, {"Cricket Song": 1, "Spear": 1}], deck_top=["Gargok Plague"], step="draw")
    act(game, "Draw", "Pass", "Cricket Song as Age-Old Cure: keep the hand")
    assert zones(game)["hands"] == [{}, {"Spear": 1}]


# --- R12 Rings -----------------------------------------------------------------------------------


def test_r12_ring_needs_enough_free_non_elder_gubs_in_play():
    game = table(
        num_players=3,
        hands=[{"Double Ring": 1, "Triple Ring": 1}, {}, {}],
        sides=[{"elder": True}, {"free": 1, "protected": {"Mushroom": 1}}, {"free": 1, "spouted": 1}],
    )
    assert targets_of(game, "Double Ring") == ["Double Ring: trap Free Gubs"]
    assert targets_of(game, "Triple Ring") == []


def test_r12_ring_picks_one_at_a_time_from_any_sides_and_sits_with_the_player():
    game = table(num_players=3, hands=[{"Triple Ring": 1}, {}, {}], sides=[{"free": 1}, {"free": 1}, {"free": 2}])
    act(game, "Triple Ring: trap Free Gubs")
    assert legal_texts(game) == [
        "Ring: take a Free Gub from seat 0",
        "Ring: take a Free Gub from seat 1",
        "Ring: take a Free Gub from seat 2",
    ]
    act(game, "Ring: take a Free Gub from seat 0")
    assert legal_texts(game) == ["Ring: take a Free Gub from seat 1", "Ring: take a Free Gub from seat 2"]
    act(game, "Ring: take a Free Gub from seat 2", "Ring: take a Free Gub from seat 2")
    assert zones(game)["sides"] == [side(rings=["Triple Ring"]), side(free=1), side()]
    assert game.scores() == [0, 1, 0]


@pytest.mark.parametrize("card", ["Lure", "Super Lure", "Spear", "Smahl Thief"])
def test_r12_rings_and_their_gubs_are_untouchable_by_hazards(card):
    game = table(hands=[{card: 1}, {}], sides=[{}, {"rings": ["Double Ring"]}])
    assert targets_of(game, card) == []


def test_r12_haki_flute_shatters_own_ring():
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{"rings": ["Single Ring"]}, {"rings": ["Double Ring"]}])
    assert targets_of(game, "Haki Flute") == ["Haki Flute → Single Ring", "Haki Flute → Double Ring"]
    act(game, "Haki Flute → Single Ring")
    z = zones(game)
    assert z["sides"] == [side(free=1), side(rings=["Double Ring"])]
    assert z["discard"] == {"Haki Flute": 1, "Single Ring": 1}


def test_r12_haki_flute_brings_an_opponents_ring_gubs_to_the_player():
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{}, {"free": 1, "rings": ["Double Ring"]}])
    act(game, "Haki Flute → Double Ring")
    assert zones(game)["sides"] == [side(free=2), side(free=1)]


# --- R13 Retreat ---------------------------------------------------------------------------------


def retreat_table():
    return table(
        hands=[{"Retreat": 1}, {}],
        sides=[
            {"free": 1, "elder": True, "protected": {"Mushroom": 1}, "spouted": 1, "rings": ["Single Ring"]},
            {"free": 1},
        ],
    )


def test_r13_retreat_parts_exclude_the_elder_and_need_one_take_before_done():
    game = retreat_table()
    act(game, "Retreat: retreat")
    assert legal_texts(game) == [
        "Retreat: take a Free Gub",
        "Retreat: take a Gub under Mushroom",
        "Retreat: take the Mushroom alone",
        "Retreat: take a Sud Spout alone",
        "Retreat: take the Single Ring",
    ]
    act(game, "Retreat: take a Free Gub")
    assert "Retreat: done" in legal_texts(game)


def test_r13_retreat_takes_cards_one_at_a_time():
    game = retreat_table()
    act(
        game,
        "Retreat: retreat",
        "Retreat: take the Mushroom alone",
        "Retreat: take a Sud Spout alone",
        "Retreat: take the Single Ring",
        "Retreat: done",
    )
    z = zones(game)
    assert z["sides"][0] == side(free=4, elder=True)  # each Gub left behind is Free
    assert z["hands"][0] == {"Mushroom": 1, "Sud Spout": 1, "Single Ring": 1}
    assert z["discard"] == {"Retreat": 1}
    assert_play_step(game)


def test_r13_retreat_protected_gub_goes_with_its_barricade():
    game = retreat_table()
    act(game, "Retreat: retreat", "Retreat: take a Gub under Mushroom", "Retreat: done")
    z = zones(game)
    assert z["hands"][0] == {"Gub": 1, "Mushroom": 1}
    assert z["sides"][0] == side(free=1, elder=True, spouted=1, rings=["Single Ring"])


def test_r13_retreat_not_playable_with_only_the_elder():
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"elder": True}, {}])
    assert legal_texts(game) == ["Go (end turn)"]


# --- R14 hand limit ------------------------------------------------------------------------------


def test_r14_retreat_over_the_limit_does_not_discard_until_end_of_turn():
    game = table(hands=[{"Retreat": 1, "Lure": 7}, {}], sides=[{"free": 3}, {}])
    act(
        game,
        "Retreat: retreat",
        "Retreat: take a Free Gub",
        "Retreat: take a Free Gub",
        "Retreat: take a Free Gub",
        "Retreat: done",
    )
    assert_play_step(game)
    assert sum(zones(game)["hands"][0].values()) == 10
    act(game, "Go (end turn)")
    assert game.pending.step is Step.DISCARD and game.current_player == 0
    act(game, "Discard Gub", "Discard Lure")
    assert game.current_player == 1 and game.pending.step is Step.DRAW
    assert sum(zones(game)["hands"][0].values()) == 8


def test_r14_eight_cards_no_discard():
    game = table(hands=[{"Lure": 7, "Gub": 1}, {}])
    act(game, "Go (end turn)")
    assert game.current_player == 1 and game.pending.step is Step.DRAW


# --- R15 random insertion into the deck ----------------------------------------------------------


def test_r15_flash_flood_inserts_at_random_positions_keeping_the_rest_in_order():
    positions = set()
    for seed in range(30):
        game = table(
            sides=[{"free": 1}, {}],
            deck_top=["Flash Flood", "Lure", "Spear", "Scout"],
            step="draw",
            seed=seed,
        )
        rest = [c for c in zones(game)["deck"][1:]]
        act(game, "Draw")
        deck = zones(game)["deck"]
        assert len(deck) == len(rest) + 1
        # removing one Gub somewhere gives back the old order
        assert any(deck[:i] + deck[i + 1 :] == rest for i, c in enumerate(deck) if c == "Gub")
        positions.add(min(i for i, c in enumerate(deck) if deck[:i] + deck[i + 1 :] == rest))
    assert len(positions) > 10  # not a fixed place


def test_r15_rumor_of_wasps_and_plague_put_cards_back_into_the_deck():
    game = table(
        hands=[{"Lure": 1}, {}],
        sides=[{"protected": {"Toad Rider": 1}}, {}],
        deck_top=["Rumor of Wasps", "Gargok Plague"],
        step="draw",
    )
    size = len(zones(game)["deck"])
    act(game, "Draw", "Go (end turn)", "Draw")
    z = zones(game)
    assert len(z["deck"]) == size - 2 + 2 + 1
    assert z["hands"] == [{}, {}]
    assert z["discard"] == {"Rumor of Wasps": 1, "Gargok Plague": 1}


# --- R16 Dangerous Alchemy -----------------------------------------------------------------------


def test_r16_dangerous_alchemy_spares_only_the_elder():
    game = table(
        hands=[{}, {}],
        sides=[
            {
                "free": 1,
                "elder": True,
                "protected": {"Toad Rider": 1},
                "spouted": 1,
                "rings": ["Triple Ring"],
            },
            {"free": 2},
        ],
        deck_top=["Dangerous Alchemy"],
        step="draw",
    )
    act(game, "Draw")
    z = zones(game)
    assert z["sides"] == [side(elder=True), side(free=2)]
    assert z["discard"] == {
        "Gub": 6,
        "Toad Rider": 1,
        "Sud Spout": 1,
        "Triple Ring": 1,
        "Dangerous Alchemy": 1,
    }


# --- R17 Super Lure ------------------------------------------------------------------------------


def test_r17_super_lure_moves_free_and_protected_only():
    game = table(
        hands=[{"Super Lure": 1}, {}],
        sides=[
            {},
            {
                "free": 1,
                "elder": True,
                "protected": {"Velvet Moth": 1},
                "spouted": 1,
                "rings": ["Single Ring"],
            },
        ],
    )
    act(game, "Super Lure → seat 1")
    z = zones(game)
    assert z["sides"] == [side(free=2), side(elder=True, spouted=1, rings=["Single Ring"])]
    assert z["hands"] == [{}, {"Velvet Moth": 1}]


def test_r17_super_lure_not_playable_against_trapped_gubs_and_elder_only():
    game = table(hands=[{"Super Lure": 1}, {}], sides=[{}, {"elder": True, "spouted": 1, "rings": ["Single Ring"]}])
    assert legal_texts(game) == ["Go (end turn)"]


# --- R18 Lightning -------------------------------------------------------------------------------


def test_r18_lightning_elder_use_on_any_side_hand_use_on_opponents_only():
    game = table(num_players=3, hands=[{"Lightning": 1, "Lure": 1}, {"Gub": 1}, {}], sides=[{}, {}, {"elder": True}])
    assert targets_of(game, "Lightning") == [
        "Lightning: strike the Esteemed Elder",
        "Lightning → seat 1: strike a hand",
    ]


def test_r18_lightning_hand_use_discards_whole_hand():
    game = table(hands=[{"Lightning": 1}, {"Gub": 2, "Feather": 1}])
    act(game, "Lightning → seat 1: strike a hand", "Pass")
    z = zones(game)
    assert z["hands"] == [{}, {}]
    assert z["discard"] == {"Lightning": 1, "Gub": 2, "Feather": 1}


# --- R19 Traveling Merchant ----------------------------------------------------------------------


def test_r19_traveling_merchant_passes_to_previous_seat():
    game = table(
        num_players=3,
        turn_player=2,
        hands=[{"Lure": 1, "Spear": 1}, {"Scout": 1}, {"Gub": 2}],
        deck_top=["Traveling Merchant"],
        step="draw",
    )
    act(game, "Draw")
    assert game.current_player == 2  # the drawer chooses first
    act(game, "Keep Gub")
    assert game.current_player == 0  # seat 1 has one card: not asked
    act(game, "Keep Spear")
    z = zones(game)
    # seat 0 → seat 2, seat 1 keeps its only card, seat 2 → seat 1
    assert z["hands"] == [{"Spear": 1}, {"Scout": 1, "Gub": 1}, {"Gub": 1, "Lure": 1}]


def test_r19_player_with_no_cards_only_receives():
    game = table(hands=[{}, {"Lure": 2, "Spear": 1}], deck_top=["Traveling Merchant"], step="draw")
    act(game, "Draw", "Keep Spear")
    assert zones(game)["hands"] == [{"Lure": 2}, {"Spear": 1}]


# --- R20 Flop Boat -------------------------------------------------------------------------------


def test_r20_flopped_event_goes_back_at_a_random_position():
    positions = set()
    for seed in range(30):
        game = table(hands=[{"Flop Boat": 1}, {}], deck_top=["Dangerous Alchemy"], step="draw", seed=seed)
        act(game, "Draw", "Flop Boat: flop the Event")  # the drawer flops their own draw
        deck = zones(game)["deck"]
        positions.add(deck.index("Dangerous Alchemy"))
        assert zones(game)["discard"] == {"Flop Boat": 1}
    assert len(positions) > 10


# --- R21 Cricket Song ----------------------------------------------------------------------------


def test_r21_cricket_song_as_tool_only_in_own_play_phase():
    game = table(
        hands=[{"Lure": 1}, {"Cricket Song": 1}],
        sides=[{"rings": ["Single Ring"]}, {"free": 1, "spouted": 1}],
    )
    act(game, "Lure → seat 1")
    assert legal_texts(game) == [
        "Pass",
        "Cricket Song as Feather: cancel it",
        "Cricket Song as Blindfold: cancel it",
    ]


def test_r21_cricket_song_as_tool_in_own_play_phase():
    game = table(hands=[{"Cricket Song": 1}, {}], sides=[{}, {"rings": ["Single Ring"]}])
    act(game, "Cricket Song as Haki Flute → Single Ring")
    assert zones(game)["sides"] == [side(free=1), side()]
    assert zones(game)["discard"] == {"Cricket Song": 1, "Single Ring": 1}


@pytest.mark.parametrize("kind", ["Gub", "Mushroom", "Sud Spout", "Double Ring", "Flash Flood"])
def test_r21_cricket_song_never_as_gub_barricade_trap_or_event(kind):
    game = table(hands=[{"Cricket Song": 1}, {}], sides=[{"free": 3}, {"free": 1}])
    assert not any(t.startswith(f"Cricket Song as {kind}") for t in legal_texts(game))


def test_r21_cricket_song_as_interrupt_in_every_window():
    game = table(hands=[{}, {"Cricket Song": 1}], deck_top=["Letter G"], step="draw")
    act(game, "Draw")
    assert legal_texts(game) == ["Pass", "Cricket Song as Flop Boat: flop the Event"]


# --- R22 Scout -----------------------------------------------------------------------------------


def test_r22_scout_reorders_the_top_three():
    game = table(hands=[{"Scout": 1}, {}], deck_top=["Lure", "Spear", "Feather", "Gub"])
    act(game, "Scout: look at the deck")
    assert game.pending.step is Step.SCOUT
    assert legal_texts(game) == ["Scout: put Lure next", "Scout: put Spear next", "Scout: put Feather next"]
    act(game, "Scout: put Feather next", "Scout: put Lure next")
    assert zones(game)["deck"][:4] == ["Feather", "Lure", "Spear", "Gub"]
    assert_play_step(game)


def small_deck_table(deck_top):
    """Seat 0 holds a Scout, two Letters are out, everything else but ``deck_top`` is discarded."""
    keep = Counter(deck_top) + Counter({"Scout": 1, "Letter G": 1, "Letter U": 1})
    discard = {c.name: c.copies - keep[c.name] for c in CARDS if c.copies - keep[c.name] > 0}
    return table(hands=[{"Scout": 1}, {}], deck_top=deck_top, discard=discard, letters=["Letter G", "Letter U"])


def test_r22_scout_with_two_cards_orders_both():
    game = small_deck_table(["Letter B", "Lure"])
    act(game, "Scout: look at the deck")
    assert legal_texts(game) == ["Scout: put Lure next", "Scout: put Letter B next"]
    act(game, "Scout: put Lure next")
    assert zones(game)["deck"] == ["Lure", "Letter B"]
    assert_play_step(game)


def test_r22_scout_with_one_card_needs_no_choice():
    game = small_deck_table(["Letter B"])
    act(game, "Scout: look at the deck")
    assert_play_step(game)
    assert zones(game)["deck"] == ["Letter B"]
    assert zones(game)["discard"]["Scout"] == 1


# --- R23 turn limit ------------------------------------------------------------------------------


def play_out(game, rng):
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    return game


def test_r23_max_turns_truncates_the_game():
    game = Game(2, seed=0, max_turns=3)
    for _ in range(2):  # two full turns: not yet
        while game.pending.step is not Step.PLAY:
            game.apply(game.legal_actions()[0])
        act(game, "Go (end turn)")
        while game.pending.step is Step.DISCARD:
            game.apply(game.legal_actions()[0])
        assert not game.is_over
    while game.pending.step is not Step.PLAY and not game.is_over:
        game.apply(game.legal_actions()[0])
    if not game.is_over:
        act(game, "Go (end turn)")
    assert game.is_over
    assert game.truncated
    assert game.winners() == []
    assert game.current_player is None
    assert game.legal_actions() == ()


def test_r23_random_games_practically_never_truncate():
    rng = np.random.default_rng(0)
    games = [play_out(Game(n, seed=s, record_log=False), rng) for n in (2, 4, 6) for s in range(10)]
    assert sum(g.truncated for g in games) == 0
    assert all(g.winners() for g in games)
