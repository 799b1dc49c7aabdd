"""The single-game path (``FastGame``): the reference engine's games, decision by decision, and its refusals."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game, IllegalActionError, InvalidStateError
from gubs_env.fast import FastGame, FastGames


def assert_same_position(fast: FastGame, game: Game, codec: ActionCodec) -> None:
    """Seat to act, mask, every seat's observation and the end of the game agree with the reference."""
    seat = game.current_player
    assert fast.actor == (-1 if seat is None else seat)
    assert fast.is_over == game.is_over and fast.truncated == game.truncated and fast.turn == game.state.turn
    expected = np.zeros(NUM_ACTIONS, dtype=np.int8) if seat is None else codec.mask(game.legal_actions(), seat)
    assert np.array_equal(fast.mask, expected)
    for viewer in range(game.num_players):
        assert fast.observe(viewer).tobytes() == encode(game.state, viewer).tobytes()
    assert fast.scores() == game.scores()
    assert fast.winners() == (sorted(game.winners()) if game.is_over and not game.truncated else [])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seeded_games_agree_with_the_reference_at_every_decision(players: int) -> None:
    codec = ActionCodec(players)
    fast = FastGame(players)
    for seed in (players, 1000 + players):
        fast.reset(seed)
        game = Game(players, seed=seed, record_log=False)
        choose = random.Random(seed).choice
        decisions = 0
        while True:
            assert_same_position(fast, game, codec)
            if decisions % 25 == 0 or game.is_over:
                assert fast.to_dict() == game.to_dict()
            if game.is_over:
                break
            action = choose(np.flatnonzero(fast.mask).tolist())
            game.apply(codec.action(action, game.current_player))
            fast.step(action)
            decisions += 1
        assert decisions > 20


def test_a_truncated_game_agrees_with_the_reference() -> None:
    fast, game = FastGame(3, seed=5, max_turns=4), Game(3, seed=5, max_turns=4, record_log=False)
    codec = ActionCodec(3)
    while not game.is_over:
        action = int(np.flatnonzero(fast.mask)[-1])
        game.apply(codec.action(action, game.current_player))
        fast.step(action)
    assert fast.truncated and fast.winners() == [] and fast.to_dict() == game.to_dict()
    assert_same_position(fast, game, codec)


@pytest.mark.parametrize("seed", [2**64 - 1, 2**64, 2**100 + 7])
def test_any_seed_deals_the_reference_game(seed: int) -> None:
    assert FastGame(4, seed=seed).to_dict() == Game(4, seed=seed, record_log=False).to_dict()


def test_no_seed_deals_fresh_games() -> None:
    first, second = FastGame(2), FastGame(2)
    assert first.to_dict() != second.to_dict()


def test_export_and_import_move_the_game_between_engines() -> None:
    fast = FastGame(3, seed=9)
    for _ in range(40):
        fast.step(int(np.flatnonzero(fast.mask)[0]))
    game = fast.export_game()
    other = FastGame(2, seed=1)
    other.import_game(game)
    assert other.num_players == 3 and other.to_dict() == game.to_dict() == fast.to_dict()
    assert np.array_equal(other.mask, fast.mask) and other.actor == fast.actor
    other.import_game(game.to_dict())
    assert other.to_dict() == fast.to_dict()


def test_the_same_game_as_a_batch_of_one() -> None:
    fast, batch = FastGame(5, seed=77), FastGames(1, 5)
    batch.reset([77])
    choose = random.Random(77).choice
    while not fast.is_over:
        assert fast.actor == batch.actor[0] and np.array_equal(fast.mask, batch.mask[0])
        assert np.array_equal(fast.observe(fast.actor), batch.obs[0])
        action = choose(np.flatnonzero(fast.mask).tolist())
        fast.step(action)
        batch.step([action])
        assert np.array_equal(fast.row, batch.states[0])


def test_copies_and_pickles_are_independent_games() -> None:
    fast = FastGame(2, seed=3)
    for twin in (copy.deepcopy(fast), pickle.loads(pickle.dumps(fast))):
        assert twin.to_dict() == fast.to_dict() and np.array_equal(twin.mask, fast.mask)
        twin.step(int(np.flatnonzero(twin.mask)[0]))
        assert twin.to_dict() != fast.to_dict()
        assert not twin.mask.flags.writeable


# --- what is refused --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        1.0,
        True,
        np.bool_(True),
        "0",
        None,
        [0],
        np.array([0]),
        np.array(0.0),
        -1,
        NUM_ACTIONS,
        10**5000,
        np.uint64(2**63),
    ],
    ids=["float", "bool", "np.bool", "str", "None", "list", "1-d", "0-d float", "-1", "356", "huge", "uint64"],
)
def test_a_non_id_is_a_value_error_and_changes_nothing(action: object) -> None:
    fast = FastGame(2, seed=0)
    before, mask = fast.to_dict(), fast.mask.copy()
    with pytest.raises(ValueError) as info:
        fast.step(action)
    assert not isinstance(info.value, IllegalActionError) and len(str(info.value)) < 200
    assert fast.to_dict() == before and np.array_equal(fast.mask, mask)


def test_an_illegal_id_is_an_illegal_action_error_that_changes_nothing() -> None:
    fast = FastGame(3, seed=0)
    before = fast.to_dict()
    illegal = int(np.flatnonzero(fast.mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action id {illegal} .* not legal: seat 0 must decide"):
        fast.step(illegal)
    with pytest.raises(IllegalActionError):
        fast.step(np.int16(illegal))
    assert fast.to_dict() == before


def test_a_finished_game_takes_no_action() -> None:
    fast = FastGame(2, seed=1, max_turns=1)
    while not fast.is_over:
        fast.step(int(np.flatnonzero(fast.mask)[0]))
    before = fast.to_dict()
    with pytest.raises(IllegalActionError, match="the game is over"):
        fast.step(0)
    assert fast.to_dict() == before


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 1},
        {"num_players": 7},
        {"num_players": "2"},
        {"seed": -1},
        {"seed": 1.0},
        {"seed": True},
        {"max_turns": 0},
        {"nope": 1},
    ],
)
def test_bad_construction_is_a_value_error(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        FastGame(**kwargs)


def test_bad_reset_observe_and_import_change_nothing() -> None:
    fast = FastGame(3, seed=4)
    before = fast.to_dict()
    for bad_seed in (-1, 2.5, "1", False):
        with pytest.raises(ValueError, match="seed"):
            fast.reset(bad_seed)  # type: ignore[arg-type]
    for seat in (-1, 3, 1.0, True, None):
        with pytest.raises(ValueError, match="seat"):
            fast.observe(seat)  # type: ignore[arg-type]
    for out in (
        np.zeros(OBS_SIZE),
        np.zeros(OBS_SIZE + 1, dtype=np.float32),
        np.zeros((OBS_SIZE, 2), np.float32)[:, 0],
    ):
        with pytest.raises(ValueError, match="out"):
            fast.observe(0, out)
    with pytest.raises(InvalidStateError):
        fast.import_game({"not": "a state"})
    with pytest.raises(InvalidStateError):
        fast.import_game("a game")  # type: ignore[arg-type]
    assert fast.to_dict() == before
    with pytest.raises(ValueError):
        fast.mask[0] = 1  # the engine's own mask: read-only
    with pytest.raises(ValueError):
        fast.row[0] = 1
