"""The batch API: N games in fixed-shape arrays, stepped together by compiled code.

>>> from gubs_env.fast import FastGames
>>> games = FastGames(4, num_players=2)
>>> games.reset(seeds=[0, 1, 2, 3])
>>> games.mask.shape, games.obs.shape, games.actor.tolist()
((4, 356), (4, 512), [0, 0, 0, 0])
>>> games.step([0, 0, 0, 0])  # every game draws (action id 0)
>>> games.export_game(0).to_dict() == games.to_dict(0)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.engine.state import Step
from gubs_env.fast import kernels
from gubs_env.fast.boundary import (
    bounded,
    brief_value,
    check_threads,
    clipped_into,
    integers,
    readonly_view,
    why_illegal,
    writable_out,
)
from gubs_env.fast.convert import position_to_row, row_to_dict
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.rng import RNG_WORDS
from gubs_env.fast.core.rules import hand_size, score, winners_into

SKIP = -1
"""Action id that leaves a game as it is in :meth:`FastGames.step`."""


_SETTABLE = ("threads", "auto_reset")
"""The only attributes of a :class:`FastGames` that can be set after construction (both are checked)."""
_INPUTS = ("states", "rngs", "seeds")
"""Arrays the kernels read: public only as views that cannot be made writable."""
_OUTPUTS = ("actor", "mask", "obs", "rewards", "terminated", "truncated")
"""Arrays the kernels only write (the engine never reads them back): public as writable views."""
_FIXED = (*_INPUTS, *_OUTPUTS, "num_games", "num_players", "options")
"""The read-only properties: none can be set, however the instance was made."""


class FastGames:
    """``num_games`` games of Gubs played by the compiled engine, all stepped in one call.

    After :meth:`reset` and after every :meth:`step` these arrays hold, per game ``i``:

    * ``actor[i]``: the seat that must decide (-1 once the game is over);
    * ``mask[i]``: int8 (356,), 1 at each legal action id of that seat (all 0 once over);
    * ``obs[i]``: float32 (512,), that seat's observation (seat 0's once over);
    * ``rewards[i]``: float32 (6,), what the last step gave each seat: +1 for every winner and -1 for every
      other seat when the game ended, 0 otherwise (and 0 for all on truncation);
    * ``terminated[i]`` / ``truncated[i]``: whether the last step ended the game by the rules / at the
      turn limit.

    The arrays are allocated once and overwritten in place: copy what must outlive the next call.
    Action ids, masks and observations are exactly those of :mod:`gubs_env.envs` for the same game.

    The arrays are views of the engine's own arrays, and no attribute the batch has can be rebound or deleted
    (``AttributeError``), except that :attr:`threads` and :attr:`auto_reset` can be set. ``states``, ``rngs``
    and ``seeds``, which the compiled code reads, are read-only: a position is set with :meth:`reset`,
    :meth:`reset_games` or :meth:`import_game`, which check what they are given. The six arrays above are the
    engine's output and may be written (as scratch space): the engine never reads them back, and the next call
    overwrites them.

    Args:
        num_games: how many games (rows) the batch holds.
        num_players: 2 to 6, for every game (``reset`` may give each game its own).
        threads: threads for the kernels (1 to :func:`max_threads`; one unless asked); results never depend on it.
        auto_reset: when a step ends a game, start the next one in its slot at once (seed + ``num_games``);
            the step's rewards and end flags still describe the game that ended.
        **rule_options: rule options for every game (:class:`~gubs_env.engine.options.RuleOptions`).

    Raises:
        ValueError: a bad count, player count, thread count, rule option, or an ``auto_reset`` that is not a bool.
    """

    _auto_reset: bool
    _threads: int

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        *,
        threads: int = 1,
        auto_reset: bool = False,
        **rule_options: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, not {brief_value(num_games)}")
        self._num_games = int(num_games)
        self._num_players = check_player_count(num_players)
        self._options = RuleOptions.from_dict(rule_options)
        self.auto_reset = auto_reset
        self.threads = threads
        n = self._num_games
        self._states = np.zeros((n, L.ROW), dtype=np.int32)
        self._rngs = np.zeros((n, RNG_WORDS), dtype=np.uint64)
        self._seeds = np.zeros(n, dtype=np.uint64)
        self._actor = np.full(n, -1, dtype=np.int64)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._rewards = np.zeros((n, MAX_PLAYERS), dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._legal = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        """The engine's own copy of the masks: what :meth:`step` checks actions against."""
        self._ids = np.zeros(n, dtype=np.int64)
        """The action ids of the step being made: whatever the caller passes is copied here, so the kernels
        always get one array type (no recompiling) that no caller holds."""
        self._started = False
        self._views = self._make_views()
        # from here on, what the kernels rely on is fixed: the attributes set so far and the read-only properties
        self._sealed = frozenset(self.__dict__) | {"_sealed", *_FIXED}

    # --- the public arrays ------------------------------------------------------------------------

    def _make_views(self) -> dict[str, np.ndarray]:
        """The public views: made once, so that each attribute is the same array object from call to call."""
        views = {name: readonly_view(getattr(self, "_" + name)) for name in _INPUTS}
        views.update({name: getattr(self, "_" + name).view() for name in _OUTPUTS})
        return views

    def __setattr__(self, name: str, value: Any) -> None:
        # Names added later (a user's own attribute, a method patched on the instance by a test) are left
        # alone: no kernel reads them.
        if name in _SETTABLE or name not in self.__dict__.get("_sealed", ()):
            object.__setattr__(self, name, value)
            return
        if name in _INPUTS:
            why = "it is read-only: set positions with reset, reset_games or import_game, which check them"
        elif name in _OUTPUTS:
            why = f"the kernels write the batch's own array; write into games.{name}[...] instead if you must"
        else:
            why = "what the compiled code relies on is fixed once a batch is made (threads and auto_reset can be set)"
        raise AttributeError(f"FastGames.{name[:40]} cannot be set: {why}")

    def __delattr__(self, name: str) -> None:
        if name in _SETTABLE or name in self.__dict__.get("_sealed", ()):
            raise AttributeError(f"FastGames.{name[:40]} cannot be deleted")
        object.__delattr__(self, name)

    def __getstate__(self) -> dict[str, Any]:
        # the read-only views lend memory through a memoryview, which does not pickle; they are made anew
        return {key: value for key, value in self.__dict__.items() if key != "_views"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__["_views"] = self._make_views()

    @property
    def states(self) -> np.ndarray:
        """int32 ``(N, ROW)``, read-only: each game's position (:mod:`gubs_env.fast.core.layout`)."""
        return self._views["states"]

    @property
    def rngs(self) -> np.ndarray:
        """uint64 ``(N, 6)``, read-only: each game's random generator (:mod:`gubs_env.fast.core.rng`)."""
        return self._views["rngs"]

    @property
    def seeds(self) -> np.ndarray:
        """uint64 ``(N,)``, read-only: the seed of each slot's game (auto-reset counts on from it)."""
        return self._views["seeds"]

    @property
    def actor(self) -> np.ndarray:
        """int64 ``(N,)``: the seat that must decide, -1 once over."""
        return self._views["actor"]

    @property
    def mask(self) -> np.ndarray:
        """int8 ``(N, 356)``: 1 at each legal id of the seat to act."""
        return self._views["mask"]

    @property
    def obs(self) -> np.ndarray:
        """float32 ``(N, 512)``: the observation of the seat to act (seat 0's once over)."""
        return self._views["obs"]

    @property
    def rewards(self) -> np.ndarray:
        """float32 ``(N, 6)``: what the last step gave each seat."""
        return self._views["rewards"]

    @property
    def terminated(self) -> np.ndarray:
        """Per game (bool ``(N,)``), whether the last step ended it by the rules."""
        return self._views["terminated"]

    @property
    def truncated(self) -> np.ndarray:
        """Per game (bool ``(N,)``), whether the last step ended it at the turn limit."""
        return self._views["truncated"]

    @property
    def num_games(self) -> int:
        """Games (rows) in the batch."""
        return self._num_games

    @property
    def num_players(self) -> int:
        """The default player count of :meth:`reset`."""
        return self._num_players

    @property
    def options(self) -> RuleOptions:
        """The rule options of every game."""
        return self._options

    @property
    def auto_reset(self) -> bool:
        """Whether a game that ends is replaced at once by the game of its seed + ``num_games``."""
        return self._auto_reset

    @auto_reset.setter
    def auto_reset(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"auto_reset must be a bool, not {brief_value(value)}")
        object.__setattr__(self, "_auto_reset", bool(value))  # past the seal of __setattr__

    # --- threads ----------------------------------------------------------------------------------

    @property
    def threads(self) -> int:
        """Threads the kernels use (1 to :func:`max_threads`)."""
        return self._threads

    @threads.setter
    def threads(self, value: int) -> None:
        object.__setattr__(self, "_threads", check_threads(value))

    def _use_threads(self) -> None:
        nb.set_num_threads(self._threads)

    # --- reset and step ---------------------------------------------------------------------------

    def reset(self, seeds: Sequence[int] | np.ndarray | None = None, num_players: Any = None) -> None:
        """Start a new game in every slot: slot ``i`` plays ``seeds[i]`` (default ``i``), as ``Game(seed=...)``.

        Args:
            seeds: one int in ``[0, 2**64)`` per game (a list, or an array of any integer dtype).
            num_players: ``None`` (the batch's count), one int, or one int per game.

        Raises:
            ValueError: bad seeds or player counts; nothing changes.
        """
        n = self._num_games
        seed_array = np.arange(n, dtype=np.uint64) if seeds is None else bounded(seeds, n, "seeds", 0, _U64, np.uint64)
        if num_players is None:
            num_players = self._num_players
        if isinstance(num_players, (int, np.integer)) and not isinstance(num_players, bool):
            players = np.full(n, check_player_count(num_players), dtype=np.int64)
        else:
            players = bounded(num_players, n, "num_players", MIN_PLAYERS, MAX_PLAYERS, np.int64)
        self._reset_slots(np.arange(n, dtype=np.int64), seed_array, players)
        self._rewards[:] = 0
        self._terminated[:] = False
        self._truncated[:] = False
        object.__setattr__(self, "_started", True)
        self._refresh()

    def reset_games(self, indices: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Start new games in some slots only (same player count as before); the views are rewritten.

        Args:
            indices: distinct slots, ints from 0 to ``num_games - 1``.
            seeds: one int in ``[0, 2**64)`` per slot.

        Raises:
            ValueError: bad indices or seeds; nothing changes.
        """
        self._require_started()
        slots = bounded(indices, None, "indices", 0, self._num_games - 1, np.int64)
        if len(set(slots.tolist())) != slots.shape[0]:
            raise ValueError("indices must be distinct games")
        seed_array = bounded(seeds, slots.shape[0], "seeds", 0, _U64, np.uint64)
        players = self._states[slots, L.NUM_PLAYERS].astype(np.int64)
        self._reset_slots(slots, seed_array, players)
        self._refresh()

    def _reset_slots(self, slots: np.ndarray, seeds: np.ndarray, players: np.ndarray) -> None:
        self._use_threads()
        kernels.warm_up("a batch", BATCH_KERNELS, _exercise_batch)  # the first reset: before any game is played
        uniform = LETTER_PLACEMENTS.index(self._options.letter_placement)
        kernels.reset_kernel(self._states, self._rngs, slots, seeds, players, self._options.max_turns, uniform)
        self._seeds[slots] = seeds

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Apply one action id per game (``-1``: leave that game as it is) and rewrite every view.

        Args:
            actions: ``num_games`` ints: a list, or a 1-d array of any integer dtype (``uint64``, read-only and
                strided arrays too: they are copied, never handed to the kernels).

        Raises:
            IllegalActionError: (a ``ValueError``) some game's id is not legal now (out of range included); the
                message names the first such game and its id as given, and no game changes.
            ValueError: ``actions`` is not ``num_games`` integers (floats, bools, strings, another shape).
        """
        self._require_started()
        ids = self._ids
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == ids.shape:
            ids[:] = actions  # the common case: every int64 is exact, and the check below sees every value
            given: np.ndarray | list[int] = actions
        else:
            given = integers(actions, self._num_games, "actions")
            # -2 and NUM_ACTIONS are refused like any other id out of range, so clipping keeps every refusal
            clipped_into(given, ids, -2, NUM_ACTIONS)
        self._use_threads()
        bad = kernels.check_kernel(self._legal, ids)
        if bad >= 0:
            raise IllegalActionError(f"game {bad}: {why_illegal(self._states[bad], self._legal[bad], int(given[bad]))}")
        self._run_step(ids, refresh=False)

    def _run_step(self, actions: np.ndarray, refresh: bool) -> None:
        kernels.step_kernel(
            self._states,
            self._rngs,
            actions,
            self._rewards,
            self._terminated,
            self._truncated,
            self._auto_reset,
            self._seeds,
            np.uint64(self._num_games),
            self._actor,
            self._mask,
            self._legal,
            self._obs,
            refresh,
        )

    def _refresh(self) -> None:
        self._use_threads()
        self._ids[:] = SKIP
        self._run_step(self._ids, refresh=True)

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before using the games")

    # --- reading ----------------------------------------------------------------------------------

    def observe(self, viewers: Sequence[int] | np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Each game's observation as seat ``viewers[i]`` sees it (e.g. a learner's view while others act).

        Args:
            viewers: one seat per game (a list, or an array of any integer dtype).
            out: where to write, a writable C-contiguous float32 ``(num_games, 512)`` array (``None``: a new one).

        Returns:
            ``out``, or the new array.

        Raises:
            ValueError: a viewer is not a seat of its game, or ``out`` is not such an array.
        """
        self._require_started()
        seats = bounded(viewers, self._num_games, "viewers", 0, MAX_PLAYERS - 1, np.int64)
        players = self._states[:, L.NUM_PLAYERS]
        if (seats >= players).any():
            i = int(np.argmax(seats >= players))
            raise ValueError(f"viewers[{i}] is {seats[i]}, but game {i} has {players[i]} seats")
        if out is None:
            out = np.empty((self._num_games, OBS_SIZE), dtype=np.float32)
        target = writable_out(out, (self._num_games, OBS_SIZE), np.float32, "out")
        self._use_threads()
        kernels.observe_kernel(self._states, seats, target)
        return out

    def is_over(self) -> np.ndarray:
        """Per game, whether it has ended or was truncated."""
        return self._states[:, L.STEP] == int(Step.OVER)

    def scores(self, games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Points per game and seat now (int64, (N, 6); 0 for seats a game does not have).

        With ``games`` (indices), only those rows are filled; the others stay 0 (a caller that needs a few
        games' scores at every step does not pay for the whole batch).
        """
        out = np.zeros((self._num_games, MAX_PLAYERS), dtype=np.int64)
        rows = range(self._num_games) if games is None else [self._index(g) for g in np.asarray(games).tolist()]
        for i in rows:
            row = self._states[i]
            for s in range(int(row[L.NUM_PLAYERS])):
                out[i, s] = score(row, s)
        return out

    def winners(self, game: int) -> list[int]:
        """Winning seats of a game that ended (empty before the end and after a truncation)."""
        row = self._states[self._index(game)]
        if row[L.STEP] != int(Step.OVER) or row[L.TRUNCATED]:
            return []
        won = np.zeros(MAX_PLAYERS, dtype=np.int64)
        winners_into(row, won)
        return [int(s) for s in np.flatnonzero(won)]

    def hand_sizes(self, game: int) -> list[int]:
        """Cards in each hand of one game."""
        row = self._states[self._index(game)]
        return [hand_size(row, s) for s in range(int(row[L.NUM_PLAYERS]))]

    # --- between the engines ----------------------------------------------------------------------

    def to_dict(self, game: int) -> dict[str, Any]:
        """The state dict of one game: equal to the reference :meth:`Game.to_dict` at the same position."""
        i = self._index(game)
        self._require_started()
        return row_to_dict(self._states[i], self._rngs[i])

    def export_game(self, game: int, *, record_log: bool = True) -> Game:
        """One game as a reference :class:`Game` (same position, same random future)."""
        return Game.from_dict(self.to_dict(game), record_log=record_log)

    def import_game(self, game: int, position: Game | dict[str, Any], seed: int = 0) -> None:
        """Put a reference position (a :class:`Game` or a ``to_dict`` dict) into slot ``game``.

        Either is validated exactly as :meth:`Game.from_dict` validates a dict (a :class:`Game`'s state is
        written out and read back, so a state edited in place is checked too). ``seed`` is what the slot's next
        auto-reset counts from. The views are rewritten.

        Raises:
            InvalidStateError: (a ``ValueError``) ``position`` is neither a :class:`Game` nor a dict, or is not a
                valid position.
            ValueError: a bad slot or seed, or a position that uses sizes the compiled engine can't hold.
                Whatever is raised, nothing changes.
        """
        i = self._index(game)
        self._require_started()
        seed_value = _check_seed(seed)
        row, rng = position_to_row(position)
        self._states[i], self._rngs[i] = row, rng
        self._seeds[i] = seed_value
        self._refresh()

    def _index(self, game: int) -> int:
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < self._num_games:
            raise ValueError(f"game must be an int from 0 to {self._num_games - 1}, not {brief_value(game)}")
        return int(game)


_U64 = 2**64 - 1


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= _U64:
        raise ValueError(f"seed must be an int from 0 to 2**64 - 1, not {brief_value(seed)}")
    return int(seed)


BATCH_KERNELS = (
    kernels.reset_kernel,
    kernels.step_kernel,
    kernels.check_kernel,
    kernels.observe_kernel,
    score,
    winners_into,
    hand_size,
)
"""Every kernel a batch calls: compiled together at the first reset of the first batch of a process."""


def _exercise_batch() -> None:
    """Each of :data:`BATCH_KERNELS` once: a reset, a checked step with auto-reset, observations, the outcomes."""
    games = FastGames(2, 2, auto_reset=True)
    games.reset(np.arange(2, dtype=np.uint64))
    games.step(np.argmax(games.mask, axis=1))
    games.observe(np.zeros(2, dtype=np.int64))
    games.scores()
    games.winners(0)
    games.hand_sizes(0)
