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

from gubs_env.encoding.action_table import NUM_ACTIONS, describe_id
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.game import check_player_count
from gubs_env.engine.options import LETTER_PLACEMENTS, MAX_TURNS_LIMIT, RuleOptions
from gubs_env.engine.positions.serialize import check_state
from gubs_env.engine.state import Step
from gubs_env.fast import kernels
from gubs_env.fast import layout as L
from gubs_env.fast.convert import row_to_dict, state_to_row
from gubs_env.fast.rng import RNG_WORDS
from gubs_env.fast.rules import hand_size, score, winners_into

SKIP = -1
"""Action id that leaves a game as it is in :meth:`FastGames.step`."""


def max_threads() -> int:
    """The most threads the compiled kernels may use (numba's ``NUMBA_NUM_THREADS``)."""
    return int(nb.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def _int_array(values: Any, size: int, what: str, dtype: type = np.int64) -> np.ndarray:
    """``values`` as a 1-d integer array of ``size`` entries, or ``ValueError``."""
    if type(values) is np.ndarray and values.dtype == dtype and values.shape == (size,) and values.flags.c_contiguous:
        return values  # what the checks below return for it, without their cost on every step
    if isinstance(values, (list, tuple)):
        if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values):
            raise ValueError(f"{what} must be integers")
        info = np.iinfo(dtype)
        if any(not info.min <= v <= info.max for v in values):
            raise ValueError(f"{what} must be from {info.min} to {info.max}")
        values = np.array(values, dtype=dtype)
    array = np.asarray(values)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{what} must be integers, not {array.dtype}")
    if array.shape != (size,):
        raise ValueError(f"{what} must have shape ({size},), not {array.shape}")
    if dtype is np.uint64 and (array < 0).any():
        raise ValueError(f"{what} must be >= 0")
    return np.ascontiguousarray(array, dtype=dtype)


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

    Args:
        num_games: how many games (rows) the batch holds.
        num_players: 2 to 6, for every game (``reset`` may give each game its own).
        threads: threads for the kernels (``None``: all numba has); results never depend on it.
        auto_reset: when a step ends a game, start the next one in its slot at once (seed + ``num_games``);
            the step's rewards and end flags still describe the game that ended.
        **rule_options: rule options for every game (:class:`~gubs_env.engine.options.RuleOptions`).

    Raises:
        ValueError: a bad count, player count, thread count or rule option.
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        *,
        threads: int | None = None,
        auto_reset: bool = False,
        **rule_options: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, not {num_games!r}")
        self.num_games = int(num_games)
        self.num_players = check_player_count(num_players)
        self.options = RuleOptions.from_dict(rule_options)
        self.auto_reset = bool(auto_reset)
        self._threads = max_threads()
        if threads is not None:
            self.threads = threads
        n = self.num_games
        self.states = np.zeros((n, L.ROW), dtype=np.int32)
        self.rngs = np.zeros((n, RNG_WORDS), dtype=np.uint64)
        self.seeds = np.zeros(n, dtype=np.uint64)
        self.actor = np.full(n, -1, dtype=np.int64)
        self.mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.rewards = np.zeros((n, MAX_PLAYERS), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self._legal = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        """The engine's own copy of the masks: what :meth:`step` checks actions against."""
        self._started = False

    # --- threads ----------------------------------------------------------------------------------

    @property
    def threads(self) -> int:
        """Threads the kernels use (1 to :func:`max_threads`)."""
        return self._threads

    @threads.setter
    def threads(self, value: int) -> None:
        top = max_threads()
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= top:
            raise ValueError(f"threads must be an int from 1 to {top}, not {value!r}")
        self._threads = int(value)

    def _use_threads(self) -> None:
        nb.set_num_threads(self._threads)

    # --- reset and step ---------------------------------------------------------------------------

    def reset(self, seeds: Sequence[int] | np.ndarray | None = None, num_players: Any = None) -> None:
        """Start a new game in every slot: slot ``i`` plays ``seeds[i]`` (default ``i``), as ``Game(seed=...)``.

        Args:
            seeds: one int in ``[0, 2**64)`` per game.
            num_players: ``None`` (the batch's count), one int, or one int per game.

        Raises:
            ValueError: bad seeds or player counts; nothing changes.
        """
        n = self.num_games
        seed_array = np.arange(n, dtype=np.uint64) if seeds is None else _int_array(seeds, n, "seeds", np.uint64)
        if num_players is None:
            num_players = self.num_players
        if isinstance(num_players, (int, np.integer)) and not isinstance(num_players, bool):
            players = np.full(n, check_player_count(num_players), dtype=np.int64)
        else:
            players = _int_array(num_players, n, "num_players")
            for p in players:
                check_player_count(int(p))
        self._reset_slots(np.arange(n, dtype=np.int64), seed_array, players)
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self._started = True
        self._refresh()

    def reset_games(self, indices: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Start new games in some slots only (same player count as before); the views are rewritten.

        Raises:
            ValueError: bad indices or seeds; nothing changes.
        """
        self._require_started()
        slots = np.asarray(indices)
        size = slots.shape[0] if slots.ndim == 1 else -1
        slots = _int_array(slots, size, "indices")
        if ((slots < 0) | (slots >= self.num_games)).any() or len(set(slots.tolist())) != size:
            raise ValueError(f"indices must be distinct games from 0 to {self.num_games - 1}")
        seed_array = _int_array(seeds, size, "seeds", np.uint64)
        players = self.states[slots, L.NUM_PLAYERS].astype(np.int64)
        self._reset_slots(slots, seed_array, players)
        self._refresh()

    def _reset_slots(self, slots: np.ndarray, seeds: np.ndarray, players: np.ndarray) -> None:
        self._use_threads()
        # every batch starts here, and a step always follows: the kernels both will compile are announced together
        kernels.announce(kernels.reset_kernel, kernels.step_kernel, kernels.check_kernel)
        uniform = LETTER_PLACEMENTS.index(self.options.letter_placement)
        kernels.reset_kernel(self.states, self.rngs, slots, seeds, players, self.options.max_turns, uniform)
        self.seeds[slots] = seeds

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Apply one action id per game (``-1``: leave that game as it is) and rewrite every view.

        Raises:
            IllegalActionError: (a ``ValueError``) some game's id is not legal now; the message names the
                first such game and its id, and no game changes.
            ValueError: ``actions`` is not ``num_games`` integers.
        """
        self._require_started()
        action_array = _int_array(actions, self.num_games, "actions")
        self._use_threads()
        bad = kernels.check_kernel(self._legal, action_array)
        if bad >= 0:
            raise IllegalActionError(self._why_illegal(bad, int(action_array[bad])))
        self._run_step(action_array, refresh=False)

    def _run_step(self, actions: np.ndarray, refresh: bool) -> None:
        kernels.step_kernel(
            self.states,
            self.rngs,
            actions,
            self.rewards,
            self.terminated,
            self.truncated,
            self.auto_reset,
            self.seeds,
            np.uint64(self.num_games),
            self.actor,
            self.mask,
            self._legal,
            self.obs,
            refresh,
        )

    def _why_illegal(self, game: int, action: int) -> str:
        row = self.states[game]
        if not 0 <= action < NUM_ACTIONS:
            meaning = f"outside 0..{NUM_ACTIONS - 1} (or -1 to skip)"
        else:
            meaning = f"({describe_id(action)})"
        step = Step(int(row[L.STEP])).name.lower()
        legal = np.flatnonzero(self._legal[game]).tolist()
        return (
            f"game {game}: action id {action} {meaning} is not legal: seat {int(row[L.ACTOR])} must decide a "
            f"{step} step, where the legal ids are {legal}"
        )

    def _refresh(self) -> None:
        self._use_threads()
        self._run_step(np.full(self.num_games, SKIP, dtype=np.int64), refresh=True)

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before using the games")

    # --- reading ----------------------------------------------------------------------------------

    def observe(self, viewers: Sequence[int] | np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Each game's observation as seat ``viewers[i]`` sees it (e.g. a learner's view while others act).

        Raises:
            ValueError: a viewer is not a seat of its game, or ``out`` has the wrong shape or dtype.
        """
        self._require_started()
        seats = _int_array(viewers, self.num_games, "viewers")
        players = self.states[:, L.NUM_PLAYERS]
        if ((seats < 0) | (seats >= players)).any():
            raise ValueError("every viewer must be a seat of its game")
        if out is None:
            out = np.empty((self.num_games, OBS_SIZE), dtype=np.float32)
        elif out.shape != (self.num_games, OBS_SIZE) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({self.num_games}, {OBS_SIZE})")
        self._use_threads()
        kernels.announce(kernels.observe_kernel)
        kernels.observe_kernel(self.states, seats, out)
        return out

    def is_over(self) -> np.ndarray:
        """Per game, whether it has ended or was truncated."""
        return self.states[:, L.STEP] == int(Step.OVER)

    def scores(self, games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Points per game and seat now (int64, (N, 6); 0 for seats a game does not have).

        With ``games`` (indices), only those rows are filled; the others stay 0 (a caller that needs a few
        games' scores at every step does not pay for the whole batch).
        """
        out = np.zeros((self.num_games, MAX_PLAYERS), dtype=np.int64)
        rows = range(self.num_games) if games is None else [self._index(g) for g in np.asarray(games).tolist()]
        for i in rows:
            row = self.states[i]
            for s in range(int(row[L.NUM_PLAYERS])):
                out[i, s] = score(row, s)
        return out

    def winners(self, game: int) -> list[int]:
        """Winning seats of a game that ended (empty before the end and after a truncation)."""
        row = self.states[self._index(game)]
        if row[L.STEP] != int(Step.OVER) or row[L.TRUNCATED]:
            return []
        won = np.zeros(MAX_PLAYERS, dtype=np.int64)
        winners_into(row, won)
        return [int(s) for s in np.flatnonzero(won)]

    def hand_sizes(self, game: int) -> list[int]:
        """Cards in each hand of one game."""
        row = self.states[self._index(game)]
        return [hand_size(row, s) for s in range(int(row[L.NUM_PLAYERS]))]

    # --- between the engines ----------------------------------------------------------------------

    def to_dict(self, game: int) -> dict[str, Any]:
        """The state dict of one game: equal to the reference :meth:`Game.to_dict` at the same position."""
        i = self._index(game)
        self._require_started()
        return row_to_dict(self.states[i], self.rngs[i])

    def export_game(self, game: int, *, record_log: bool = True) -> Game:
        """One game as a reference :class:`Game` (same position, same random future)."""
        return Game.from_dict(self.to_dict(game), record_log=record_log)

    def import_game(self, game: int, position: Game | dict[str, Any], seed: int = 0) -> None:
        """Put a reference position (a :class:`Game` or a ``to_dict`` dict) into slot ``game``.

        ``seed`` is what the slot's next auto-reset counts from. The views are rewritten.

        Raises:
            InvalidStateError: (a ``ValueError``) the dict is not a valid position.
            ValueError: the position uses rule options or sizes the compiled engine can't hold; nothing
                changes.
        """
        i = self._index(game)
        self._require_started()
        source = Game.from_dict(position, record_log=False) if isinstance(position, dict) else position
        if not isinstance(source, Game):
            raise ValueError(f"a position is a Game or a state dict, not {type(position).__name__}")
        state = source.state
        check_state(state)
        _check_importable(state)
        row = np.zeros(L.ROW, dtype=np.int32)
        rng = np.zeros(RNG_WORDS, dtype=np.uint64)
        try:
            state_to_row(state, row, rng)
        except (OverflowError, TypeError) as err:
            raise ValueError(f"the position does not fit the compiled engine: {err}") from None
        self.states[i], self.rngs[i] = row, rng
        self.seeds[i] = _check_seed(seed)
        self._refresh()

    def _index(self, game: int) -> int:
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < self.num_games:
            raise ValueError(f"game must be an int from 0 to {self.num_games - 1}, not {game!r}")
        return int(game)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int from 0 to 2**64 - 1, not {seed!r}")
    return int(seed)


def _check_importable(state: Any) -> None:
    """What the compiled code indexes with must be in range (the reference checks the rest)."""
    n = state.num_players
    if state.turn > MAX_TURNS_LIMIT + 1:
        raise ValueError(f"the compiled engine needs turn numbers <= {MAX_TURNS_LIMIT + 1}")
    pend = state.pending
    play = pend.play
    if play is not None and play.seat is not None and not 0 <= play.seat < n:
        raise ValueError(f"pending.play aims at seat {play.seat}, which a {n}-player table does not have")
    ring = play is not None and play.use is not None and play.use.name == "RING"
    if ring and (len(pend.picks) > 3 or any(not isinstance(s, int) or not 0 <= s < n for s in pend.picks)):
        raise ValueError("a Ring's picks must be at most three seats of the table")
    if len(pend.picks) > L.MAX_PICKS or any(not isinstance(v, int) or abs(v) > MAX_TURNS_LIMIT for v in pend.picks):
        raise ValueError("pending.picks must be small ints")
    if any(not isinstance(m, int) or not -1 <= m < L.KINDS for m in pend.marks):
        raise ValueError("pending.marks must be card kinds or -1")
