"""The self-play core (agents.training.core.tables): its slots, deals, steps and forced decisions, and the same games
whether RLlib's runner tables or the recipe's rollouts drive it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.training.core.tables import Tables, next_deal
from agents.training.native.rollout import SelfPlayGames
from gubs_env.encoding.id_table import ReferenceTable
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.fast import SKIP

SIZES = TableSizes.of([2, 4, 3])


def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([int(np.flatnonzero(mask)[0]) for mask in masks], dtype=np.int64)


def play_out(tables: Tables) -> np.ndarray:
    """Every running game to its end, each decision the lowest legal id; returns each slot's seat rewards."""
    rewards = np.zeros((tables.num_slots, MAX_PLAYERS), dtype=np.float32)
    actions = np.full(tables.num_slots, SKIP, dtype=np.int64)
    while (tables.actor >= 0).any():
        live = np.flatnonzero(tables.actor >= 0)
        actions[:] = SKIP
        actions[live] = first_legal(tables.games.mask[live])
        ended = tables.step(actions)
        rewards[ended] = tables.games.rewards[ended]
    return rewards


def test_slots_take_the_runs_table_sizes_from_their_first_slot_on():
    assert Tables(5, SIZES).players.tolist() == [2, 4, 3, 2, 4]
    tables = Tables(4, SIZES, first=4)
    assert tables.players.tolist() == [4, 3, 2, 4]
    tables.deal(np.arange(4), [11, 12, 13, 14])
    assert [tables.games.export_game(slot, record_log=False).num_players for slot in range(4)] == [4, 3, 2, 4]


def test_a_slot_is_over_until_dealt_and_a_deal_leaves_the_other_slots_as_they_are():
    tables = Tables(3, SIZES)
    assert tables.over.all() and (tables.actor == -1).all()
    tables.deal([1], [5])
    assert tables.over.tolist() == [True, False, True]
    assert tables.actor[1] == ReferenceTable(4, 5).actor
    with pytest.raises(ValueError, match="slot 0: its game is over"):
        tables.step(np.array([3, SKIP, SKIP], dtype=np.int64))
    before = tables.games.states.copy()
    tables.deal([0, 2], [6, 7])
    assert np.array_equal(tables.games.states[1], before[1])


def test_a_slots_stream_of_deals_restarts_from_its_seed_and_goes_on_otherwise():
    tables = Tables(2, TableSizes.of(2))
    tables.deal_next([0, 1], [42, 42])
    stream = np.random.default_rng(42)
    first = next_deal(stream)
    assert tables.games.seeds.tolist() == [first, first]
    tables.deal_next([1], [None])
    assert int(tables.games.seeds[1]) == next_deal(stream)


def test_step_answers_the_slots_whose_game_ended_and_end_marks_a_callers_ending():
    tables = Tables(3, SIZES)
    tables.deal(np.arange(3), [1, 2, 3])
    tables.end([2])
    assert tables.actor[2] == -1 and not tables.legal(np.zeros(3, dtype=np.int64))[2]
    rewards = play_out(tables)
    assert tables.over.all()
    for slot in range(2):  # each ended game's rewards are the reference engine's
        game = ReferenceTable(int(tables.players[slot]), slot + 1)
        while not game.over:
            game.step(int(np.flatnonzero(game.action_mask())[0]))
        winners = set(game.winners())
        expected = [0.0 if game.truncated else (1.0 if seat in winners else -1.0) for seat in range(game.num_players)]
        assert rewards[slot].tolist() == expected + [0.0] * (MAX_PLAYERS - game.num_players)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=3, max_size=3), st.integers(0, 400))
def test_forced_names_exactly_the_running_games_with_one_legal_id(seeds, steps):
    tables = Tables(3, SIZES)
    tables.deal(np.arange(3), seeds)
    actions = np.full(3, SKIP, dtype=np.int64)
    for _ in range(steps):
        live = np.flatnonzero(tables.actor >= 0)
        if live.size == 0:
            break
        counts = tables.games.mask.sum(axis=1)
        assert tables.forced().tolist() == [bool(~tables.over[s] and counts[s] == 1) for s in range(3)]
        forced = np.flatnonzero(tables.forced())
        assert np.array_equal(tables.forced_ids(forced), first_legal(tables.games.mask[forced]))
        actions[:] = SKIP
        actions[live] = first_legal(tables.games.mask[live])
        tables.step(actions)


def test_the_rllib_tables_and_the_recipes_rollouts_play_the_same_games_on_the_core():
    pytest.importorskip("ray.rllib")
    from agents.training.rllib.fast_tables import FastTables

    slots = 6
    rllib = FastTables(slots, TableSizes.of(SIZES), {})
    rllib.reset(list(range(slots)), list(range(slots)))
    seeds = np.array([next_deal(np.random.default_rng(slot)) for slot in range(slots)], dtype=np.uint64)
    finals: dict[int, dict[str, float]] = {}
    while len(finals) < slots:
        actions = np.full(slots, SKIP, dtype=np.int64)
        for slot in range(slots):
            if rllib.seat_to_act(slot) >= 0:
                actions[slot] = first_legal(rllib.core.games.mask[slot : slot + 1])[0]
        for slot, result in enumerate(rllib.step(actions)):
            if result is not None and rllib.seat_to_act(slot) < 0:
                finals[slot] = result[1]

    def decide(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return first_legal(masks), np.zeros(len(masks), np.float32), np.zeros(len(masks), np.float32)

    recipe = SelfPlayGames(slots, SIZES)
    assert recipe.players.tolist() == rllib.players.tolist()
    batch = recipe.play(seeds, np.zeros((slots, MAX_PLAYERS), np.int8), decide)
    for slot in range(slots):
        names = rllib.names(slot)
        assert [finals[slot][name] for name in names] == batch.seat_rewards[slot, : len(names)].tolist()
