"""Hostile saved positions: each bad field is refused with InvalidStateError naming it, and nothing changes.

One test per case of project issue 11: random-generator states, generator names, pending decisions that
disagree with the table, and values that used to raise other errors (TypeError, RecursionError, OverflowError,
plain ValueError, NotImplementedError) or to hang.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from gubs_env.engine import Game, GameState, InvalidStateError, make
from gubs_env.engine.actions import Op
from gubs_env.engine.positions.serialize import state_to_dict
from tests.helpers import act, table

MAX_MESSAGE = 400
"""Error messages stay short whatever the input (no value is printed whole)."""


def refused(d: Any, field: str) -> str:
    """Assert that loading ``d`` raises InvalidStateError naming ``field``, without side effects."""
    snapshot = copy.deepcopy(d)
    global_rng = np.random.get_state()
    with pytest.raises(InvalidStateError) as info:
        Game.from_dict(d)
    message = str(info.value)
    assert field in message, message
    assert len(message) < MAX_MESSAGE, message
    assert d == snapshot  # the input is only read
    after = np.random.get_state()
    assert after[0] == global_rng[0] and np.array_equal(after[1], global_rng[1]) and after[2:] == global_rng[2:]
    return message


def edited(game: Game, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """The game's dict with one change applied (the game itself is left alone)."""
    d = game.to_dict()
    change(d)
    return d


def fresh(num_players: int = 2, seed: int = 1) -> dict[str, Any]:
    return Game(num_players, seed=seed).to_dict()


def deeply_nested(depth: int = 100_000) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# --- the random generator ------------------------------------------------------------------------


def _load_and_shuffle(d: dict[str, Any], result: Any) -> None:
    """Child process: load, and if accepted draw from the generator (where a bad state spins forever)."""
    try:
        game = Game.from_dict(d)
    except InvalidStateError as err:
        result.put(("refused", str(err)))
        return
    game.state.rng.shuffle(list(range(60)))
    result.put(("accepted", ""))


def test_a_zero_pcg64_state_is_refused_without_hanging():
    d = fresh()
    d["rng"] = {"bit_generator": "PCG64", "state": {"state": 0, "inc": 0}, "has_uint32": 0, "uinteger": 0}
    refused(d, "rng.state.inc")
    # the hang happened in numpy's C code, deaf to signals: guard it in a child process we can kill
    ctx = multiprocessing.get_context("fork")
    result = ctx.Queue()
    child = ctx.Process(target=_load_and_shuffle, args=(d, result))
    child.start()
    child.join(20)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("loading a zero PCG64 state hung")
    assert result.get(timeout=5)[0] == "refused"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r["state"].update(inc=2), "rng.state.inc"),
        (lambda r: r["state"].update(inc=2**128 + 1), "rng.state.inc"),
        (lambda r: r["state"].update(state=-1), "rng.state.state"),
        (lambda r: r["state"].update(state=2**128), "rng.state.state"),
        (lambda r: r["state"].update(state="12"), "rng.state.state"),
        (lambda r: r["state"].update(extra=1), "rng.state"),
        (lambda r: r["state"].pop("inc"), "rng.state"),
        (lambda r: r.update(state=[1, 3]), "rng.state"),
        (lambda r: r.update(has_uint32=2), "rng.has_uint32"),
        (lambda r: r.update(has_uint32=True), "rng.has_uint32"),
        (lambda r: r.update(uinteger=2**32), "rng.uinteger"),
        (lambda r: r.update(uinteger=2**70), "rng.uinteger"),  # numpy raised OverflowError
        (lambda r: r.update(uinteger=-1), "rng.uinteger"),
        (lambda r: r.update(uinteger=1.0), "rng.uinteger"),
        (lambda r: r.pop("uinteger"), "rng"),
        (lambda r: r.update(seed=1), "rng"),
    ],
)
def test_every_field_of_the_generator_state_is_checked(change, field):
    d = fresh()
    change(d["rng"])
    refused(d, field)


@pytest.mark.parametrize(
    "name",
    ["test", "seed", "shuffle", "BitGenerator", "MT19937", "Philox", "SFC64", "pcg64", "__class__", "", 64, None],
)
def test_only_the_engines_generator_is_accepted_and_no_numpy_name_is_looked_up(name):
    d = fresh()
    d["rng"]["bit_generator"] = name  # "test" ran numpy's test suite, "seed" reseeded the global generator
    refused(d, "rng.bit_generator")


def test_a_saved_game_of_another_generator_is_refused_whole():
    d = fresh()
    other = np.random.Generator(np.random.MT19937(3)).bit_generator.state  # to_dict() was not JSON after it
    d["rng"] = json.loads(json.dumps(other, default=lambda array: array.tolist()))
    refused(d, "rng")


