"""Whole games with outcomes (``play_games``): the same games and results as step-by-step play on both engines."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.state import Step
from gubs_env.fast import FastGame, FastGames, Outcomes, max_threads, play_games, sample_legal
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.rules import legal_mask


def _splitmix(state: int) -> tuple[int, int]:
    """The next state and draw of the SplitMix64 generator a random seat chooses its ids with."""
    bits = (1 << 64) - 1
    state = (state + 0x9E3779B97F4A7C15) & bits
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & bits
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & bits
    return state, z ^ (z >> 31)


def highest_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A deterministic batched policy: the highest legal id of each row."""
    assert observations.shape == (masks.shape[0], 512) and observations.dtype == np.float32
    return NUM_ACTIONS - 1 - np.argmax(masks[:, ::-1] != 0, axis=1)


def replay(seed: int, players: int, policy_seats: set[int], **rule_options: object) -> tuple[Game, int]:
    """The game ``play_games`` plays for ``seed``, replayed one id at a time on FastGame and the reference engine.

    The two engines step in lockstep; random seats choose as the compiled random player does (from the ids in the
    order the compiled rules list them), policy seats as :func:`highest_legal`. Returns the reference game and its
    decisions.
    """
    fast = FastGame(players, seed=seed, **rule_options)
    game = Game(players, seed=seed, record_log=False, **rule_options)
    codec = ActionCodec(players)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    ids = np.zeros(NUM_ACTIONS, dtype=np.int64)
    chooser, decisions = seed, 0
    while not fast.is_over:
        seat = fast.actor
        assert seat == game.current_player
        if seat in policy_seats:
            action = int(highest_legal(fast.observe(seat)[None, :], fast.mask[None, :])[0])
        else:
            count = legal_mask(fast.row.copy(), mask, ids)  # the rules take a writable row
            chooser, draw = _splitmix(chooser)
            action = int(ids[draw % count])
        fast.step(action)
        game.apply(codec.action(action, seat))
        decisions += 1
    assert game.is_over and fast.to_dict() == game.to_dict()
    return game, decisions


def assert_outcome(outcomes: Outcomes, j: int, game: Game, decisions: int) -> None:
    """Row ``j`` of ``outcomes`` is the finished reference game's result."""
    players = game.num_players
    assert outcomes.scores[j, :players].tolist() == game.scores()
    assert not outcomes.scores[j, players:].any()
    assert np.flatnonzero(outcomes.winners[j]).tolist() == sorted(game.winners())
    assert bool(outcomes.truncated[j]) == game.truncated
    assert int(outcomes.turns[j]) == game.state.turn
    assert int(outcomes.decisions[j]) == decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_are_the_reference_engines_games_with_its_results(players: int) -> None:
    seeds = [3, 40, 2**64 - 1]
    outcomes = play_games(seeds, players)
    for j, seed in enumerate(seeds):
        game, decisions = replay(seed, players, set())
        assert_outcome(outcomes, j, game, decisions)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_policy_seats_are_asked_and_their_games_match_the_reference(players: int) -> None:
    policy_seats = {0, players - 1}
    seats: list[str | Callable] = ["random"] * players
    for s in policy_seats:
        seats[s] = highest_legal
    seeds = np.arange(7, 12)
    outcomes = play_games(seeds, players, seats=seats, batch=2)  # fewer slots than games: slots start new games
    for j, seed in enumerate(seeds.tolist()):
        game, decisions = replay(seed, players, policy_seats)
        assert_outcome(outcomes, j, game, decisions)


def test_truncated_games_have_no_winners_and_the_reference_turn_count() -> None:
    outcomes = play_games(np.arange(5), 4, max_turns=5)
    assert outcomes.truncated.all() and not outcomes.winners.any() and (outcomes.turns == 6).all()
    game, decisions = replay(2, 4, set(), max_turns=5)
    assert_outcome(outcomes, 2, game, decisions)


def test_outcomes_do_not_depend_on_threads_or_batch() -> None:
    seeds = np.arange(100, 160)
    one = play_games(seeds, 3, seats=["random", highest_legal, "random"])
    for kwargs in ({"threads": max_threads()}, {"batch": 7}, {"batch": 1}):
        other = play_games(seeds, 3, seats=["random", highest_legal, "random"], **kwargs)
        for field in ("scores", "winners", "decisions", "turns", "truncated"):
            assert np.array_equal(getattr(one, field), getattr(other, field)), (kwargs, field)


def test_every_finished_game_has_a_winner_with_the_top_score() -> None:
    outcomes = play_games(np.arange(300), 5)
    assert outcomes.scores.dtype == np.int64 and outcomes.winners.dtype == np.bool_
    assert not outcomes.truncated.any()
    top = outcomes.scores.max(axis=1)
    assert outcomes.winners.any(axis=1).all()
    assert (outcomes.scores[outcomes.winners] == np.repeat(top, outcomes.winners.sum(axis=1))).all()
    assert (outcomes.decisions > 20).all() and (outcomes.turns > 5).all()


