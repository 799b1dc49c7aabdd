"""Many games of the RLlib env at once on the compiled engine: one ``FastGames`` batch per table size.

Slot ``i`` of :class:`FastTables` plays exactly what a :class:`~agents.training.rllib.env.GubsMultiAgentEnv` plays: the
same deals from the same seed (:func:`~agents.training.rllib.seats.deal`), the same agent ids, observations, masks,
rewards and illegal-action rule (:mod:`agents.training.rllib.seats` builds every result). The env steps one slot of it;
:class:`~agents.training.rllib.runner.FastEnvRunner` steps all of them with one compiled call per table size.

Table sizes mix per slot, and a batch keeps one size for all its rows, so each size has its own batch of
``num_slots`` rows: a slot plays in the batch of its current game's size and is left as it is in the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.training.rllib.seats import (
    AgentDict,
    StepResult,
    agent_id,
    deal,
    game_over,
    illegal_end,
    observation,
    playing,
)
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine import Game
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.fast import SKIP, FastGames


class FastTables:
    """``num_slots`` independent games, each drawing its table size from ``sizes`` at every new game.

    Args:
        num_slots: how many games are played side by side.
        sizes: the table sizes a new game draws from (checked by :func:`~agents.training.rllib.seats.table_sizes`).
        rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad slot count or rule option.
    """

    def __init__(self, num_slots: int, sizes: Sequence[int], rule_options: Mapping[str, Any]) -> None:
        self.sizes = list(sizes)
        self.num_slots = num_slots
        self._batches: dict[int, FastGames] = {}
        for players in sorted(set(self.sizes)):
            # one thread: env runners are one process per core already, and the learner may share this one
            batch = FastGames(num_slots, players, threads=1, **rule_options)
            batch.reset(seeds=np.zeros(num_slots, dtype=np.uint64))  # placeholders until each slot's first deal
            self._batches[players] = batch
        self._names = {players: [agent_id(seat, players) for seat in range(players)] for players in self._batches}
        self._rngs = [np.random.default_rng() for _ in range(num_slots)]
        self.players = np.zeros(num_slots, dtype=np.int64)
        """The table size of each slot's game (0 before its first deal)."""
        self._seen = np.zeros((num_slots, MAX_PLAYERS), dtype=np.bool_)
        """Per slot, the seats that have observed in its game: they get the last observation and a reward."""
        self._over = np.ones(num_slots, dtype=np.bool_)
        """Per slot, whether its game has ended (by its rules or an illegal id) or was never dealt."""

    def names(self, slot: int) -> list[str]:
        """The agent ids of a slot's table, by seat."""
        return self._names[int(self.players[slot])]

    def seat_to_act(self, slot: int) -> int:
        """The seat that must decide in a slot's game, -1 once it is over."""
        if self._over[slot]:
            return -1
        return int(self._batches[int(self.players[slot])].actor[slot])

    def export(self, slot: int) -> Game:
        """A slot's game as a reference :class:`Game` (a copy: same position, same random future)."""
        if not self.players[slot]:
            raise RuntimeError("call reset() before reading the game")
        return self._batches[int(self.players[slot])].export_game(slot, record_log=False)

    def reset(self, slots: Sequence[int], seeds: Sequence[int | None]) -> list[AgentDict]:
        """Deal a new game in each of ``slots``; a seed (not None) restarts that slot's stream of deals.

        Returns:
            Per slot, the observation of the seat to act first.
        """
        by_size: dict[int, tuple[list[int], list[int]]] = {}
        for slot, seed in zip(slots, seeds, strict=True):
            if seed is not None:
                self._rngs[slot] = np.random.default_rng(seed)
            players, game_seed = deal(self._rngs[slot], self.sizes)
            rows, game_seeds = by_size.setdefault(players, ([], []))
            rows.append(slot)
            game_seeds.append(game_seed)
            self.players[slot] = players
        for players, (rows, game_seeds) in by_size.items():
            self._batches[players].reset_games(rows, game_seeds)
        self._seen[list(slots)] = False
        self._over[list(slots)] = False
        return [self._to_act(slot) for slot in slots]

    def step(self, actions: np.ndarray) -> list[StepResult | None]:
        """Apply one action id per slot: -1 for a slot that does not act now (every slot whose game is over).

        An id of the space that is not legal now ends that slot's game with -1 for its chooser (as the env does).

        Returns:
            Per slot, what the step gave it (the env's ``step`` result), None for the slots that did not act.

        Raises:
            ValueError: ``actions`` is not an int64 array of one id per slot, an id is outside the action space,
                or a slot whose game is over has an action. Nothing changes.
        """
        acting = self._check(actions)
        slots = np.flatnonzero(acting)
        legal = np.zeros(self.num_slots, dtype=np.bool_)
        for players, batch in self._batches.items():
            rows = slots[self.players[slots] == players]
            legal[rows] = batch.mask[rows, actions[rows]] > 0
        seats = {int(slot): self.seat_to_act(int(slot)) for slot in slots}
        for players, batch in self._batches.items():
            moves = np.where(acting & legal & (self.players == players), actions, SKIP)
            if (moves != SKIP).any():
                batch.step(moves)
        results: list[StepResult | None] = [None] * self.num_slots
        ended = [int(slot) for slot in slots.tolist() if not legal[slot] or self.seat_to_act(slot) < 0]
        finals = self._final_observations(ended)
        for slot in ended:
            self._over[slot] = True
            names, batch = self.names(slot), self._batches[int(self.players[slot])]
            if not legal[slot]:
                results[slot] = illegal_end(finals[slot], names[seats[slot]], int(actions[slot]))
            else:
                results[slot] = game_over(finals[slot], names, batch.winners(slot), bool(batch.truncated[slot]))
        for slot in slots.tolist():
            if results[slot] is None:
                results[slot] = playing(self._to_act(slot))
        return results

    def _check(self, actions: np.ndarray) -> np.ndarray:
        """The slots that act; raises ``ValueError`` for anything :meth:`step` refuses."""
        if not isinstance(actions, np.ndarray) or actions.dtype != np.int64 or actions.shape != (self.num_slots,):
            raise ValueError(f"actions must be an int64 array of shape ({self.num_slots},), one id per slot")
        acting = actions != SKIP
        bad = acting & ((actions < 0) | (actions >= NUM_ACTIONS))
        if bad.any():
            slot = int(np.argmax(bad))
            raise ValueError(f"slot {slot}: action id {int(actions[slot])} is outside 0..{NUM_ACTIONS - 1}")
        if (acting & self._over).any():
            raise ValueError(f"slot {int(np.argmax(acting & self._over))}: its game is over; call reset() first")
        return acting

    def _to_act(self, slot: int) -> AgentDict:
        """The observation of the seat to act in a slot's running game (that seat has now observed)."""
        batch = self._batches[int(self.players[slot])]
        seat = int(batch.actor[slot])
        self._seen[slot, seat] = True
        return {self.names(slot)[seat]: observation(batch.obs[slot], batch.mask[slot])}

    def _final_observations(self, slots: list[int]) -> dict[int, AgentDict]:
        """Per ended slot, the last observation of every seat that has observed, with an empty mask."""
        finals: dict[int, AgentDict] = {slot: {} for slot in slots}
        empty = np.zeros(NUM_ACTIONS, dtype=np.float32)
        for players, batch in self._batches.items():
            rows = [slot for slot in slots if self.players[slot] == players]
            for seat in range(players):
                viewers = [slot for slot in rows if self._seen[slot, seat]]
                if viewers:  # one compiled call writes this seat's view of every row; the ended rows are kept
                    view = batch.observe(np.full(self.num_slots, seat, dtype=np.int64))
                    for slot in viewers:
                        finals[slot][self._names[players][seat]] = observation(view[slot], empty)
        return finals
