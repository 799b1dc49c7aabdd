"""Who plays every seat of a batch of games on the compiled core, and the choices of every player but the learner.

One seating serves every backend and the evaluations: the native backend's whole-game batches and the evaluations
(:mod:`agents.training.core.games`), sb3's vector env (:mod:`agents.training.sb3.fast_vec_env`) and RLlib's env runners
(:mod:`agents.training.rllib.fast_tables`). At each new game of a slot, :meth:`Seating.seat` gives each seat other
than the learner's a player by the league's rule (:func:`~agents.training.core.league.seat_player`); whenever such a
seat must decide, :meth:`Seating.act` chooses for all the games waiting on one, grouped by player:

* the heuristic, all its games in one compiled call, each seat drawing ties from a generator of its own, seeded by
  the deal;
* random play, a uniform draw over the legal ids;
* a snapshot of the learner (or, where the backend cannot play the learner's other seats itself, a sampling copy of
  its current actor): one numpy forward pass for all its games, then a draw from its policy;
* a fixed opponent given as any agent (``TrainingConfig.opponent``): a policy in one batched pass, any other agent
  game by game.

The learner's own seat, and its current policy's other seats where the backend plays them itself, are
:data:`POLICY`: the backend decides those.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic.decide import heuristic_actions
from agents.bots.model_file import PolicyWeights
from agents.bots.ppo import PPOAgent, policy_logits, sample_masked
from agents.training.core.config import HEURISTIC, RANDOM, SELF, SNAPSHOTS, PoolConfig, TrainingConfig
from agents.training.core.league import GameEnd, seat_player, snapshot_label
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.fast import RNG_WORDS, seed_pcg64

POLICY, RANDOM_PLAY, HEURISTIC_PLAY, OPPONENT, SELF_COPY = 0, 1, 2, 3, 4
"""The players of a seat: the backend's own policy, random play, the heuristic, ``TrainingConfig.opponent``, and a
sampling copy of the learner's actor. Snapshot ``i`` is :data:`FIRST_SNAPSHOT` ``+ i``."""
FIRST_SNAPSHOT = 5


