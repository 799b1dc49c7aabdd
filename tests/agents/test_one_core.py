"""The self-play core (gubs_env.fast.SelfPlayTables): its slots, streams of games, steps and forced decisions, and
the same table sizes, learner seats and deals for the same seeds whichever backend drives it: sb3 (through the
public vector env), the native backend and RLlib's compiled runner."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.training import TrainingConfig
from agents.training.core.config import PoolConfig
from agents.training.core.games import SelfPlayGames
from agents.training.core.seating import Seating
from agents.training.native.backend import NativeBackend
from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv
from gubs_env.encoding.id_table import ReferenceTable
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.envs.selfplay import next_game
from gubs_env.fast import SKIP
from gubs_env.fast import SelfPlayTables as Tables

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


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from([2, 3, 4, 5, 6]))
def test_a_slots_stream_draws_the_seat_then_the_deal_as_selfplay_env_does_and_restarts_from_its_seed(seed, players):
    tables = Tables(2, TableSizes.of(players))
    tables.seed_streams([0, 1], [seed, seed])
    stream = np.random.default_rng(seed)
    seat, deal = next_game(stream, players)
    assert tables.deal_next([0, 1]).tolist() == [seat, seat]
    assert tables.games.seeds.tolist() == [deal, deal] == tables.deals.tolist()
    seat, deal = next_game(stream, players)
    assert tables.deal_next([1]).tolist() == [seat] and int(tables.games.seeds[1]) == deal
    tables.seed_streams([1], [seed])
    assert tables.deal_next([1]).tolist() == [tables.seats[0]] and tables.deals[1] == tables.deals[0]


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
    seeds = np.array([next_game(np.random.default_rng(slot), int(n))[1] for slot, n in enumerate(rllib.players)])
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

    recipe = SelfPlayGames(Seating(slots, PoolConfig(), seed=0), SIZES)
    assert recipe.players.tolist() == rllib.players.tolist()
    recipe.deal(seeds.astype(np.uint64), np.zeros(slots, dtype=np.int64))
    batch = recipe.play(decide)
    for slot in range(slots):
        names = rllib.names(slot)
        assert [finals[slot][name] for name in names] == batch.seat_rewards[slot, : len(names)].tolist()


# --- every backend plays the same games for the same seeds ---------------------------------------------------------

SEED, SLOTS, GAMES = 17, 6, 2
"""The run's seed, its slots (two of each table size) and how many games of each slot the backends are compared on."""


def sb3_games() -> list[list[tuple[int, int, int]]]:
    """sb3's environments (the compiled vector env under the ``VecEnv``): each slot's first games, as it trains."""
    venv = FastSelfPlayVecEnv(Seating(SLOTS, PoolConfig(p_random=1.0), SEED), SIZES, seed=SEED)
    venv.seed(SEED)
    venv.reset()
    core = venv.vector.core
    games = [[(int(core.players[i]), int(core.seats[i]), int(core.deals[i]))] for i in range(SLOTS)]
    while min(len(g) for g in games) < GAMES:
        _, _, dones, _ = venv.step(first_legal(venv.action_masks()))
        for i in np.flatnonzero(dones):  # the next game is dealt in the step that ends one
            games[i].append((int(core.players[i]), int(core.seats[i]), int(core.deals[i])))
    return [g[:GAMES] for g in games]


def native_games() -> list[list[tuple[int, int, int]]]:
    """The native backend's batches: slot ``i``'s games are iteration after iteration's."""
    config = TrainingConfig(backend="native", seed=SEED, envs=SLOTS, players=SIZES, hidden=(8,)).resolved()
    trainer = NativeBackend(config)
    games: list[list[tuple[int, int, int]]] = [[] for _ in range(SLOTS)]
    core = trainer.games.tables
    for _ in range(GAMES):
        trainer.iterate()  # one batch: a game per slot, dealt with the learner's seat from the slot's stream
        for i in range(SLOTS):
            games[i].append((int(core.players[i]), int(core.seats[i]), int(core.deals[i])))
    return games


def rllib_games() -> list[list[tuple[int, int, int]]]:
    """RLlib's compiled runner's tables, seeded as the runner seeds them (slot ``i``: ``seed + i``)."""
    tables = pytest.importorskip("agents.training.rllib.fast_tables").FastTables(SLOTS, SIZES, {})
    games: list[list[tuple[int, int, int]]] = [[] for _ in range(SLOTS)]
    for round_ in range(GAMES):
        tables.reset(list(range(SLOTS)), [SEED + i if round_ == 0 else None for i in range(SLOTS)])
        core = tables.core
        for i in range(SLOTS):
            games[i].append((int(core.players[i]), int(tables.learner_seats[i]), int(core.deals[i])))
    return games


def test_every_backend_plays_the_same_sizes_seats_and_deals_for_the_same_seed(tmp_path):
    expected = []
    for i in range(SLOTS):  # the rule itself, from numpy's generator: slot i's stream is default_rng(seed + i)
        n, stream = int(SIZES.per_slot(SLOTS)[i]), np.random.default_rng(SEED + i)
        expected.append([(n, *next_game(stream, n)) for _ in range(GAMES)])
    assert sb3_games() == expected
    assert native_games() == expected
    assert rllib_games() == expected


def native_checkpoint(trainer: NativeBackend, tmp_path) -> bytes:
    trainer.save(tmp_path / "checkpoint.pt")
    return (tmp_path / "checkpoint.pt").read_bytes()


def test_a_native_checkpoint_keeps_the_game_streams(tmp_path):
    config = TrainingConfig(backend="native", seed=3, envs=4, players=SIZES, hidden=(8,)).resolved()
    trainer = NativeBackend(config)
    trainer.iterate()
    again = NativeBackend(config)
    again.load(native_checkpoint(trainer, tmp_path))
    assert np.array_equal(again.games.tables.streams, trainer.games.tables.streams)
    assert (again.samples, again.updates) == (trainer.samples, trainer.updates) == (trainer.samples, 1)


@pytest.mark.parametrize("word, value", [(3, 2), (4, 7)])  # an even increment: a generator that can stall
def test_a_checkpoint_whose_game_streams_are_no_generator_states_is_refused_in_one_line(tmp_path, word, value):
    import io

    import torch

    from agents.training import RunSetupError

    config = TrainingConfig(backend="native", seed=3, envs=4, players=SIZES, hidden=(8,)).resolved()
    trainer = NativeBackend(config)
    saved = torch.load(io.BytesIO(native_checkpoint(trainer, tmp_path)), weights_only=True)
    saved["games"][1, word] = value
    buffer = io.BytesIO()
    torch.save(saved, buffer)
    before = trainer.games.tables.streams.copy()
    with pytest.raises(RunSetupError, match="not generator states") as error:
        trainer.load(buffer.getvalue())
    assert "\n" not in str(error.value) and np.array_equal(trainer.games.tables.streams, before)
