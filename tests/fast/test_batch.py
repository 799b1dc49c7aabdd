"""The batch API contract: shapes and dtypes, illegal actions, auto-reset, threads, export and import."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game, IllegalActionError, InvalidStateError
from gubs_env.engine.positions import position
from gubs_env.fast import FastGames, max_threads, sample_legal
from tests.fast.harness import assert_same, assert_view


def _started(n: int = 4, players: int = 2, **kwargs: object) -> FastGames:
    games = FastGames(n, players, threads=1, **kwargs)  # type: ignore[arg-type]
    games.reset()
    return games


def _snapshot(games: FastGames) -> list[np.ndarray]:
    return [a.copy() for a in (games.states, games.rngs, games.seeds, games.actor, games.mask, games.obs)]


def _unchanged(games: FastGames, before: list[np.ndarray]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(_snapshot(games), before, strict=True))


def _random_actions(games: FastGames, chooser: np.ndarray) -> np.ndarray:
    actions = np.zeros(games.num_games, dtype=np.int64)
    sample_legal(games.mask, chooser, actions, threads=1)
    return actions


def _seat(game: Game) -> int:
    seat = game.current_player
    assert seat is not None
    return seat


def test_shapes_and_dtypes() -> None:
    games = _started(3)
    assert games.mask.shape == (3, 356) and games.mask.dtype == np.int8
    assert games.obs.shape == (3, 512) and games.obs.dtype == np.float32
    assert games.actor.shape == (3,) and games.actor.dtype == np.int64
    assert games.rewards.shape == (3, 6) and games.rewards.dtype == np.float32
    assert games.terminated.dtype == np.bool_ and games.truncated.dtype == np.bool_
    assert games.scores().shape == (3, 6)
    arrays = [id(a) for a in (games.mask, games.obs, games.actor, games.rewards)]
    games.step(np.zeros(3, dtype=np.int64))
    assert arrays == [id(a) for a in (games.mask, games.obs, games.actor, games.rewards)]  # written in place


def test_scores_of_some_games_equal_those_rows_of_all() -> None:
    games = FastGames(4, threads=1)
    games.reset(seeds=[1, 2, 3, 4], num_players=[2, 3, 5, 6])
    generator = np.random.default_rng(0)
    for _ in range(300):  # random play, so that some sides score
        chosen = np.array([generator.choice(np.flatnonzero(row)) if row.any() else -1 for row in games.mask])
        games.step(chosen)
    every = games.scores()
    assert every.any()
    some = games.scores([1, 3])
    np.testing.assert_array_equal(some[[1, 3]], every[[1, 3]])
    assert not some[[0, 2]].any()
    for bad in ([4], [-1], [1.5]):
        with pytest.raises(ValueError, match="game must be an int"):
            games.scores(bad)


def test_reset_deals_the_reference_games() -> None:
    games = FastGames(5, threads=1)
    games.reset(seeds=[10, 11, 12, 13, 14], num_players=[2, 3, 4, 5, 6])
    for i in range(5):
        game = Game(i + 2, seed=10 + i)
        assert_same(games, i, game)
        assert_view(games, i, game, ActionCodec(i + 2))
        assert games.hand_sizes(i) == [3] * (i + 2)


def test_illegal_action_names_the_game_and_changes_nothing() -> None:
    games = _started(4)
    games.step([0, 0, 0, 0])
    before = _snapshot(games)
    actions = [2, 2, 0, 2]  # game 2 is in its play phase: "draw" (id 0) is illegal there
    with pytest.raises(IllegalActionError, match=r"game 2: action id 0 \(Draw\)"):
        games.step(actions)
    assert _unchanged(games, before)


@pytest.mark.parametrize(
    "actions",
    [[356, 0, 0, 0], [-2, 0, 0, 0], [0, 0, 0], [[0, 0, 0, 0]], [0.0, 0, 0, 0], [True, 0, 0, 0], "0000", None],
)
def test_garbage_actions_are_refused_unchanged(actions: object) -> None:
    games = _started(4)
    before = _snapshot(games)
    with pytest.raises(ValueError):
        games.step(actions)  # type: ignore[arg-type]
    assert _unchanged(games, before)


def test_skip_leaves_a_game_as_it_is() -> None:
    games = _started(2)
    row = games.states[1].copy()
    games.step([0, -1])
    assert np.array_equal(games.states[1], row)
    assert not np.array_equal(games.states[0], row)


def test_step_before_reset_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        FastGames(2).step([0, 0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_games": 0},
        {"num_games": True},
        {"num_games": 2, "num_players": 7},
        {"num_games": 2, "num_players": 1.5},
        {"num_games": 2, "threads": 0},
        {"num_games": 2, "threads": 10_000},
        {"num_games": 2, "letter_placement": "middle"},
        {"num_games": 2, "max_turns": 0},
        {"num_games": 2, "max_turns": 2**40},
        {"num_games": 2, "colour": "red"},
    ],
)
def test_bad_construction_is_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        FastGames(**kwargs)


@pytest.mark.parametrize(
    ("seeds", "players"),
    [([0, -1], None), ([0.5, 1], None), ([0, 2**64], None), ([0], None), (None, [2, 7]), (None, [2, True])],
)
def test_bad_resets_are_refused_unchanged(seeds: object, players: object) -> None:
    games = _started(2)
    before = _snapshot(games)
    with pytest.raises(ValueError):
        games.reset(seeds, players)  # type: ignore[arg-type]
    assert _unchanged(games, before)


def _play_to_ends(games: FastGames, steps: int, seed: int = 0) -> list[tuple[int, np.ndarray]]:
    """Random steps; returns (game, rewards) for each end seen."""
    chooser = np.arange(games.num_games, dtype=np.uint64) + np.uint64(seed)
    ends = []
    for _ in range(steps):
        games.step(_random_actions(games, chooser))
        for i in np.flatnonzero(games.terminated | games.truncated):
            ends.append((int(i), games.rewards[i].copy()))
    return ends


def test_auto_reset_reports_the_end_and_starts_the_next_seed() -> None:
    games = FastGames(3, 2, threads=1, auto_reset=True)
    games.reset(seeds=[0, 1, 2])
    ends = _play_to_ends(games, 700)
    assert ends, "no game ended in 700 steps"
    for _game, rewards in ends:
        assert sorted(rewards[:2].tolist()) in ([-1.0, 1.0], [1.0, 1.0])
        assert rewards[2:].tolist() == [0.0] * 4
    finished = {i for i, _ in ends}
    for i in finished:
        assert games.seeds[i] > i and (int(games.seeds[i]) - i) % 3 == 0
    assert games.is_over().sum() == 0  # every ended game was replaced at once


def test_auto_reset_slot_holds_the_reference_game_of_the_next_seed() -> None:
    games = FastGames(2, 2, threads=1, auto_reset=True, max_turns=3)
    games.reset(seeds=[5, 6])
    chooser = np.array([1, 2], dtype=np.uint64)
    while not games.truncated.any():
        games.step(_random_actions(games, chooser))
    i = int(np.flatnonzero(games.truncated)[0])
    assert games.rewards[i].tolist() == [0.0] * 6
    assert int(games.seeds[i]) == 5 + i + 2
    game = Game(2, seed=5 + i + 2, max_turns=3)
    assert_same(games, i, game)
    assert_view(games, i, game, ActionCodec(2))


@pytest.mark.slow
def test_results_do_not_depend_on_the_thread_count() -> None:
    runs = []
    for threads in sorted({1, max_threads()}):
        games = FastGames(64, 3, threads=threads, auto_reset=True)
        games.reset(seeds=np.arange(100, 164))
        ends = _play_to_ends(games, 300, seed=7)
        runs.append((games.states.copy(), games.rngs.copy(), games.obs.copy(), [i for i, _ in ends]))
    first = runs[0]
    for other in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(first[:3], other[:3], strict=True))
        assert first[3] == other[3]


def test_export_then_continue_in_the_reference_engine() -> None:
    games = _started(2, 3)
    _play_to_ends(games, 40)
    game = games.export_game(1)
    assert game.to_dict() == games.to_dict(1)
    codec = ActionCodec(3)
    for _ in range(30):
        if game.is_over:
            break
        seat = _seat(game)
        action = int(np.flatnonzero(codec.mask(game.legal_actions(), seat))[-1])
        game.apply(codec.action(action, seat))
        games.step([-1, action])
        assert_same(games, 1, game)


def test_import_of_a_reference_position_then_continue() -> None:
    game = Game(4, seed=21)
    codec = ActionCodec(4)
    for _ in range(60):
        seat = _seat(game)
        game.apply(codec.action(int(np.flatnonzero(codec.mask(game.legal_actions(), seat))[0]), seat))
    games = _started(3, 2)
    games.import_game(1, game)
    assert_same(games, 1, game)
    assert_view(games, 1, game, codec)
    games.import_game(2, game.to_dict())
    assert games.to_dict(2) == game.to_dict()
    for _ in range(30):
        seat = _seat(game)
        action = int(np.flatnonzero(codec.mask(game.legal_actions(), seat))[-1])
        game.apply(codec.action(action, seat))
        games.step([-1, action, action])
        assert_same(games, 1, game)
        assert_same(games, 2, game)
        if game.is_over:
            break


def test_observe_gives_every_seat_its_reference_view() -> None:
    games = _started(2, 4)
    _play_to_ends(games, 25)
    for seat in range(4):
        obs = games.observe([seat, seat])
        for i in range(2):
            expected = encode(games.export_game(i).state, seat)
            assert np.array_equal(obs[i].view(np.uint32), expected.view(np.uint32))
    with pytest.raises(ValueError):
        games.observe([4, 0])
    with pytest.raises(ValueError):
        games.observe([0, 0], out=np.zeros((2, 512), dtype=np.float64))


def _hostile_positions() -> list[object]:
    base = position(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    ring = copy.deepcopy(base)
    ring["hands"][0] = {}
    ring["pending"].update(
        step="ring", play={"op": "play", "card": "Double Ring", "as_kind": "Double Ring", "use": "ring"}, picks=[9]
    )
    ring["deck"].remove("Double Ring")
    far = copy.deepcopy(base)
    far["hands"][0] = {}
    far["pending"].update(
        step="cancel",
        actor=1,
        play={"op": "play", "card": "Lure", "as_kind": "Lure", "use": "lure", "seat": 99},
    )
    marks = copy.deepcopy(base)
    marks["pending"]["marks"] = [10**12]
    turn = copy.deepcopy(base)
    turn["turn"]["number"] = 2**40
    return [None, 7, "position", {}, {"version": 1}, ring, far, marks, turn, [base]]


@pytest.mark.parametrize("hostile", _hostile_positions())
def test_hostile_imports_are_refused_unchanged(hostile: object) -> None:
    games = _started(2)
    before = _snapshot(games)
    with pytest.raises((ValueError, InvalidStateError)):
        games.import_game(0, hostile)  # type: ignore[arg-type]
    assert _unchanged(games, before)


@pytest.mark.parametrize("game", [-1, 2, 1.0, True, "0"])
def test_bad_game_indices_are_refused(game: object) -> None:
    games = _started(2)
    with pytest.raises(ValueError):
        games.to_dict(game)  # type: ignore[arg-type]


def test_reset_games_restarts_only_those_slots() -> None:
    games = _started(3)
    games.step([0, 0, 0])
    untouched = games.states[1].copy()
    games.reset_games([0, 2], [40, 41])
    assert np.array_equal(games.states[1], untouched)
    assert_same(games, 0, Game(2, seed=40))
    assert_same(games, 2, Game(2, seed=41))
    with pytest.raises(ValueError):
        games.reset_games([0, 0], [1, 2])
    with pytest.raises(ValueError):
        games.reset_games([3], [1])
