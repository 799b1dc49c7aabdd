"""The public Game API: creation, bad input, illegal actions, logs and rendering."""

import copy
import json
import random

import numpy as np
import pytest

from gubs_env.engine import Action, Game, IllegalActionError, Kind, Op, Step, Use, make, play
from tests.helpers import act, legal_texts, table


@pytest.mark.parametrize("num_players", [0, 1, 7, -2, 2.0, "2", None, True])
def test_bad_player_counts_are_rejected(num_players):
    with pytest.raises(ValueError, match="num_players"):
        Game(num_players)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seeds_are_rejected(seed):
    with pytest.raises(ValueError, match="seed"):
        Game(2, seed=seed)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"letter_placement": "random"}, "letter_placement"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": "many"}, "max_turns"),
        ({"max_turn": 10}, "unknown rule option"),
    ],
)
def test_bad_rule_options_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        Game(2, seed=0, **options)


def test_numpy_integers_are_accepted():
    game = Game(np.int64(3), seed=np.uint32(5))
    assert game.num_players == 3


def test_a_new_game_is_set_up_per_rules():
    game = Game(4, seed=3)
    d = game.to_dict()
    assert [s["free"] for s in d["sides"]] == [1, 1, 1, 1]
    assert all(sum(h.values()) == 3 for h in d["hands"])
    assert len(d["deck"]) == 70 - 4 - 12
    assert game.current_player == 0 and game.pending.step is Step.DRAW


def test_illegal_actions_raise_and_change_nothing():
    game = table(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    before = game.to_dict()
    bad = [
        play(Kind.LURE, Use.LURE, seat=0),  # own side (R4)
        play(Kind.SUPER_LURE, Use.SUPER_LURE, seat=1),  # not in hand
        make(Op.DRAW),  # wrong step
        make(Op.PASS),
        "Lure → seat 5",
        42,
        None,
        ("Lure", 1),
    ]
    for action in bad:
        with pytest.raises(IllegalActionError):
            game.apply(action)
        assert game.to_dict() == before
    assert isinstance(IllegalActionError("x"), ValueError)


def test_the_error_says_why():
    game = table(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    with pytest.raises(IllegalActionError, match=r"not legal: seat 0 must decide a play step.*Lure → seat 1"):
        game.apply(play(Kind.LURE, Use.LURE, seat=0))
    with pytest.raises(IllegalActionError, match="expected an Action"):
        game.apply(3)


def test_acting_after_the_end_is_an_error():
    game = table(step="draw", letters=["Letter G", "Letter U"], deck_top=["Letter B"])
    act(game, "Draw")
    assert game.is_over and game.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(make(Op.END_TURN))


def test_actions_are_hashable_readable_and_equal_by_value():
    a = play(Kind.LURE, Use.LURE, seat=2)
    assert str(a) == "Lure → seat 2"
    assert a == Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 2)
    assert {a: 1}[Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 2)] == 1
    assert str(play(Kind.CRICKET_SONG, Use.LURE, seat=1, as_kind=Kind.LURE)) == "Cricket Song as Lure → seat 1"


def test_legal_action_texts_are_unique_in_random_games():
    for seed in range(60):
        game = Game(2 + seed % 5, seed=seed, record_log=False)
        rng = random.Random(seed)
        while not game.is_over:
            texts = legal_texts(game)
            assert len(set(texts)) == len(texts)
            game.apply(rng.choice(game.legal_actions()))


def test_private_facts_are_seen_only_by_their_owner():
    game = table(step="draw", hands=[{}, {}], deck_top=["Lure"])
    entry = game.apply("Draw")
    assert "you draw Lure" in entry.view(0)
    assert all("Lure" not in line for line in entry.view(1))
    assert all("Lure" not in line for line in entry.view(None))
    assert game.log[-1] is entry


def test_log_can_be_switched_off():
    game = Game(2, seed=0, record_log=False)
    game.apply(game.legal_actions()[0])
    assert game.log == []


def test_render_shows_own_hand_but_not_others():
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 2, "elder": True}, {"free": 1}])
    mine, theirs = game.render(0), game.render(1)
    assert "Your hand: Lure" in mine and "Feather" not in mine
    assert "Your hand: Feather" in theirs and "Lure" not in theirs.split("Your hand")[1]
    assert "Esteemed Elder" in mine and "score 3" in mine
    assert "Waiting for seat 0: play" in mine


def test_clone_is_independent():
    game = Game(3, seed=4)
    other = game.clone()
    other.apply(other.legal_actions()[0])
    assert game.to_dict() != other.to_dict()
    assert game.state.turn == 1 and game.log == []


def test_history_lines_name_turn_actor_and_action():
    game = Game(2, seed=1)
    game.apply("Decline to draw")
    assert game.history()[0].startswith("[turn 1] seat 0: Decline to draw")


def test_apply_by_unknown_text_lists_the_legal_texts():
    game = Game(2, seed=1)
    with pytest.raises(IllegalActionError, match="Decline to draw"):
        game.apply("Fly away")


def test_deepcopy_also_works():
    game = Game(2, seed=1)
    other = copy.deepcopy(game)
    assert other.to_dict() == game.to_dict()