def test_a_valid_generator_state_is_restored_exactly():
    game = Game(3, seed=11)
    game.state.rng.integers(5)  # leaves half a 64-bit draw buffered: has_uint32 = 1
    restored = Game.from_dict(game.to_dict())
    assert restored.state.rng.bit_generator.state == game.state.rng.bit_generator.state
    assert restored.state.rng.integers(1 << 40) == game.state.rng.integers(1 << 40)


# --- pending decisions that disagree with the table -------------------------------------------------


def merchant_round() -> Game:
    """Seat 0 drew the Merchant and kept a Lure; seat 1 is asked next."""
    game = table(hands=[{"Lure": 1, "Spear": 1}, {"Mushroom": 2}], deck_top=["Traveling Merchant"], step="draw")
    act(game, "Draw", "Keep Lure")
    assert game.to_dict()["pending"]["marks"] == [9, -1]
    return game


@pytest.mark.parametrize(
    ("marks", "field"),
    [
        ([2, -1], "pending.marks[0]"),  # a Mushroom seat 0 does not hold: its hand went negative on resolving
        ([-1, -1], "pending.marks[0]"),  # seat 0 was asked already
        ([9, 2], "pending.marks[1]"),  # seat 1 has not chosen yet
        ([9], "pending.marks"),
        ([9, -1, -1], "pending.marks"),
        ([9, 40], "pending.marks[1]"),
        ([9, -2], "pending.marks[1]"),
    ],
)
def test_merchant_keep_marks_must_name_cards_the_seat_holds(marks, field):
    refused(edited(merchant_round(), lambda d: d["pending"].update(marks=marks)), field)


def ring_table(ring: str = "Triple Ring") -> Game:
    return table(hands=[{ring: 1}, {"Feather": 1}], sides=[{"free": 2}, {"free": 2}])


@pytest.mark.parametrize(
    ("picks", "field"),
    [
        ([0, 1, 1], "pending.picks"),  # as long as the Ring: it would have resolved already
        ([0, 1, 1, 0], "pending.picks"),
        ([0, 0, 0], "pending.picks"),
        ([2], "pending.picks"),
        ([-1], "pending.picks[0]"),
        ([True], "pending.picks[0]"),
    ],
)
def test_ring_picks_must_fit_the_ring_and_the_free_gubs(picks, field):
    game = ring_table()
    act(game, "Triple Ring: trap Free Gubs")
    refused(edited(game, lambda d: d["pending"].update(picks=picks)), field)


def test_a_ring_step_without_enough_free_gubs_is_refused():
    game = ring_table()
    act(game, "Triple Ring: trap Free Gubs")

    def fewer_gubs(d: dict[str, Any]) -> None:
        d["sides"][1]["free"] = 0
        d["discard"]["Gub"] = d["discard"].get("Gub", 0) + 2

    refused(edited(game, fewer_gubs), "Free Gubs")


@pytest.mark.parametrize("picks", [[0, 1], [0, 1, 1, 1], [], [0, 0, 0]])
def test_a_cancel_window_for_a_triple_ring_needs_exactly_its_three_picks(picks):
    game = ring_table()
    act(
        game,
        "Triple Ring: trap Free Gubs",
        *["Ring: take a Free Gub from seat 0"],
        *["Ring: take a Free Gub from seat 1"] * 2,
    )
    assert game.to_dict()["pending"]["step"] == "cancel"
    refused(edited(game, lambda d: d["pending"].update(picks=picks)), "pending.picks")


def cancel_window() -> Game:
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Lure → seat 1")
    assert game.to_dict()["pending"]["step"] == "cancel"
    return game


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(actor=5), "pending.actor"),
        (lambda p: p.update(actor=0), "pending.actor"),  # the player who played it is never asked
        (lambda p: p.update(actor=-1), "pending.actor"),
        (lambda p: p.update(actor=2**64), "pending.actor"),
        (lambda p: p.update(by=2), "pending.by"),
        (lambda p: p.update(by=1), "pending.by"),
        (lambda p: p.update(queue=[7]), "pending.queue[0]"),
        (lambda p: p.update(queue=[0]), "pending.queue"),
        (lambda p: p.update(queue=[1, 1]), "pending.queue"),
        (lambda p: p["play"].update(seat=6), "action.seat"),
        (lambda p: p["play"].update(seat=0), "pending.play"),  # a Lure never aims at its own side
        (lambda p: p["play"].update(seat=1.0), "action.seat"),
        (lambda p: p["play"].update(card="Feather"), "pending.play"),
        (lambda p: p["play"].pop("card"), "pending.play"),  # was a TypeError
        (lambda p: p.update(play={"op": "play"}), "pending.play"),
        (lambda p: p.update(play={"op": "draw"}), "pending.play"),
        (lambda p: p.update(play=None), "pending.play"),
        (lambda p: p.update(marks=[0, 0]), "pending.marks"),
    ],
)
def test_cancel_window_fields_must_agree_with_the_table(change, field):
    refused(edited(cancel_window(), lambda d: change(d["pending"])), field)


