"""The self-play core: the batch of games that the RLlib runner and the native backend both step.

A :class:`Tables` is one :class:`~gubs_env.fast.FastGames` batch, with the rules every self-play loop of the
project shares written once:

* **table sizes**: slot ``i`` plays the table size of the run's slot ``first + i``
  (:meth:`~gubs_env.engine.players.TableSizes.per_slot`), game after game;
* **deals**: a game is dealt from a seed, as ``Game(seed=...)``; a slot's *stream* of deals (:meth:`deal_next`)
  draws each next seed from a generator of its own (:func:`next_deal`: RLlib's reference env draws its deals so too);
* **steps**: one id per slot, :data:`~gubs_env.fast.SKIP` for a slot that does not act; :meth:`step` answers the
  slots whose game ended with it, and a slot whose game is over does not act again until it is dealt anew;
* **forced decisions**: :meth:`forced` names the running games whose decision has a single legal id. The native
  backend plays them without asking anyone and keeps no sample of them; RLlib's episodes are the reference env's, which
  ask for every decision, so its runner does not skip them.

Who plays a seat is the caller's: RLlib maps each seat to a module (:mod:`agents.training.core.seating`), the native
backend asks its policy, the compiled heuristic or a uniform draw (:mod:`agents.training.native.rollout`). sb3 steps its
games through :class:`gubs_env.envs.vector.GubsVectorEnv`, whose compiled loop reproduces ``SelfPlayEnv`` draw for
draw; it takes its table sizes from the same :meth:`~gubs_env.engine.players.TableSizes.per_slot`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gubs_env.engine.players import TableSizes
from gubs_env.fast import SKIP, FastGames


def next_deal(stream: np.random.Generator) -> int:
    """The seed of a slot's next game, drawn from its stream: every engine and backend draws it this way."""
    return int(stream.integers(2**63))


class Tables:
    """``num_slots`` games on the compiled engine, slot ``i`` at the table size of the run's slot ``first + i``.

    Args:
        num_slots: games played side by side.
        sizes: the run's table sizes.
        first: the run's number of this batch's first slot (an RLlib env runner's offset among the runners).
        threads: the compiled engine's threads.
        rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad slot count, first slot or rule option.
    """

    def __init__(
        self,
        num_slots: int,
        sizes: TableSizes,
        *,
        first: int = 0,
        threads: int = 1,
        rule_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.players = sizes.per_slot(num_slots, first)
        """The table size of each slot's games."""
        self.games = FastGames(num_slots, threads=threads, **dict(rule_options or {}))
        # placeholders until the first deal: each slot keeps its table size from here on
        self.games.reset(np.zeros(num_slots, dtype=np.uint64), self.players)
        self.over = np.ones(num_slots, dtype=np.bool_)
        """Per slot, whether its game has ended (by the rules or by :meth:`end`) or was never dealt."""
        self._streams = [np.random.default_rng() for _ in range(num_slots)]
        self._slots = np.arange(num_slots, dtype=np.int64)

    @property
    def num_slots(self) -> int:
        """Games played side by side."""
        return self.games.num_games

    @property
    def actor(self) -> np.ndarray:
        """int64 ``(num_slots,)``: the seat that must decide in each slot, -1 where the game is over."""
        return np.where(self.over, -1, self.games.actor)

    def deal(self, slots: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal game ``seeds[k]`` in slot ``slots[k]`` (distinct slots); the other slots are left as they are."""
        slot_array = np.asarray(slots, dtype=np.int64)
        if slot_array.size == self.num_slots and np.array_equal(slot_array, self._slots):
            self.games.reset(np.asarray(seeds, dtype=np.uint64), self.players)  # every slot: one call
        else:
            self.games.reset_games(slot_array, np.asarray(seeds, dtype=np.uint64))
        self.over[slot_array] = False

    def deal_next(self, slots: Sequence[int], restart: Sequence[int | None]) -> None:
        """Deal each of ``slots`` the next game of its stream; a seed in ``restart`` (not None) restarts that stream."""
        seeds = []
        for slot, seed in zip(slots, restart, strict=True):
            if seed is not None:
                self._streams[slot] = np.random.default_rng(seed)
            seeds.append(next_deal(self._streams[slot]))
        self.deal(list(slots), seeds)

    def legal(self, actions: np.ndarray) -> np.ndarray:
        """Per slot, whether ``actions`` (ids in range, :data:`SKIP` where a slot does not act) is legal there."""
        acting = (actions != SKIP) & ~self.over
        ok = np.zeros(self.num_slots, dtype=np.bool_)
        ok[acting] = self.games.mask[acting, actions[acting]] > 0
        return ok

    def forced(self) -> np.ndarray:
        """The running games whose decision has a single legal id: bool ``(num_slots,)``."""
        return ~self.over & (self.games.mask.sum(axis=1, dtype=np.int64) == 1)

    def forced_ids(self, rows: np.ndarray) -> np.ndarray:
        """The one legal id of each forced game in ``rows``."""
        return np.argmax(self.games.mask[rows], axis=1)

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Apply one legal id per acting slot (:data:`SKIP` elsewhere); returns the slots whose game ended now.

        Raises:
            ValueError: an id for a slot whose game is over. Nothing changes.
        """
        acting = actions != SKIP
        if (acting & self.over).any():
            raise ValueError(f"slot {int(np.argmax(acting & self.over))}: its game is over; deal it again first")
        if acting.any():
            self.games.step(actions)
        ended = np.flatnonzero(acting & (self.games.actor < 0))
        self.over[ended] = True
        return ended

    def end(self, slots: Sequence[int] | np.ndarray) -> None:
        """Mark the games of ``slots`` over without a step (a caller's own ending: RLlib's illegal id)."""
        self.over[np.asarray(slots, dtype=np.int64)] = True