class Seating:
    """The players of every seat of ``num_slots`` games, and the choices of those the backend does not play.

    Args:
        num_slots: games played side by side.
        pool: the league's shares.
        seed: the seat draws, random play and the snapshots' draws start from it.
        opponent: an agent at every opponent seat instead of the league (``TrainingConfig.opponent``).
        learner_plays_self: the backend's own policy plays the learner's current policy's other seats
            (:data:`POLICY`); otherwise a sampling copy of its actor does (:data:`SELF_COPY`, :meth:`set_self`).
    """

    def __init__(
        self,
        num_slots: int,
        pool: PoolConfig,
        seed: int,
        opponent: Agent | None = None,
        learner_plays_self: bool = True,
    ) -> None:
        self.pool = pool
        self.opponent = opponent
        self.learner_plays_self = learner_plays_self
        self.players = np.full((num_slots, MAX_PLAYERS), POLICY, dtype=np.int64)
        """Per slot and seat, who plays it in the slot's current game."""
        self.labels: list[list[str]] = [[""] * MAX_PLAYERS for _ in range(num_slots)]
        """Per slot and seat, the label the league counts the seat's player under (the learner's seat: empty)."""
        self.snapshots: list[tuple[str, PolicyWeights]] = []
        self.draw_weights: list[float] = []
        self.self_weights: PolicyWeights | None = None
        self.heuristic_rngs = np.zeros((num_slots * MAX_PLAYERS, RNG_WORDS), dtype=np.uint64)
        self.rng = np.random.default_rng([seed, 11])
        self._first_t: dict[int, np.ndarray] = {}
        """Per policy in play (by id), its first weight transposed once for :func:`policy_logits`."""

    @classmethod
    def of(cls, config: TrainingConfig, num_slots: int, learner_plays_self: bool = True) -> Seating:
        """The seating of a run's ``num_slots`` games: its league, its seed, its fixed opponent if it has one."""
        opponent = None
        if config.opponent is not None:
            from agents.bots.registry import make_agent

            opponent = make_agent(config.opponent, config.seed)
        return cls(num_slots, config.pool, config.seed, opponent, learner_plays_self)

    def set_league(self, snapshots: Sequence[tuple[str, PolicyWeights]], draw_weights: Sequence[float]) -> None:
        """The league's snapshots (name and actor, oldest first) and their drawing weights, for the next games."""
        if len(draw_weights) != len(snapshots):
            raise ValueError(f"{len(draw_weights)} drawing weights for {len(snapshots)} snapshots")
        self.snapshots, self.draw_weights = list(snapshots), [float(w) for w in draw_weights]
        self._first_t.clear()

    def set_self(self, weights: PolicyWeights) -> None:
        """The learner's current actor, which its other seats play from now on (without ``learner_plays_self``)."""
        self.self_weights = weights
        self._first_t.clear()

    def seat(
        self, slots: np.ndarray, players: np.ndarray, learners: np.ndarray, deals: np.ndarray | None = None
    ) -> None:
        """Draw the players of new games: slot ``slots[k]`` seats ``players[k]`` with the learner at ``learners[k]``.

        ``deals`` seed the heuristic's seats (each its own generator), as every engine's deal does; without them
        the seating's own stream seeds them.
        """
        weights = self.draw_weights
        for k, slot in enumerate(np.asarray(slots).tolist()):
            row, labels = self.players[slot], self.labels[slot]
            row[:] = POLICY
            labels[:] = [""] * MAX_PLAYERS
            for seat in range(int(players[k])):
                if seat != learners[k]:
                    row[seat], labels[seat] = self._draw(weights)
                    if row[seat] == HEURISTIC_PLAY:
                        index = slot * MAX_PLAYERS + seat
                        seed = self.rng.integers(2**63) if deals is None else (int(deals[k]) * 7 + index) % 2**63
                        seed_pcg64(self.heuristic_rngs[index], np.uint64(seed))

    def _draw(self, weights: Sequence[float]) -> tuple[int, str]:
        """One opponent seat's player and its label."""
        if self.opponent is not None:
            return OPPONENT, self.opponent.name
        kind, snapshot = seat_player(self.pool, float(self.rng.random()), weights)
        if kind == SNAPSHOTS:
            return FIRST_SNAPSHOT + snapshot, snapshot_label(self.snapshots[snapshot][0])
        if kind == SELF:
            return (POLICY if self.learner_plays_self else SELF_COPY), SELF
        return (RANDOM_PLAY if kind == RANDOM else HEURISTIC_PLAY), (RANDOM if kind == RANDOM else HEURISTIC)

    def plays(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Who plays seat ``seats[k]`` of slot ``slots[k]``."""
        return self.players[slots, seats]

    def act(self, observations: np.ndarray, masks: np.ndarray, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The ids of the players at seat ``seats[k]`` of slot ``slots[k]``, each seeing row ``k``; never POLICY's."""
        out = np.zeros(len(slots), dtype=np.int64)
        who = self.players[slots, seats]
        for player in np.unique(who).tolist():
            rows = np.flatnonzero(who == player)
            out[rows] = self._choose(player, observations[rows], masks[rows], slots[rows] * MAX_PLAYERS + seats[rows])
        return out

    def _choose(self, player: int, observations: np.ndarray, masks: np.ndarray, rng_rows: np.ndarray) -> np.ndarray:
        if player == RANDOM_PLAY:
            weights = self.rng.random((len(masks), NUM_ACTIONS)) * (masks != 0)
            return np.argmax(weights, axis=1)
        if player == HEURISTIC_PLAY:
            out = np.zeros(len(masks), dtype=np.int64)
            rows = np.arange(len(masks), dtype=np.int64)
            heuristic_actions(observations, masks.astype(np.int8, copy=False), rows, rng_rows, self.heuristic_rngs, out)
            return out
        if player == OPPONENT:
            return self._opponent_ids(observations, masks)
        if player == SELF_COPY:
            if self.self_weights is None:
                raise RuntimeError("the learner's other seats play its actor: set_self() before the games")
            return self._sample(self.self_weights, observations, masks)
        if player >= FIRST_SNAPSHOT:
            return self._sample(self.snapshots[player - FIRST_SNAPSHOT][1], observations, masks)
        raise ValueError("the backend's own policy plays POLICY seats")

    def _sample(self, weights: PolicyWeights, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A draw from ``weights``' policy for each row (its logits computed for the legal ids only)."""
        first_t = self._first_t.get(id(weights))
        if first_t is None:
            first_t = self._first_t[id(weights)] = np.ascontiguousarray(weights.layers[0][0].T)
        ids = np.flatnonzero(masks.any(axis=0))
        logits = policy_logits(weights, observations, ids, first_t)
        return ids[sample_masked(logits, masks[:, ids], self.rng)]

    def _opponent_ids(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert self.opponent is not None  # only OPPONENT seats come here
        if isinstance(self.opponent, PPOAgent):
            return np.asarray(self.opponent.act_batch(observations, masks), dtype=np.int64)
        return np.array([self.opponent.act(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64)

    def game_end(self, slot: int, players: int, learner: int, winners: Sequence[int]) -> GameEnd:
        """The slot's finished game as the league counts it: each opponent seat's label, and who won."""
        seats = tuple(seat for seat in range(players) if seat != learner)
        labels = tuple(self.labels[slot][seat] for seat in seats)
        return GameEnd(labels, seats, tuple(int(w) for w in winners), int(learner))