def test_a_cancel_window_asks_only_seats_that_can_cancel():
    def no_feather(d: dict[str, Any]) -> None:
        d["hands"][1] = {}
        d["discard"]["Feather"] = 1

    refused(edited(cancel_window(), no_feather), "pending.actor")


def retreat_step() -> Game:
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"free": 2, "protected": {"Mushroom": 1}}, {"free": 1}])
    act(game, "Retreat: retreat", "Retreat: take a Free Gub")
    return game


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(by=1), "pending.by"),  # took cards from the wrong side: negative counts
        (lambda p: p.update(actor=1), "pending.actor"),
        (lambda p: p.update(picks=[0, 0, 0]), "pending.picks"),  # more cards taken than the hand holds
        (lambda p: p.update(picks=[4]), "pending.picks"),  # a Gub under a Spout: never a Retreat part
        (lambda p: p.update(picks=[71]), "pending.picks[0]"),
        (lambda p: p.update(queue=[1]), "pending.queue"),
        (lambda p: p["play"].update(use="scout_deck", card="Scout", as_kind="Scout"), "pending.play"),
    ],
)
def test_retreat_fields_must_agree_with_the_table(change, field):
    refused(edited(retreat_step(), lambda d: change(d["pending"])), field)


def test_a_retreat_that_took_nothing_needs_something_to_take():
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Retreat: retreat")

    def empty_side(d: dict[str, Any]) -> None:
        d["sides"][0]["free"] = 0
        d["discard"]["Gub"] = 1

    refused(edited(game, empty_side), "no legal action")


def scout_step() -> Game:
    game = table(hands=[{"Scout": 1}, {}], deck_top=["Lure", "Spear", "Gub"])
    act(game, "Scout: look at the deck")
    assert game.to_dict()["pending"]["step"] == "scout"
    return game


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(cards=["Letter G", "Spear", "Gub"]), "pending.cards"),
        (lambda p: p.update(cards=["Lure", "Spear"]), "pending.cards"),
        (lambda p: p.update(cards=["Lure"], placed=["Spear", "Gub"]), "pending.cards"),
        (lambda p: p.update(cards=["Lure", "Spear", "Gub", "Gub"]), "pending.cards"),
        (lambda p: p.update(cards=[0, 1, 2]), "pending.cards"),
        (lambda p: p.update(marks=[1, 1]), "pending.marks"),
    ],
)
def test_scout_cards_must_be_the_top_of_the_deck(change, field):
    refused(edited(scout_step(), lambda d: change(d["pending"])), field)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda s: s[0].update(hand={"seat": 1, "cards": {"Lure": 8}}), "seen[0].hand.cards"),  # 8/7 > 1 in the obs
        (lambda s: s[0].update(hand={"seat": 1, "cards": {"Gub": 300}}), "seen[0].hand.cards"),  # > 255: obs crashed
        (lambda s: s[0].update(hand={"seat": 1, "cards": {"Flash Flood": 1}}), "seen[0].hand.cards"),
        (lambda s: s[0].update(hand={"seat": 0, "cards": {}}), "seen[0].hand.seat"),
        (lambda s: s[0].update(hand={"seat": 2, "cards": {}}), "seen[0].hand.seat"),
        (lambda s: s[0].update(hand={"seat": 1}), "seen[0].hand"),
        (lambda s: s[1].update(top=["Gub", "Gub", "Gub", "Gub"]), "seen[1].top"),
        (lambda s: s[1].update(top=["Letter G"]), "seen[1].top"),
        (lambda s: s.append({"top": [], "hand": None}), "seen"),
    ],
)
def test_scout_knowledge_must_fit_the_table_and_the_observation_space(change, field):
    d = fresh()
    top = d["deck"][0]
    d["seen"][1]["top"] = [top]  # valid on its own: seat 1 knows the top card
    Game.from_dict(d)
    change(d["seen"])
    refused(d, field)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["turn"].update(player=2), "turn.player"),
        (lambda d: d["turn"].update(player=-1), "turn.player"),
        (lambda d: d["pending"].update(actor=1), "pending.actor"),
        (lambda d: d["pending"].update(actor=2), "pending.actor"),
        (lambda d: d.update(num_players=10**5000), "num_players"),
        (lambda d: d.update(num_players=2.0), "num_players"),
        (lambda d: d["turn"].update(declined=[False, 0]), "turn.declined[1]"),
    ],
)
def test_seat_numbers_must_be_seats(change, field):
    refused(edited(Game(2, seed=3), change), field)