def test_one_callable_for_several_seats_is_asked_once_per_round_for_all_of_them() -> None:
    calls: list[int] = []

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(masks.shape[0])
        return highest_legal(observations, masks)

    outcomes = play_games(np.arange(6), 2, seats=[policy, policy])
    assert sum(calls) == int(outcomes.decisions.sum())
    assert max(calls) == 6  # every game at once: the two seats share one call


def test_no_seeds_no_games() -> None:
    outcomes = play_games(np.zeros(0, dtype=np.int64), 2)
    assert outcomes.scores.shape == (0, 6) and outcomes.decisions.shape == (0,)


# --- what is refused --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seeds": [-1]}, "seeds"),
        ({"seeds": [1.5]}, "seeds"),
        ({"seeds": [2**64]}, "seeds"),
        ({"seeds": "abc"}, "seeds"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"seats": ["random"]}, "seats"),
        ({"seats": "random"}, "seats"),
        ({"seats": ["random", "heuristic"]}, "seats"),
        ({"seats": ["random", 3]}, "seats"),
        ({"threads": 0}, "threads"),
        ({"threads": max_threads() + 1}, "threads"),
        ({"threads": True}, "threads"),
        ({"threads": None}, "threads"),
        ({"batch": 0}, "batch"),
        ({"batch": 2.0}, "batch"),
        ({"no_such_option": 1}, "no_such_option"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, message: str) -> None:
    arguments = {"seeds": [1, 2], "num_players": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        play_games(**arguments)


@pytest.mark.parametrize(
    "answer",
    [
        lambda obs, masks: np.zeros(masks.shape[0] + 1, dtype=np.int64),  # one id too many
        lambda obs, masks: np.zeros(masks.shape[0], dtype=np.float64),  # floats
        lambda obs, masks: None,
        lambda obs, masks: [True] * masks.shape[0],
    ],
    ids=["shape", "floats", "none", "bools"],
)
def test_a_policy_answer_that_is_not_one_id_per_row_is_refused(answer: Callable) -> None:
    with pytest.raises(ValueError, match="policy"):
        play_games([1, 2], 2, seats=[answer, "random"])


@pytest.mark.parametrize("bad_id", [-1, NUM_ACTIONS, 2**70, "illegal"])
def test_an_illegal_id_from_a_policy_names_its_seat(bad_id: object) -> None:
    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray | list[int]:
        if bad_id == "illegal":
            return np.argmin(masks, axis=1)  # a 0 in every mask: never legal
        return [bad_id] * masks.shape[0]  # type: ignore[list-item]

    with pytest.raises(ValueError, match=r"seat 1|policy") as info:
        play_games([1, 2], 2, seats=["random", policy])
    if bad_id in (-1, NUM_ACTIONS, "illegal"):
        assert isinstance(info.value, IllegalActionError) and "seat 1" in str(info.value)


# --- random legal ids for a batch (the benchmark's and trainers' choice) ---------------------------------------


def test_sample_legal_picks_legal_ids_and_refuses_bad_arrays() -> None:
    games = FastGames(8, 5)
    games.reset()
    actions = np.zeros(8, dtype=np.int64)
    sample_legal(games.mask, np.arange(8, dtype=np.uint64), actions)
    assert all(games.mask[i, a] == 1 for i, a in enumerate(actions))
    with pytest.raises(ValueError):
        sample_legal(games.mask.astype(np.int64), np.arange(8, dtype=np.uint64), actions)
    with pytest.raises(ValueError, match="threads"):
        sample_legal(games.mask, np.arange(8, dtype=np.uint64), actions, threads=0)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_random_player_reads_the_ids_in_the_order_the_mask_writes_them(players: int) -> None:
    """The random player asks for the legal ids without a mask: at every position of some games they must be the
    ids written with the mask, in the same order (the replay above chooses from the latter)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    ids = np.zeros(NUM_ACTIONS, dtype=np.int64)
    ids_alone = np.zeros(NUM_ACTIONS, dtype=np.int64)
    steps_seen: set[int] = set()
    for seed in range(10, 16):
        fast = FastGame(players, seed=seed)
        chooser = seed
        while not fast.is_over:
            row = fast.row.copy()
            count = legal_mask(row, mask, ids)
            assert legal_mask(row, np.zeros(0, dtype=np.int8), ids_alone) == count
            assert np.array_equal(ids_alone[:count], ids[:count])
            assert np.array_equal(np.flatnonzero(mask), np.sort(ids[:count]))
            steps_seen.add(int(row[L.STEP]))
            chooser, draw = _splitmix(chooser)
            fast.step(int(ids[draw % count]))
    # a Scout's placing step is where the ids alone must skip repeated kinds without a mask to look at
    assert {int(Step.DRAW), int(Step.PLAY), int(Step.SCOUT)} <= steps_seen
