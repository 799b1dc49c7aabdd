"""The one seating (agents.training.core.seating), as each backend builds it from the run's config.

The table size of every slot, and the player of each opponent seat, must come out the same whether sb3, RLlib (its
env on either engine, its compiled runner's tables) or the native backend plays the run
(tests/agents/test_one_core.py holds each backend's learner seats and deals to the core's draw).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.training.core.config import PoolConfig, TrainingConfig
from agents.training.core.games import SelfPlayGames
from agents.training.core.seating import POLICY, SELF_COPY, Seating
from agents.training.rllib.backend import build_config
from agents.training.rllib.fast_tables import FastTables
from agents.training.rllib.runner import seating_of
from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv
from gubs_env.engine.players import TableSizes
from gubs_env.envs.rllib_env import GubsMultiAgentEnv

SIZES = [2, 4, 3]
SLOTS = 7


def test_every_backend_gives_each_slot_the_same_table_size():
    rule = TableSizes.of(SIZES).per_slot(SLOTS).tolist()
    assert rule == [2, 4, 3, 2, 4, 3, 2]
    envs = FastSelfPlayVecEnv(Seating(SLOTS, PoolConfig(), 0, learner_plays_self=False), SIZES)
    try:
        assert [int(n) for n in envs.get_attr("num_players")] == rule
    finally:
        envs.close()
    assert SelfPlayGames(Seating(SLOTS, PoolConfig(), 0), SIZES).players.tolist() == rule
    for first in (0, 5):
        tables = FastTables(SLOTS, TableSizes.of(SIZES), {}, first)
        expected = TableSizes.of(SIZES).per_slot(SLOTS, first).tolist()
        assert tables.players.tolist() == expected
        tables.reset(list(range(SLOTS)), list(range(SLOTS)))
        assert [tables.export(slot).num_players for slot in range(SLOTS)] == expected
        for engine in ("reference", "fast"):
            envs = [GubsMultiAgentEnv({"players": SIZES, "slot": first + i, "engine": engine}) for i in range(SLOTS)]
            for env in envs:
                env.reset(seed=0)
            assert [env.game.num_players for env in envs] == expected


def test_every_backend_seats_the_same_players_for_the_same_config():
    """sb3 and native build the seating from the config, RLlib's runners from the env config Ray carries: the same
    draws give every seat the same player (sb3's copy of the learner where the others seat the learner itself)."""
    config = TrainingConfig(
        backend="rllib", players=SIZES, seed=3, pool=PoolConfig(p_random=0.1, p_heuristic=0.3, self_share=0.3)
    ).resolved()
    rllib = seating_of(build_config(config).env_config, SLOTS)
    sb3 = Seating.of(config, SLOTS, learner_plays_self=False)
    native = Seating.of(config, SLOTS)
    slots = np.arange(SLOTS)
    players = TableSizes.of(SIZES).per_slot(SLOTS)
    seen: set[int] = set()
    for round_ in range(30):
        learners = (slots + round_) % players
        for seating in (rllib, sb3, native):
            seating.seat(slots, players, learners, deals=slots + 100 * round_)
        assert np.array_equal(rllib.players, native.players) and rllib.labels == native.labels
        assert np.array_equal(np.where(sb3.players == SELF_COPY, POLICY, sb3.players), native.players)
        seen.update(np.unique(sb3.players).tolist())
    assert seen >= {POLICY, SELF_COPY} and len(seen) == 4  # the learner, its copy, random play and the heuristic
