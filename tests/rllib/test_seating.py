"""The one seating rule (agents.training.core.seating), driven by each backend's own code.

The table size of every slot, the learner's seat and the player of each opponent seat must come out the same
whether sb3, RLlib (its env on either engine, its compiled runner's tables) or the self-play core plays the run
(tests/agents/test_one_core.py holds each backend's learner seats and deals to the core's draw).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.training.core.config import HEURISTIC, RANDOM, SELF, SNAPSHOTS, PoolConfig, TrainingConfig
from agents.training.core.league import snapshot_label
from agents.training.core.seating import seat_player
from agents.training.native.rollout import SelfPlayGames
from agents.training.rllib.env import GubsMultiAgentEnv
from agents.training.rllib.fast_tables import FastTables
from agents.training.rllib.selfplay import MAIN, SeatMapping
from agents.training.sb3.pool import OpponentPool
from agents.training.sb3.train import make_envs
from gubs_env.engine.players import TableSizes

SIZES = [2, 4, 3]
SLOTS = 7


class Replay:
    """A generator stand-in that hands out given uniform numbers: both backends get the same ones."""

    def __init__(self, numbers: np.ndarray) -> None:
        self.numbers = list(numbers)

    def random(self) -> float:
        return float(self.numbers.pop(0))


def sb3_sizes() -> list[int]:
    config = TrainingConfig(players=SIZES, envs=SLOTS, imitate_games=0).resolved()
    envs = make_envs(config)
    try:
        return [int(n) for n in envs.get_attr("num_players")]
    finally:
        envs.close()


def test_every_backend_gives_each_slot_the_same_table_size():
    rule = TableSizes.of(SIZES).per_slot(SLOTS).tolist()
    assert rule == [2, 4, 3, 2, 4, 3, 2]
    assert sb3_sizes() == rule
    assert SelfPlayGames(SLOTS, TableSizes.of(SIZES)).players.tolist() == rule
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


def test_both_backends_seat_the_same_players_from_the_same_numbers():
    pool = PoolConfig(p_random=0.1, p_heuristic=0.3, self_share=0.3)
    snapshots, weights = ["a.zip", "b.zip", "c.zip"], [0.2, 1.0, 0.5]
    numbers = np.random.default_rng(7).random(2000)
    sb3 = OpponentPool(pool)
    sb3.set_snapshots(snapshots, weights)
    sb3.rng = Replay(numbers)  # type: ignore[assignment]
    sb3._snapshot = lambda path: path  # type: ignore[method-assign]  # which snapshot, not its weights
    mapping = SeatMapping(pool)
    module_of = {RANDOM: RANDOM, HEURISTIC: HEURISTIC, SELF: MAIN}
    for name in snapshots:
        module_of[snapshot_label(name)] = name
    seen = set()
    for u in numbers:
        label, _ = sb3.draw()
        assert mapping.opponent(u, snapshots, weights) == module_of[label]
        kind, which = seat_player(pool, u, weights)
        seen.add(kind if kind != SNAPSHOTS else snapshots[which])
    assert seen == {RANDOM, HEURISTIC, SELF, *snapshots}  # every branch of the rule was driven