def test_log_names_the_card_played_in_words():
    game = table(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    entry = game.apply("Lure → seat 1")
    assert entry.view(None)[0] == "seat 0 plays Lure → seat 1"


def test_history_hides_choices_only_their_maker_saw():
    import random

    from gubs_env.engine import Op

    for seed in range(200):
        game, pick = Game(3, seed=seed), random.Random(seed)
        while not game.is_over:
            entry = game.apply(pick.choice(game.legal_actions()))
            if entry.action.op in (Op.KEEP, Op.PLACE):
                secret = str(entry.action)
                assert secret in game.history(entry.actor)[-1]
                assert secret not in game.history(None)[-1]
                assert secret not in game.history((entry.actor + 1) % 3)[-1]
                return
    raise AssertionError("no Merchant keep or Scout placement in 200 random games")


# --- actions must be exactly what they claim (issue 11) ----------------------------------------------


def lure_table():
    return table(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 1}])


class LookAlike(tuple):
    """A tuple that compares equal to a legal action but is not an Action."""


@pytest.mark.parametrize(
    ("look_alike", "message"),
    [
        (Action(1), "op is 1"),  # equal to Decline (a NamedTuple compares by value); it drew instead
        (Action(Op.DECLINE.value), "op is 1"),
        (Action(np.int64(1)), "op is a value of type int64"),
        (LookAlike(make(Op.DECLINE)), "expected an Action"),
        (tuple(make(Op.DECLINE)), "expected an Action"),
    ],
)
def test_a_look_alike_of_a_legal_action_is_refused(look_alike, message):
    game = table(step="draw")
    before = game.to_dict()
    assert look_alike == make(Op.DECLINE)
    assert not game.is_legal(look_alike)
    with pytest.raises(IllegalActionError, match=message):
        game.apply(look_alike)
    assert game.to_dict() == before and game.log == []


@pytest.mark.parametrize(
    "seat",
    [1.0, np.int64(1), np.float64(1.0), True, "1", 10**5000, -(2**70)],
    ids=["float", "int64", "float64", "bool", "str", "huge", "negative"],
)
def test_an_action_with_a_seat_of_the_wrong_type_is_refused_before_anything_moves(seat):
    game = lure_table()
    before = game.to_dict()
    bad = Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, seat)
    with pytest.raises(IllegalActionError, match="wrong type") as info:
        game.apply(bad)
    assert len(str(info.value)) < 300
    assert game.to_dict() == before  # the Lure is still in the hand: 70 cards
    assert sum(game.state.card_counts()) == 70
    assert Game.from_dict(game.to_dict()).to_dict() == before  # and the saved game still loads


def test_an_action_built_with_the_engines_types_is_accepted_as_the_engines_own():
    game = lure_table()
    entry = game.apply(Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 1))  # not the interned object
    assert entry.action is make(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 1)
    json.dumps(game.to_dict())


def test_only_a_plain_string_naming_a_legal_action_is_accepted():
    class Text(str):
        pass

    game = lure_table()
    before = game.to_dict()
    for text in [Text("Lure → seat 1"), "Lure → seat 2", "Lure", "x" * 100_000]:
        with pytest.raises(IllegalActionError) as info:
            game.apply(text)
        assert len(str(info.value)) < 400
        assert game.to_dict() == before
    for text in ["lure → seat 1", " LURE->SEAT 1. ", "1"]:  # the action notation: case and spacing forgiven
        assert game.clone().apply(text).action is play(Kind.LURE, Use.LURE, seat=1)
    assert game.apply("Lure → seat 1").action is play(Kind.LURE, Use.LURE, seat=1)


def test_a_state_stays_json_after_refused_numpy_seats():
    game = table(hands=[{"Single Ring": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Single Ring: trap Free Gubs")
    with pytest.raises(IllegalActionError):
        game.apply(Action(Op.PICK, seat=np.int64(1)))  # was stored in the Ring's picks

    game.apply(make(Op.PICK, seat=1))
    json.dumps(game.to_dict())


def test_is_legal_agrees_with_apply():
    game = lure_table()
    assert game.is_legal(play(Kind.LURE, Use.LURE, seat=1))
    assert game.is_legal(Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 1))
    for bad in (Action(Op.PLAY, Kind.LURE, Kind.LURE, Use.LURE, 1.0), "Lure → seat 1", None, 3):
        assert not game.is_legal(bad)


def test_make_never_shares_an_action_with_look_alike_fields():
    for seat in (np.int64(4), 4.0):
        make(Op.PICK, seat=seat)  # had it been interned first, legal_actions() would hand it out
        assert type(make(Op.PICK, seat=4).seat) is int
    assert make(Op.PICK, seat=np.int64(40)) is not make(Op.PICK, seat=np.int64(40))


def test_the_turn_limit_is_bounded_so_every_game_saves_and_loads():
    from gubs_env.engine.options import MAX_TURNS_LIMIT

    with pytest.raises(ValueError, match="max_turns"):
        Game(2, seed=0, max_turns=MAX_TURNS_LIMIT + 1)
    game = Game(2, seed=0, max_turns=MAX_TURNS_LIMIT)
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
