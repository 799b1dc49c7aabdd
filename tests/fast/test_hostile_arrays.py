"""Hostile arrays at the compiled engine's public API: each is refused with one clear error, and nothing changes.

The cases of the hardening issue's probes: a huge deck length written into ``states`` (segfaulted the kernel),
``obs`` and ``mask`` replaced by smaller arrays (aborted / written past their end), ``sample_legal`` given a
narrow mask or one holding values other than 0/1, ``uint64`` ids that wrapped to -1 (skip) or were reported as
an id never passed, read-only ``out`` arrays (numba's typing error), read-only action arrays (a recompile of
every kernel) and imported games whose state was edited into one ``Game.from_dict`` refuses. Each comes with
its neighbours (other dtypes, shapes, layouts, bools, floats, NaN, huge values) and a small property-based
fuzzer. Whatever is refused, every array of the batch is compared before and after.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gubs_env import InvalidStateError
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine import Game, IllegalActionError
from gubs_env.fast import FastGames, kernels, sample_legal
from gubs_env.fast.core import layout as L

N = 4
ARRAYS = ("states", "rngs", "seeds", "actor", "mask", "obs", "rewards", "terminated", "truncated")
READ_ONLY = ("states", "rngs", "seeds")
MAX_MESSAGE = 400
U64_MAX = 2**64 - 1


def _started(n: int = N, players: int = 2) -> FastGames:
    games = FastGames(n, players, threads=1)
    games.reset(seeds=np.arange(n) + 3)
    games.step(np.zeros(n, dtype=np.int64))  # every game draws: now in play phases, a few ids legal
    return games


def _snapshot(games: FastGames) -> list[np.ndarray]:
    return [np.array(getattr(games, name), copy=True) for name in ARRAYS] + [games._legal.copy()]


def _assert_unchanged(games: FastGames, before: list[np.ndarray]) -> None:
    for name, old, new in zip((*ARRAYS, "_legal"), before, _snapshot(games), strict=True):
        assert np.array_equal(old, new), f"{name} changed"


def _refused(games: FastGames, call: Callable[[], object], error: type[Exception], match: str = "") -> str:
    """``call`` raises ``error`` (a short message containing ``match``) and leaves the batch as it was."""
    before = _snapshot(games)
    with pytest.raises(error) as info:
        call()
    _assert_unchanged(games, before)
    message = str(info.value)
    assert match in message, message
    assert len(message) < MAX_MESSAGE and "\n" not in message, message
    return message


def _legal_ids(games: FastGames) -> np.ndarray:
    """The lowest legal id of every game (int64)."""
    return np.argmax(games.mask != 0, axis=1).astype(np.int64)


def _signatures() -> dict[str, int]:
    """How many compiled versions each batch kernel has in this process."""
    names = ("step_kernel", "check_kernel", "reset_kernel", "observe_kernel", "sample_kernel")
    return {name: len(getattr(kernels, name).signatures) for name in names}


# --- the public arrays ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ARRAYS)
def test_no_array_can_be_rebound(name: str) -> None:
    games = _started()
    original = getattr(games, name)
    smaller = np.zeros(1, dtype=original.dtype)
    _refused(games, lambda: setattr(games, name, smaller), AttributeError, f"FastGames.{name}")
    _refused(games, lambda: delattr(games, name), AttributeError, name)
    assert getattr(games, name) is original
    games.step(_legal_ids(games))  # the kernels still write the batch's own arrays, in bounds


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("num_games", 10**6),
        ("num_players", 6),
        ("options", None),
        ("_states", np.zeros((1, 1), dtype=np.int32)),
        ("_mask", np.zeros((N, 4), dtype=np.int8)),
        ("_obs", np.zeros((1, 1), dtype=np.float32)),
        ("_started", True),
        ("_legal", np.ones((N, NUM_ACTIONS), dtype=np.int8)),
        ("_ids", np.zeros(1, dtype=np.int64)),
        ("_auto_reset", "yes"),
        ("_sealed", frozenset()),
    ],
)
def test_other_attributes_cannot_be_set(name: str, value: object) -> None:
    games = _started()
    _refused(games, lambda: setattr(games, name, value), AttributeError, "cannot be set")
    _refused(games, lambda: delattr(games, name), AttributeError, "cannot be deleted")
    games.step(_legal_ids(games))


def test_new_attributes_and_patched_methods_are_the_callers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    games = _started()
    games.note = "mine"  # type: ignore[attr-defined]
    del games.note  # type: ignore[attr-defined]
    calls = []
    real_step = games.step
    monkeypatch.setattr(games, "step", lambda actions: calls.append(1) or real_step(actions))
    games.step(_legal_ids(games))
    monkeypatch.undo()
    assert calls == [1]


@pytest.mark.parametrize(
    ("name", "value"), [("threads", 0), ("threads", 1.0), ("auto_reset", "yes"), ("auto_reset", 1)]
)
def test_the_two_settings_are_checked(name: str, value: object) -> None:
    games = _started()
    _refused(games, lambda: setattr(games, name, value), ValueError, name)
    games.auto_reset = True
    games.threads = 1
    assert games.auto_reset is True and games.threads == 1


@pytest.mark.parametrize("name", READ_ONLY)
def test_inputs_of_the_kernels_are_read_only(name: str) -> None:
    games = _started()
    view = getattr(games, name)

    def write() -> None:
        view.reshape(-1)[0] = 7

    def unlock() -> None:
        view.flags.writeable = True

    _refused(games, write, ValueError, "read-only")
    _refused(games, unlock, ValueError, "WRITEABLE")
    _refused(games, lambda: view.resize(1, refcheck=False), ValueError)
    assert not np.asarray(view).flags.writeable


def test_a_huge_deck_length_cannot_be_written() -> None:
    """The probe that segfaulted: ``states[0, DECK_LEN] = 10**9`` and a step. Positions come in through
    import_game only, which validates them."""
    games = _started()

    def write() -> None:
        games.states[0, L.DECK_LEN] = 10**9

    _refused(games, write, ValueError, "read-only")
    games.step(_legal_ids(games))


def test_outputs_are_scratch_the_engine_never_reads() -> None:
    games = _started()
    before = games.mask.copy()
    games.mask[:] = 1  # every id "legal" in the public mask
    games.obs[:] = np.nan
    games.actor[:] = 99
    illegal = np.where(before[0] == 0)[0][0]
    actions = _legal_ids(games)
    actions[0] = illegal
    with pytest.raises(IllegalActionError, match="game 0"):
        games.step(actions)  # checked against the engine's own copy of the masks
    games.step(np.full(N, -1, dtype=np.int64))  # skipping every game rewrites no view...
    games.reset(seeds=np.arange(N) + 3)
    games.step(np.zeros(N, dtype=np.int64))  # ...a step that plays does
    np.testing.assert_array_equal(games.mask, before)
    assert not np.isnan(games.obs).any() and (games.actor < 6).all()


def test_reshaping_a_view_does_not_reach_the_engine() -> None:
    games = _started()
    view = games.obs
    view.shape = (N * 512,)  # changes this view object only
    with pytest.raises(ValueError):
        games.mask.resize((1, 1), refcheck=False)  # a view owns no memory to resize
    games.step(_legal_ids(games))
    assert games.observe(np.zeros(N, dtype=np.int64)).shape == (N, 512)


def test_copies_and_pickles_keep_their_own_views() -> None:
    games = _started()
    for twin in (copy.deepcopy(games), pickle.loads(pickle.dumps(games))):
        assert not twin.states.flags.writeable
        twin.step(_legal_ids(twin))
        assert np.array_equal(twin.mask, twin._mask) and np.array_equal(twin.states, twin._states)
        assert not np.array_equal(twin.states, games.states)


# --- step's action ids ---------------------------------------------------------------------------


def _as(actions: np.ndarray, kind: str) -> np.ndarray:
    """The same ids in another integer form."""
    if kind == "read-only":
        out = actions.copy()
        out.flags.writeable = False
        return out
    if kind == "strided":
        return np.repeat(actions, 2)[::2]
    if kind == "big-endian":
        return actions.astype(">i8")
    if kind == "big-endian-u64":
        return actions.astype(">u8")
    return actions.astype(kind)


FORMS = ["int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "read-only", "strided", "big-endian"]


@pytest.mark.parametrize("form", [*FORMS, "big-endian-u64"])
def test_every_integer_form_of_the_ids_plays_the_same(form: str) -> None:
    plain, other = _started(), _started()
    before = _signatures()
    ids = _legal_ids(plain)
    plain.step(ids.tolist())
    other.step(_as(ids, form))
    for name in ARRAYS:
        assert np.array_equal(getattr(plain, name), getattr(other, name)), name
    assert _signatures() == before  # converted at the boundary: no kernel compiled for a new type


@pytest.mark.parametrize(
    ("form", "index", "value", "shown"),
    [
        ("uint64", 0, U64_MAX, "18446744073709551615"),  # wrapped to -1: every game skipped
        ("uint64", 2, 2**63, "9223372036854775808"),  # was reported as -9223372036854775808
        (">u8", 1, 2**63 + 5, "9223372036854775813"),
        ("uint16", 3, NUM_ACTIONS, str(NUM_ACTIONS)),
        ("int8", 0, -2, "-2"),
        ("int64", 1, -(2**63), str(-(2**63))),
        ("list", 0, U64_MAX, "18446744073709551615"),
        ("list", 2, 10**100, "an int of 333 bits"),
        pytest.param("list", 1, -(10**5000), "an int of 16610 bits", id="list-5000-digits"),  # str() refuses it
        ("numpy scalars", 3, U64_MAX, "18446744073709551615"),
    ],
)
def test_ids_out_of_range_are_refused_as_given(form: str, index: int, value: int, shown: str) -> None:
    games = _started()
    legal = [int(a) for a in _legal_ids(games)]
    given = [*legal[:index], value, *legal[index + 1 :]]
    if form == "numpy scalars":
        actions: object = [np.uint64(v) for v in given]
    elif form == "list":
        actions = given
    else:
        actions = np.array(given, dtype=object).astype(form)
    message = _refused(games, lambda: games.step(actions), IllegalActionError, f"game {index}: action id {shown} ")
    assert f"outside 0..{NUM_ACTIONS - 1}" in message


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros(N, dtype=np.float64),
        np.full(N, np.nan),
        np.array([0.0, np.inf, 0, 0]),
        np.zeros(N, dtype=np.float32),
        np.zeros(N, dtype=np.complex64),
        np.zeros(N, dtype=bool),
        np.zeros(N, dtype=object),
        np.array(["0"] * N),
        np.zeros((N, 1), dtype=np.int64),
        np.zeros((1, N), dtype=np.int64),
        np.zeros(N - 1, dtype=np.int64),
        np.zeros(N + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.int64(0),
        np.zeros((), dtype=np.int64),
        [0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0.0],
        [0, 0, 0, np.nan],
        [0, 0, 0, True],
        [0, 0, 0, np.True_],
        [0, 0, 0, None],
        [0, 0, 0, "0"],
        [[0], [0], [0], [0]],
        (0, 0, 0, 0.5),
        "0000",
        None,
        {0: 0},
    ],
)
def test_ids_that_are_not_integers_or_not_one_per_game_are_refused(actions: object) -> None:
    games = _started()
    message = _refused(games, lambda: games.step(actions), ValueError, "actions")  # type: ignore[arg-type]
    assert "must" in message


def test_read_only_and_odd_ids_never_recompile_a_kernel() -> None:
    games = _started()
    before = _signatures()
    ids = _legal_ids(games)
    for form in FORMS:
        skip = _as(np.full(N, -1, dtype=np.int64), form)
        if skip.dtype.kind == "u":  # -1 became the type's maximum: refused, not skipped
            _refused(games, lambda skip=skip: games.step(skip), IllegalActionError, "game 0: action id ")
        else:
            snapshot = _snapshot(games)
            games.step(skip)
            _assert_unchanged(games, snapshot)
    games.step(_as(ids, "read-only"))
    assert _signatures() == before


# --- sample_legal --------------------------------------------------------------------------------


def _sample(mask: np.ndarray, seed: int = 5) -> np.ndarray:
    out = np.zeros(mask.shape[0], dtype=np.int64)
    sample_legal(mask, np.arange(mask.shape[0], dtype=np.uint64) + np.uint64(seed), out, threads=1)
    return out


def _odd_masks() -> tuple[np.ndarray, np.ndarray]:
    """Masks whose entries are 0 and other values (2, -1 = 255, 127, -128), and their 0/1 forms."""
    generator = np.random.default_rng(3)
    values = np.array([2, -1, 127, -128, 1], dtype=np.int8)
    mask = np.where(generator.random((64, NUM_ACTIONS)) < 0.05, generator.choice(values, (64, NUM_ACTIONS)), 0)
    mask = mask.astype(np.int8)
    mask[0] = 0  # an empty row
    mask[1] = 0
    mask[1, NUM_ACTIONS - 1] = 2  # one legal id, the last, weighted 2: counted twice, the pick ran off the end
    mask[2] = 0
    mask[2, [3, 9]] = [1, -1]  # a 1 and a -1 summed to 0: reported as no legal id
    return mask, (mask != 0).astype(np.int8)


def test_any_non_zero_mask_entry_is_one_legal_id() -> None:
    mask, binary = _odd_masks()
    chosen = _sample(mask)
    np.testing.assert_array_equal(chosen, _sample(binary))  # the same draw as from the 0/1 mask
    assert chosen[0] == -1 and chosen[1] == NUM_ACTIONS - 1 and chosen[2] in (3, 9)
    assert all(mask[i, a] != 0 for i, a in enumerate(chosen) if i)


@pytest.mark.parametrize("rows", [1, 3, 64])
@pytest.mark.parametrize("offset", [0, 1, 4])
def test_an_odd_value_anywhere_is_found_whatever_the_mask_memory(rows: int, offset: int) -> None:
    """The 0/1 test reads the mask eight bytes at a time where it can: an odd number of rows leaves a tail of
    four bytes, and memory off a word boundary is read byte by byte."""
    binary = _odd_masks()[1]
    for row, column in ((rows - 1, NUM_ACTIONS - 1), (0, 0), (rows // 2, 7)):
        buffer = np.zeros(rows * NUM_ACTIONS + offset, dtype=np.int8)
        shifted = buffer[offset:].reshape(rows, NUM_ACTIONS)
        shifted[:] = binary[:rows]
        shifted[row, column] = 2
        expected = (shifted != 0).astype(np.int8)
        np.testing.assert_array_equal(_sample(shifted), _sample(expected))


def test_read_only_masks_are_sampled_without_a_recompile() -> None:
    games = _started()
    _sample(games.mask)
    before = _signatures()
    frozen = games.mask.copy()
    frozen.flags.writeable = False
    np.testing.assert_array_equal(_sample(frozen), _sample(games.mask))
    assert _signatures() == before


def _mask_cases() -> list[tuple[str, Any]]:
    rows = np.zeros((N, NUM_ACTIONS), dtype=np.int8)
    return [
        ("narrow", rows[:, :4].copy()),  # returned ids outside the mask
        ("wide", np.zeros((N, NUM_ACTIONS + 1), dtype=np.int8)),
        ("strided", rows[:, ::2]),
        ("fortran", np.asfortranarray(np.zeros((N, NUM_ACTIONS), dtype=np.int8))),
        ("1-d", np.zeros(NUM_ACTIONS, dtype=np.int8)),
        ("3-d", np.zeros((N, NUM_ACTIONS, 1), dtype=np.int8)),
        ("uint8", rows.view(np.uint8)),
        ("bool", rows.view(np.bool_)),
        ("int64", rows.astype(np.int64)),
        ("float", rows.astype(np.float32)),
        ("list", rows.tolist()),
        ("None", None),
    ]


@pytest.mark.parametrize(("case", "mask"), _mask_cases())
def test_masks_of_another_type_or_shape_are_refused(case: str, mask: Any) -> None:
    chooser = np.arange(N, dtype=np.uint64)
    out = np.full(N, 7, dtype=np.int64)
    with pytest.raises(ValueError, match="mask must be a C-contiguous int8 array of shape"):
        sample_legal(mask, chooser, out)
    assert (out == 7).all() and np.array_equal(chooser, np.arange(N, dtype=np.uint64)), case


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@pytest.mark.parametrize(
    ("which", "value"),
    [
        ("out", _read_only(np.zeros(N, dtype=np.int64))),  # numba's long typing error before
        ("out", np.zeros(N, dtype=np.int32)),
        ("out", np.zeros(N, dtype=np.uint64)),
        ("out", np.zeros(N, dtype=">i8")),
        ("out", np.zeros(N + 1, dtype=np.int64)),
        ("out", np.zeros((N, 1), dtype=np.int64)),
        ("out", np.zeros(2 * N, dtype=np.int64)[::2]),
        ("out", np.zeros(N * 8 + 1, dtype=np.uint8)[1:].view(np.int64)),  # not aligned
        ("out", [0] * N),
        ("chooser", _read_only(np.zeros(N, dtype=np.uint64))),
        ("chooser", np.zeros(N, dtype=np.int64)),
        ("chooser", np.zeros(N - 1, dtype=np.uint64)),
        ("chooser", None),
    ],
)
def test_bad_chooser_and_out_arrays_are_refused_in_one_message(which: str, value: Any) -> None:
    games = _started()
    arrays = {"chooser": np.arange(N, dtype=np.uint64), "out": np.full(N, 7, dtype=np.int64), which: value}
    before = [np.array(a, copy=True) for a in arrays.values()]
    with pytest.raises(
        ValueError, match=f"^{which} must be a writable C-contiguous .* array of shape \\({N},\\), not "
    ):
        sample_legal(games.mask, arrays["chooser"], arrays["out"])
    for old, new in zip(before, arrays.values(), strict=True):
        assert np.array_equal(old, np.asarray(new))


# --- observe -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "out",
    [
        _read_only(np.zeros((N, 512), dtype=np.float32)),
        np.zeros((N, 512), dtype=np.float64),
        np.zeros((N, 511), dtype=np.float32),
        np.zeros((N + 1, 512), dtype=np.float32),
        np.zeros((512, N), dtype=np.float32).T,
        np.zeros((N, 512), dtype=">f4"),
        np.zeros((N, 512)).tolist(),
    ],
)
def test_observe_refuses_a_bad_out_in_one_message(out: Any) -> None:
    games = _started()
    before = np.array(out, copy=True)
    _refused(games, lambda: games.observe([0] * N, out=out), ValueError, "out must be a writable C-contiguous float32")
    assert np.array_equal(np.asarray(out), before)


@pytest.mark.parametrize(
    ("viewers", "match"),
    [
        (np.array([U64_MAX, 0, 0, 0], dtype=np.uint64), "viewers[0] is 18446744073709551615"),
        ([0, 0, 0, 10**30], "viewers[3] is an int of 100 bits"),
        ([0, -1, 0, 0], "viewers[1] is -1"),
        ([0, 0, 2, 0], "viewers[2] is 2, but game 2 has 2 seats"),
        ([0.0, 0, 0, 0], "viewers must be integers"),
        (np.zeros(N, dtype=bool), "viewers must be integers"),
    ],
)
def test_observe_refuses_bad_viewers(viewers: object, match: str) -> None:
    games = _started()
    _refused(games, lambda: games.observe(viewers), ValueError, match)  # type: ignore[arg-type]


def test_observe_writes_a_subclass_and_odd_viewer_dtypes_without_a_recompile() -> None:
    games = _started()
    expected = games.observe([1] * N)
    before = _signatures()
    target = np.zeros((N, 512), dtype=np.float32).view(np.recarray)
    assert games.observe(np.ones(N, dtype=np.uint64), out=target) is target
    np.testing.assert_array_equal(np.asarray(target), expected)
    assert _signatures() == before


# --- reset and reset_games -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda g: g.reset(seeds=[0, 1, 2, 2**64]), "seeds[3] is an int of 65 bits"),
        (lambda g: g.reset(seeds=np.array([0, 1, -5, 3], dtype=np.int8)), "seeds[2] is -5"),
        (lambda g: g.reset(seeds=np.zeros(N)), "seeds must be integers"),
        (lambda g: g.reset(num_players=np.array([2, 2, 2, 2**40])), "num_players[3] is 1099511627776"),
        (lambda g: g.reset(num_players=[2, 2, 2, np.True_]), "num_players must be integers"),
        (lambda g: g.reset_games([0, 0], [1, 2]), "distinct"),
        (lambda g: g.reset_games(np.array([U64_MAX], dtype=np.uint64), [1]), "indices[0] is 18446744073709551615"),
        (lambda g: g.reset_games([1], [1.5]), "seeds must be integers"),
        (lambda g: g.reset_games(np.zeros((1, 1), dtype=int), [1]), "indices must have shape"),
    ],
)
def test_bad_resets_name_the_value(call: Callable[[FastGames], None], match: str) -> None:
    games = _started()
    _refused(games, lambda: call(games), ValueError, match)


def test_any_seed_dtype_resets_the_same_without_a_recompile() -> None:
    games = _started()
    before = _signatures()
    seeds = np.array([0, 1, 2**63, U64_MAX], dtype=np.uint64)
    games.reset(seeds=seeds)
    expected = _snapshot(games)
    games.reset(seeds=_read_only(seeds.astype(">u8")))
    _assert_unchanged(games, expected)
    games.reset_games(_read_only(np.array([3, 1], dtype=np.uint8)), _read_only(seeds[[3, 1]]))
    _assert_unchanged(games, expected)
    assert _signatures() == before


# --- import_game ---------------------------------------------------------------------------------


def _played(seed: int = 4, actions: int = 12) -> Game:
    game = Game(2, seed=seed)
    for _ in range(actions):
        game.apply(game.legal_actions()[0])
    return game


def _edit(change: Callable[[Any], None]) -> Game:
    game = _played()
    change(game.state)
    return game


def _set(obj: object, name: str, value: object) -> None:
    setattr(obj, name, value)


EDITS: dict[str, Callable[[Any], None]] = {
    "negative hand count": lambda s: s.hands[0].__setitem__(0, -1),
    "negative turn": lambda s: _set(s, "turn", -3),
    "zero turn": lambda s: _set(s, "turn", 0),
    "float hand count": lambda s: s.hands[1].__setitem__(2, 1.0),
    "float turn": lambda s: _set(s, "turn", 2.0),
    "unknown card kind in the deck": lambda s: s.deck.append(99),
    "negative card kind in the deck": lambda s: s.deck.append(-7),
    "numpy int hand count": lambda s: s.hands[0].__setitem__(0, np.int64(1)),
    "huge discard count": lambda s: s.discard.__setitem__(0, 10**30),
    "turn player out of the table": lambda s: _set(s, "turn_player", 5),
    "a seat that is not a side": lambda s: s.sides.append(None),
    "no pending decision": lambda s: _set(s, "pending", None),
    "a dict for a state": lambda s: None,
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_game_is_validated_like_a_dict(edit: str) -> None:
    game = _edit(EDITS[edit])
    if edit == "a dict for a state":
        game.state = game.to_dict()  # type: ignore[assignment]
    games = _started()
    _refused(games, lambda: games.import_game(1, game), InvalidStateError, "invalid state")
    with pytest.raises(InvalidStateError):
        Game.from_state(game.state)  # the same verdict as the reference engine's


@pytest.mark.parametrize("position", [None, 7, "position", [], b"{}", np.zeros(3), {"version": 1}])
def test_what_is_neither_a_game_nor_a_state_dict_is_refused(position: object) -> None:
    games = _started()
    _refused(games, lambda: games.import_game(0, position), InvalidStateError, "invalid state")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, 2**64, 1.0, True, None, "1"])
def test_a_bad_import_seed_changes_nothing(seed: object) -> None:
    games = _started()
    game = _played()
    _refused(games, lambda: games.import_game(0, game, seed), ValueError, "seed must be")  # type: ignore[arg-type]


def test_a_good_import_still_works_after_refusals() -> None:
    games = _started()
    game = _played()
    games.import_game(2, game, seed=U64_MAX)
    assert games.to_dict(2) == game.to_dict() and int(games.seeds[2]) == U64_MAX


# --- a small fuzzer ------------------------------------------------------------------------------

_DTYPES = st.one_of(
    hnp.integer_dtypes(endianness="="),
    hnp.unsigned_integer_dtypes(endianness="="),
    hnp.integer_dtypes(endianness=">"),
    hnp.unsigned_integer_dtypes(endianness=">"),
    hnp.floating_dtypes(),
    hnp.boolean_dtypes(),
)


@st.composite
def _arrays(draw: st.DrawFn, dims: tuple[int, ...], preferred: type) -> np.ndarray:
    """Half the time the right shape and dtype, else any; sometimes read-only or strided."""
    shape = draw(st.one_of(st.just(dims), hnp.array_shapes(min_dims=0, max_dims=3, max_side=6)))
    array = draw(hnp.arrays(draw(st.one_of(st.just(np.dtype(preferred)), _DTYPES)), shape))
    if draw(st.booleans()) and array.ndim:
        array = np.repeat(array, 2, axis=0)[::2]
    if draw(st.booleans()):
        array.flags.writeable = False
    return array


_GAMES = _started(N, 3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.one_of(_arrays((N,), np.int64), st.lists(st.integers(-(2**70), 2**70), min_size=N, max_size=N)))
def test_fuzz_step(actions: Any) -> None:
    before = _snapshot(_GAMES)
    try:
        _GAMES.step(actions)
    except ValueError:  # IllegalActionError is one
        _assert_unchanged(_GAMES, before)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mask=_arrays((N, NUM_ACTIONS), np.int8), chooser=_arrays((N,), np.uint64), out=_arrays((N,), np.int64))
def test_fuzz_sample_legal(mask: np.ndarray, chooser: np.ndarray, out: np.ndarray) -> None:
    chooser_before, out_before = chooser.copy(), out.copy()
    try:
        sample_legal(mask, chooser, out, threads=1)
    except ValueError:
        assert np.array_equal(chooser, chooser_before, equal_nan=chooser.dtype.kind == "f")
        assert np.array_equal(out, out_before, equal_nan=out.dtype.kind == "f")
        return
    legal = mask != 0
    for i, a in enumerate(out.tolist()):
        assert (a == -1 and not legal[i].any()) or (0 <= a < NUM_ACTIONS and legal[i, a])


_FIELDS = ("turn", "turn_player", "deck", "discard", "letters", "hands", "truncated", "declined")
_VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.lists(st.integers(-3, 80), max_size=5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(_FIELDS), path=st.lists(st.integers(0, 8), max_size=2), value=_VALUES)
def test_fuzz_import_game(field: str, path: list[int], value: object) -> None:
    game = _played(seed=7, actions=9)
    target: Any = game.state
    name: Any = field
    for step in path:  # go into a list field, if it has that entry
        inner = getattr(target, name) if isinstance(name, str) else target[name]
        if not isinstance(inner, list) or step >= len(inner):
            break
        target, name = inner, step
    if isinstance(name, str):
        setattr(target, name, value)
    else:
        target[name] = value
    before = _snapshot(_GAMES)
    try:
        _GAMES.import_game(1, game)
    except ValueError:  # InvalidStateError is one
        _assert_unchanged(_GAMES, before)
    else:
        assert _GAMES.to_dict(1) == Game.from_state(game.state).to_dict()
