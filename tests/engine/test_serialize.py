"""Saving and loading positions: round trips, and corrupt dicts rejected with a clear error."""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gubs_env.engine import Action, Game, IllegalActionError, InvalidStateError, Op, Part, Use, action_from_dict
from gubs_env.engine.cards import Kind
from gubs_env.engine.positions import position
from gubs_env.engine.positions.serialize import action_to_dict, brief


def mid_game(num_players=3, seed=5, steps=60) -> Game:
    game = Game(num_players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_state_dict_is_json_and_round_trips():
    game = mid_game()
    text = json.dumps(game.to_dict())
    assert Game.from_dict(json.loads(text)).to_dict() == game.to_dict()


def test_every_step_kind_round_trips():
    seen = set()
    for seed in range(80):
        game = Game(2 + seed % 5, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            d = game.to_dict()
            seen.add(d["pending"]["step"])
            assert Game.from_dict(d).legal_actions() == game.legal_actions()
            game.apply(rng.choice(game.legal_actions()))
        seen.add(game.to_dict()["pending"]["step"])
    assert seen == {"draw", "play", "discard", "cancel", "flop", "cure", "keep", "ring", "retreat", "scout", "over"}


def corrupt(mutate):
    d = mid_game().to_dict()
    mutate(d)
    return d


CORRUPTIONS = {
    "not a dict": lambda d: d.clear() or d.update({"x": 1}),
    "missing key": lambda d: d.pop("deck"),
    "unknown key": lambda d: d.update({"extra": 1}),
    "wrong version": lambda d: d.update({"version": 99}),
    "too many players": lambda d: d.update({"num_players": 7}),
    "card lost": lambda d: d["deck"].pop(),
    "card duplicated": lambda d: d["deck"].append("Lure"),
    "unknown card": lambda d: d["deck"].__setitem__(0, "Dragon"),
    "card name not a string": lambda d: d["deck"].__setitem__(0, 3),
    "negative count": lambda d: d["discard"].update({"Gub": -1}),
    "bool count": lambda d: d["hands"][0].update({"Lure": True}),
    "hands of wrong length": lambda d: d["hands"].pop(),
    "side missing free": lambda d: d["sides"][0].pop("free"),
    "ring named twice": lambda d: d["sides"][0].update({"rings": ["Single Ring", "Single Ring"]}),
    "barricade not a barricade": lambda d: d["sides"][0].update({"protected": {"Lure": 1}}),
    "event in a hand": lambda d: (
        (d["deck"].remove("Flash Flood"), d["hands"][0].update({"Flash Flood": 1}))
        if "Flash Flood" in d["deck"]
        else d["hands"][0].update({"Flash Flood": 1})
    ),
    "unknown step": lambda d: d["pending"].update({"step": "dance"}),
    "actor out of range": lambda d: d["pending"].update({"actor": 9}),
    "bad rng": lambda d: d.update({"rng": {"bit_generator": "Nope"}}),
    "rng not a dict": lambda d: d.update({"rng": 5}),
    "bad option": lambda d: d["options"].update({"letter_placement": "middle"}),
    "declined wrong length": lambda d: d["turn"].update({"declined": [True]}),
    "turn player out of range": lambda d: d["turn"].update({"player": -1}),
    "over without letters": lambda d: d["pending"].update({"step": "over", "actor": -1}),
    "play step with a stray play": lambda d: d["pending"].update(
        {"play": {"op": "play", "card": "Lure", "as_kind": "Lure", "use": "lure", "seat": 1}}
    ),
    "seen hand of unknown seat": lambda d: d["seen"][0].update({"hand": {"seat": 8, "cards": {}}}),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_dicts_are_rejected_clearly(name):
    d = corrupt(CORRUPTIONS[name])
    snapshot = copy.deepcopy(d)
    with pytest.raises(InvalidStateError, match="invalid state"):
        Game.from_dict(d)
    assert d == snapshot  # loading never changes its input


@pytest.mark.parametrize("bad", [None, [], "state", 3])
def test_non_dicts_are_rejected(bad):
    with pytest.raises(InvalidStateError):
        Game.from_dict(bad)


def test_invalid_state_error_is_a_value_error():
    assert issubclass(InvalidStateError, ValueError)


def test_position_builder_rejects_too_many_copies():
    with pytest.raises(InvalidStateError, match="Cyclone"):
        position(hands=[{"Cyclone": 2}, {}])


def test_position_builder_fills_the_deck_below_the_given_top():
    d = position(deck_top=["Letter B", "Lure"], sides=[{"free": 1}, {"free": 1}])
    assert d["deck"][:2] == ["Letter B", "Lure"]
    assert len(d["deck"]) == 68


@pytest.mark.parametrize(
    "action",
    [
        Action(Op.PLAY, Kind.SMAHL_THIEF, Kind.SMAHL_THIEF, Use.STEAL, 1, Part.PROTECTED_GUB, Kind.MUSHROOM),
        Action(Op.KEEP, detail=Kind.LURE),
        Action(Op.DRAW),
    ],
)
def test_actions_round_trip_through_dicts(action):
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"op": "fly"},
        {"op": "play", "seat": "one"},
        {"op": "keep", "detail": "X"},
        {"op": "draw", "colour": 1},
        "draw",
    ],
)
def test_bad_action_dicts_are_rejected(bad):
    with pytest.raises(InvalidStateError):
        action_from_dict(bad)


