"""Many games of the RLlib env at once, on the self-play core: one :class:`~gubs_env.fast.SelfPlayTables`.

Slot ``i`` of :class:`FastTables` plays what a :class:`~gubs_env.envs.rllib_env.GubsMultiAgentEnv` of slot
``first + i`` plays: the table size of that slot and the same deals from the same seed (the core's rules), the same
agent ids, observations, masks, rewards and illegal-action rule (:mod:`gubs_env.envs.rllib_seats` builds every
result). Its seats are seated by the run's :class:`~agents.training.core.seating.Seating`: the learner's seat and its
current policy's other seats are agents (RLlib's module ``main`` plays and learns from them); every other seat is
played inside, between the agents' steps, by the seating's players. With the default pure self-play every seat is
an agent, as in the env. :class:`~agents.training.rllib.runner.FastEnvRunner` steps every slot with one compiled
call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.training.core.config import PoolConfig
from agents.training.core.league import GameEnd
from agents.training.core.seating import POLICY, Seating
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine import Game
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.envs.rllib_seats import (
    AgentDict,
    StepResult,
    agent_id,
    game_over,
    illegal_end,
    observation,
    playing,
)
from gubs_env.fast import SKIP, SelfPlayTables


class FastTables:
    """``num_slots`` independent games; slot ``i`` plays the table size of the run's slot ``first + i``.

    Args:
        num_slots: how many games are played side by side.
        sizes: the run's table sizes (checked by :func:`~gubs_env.envs.rllib_seats.table_sizes`).
        rule_options: engine rule options for every game.
        first: the run's number of this batch's first slot (an env runner's offset among the runners).
        skip_forced: decisions with one legal id are played for their seat, as the env plays them
            (:func:`~gubs_env.envs.rllib_seats.skip_forced_of`).
        seating: who plays each seat (default: every seat an agent).

    Raises:
        ValueError: a bad slot count, first slot or rule option.
    """

    def __init__(
        self,
        num_slots: int,
        sizes: TableSizes,
        rule_options: Mapping[str, Any],
        first: int = 0,
        *,
        skip_forced: bool = False,
        seating: Seating | None = None,
    ) -> None:
        self.num_slots = num_slots
        self.skip_forced = skip_forced
        self.seating = seating or Seating(num_slots, PoolConfig(), seed=0)
        self.ended: list[GameEnd] = []
        """The games that ended in a step since the caller last emptied the list, as the league counts them."""
        # the core's one thread: env runners are one process per core already, and the learner may share this one
        self.core = SelfPlayTables(num_slots, sizes, first=first, rule_options=rule_options)
        """The self-play core these games are played on."""
        self.players = self.core.players
        """The table size of each slot's games."""
        self._names = {int(n): [agent_id(seat, int(n)) for seat in range(int(n))] for n in set(self.players.tolist())}
        self._seen = np.zeros((num_slots, MAX_PLAYERS), dtype=np.bool_)
        """Per slot, the seats that have observed in its game: they get the last observation and a reward."""

    def names(self, slot: int) -> list[str]:
        """The agent ids of a slot's table, by seat."""
        return self._names[int(self.players[slot])]

    def seat_to_act(self, slot: int) -> int:
        """The seat that must decide in a slot's game, -1 once it is over."""
        return -1 if self.core.over[slot] else int(self.core.games.actor[slot])

    def export(self, slot: int) -> Game:
        """A slot's game as a reference :class:`Game` (a copy: same position, same random future)."""
        return self.core.games.export_game(slot, record_log=False)

    @property
    def learner_seats(self) -> np.ndarray:
        """Per slot, the learner's seat the core drew with its game."""
        return self.core.seats

    def reset(self, slots: Sequence[int], seeds: Sequence[int | None]) -> list[AgentDict]:
        """Deal a new game in each of ``slots``; a seed (not None) restarts that slot's stream of games.

        Returns:
            Per slot, the observation of the seat to act first.
        """
        restart = [(slot, seed) for slot, seed in zip(slots, seeds, strict=True) if seed is not None]
        if restart:
            self.core.seed_streams(*zip(*restart, strict=True))
        dealing = np.asarray(slots, dtype=np.int64)
        while dealing.size:  # a deal that ends before an agent decides is followed by the slot's next one
            learners = self.core.deal_next(dealing)
            self.seating.seat(dealing, self.players[dealing], learners, self.core.deals[dealing])
            dealing = np.asarray(self._play_others(dealing), dtype=np.int64)
        self._seen[list(slots)] = False
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
        tables = self.core
        legal = tables.legal(actions)
        seats = {int(slot): self.seat_to_act(int(slot)) for slot in slots}
        illegal = np.flatnonzero(acting & ~legal)
        ended = [*tables.step(np.where(legal, actions, SKIP)).tolist(), *illegal.tolist()]
        tables.end(illegal)
        ended = sorted([*ended, *self._play_others(slots)])
        finals = self._final_observations(ended)
        results: list[StepResult | None] = [None] * self.num_slots
        for slot in ended:
            names, games = self.names(slot), tables.games
            winners = games.winners(slot) if legal[slot] else []
            if not legal[slot]:
                results[slot] = illegal_end(finals[slot], names[seats[slot]], int(actions[slot]))
            else:
                results[slot] = game_over(finals[slot], names, winners, bool(games.truncated[slot]))
            learner = int(self.learner_seats[slot])
            self.ended.append(self.seating.game_end(slot, int(self.players[slot]), learner, winners))
        for slot in slots.tolist():
            if results[slot] is None:
                results[slot] = playing(self._to_act(slot))
        return results

    def _play_others(self, slots: np.ndarray) -> list[int]:
        """Play ``slots``' running games until an agent must decide; returns the games that ended.

        What is played: forced decisions (with ``skip_forced``) and every decision of a seat the seating plays.
        """
        core, ended = self.core, list[int]()
        while True:
            running = slots[~core.over[slots]]
            actor = core.games.actor[running]
            inside = self.seating.plays(running, actor) != POLICY
            forced = core.forced()[running] if self.skip_forced else np.zeros(len(running), dtype=bool)
            if not (inside | forced).any():
                return ended
            actions = np.full(self.num_slots, SKIP, dtype=np.int64)
            actions[running[forced]] = core.forced_ids(running[forced])
            asked = running[inside & ~forced]
            if asked.size:
                seats = core.games.actor[asked]
                actions[asked] = self.seating.act(core.games.obs[asked], core.games.mask[asked], asked, seats)
            ended += core.step(actions).tolist()

    def _check(self, actions: np.ndarray) -> np.ndarray:
        """The slots that act; raises ``ValueError`` for anything :meth:`step` refuses."""
        if not isinstance(actions, np.ndarray) or actions.dtype != np.int64 or actions.shape != (self.num_slots,):
            raise ValueError(f"actions must be an int64 array of shape ({self.num_slots},), one id per slot")
        acting = actions != SKIP
        bad = acting & ((actions < 0) | (actions >= NUM_ACTIONS))
        if bad.any():
            slot = int(np.argmax(bad))
            raise ValueError(f"slot {slot}: action id {int(actions[slot])} is outside 0..{NUM_ACTIONS - 1}")
        over = acting & self.core.over
        if over.any():
            raise ValueError(f"slot {int(np.argmax(over))}: its game is over; call reset() first")
        return acting

    def _to_act(self, slot: int) -> AgentDict:
        """The observation of the seat to act in a slot's running game (that seat has now observed)."""
        games = self.core.games
        seat = int(games.actor[slot])
        self._seen[slot, seat] = True
        return {self.names(slot)[seat]: observation(games.obs[slot], games.mask[slot])}

    def _final_observations(self, slots: list[int]) -> dict[int, AgentDict]:
        """Per ended slot, the last observation of every seat that has observed, with an empty mask."""
        finals: dict[int, AgentDict] = {slot: {} for slot in slots}
        empty = np.zeros(NUM_ACTIONS, dtype=np.float32)
        for seat in range(MAX_PLAYERS):
            viewers = [slot for slot in slots if self._seen[slot, seat]]
            if viewers:  # one compiled call writes this seat's view of every row; the ended rows are kept
                view = self.core.games.observe(np.minimum(seat, self.players - 1))
                for slot in viewers:
                    finals[slot][self.names(slot)[seat]] = observation(view[slot], empty)
        return finals
