"""Fuzzing Game.from_dict: every mutated saved position is refused cleanly or plays on safely to the end.

Positions come from seeded games at 2 to 6 players, snapshotted at every kind of pending step. Each example
mutates one in a chosen class (types, ranges, list lengths, names, nesting, huge integers, seats, pending
fields, the random generator, keys, cards moved between zones) and checks the property:

* loading raises nothing but ``InvalidStateError``, never changes the dict, and finishes;
* an accepted dict plays to the end with random legal actions, every invariant holding after each action
  (card conservation, a legal action until the end, observations inside the declared space, ``to_dict()``
  JSON-serialisable and round-tripping).

The default run tries ``FUZZ_EXAMPLES`` mutations per class; the soak test tries
``GUBS_FUZZ_EXAMPLES`` (default 3000) per class: ``python -m pytest -m soak tests/engine/test_fuzz_states.py -s``.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import CARDS, Game, InvalidStateError, Op, Part, Step, Use
from tests.engine.test_invariants import check_invariants

FUZZ_EXAMPLES = 60
"""Mutations per class in the default run (the whole file stays well under 30 s)."""
MAX_ACTIONS = 20_000
"""A loaded game must end within this many random actions (random games end far sooner)."""
ROUND_TRIP_EVERY = 7
"""Accepted games check the JSON round trip every few actions (and at the end), to keep the run short."""

Path = tuple[Any, ...]
CARD_NAMES = [spec.name for spec in CARDS]
STEP_NAMES = [s.name.lower() for s in Step]
ENUM_NAMES = [m.name.lower() for enum in (Op, Use, Part) for m in enum]


# --- the corpus: real positions at every step kind -------------------------------------------------------


def _choose(game: Game, rng: random.Random, hoard: bool) -> Any:
    """A random legal action; a hoarding player mostly ends the turn at once, so hands outgrow the limit."""
    legal = game.legal_actions()
    if hoard and game.pending.step is Step.PLAY and rng.random() < 0.8:
        return legal[-1]  # "Go (end turn)" is listed last
    return rng.choice(legal)


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    """Snapshots of seeded games, up to three per (player count, step kind), every step kind at every count."""
    out: list[dict[str, Any]] = []
    for n in range(2, 7):
        kept: dict[str, int] = {}
        for seed in range(200):
            options = {"max_turns": 6} if seed == 0 else {}  # one game ends truncated
            game = Game(n, seed=seed, record_log=False, **options)
            rng = random.Random(seed)
            while True:
                step = game.pending.step.name
                if kept.get(step, 0) < 3 and (game.is_over or rng.random() < 0.5):
                    kept[step] = kept.get(step, 0) + 1
                    out.append(game.to_dict())
                if game.is_over:
                    break
                game.apply(_choose(game, rng, hoard=seed % 2 == 1))
            if len(kept) == len(Step) and min(kept.values()) == 3:
                break
        assert set(kept) == {s.name for s in Step}, (n, kept)
    return tuple(out)


# --- checking one dict ---------------------------------------------------------------------------------


def observations_in_space(game: Game) -> None:
    for seat in range(game.num_players):
        obs = encode(game.state, seat)
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        assert float(obs.min()) >= 0.0 and float(obs.max()) <= 1.0, seat


def round_trips(game: Game) -> None:
    d = game.to_dict()
    again = Game.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert again.to_dict() == d
    assert again.legal_actions() == game.legal_actions()


def plays_to_the_end(game: Game, rng: random.Random) -> int:
    """Random legal play with every invariant checked after each action; returns the actions played."""
    for played in range(MAX_ACTIONS):
        check_invariants(game)
        if played % ROUND_TRIP_EVERY == 0 or game.is_over:
            observations_in_space(game)
            round_trips(game)
        if game.is_over:
            return played
        game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"the loaded game did not end within {MAX_ACTIONS} actions")


def load_or_refuse(d: Any, rng: random.Random) -> bool:
    """The property for one dict: True when it was accepted (and then played to the end)."""
    snapshot = copy.deepcopy(d)
    try:
        game = Game.from_dict(d)
    except InvalidStateError as err:
        assert len(str(err)) < 400
        assert d == snapshot
        return False
    assert d == snapshot
    observations_in_space(game)
    plays_to_the_end(game, rng)
    return True


# --- mutations -----------------------------------------------------------------------------------------


def nodes(value: Any, path: Path = ()) -> list[Path]:
    """The path of every value inside ``value`` (the root excluded)."""
    out = []
    items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
    for key, child in items:
        out.append((*path, key))
        out += nodes(child, (*path, key))
    return out


def get(d: Any, path: Path) -> Any:
    for key in path:
        d = d[key]
    return d


def put(d: Any, path: Path, value: Any) -> None:
    get(d, path[:-1])[path[-1]] = value


def pick(d: dict[str, Any], rng: random.Random, want: Callable[[Any], bool] = lambda v: True) -> Path | None:
    paths = [p for p in nodes(d) if want(get(d, p))]
    return rng.choice(paths) if paths else None


def nested(rng: random.Random) -> Any:
    value: Any = rng.choice([[], {}, "Gub", 1])
    for _ in range(rng.randrange(2, 200)):
        value = [value] if rng.random() < 0.5 else {"op": value}
    return value


ODD_VALUES: tuple[Any, ...] = (None, True, False, 0, 1, -1, 1.5, float("inf"), "", "x", [], {}, [0], {"a": 1})


def mutate_type(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng)
    if path:
        put(d, path, rng.choice(ODD_VALUES))


def mutate_range(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng, lambda v: type(v) is int)
    if path:
        value = get(d, path)
        put(d, path, rng.choice([value - 1, value + 1, value + rng.randrange(2, 20), -1, 0, 7, 13, 14, 255, 256]))


def mutate_length(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng, lambda v: type(v) is list)
    if path is None:
        return
    values = get(d, path)
    choice = rng.randrange(4)
    if choice == 0 and values:
        values.pop(rng.randrange(len(values)))
    elif choice == 1 and values:
        values.insert(rng.randrange(len(values) + 1), copy.deepcopy(rng.choice(values)))
    elif choice == 2:
        values.clear()
    else:
        values.extend(copy.deepcopy(values[: rng.randrange(1, 5)]) if values else [0])


def mutate_names(d: dict[str, Any], rng: random.Random) -> None:
    if rng.random() < 0.5:
        path = pick(d, rng, lambda v: type(v) is str)
        if path:
            names = CARD_NAMES + STEP_NAMES + ENUM_NAMES + ["Dragon", "gub", "PCG64", "MT19937", "test", "seed"]
            put(d, path, rng.choice(names))
        return
    path = pick(d, rng, lambda v: type(v) is dict and bool(v))
    if path:  # rename a key: a card in a count map, or a field
        mapping = get(d, path)
        key = rng.choice(list(mapping))
        mapping[rng.choice([*CARD_NAMES, "Dragon", key.upper(), key + " "])] = mapping.pop(key)


def mutate_nesting(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng)
    if path:
        put(d, path, nested(rng))


def mutate_huge(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng, lambda v: type(v) in (int, bool, str))
    if path:
        put(d, path, rng.choice([1, -1]) * rng.choice([2**63, 2**64, 2**128, 10**40, 10**400, 10**5000]))


SEAT_PATHS: tuple[Path, ...] = (
    ("turn", "player"),
    ("pending", "actor"),
    ("pending", "by"),
)


def mutate_seats(d: dict[str, Any], rng: random.Random) -> None:
    seat = rng.randrange(-2, 8)
    choice = rng.randrange(5)
    if choice == 0:
        put(d, rng.choice(SEAT_PATHS), seat)
    elif choice == 1:
        d["pending"][rng.choice(["queue", "picks"])] = [rng.randrange(-1, 7) for _ in range(rng.randrange(4))]
    elif choice == 2 and d["pending"]["play"] is not None:
        d["pending"]["play"]["seat"] = seat
    elif choice == 3:
        d["seen"][rng.randrange(len(d["seen"]))]["hand"] = {"seat": seat, "cards": {}}
    else:
        d["num_players"] = rng.randrange(1, 8)


def _play_dicts() -> list[dict[str, Any] | None]:
    return [copy.deepcopy(p["pending"]["play"]) for p in corpus() if p["pending"]["play"]] + [None, {"op": "play"}]


def mutate_pending(d: dict[str, Any], rng: random.Random) -> None:
    pend = d["pending"]
    field = rng.choice(["step", "actor", "by", "play", "event", "queue", "picks", "cards", "placed", "marks"])
    n = len(d["hands"])
    if field == "step":
        pend["step"] = rng.choice(STEP_NAMES)
    elif field in ("actor", "by"):
        pend[field] = rng.randrange(-1, n + 1)
    elif field == "play":
        pend["play"] = copy.deepcopy(rng.choice(_play_dicts()))
    elif field == "event":
        pend["event"] = rng.choice([None, *CARD_NAMES[24:], rng.choice(CARD_NAMES)])
    elif field in ("queue", "picks"):
        pend[field] = [rng.randrange(-1, n + 1) for _ in range(rng.randrange(5))]
    elif field in ("cards", "placed"):
        pend[field] = rng.sample(d["deck"][:3], k=min(len(d["deck"]), rng.randrange(4)))
    else:
        pend["marks"] = [rng.randrange(-2, 32) for _ in range(rng.choice([n, n, rng.randrange(5)]))]


def mutate_rng(d: dict[str, Any], rng: random.Random) -> None:
    state = d["rng"]
    if type(state.get("state")) is not dict or "inc" not in state["state"]:  # a first mutation replaced it
        state["state"] = {"state": 1, "inc": 3}
    choice = rng.randrange(6)
    if choice == 0:
        state["bit_generator"] = rng.choice(["PCG64", "MT19937", "Philox", "test", "seed", "pcg64", "BitGenerator"])
    elif choice == 1:
        state["state"]["inc"] = rng.choice([0, 2, state["state"]["inc"] ^ 1, 2**128 + 1, -1])
    elif choice == 2:
        state["state"]["state"] = rng.choice([0, -1, 2**128 - 1, 2**128, 2**200])
    elif choice == 3:
        state["has_uint32"] = rng.choice([0, 1, 2, -1, True])
    elif choice == 4:
        state["uinteger"] = rng.choice([0, 2**32 - 1, 2**32, 2**70, -1])
    else:
        state["state"] = rng.choice([{}, {"state": 1}, {"state": 1, "inc": 3, "x": 0}, 5])


def mutate_keys(d: dict[str, Any], rng: random.Random) -> None:
    path = pick(d, rng, lambda v: type(v) is dict)
    mapping = get(d, path) if path else d
    if mapping and rng.random() < 0.5:
        mapping.pop(rng.choice(list(mapping)))
    else:
        mapping[rng.choice(["extra", "Gub", "free", "seat", "Letter G"])] = rng.choice([0, 1, None])


def _count_zones(d: dict[str, Any]) -> list[dict[str, int]]:
    return [d["discard"], *d["hands"], *(s["protected"] for s in d["sides"])]


def mutate_zones(d: dict[str, Any], rng: random.Random) -> None:
    """Move one card between zones, keeping the 70 cards: the mutations most often accepted."""
    if not d["deck"]:
        return
    index = rng.randrange(len(d["deck"]))
    name = d["deck"][index]
    target = rng.randrange(4)
    if target == 0:  # into a hand or the discard pile
        zone = rng.choice(_count_zones(d)[: 1 + len(d["hands"])])
        zone[name] = zone.get(name, 0) + 1
        d["deck"].pop(index)
    elif target == 1 and name == "Gub":  # a plain Gub onto a side
        rng.choice(d["sides"])["free"] += 1
        d["deck"].pop(index)
    elif target == 2:  # a card from a hand back on top of the deck
        hand = rng.choice(d["hands"])
        if hand:
            kind = rng.choice(list(hand))
            hand[kind] -= 1
            if not hand[kind]:
                del hand[kind]
            d["deck"].insert(0, kind)
    else:  # reorder the deck top
        top = d["deck"][:3]
        rng.shuffle(top)
        d["deck"][:3] = top


MUTATIONS: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "types": mutate_type,
    "ranges": mutate_range,
    "list lengths": mutate_length,
    "names": mutate_names,
    "nesting depth": mutate_nesting,
    "huge ints": mutate_huge,
    "seat numbers": mutate_seats,
    "pending fields": mutate_pending,
    "rng": mutate_rng,
    "keys": mutate_keys,
    "cards moved": mutate_zones,
}


def fuzz(mutation: str, examples: int, seed: int = 0) -> tuple[int, int]:
    """Run ``examples`` mutations of one class; returns (accepted, refused)."""
    rng = random.Random(f"{mutation}/{seed}")
    positions = corpus()
    accepted = 0
    for i in range(examples):
        d = copy.deepcopy(rng.choice(positions))
        for _ in range(rng.choice([1, 1, 2])):
            MUTATIONS[mutation](d, rng)
        try:
            accepted += load_or_refuse(d, random.Random(i))
        except Exception as err:
            raise AssertionError(f"{mutation} example {i} (seed {seed}): {type(err).__name__}") from err
    return accepted, examples - accepted


def report(mutation: str, examples: int, accepted: int) -> None:
    print(f"\n{mutation:>15}: {examples} tried, {accepted} accepted, {examples - accepted} refused")


# --- the tests -------------------------------------------------------------------------------------------


def test_the_corpus_has_every_step_kind_at_every_player_count():
    kinds = {(d["num_players"], d["pending"]["step"]) for d in corpus()}
    assert kinds == {(n, s) for n in range(2, 7) for s in STEP_NAMES}
    assert any(d["truncated"] for d in corpus())


def test_every_corpus_position_loads_and_round_trips():
    for d in corpus():
        game = Game.from_dict(copy.deepcopy(d))
        observations_in_space(game)
        round_trips(game)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutated_positions_are_refused_cleanly_or_play_safely(mutation):
    accepted, _ = fuzz(mutation, FUZZ_EXAMPLES)
    report(mutation, FUZZ_EXAMPLES, accepted)
    if mutation == "nesting depth":
        assert accepted == 0  # no field takes a nested value


@pytest.mark.soak
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_soak_mutated_positions(mutation):
    examples = int(os.environ.get("GUBS_FUZZ_EXAMPLES", "3000"))
    accepted, _ = fuzz(mutation, examples, seed=1)
    report(mutation, examples, accepted)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(CARD_NAMES + STEP_NAMES),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_json_value_in_any_field_is_refused_or_played(data):
    d = copy.deepcopy(data.draw(st.sampled_from(corpus()), label="position"))
    path = data.draw(st.sampled_from(nodes(d)), label="path")
    put(d, path, data.draw(JSON_VALUES, label="value"))
    load_or_refuse(d, random.Random(0))