def test_a_discard_step_needs_a_hand_over_the_limit():
    game = table(hands=[{"Lure": 3}, {}])
    refused(edited(game, lambda d: d["pending"].update(step="discard")), "pending")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(truncated=True), "truncated"),
        (lambda d: d["turn"].update(number=2001), "turn.number"),
        (lambda d: d["turn"].update(number=0), "turn.number"),
    ],
)
def test_the_turn_number_and_truncation_agree_with_the_turn_limit(change, field):
    refused(edited(Game(2, seed=3), change), field)


# --- values that used to raise other errors ----------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["deck"].__setitem__(0, deeply_nested()), "deck"),
        (lambda d: d["pending"].update(play={"op": deeply_nested()}), "action.op"),
        (lambda d: d["pending"].update(play=deeply_nested()), "action"),
        (lambda d: d["options"].update(max_turns=deeply_nested()), "options.max_turns"),
        (lambda d: d["hands"][0].update(Gub=deeply_nested()), "hands[0]"),
        (lambda d: d.update(rng=deeply_nested()), "rng"),
        (lambda d: d.update(version=deeply_nested()), "version"),
    ],
)
def test_deep_nesting_is_refused_without_recursion(change, field):
    d = fresh()
    change(d)
    with pytest.raises(InvalidStateError) as info:  # no deepcopy here: it would recurse itself
        Game.from_dict(d)
    assert field in str(info.value) and len(str(info.value)) < MAX_MESSAGE


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["turn"].update(number=10**5000), "turn.number"),
        (lambda d: d["options"].update(max_turns=10**5000), "options.max_turns"),
        (lambda d: d["hands"][0].update(Gub=10**5000), "hands[0]"),
        (lambda d: d["sides"][0].update(free=-(10**5000)), "sides[0].free"),
        (lambda d: d["pending"].update(actor=10**5000), "pending.actor"),
        (lambda d: d["pending"].update(marks=[10**5000]), "pending.marks[0]"),
        (lambda d: d["rng"]["state"].update(state=10**5000), "rng.state.state"),
        (lambda d: d.update(version=10**5000), "version"),
        (lambda d: d["deck"].__setitem__(0, "Gub" * 10**6), "deck"),
        (lambda d: d["pending"].update(step="x" * 10**6), "pending.step"),
    ],
)
def test_huge_values_are_refused_with_a_short_message(change, field):
    d = fresh()
    change(d)
    refused(d, field)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["options"].update(max_turns="many"), "options.max_turns"),  # was a plain ValueError
        (lambda d: d["options"].update(letter_placement=["thirds"]), "options.letter_placement"),
        (lambda d: d["options"].update(colour=1), "options"),
        (lambda d: d.update(options=None), "options"),
        (lambda d: d["rng"].update(bit_generator="BitGenerator"), "rng.bit_generator"),  # NotImplementedError
        (lambda d: d["sides"][0].update(elder=1), "sides[0].elder"),
        (lambda d: d["sides"][0].update(rings="Single Ring"), "sides[0].rings"),
        (lambda d: d["discard"].update({"Letter G": 1}), "discard"),
        (lambda d: d["letters"].append("Gub"), "letters"),
        (lambda d: d.update({1: 2}), "state"),
        (lambda d: d.update(hands=tuple(d["hands"])), "hands"),
    ],
)
def test_malformed_fields_raise_invalid_state_error_only(change, field):
    d = fresh()
    change(d)
    refused(d, field)


# --- Game.from_state -----------------------------------------------------------------------------------


def test_from_state_refuses_what_is_not_a_game_state():
    for bad in (None, {}, fresh(), Game(2, seed=0)):
        with pytest.raises(InvalidStateError, match="GameState"):
            Game.from_state(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: s.pending.__setattr__("actor", np.int64(0)),
        lambda s: s.pending.__setattr__("play", make(Op.DRAW)),
        lambda s: s.hands[0].__setitem__(0, 99),
        lambda s: s.deck.append(1000),
        lambda s: s.__setattr__("rng", np.random.Generator(np.random.MT19937(1))),
        lambda s: s.sides.__setitem__(0, None),
        lambda s: s.__setattr__("turn", 2.5),
    ],
)
def test_from_state_validates_like_from_dict_and_changes_nothing(spoil):
    state = Game(2, seed=4).state
    spoil(state)
    before = repr(state.pending), state.deck[:], [h[:] for h in state.hands]
    with pytest.raises(InvalidStateError):
        Game.from_state(state)
    assert (repr(state.pending), state.deck[:], [h[:] for h in state.hands]) == before


def test_from_state_plays_on_its_own_copy():
    state = Game(3, seed=9).state
    saved = state_to_dict(state)
    game = Game.from_state(state)
    rng = random.Random(0)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    assert state_to_dict(state) == saved
    assert isinstance(game.state, GameState) and game.state is not state