fields = st.builds(
    Action,
    op=st.sampled_from(list(Op)),
    card=st.none() | st.sampled_from(list(Kind)),
    as_kind=st.none() | st.sampled_from(list(Kind)),
    use=st.none() | st.sampled_from(list(Use)),
    seat=st.none() | st.integers(-1, 6),
    part=st.none() | st.sampled_from(list(Part)),
    detail=st.none() | st.sampled_from(list(Kind)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 120), action=fields)
def test_illegal_input_never_changes_the_state(seed, steps, action):
    game = mid_game(num_players=2 + seed % 5, seed=seed, steps=0)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    before = game.to_dict()
    if game.is_legal(action):
        game.apply(action)
        assert game.state.card_counts() == [s.copies for s in __import__("gubs_env").CARDS]
    else:
        with pytest.raises(IllegalActionError):
            game.apply(action)
        assert game.to_dict() == before


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"op": "pick", "seat": 6}, "action.seat"),
        ({"op": "pick", "seat": -1}, "action.seat"),
        ({"op": "pick", "seat": 1.0}, "action.seat"),
        ({"op": "pick", "seat": True}, "action.seat"),
        ({"op": "pick", "seat": 10**5000}, "action.seat"),
        ({"op": ["draw"]}, "action.op"),
        ({"op": "draw", 1: 2}, "an action is a dict"),
        ({"op": "play", "card": "Lure" * 1000}, "action.card"),
    ],
    ids=["seat 6", "seat -1", "float seat", "bool seat", "huge seat", "list op", "int key", "long name"],
)
def test_action_dicts_are_checked_field_by_field(bad, field):
    with pytest.raises(InvalidStateError, match=field) as info:
        action_from_dict(bad)
    assert len(str(info.value)) < 300


def test_actions_read_from_dicts_have_the_engines_field_types():
    action = action_from_dict({"op": "play", "card": "Lure", "as_kind": "Lure", "use": "lure", "seat": 1})
    assert [type(v) for v in action] == [Op, Kind, Kind, Use, int, type(None), type(None)]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "None"),
        (3, "3"),
        (2**70, "an int of 71 bits"),
        ("x" * 100, "'" + "x" * 40 + "'…"),
        ([[[]]], "a value of type list"),
        (1.5, "1.5"),
    ],
    ids=["none", "int", "huge int", "long str", "list", "float"],
)
def test_error_messages_describe_untrusted_values_briefly(value, text):
    assert brief(value) == text


def test_hand_written_dicts_with_only_the_documented_keys_load():
    d = mid_game().to_dict()
    d["options"] = {"letter_placement": "thirds", "max_turns": 2000}
    Game.from_dict(d)
    d["options"] = {"max_turns": 2000}  # every option is written out: no silent default
    with pytest.raises(InvalidStateError, match="options"):
        Game.from_dict(d)
