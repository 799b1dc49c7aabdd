"""One game on the compiled engine, one decision at a time: the single-game path.

>>> from gubs_env.fast import FastGame
>>> game = FastGame(3, seed=7)  # the deal of Game(3, seed=7)
>>> game.actor, int(game.mask.sum()) > 0
(0, True)
>>> game.step(0)  # seat 0 draws (action id 0)
>>> game.export_game().to_dict() == game.to_dict()
True

:class:`~gubs_env.fast.FastGames` steps many games per call, and its fixed cost per call (a parallel kernel's
launch, a dozen array arguments, the thread count) is more than one game's rules. Here every call is one serial
compiled function of four array arguments at most, so a single game runs faster than on the reference engine.

``FastGame`` is an :class:`~gubs_env.encoding.id_table.IdTable` (``action_mask()``, ``observation(seat)``,
``over``, ``game``), so code written for that protocol plays the compiled engine with nothing in between.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS, checked_id
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.fast import kernels
from gubs_env.fast.boundary import brief_value, readonly_view, why_illegal
from gubs_env.fast.convert import position_to_row, row_to_dict
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.observe import encode
from gubs_env.fast.core.rng import RNG_WORDS
from gubs_env.fast.core.rules import score, winners_into

LARGEST_SEED = 2**64 - 1
"""The largest seed the compiled set-up takes; a larger one is dealt by the reference engine and imported."""


class FastGame:
    """One game of Gubs on the compiled engine: the same game as :class:`~gubs_env.engine.Game`, by action ids.

    Args:
        num_players: 2 to 6.
        seed: the deal, as ``Game(num_players, seed=seed)``: an int >= 0, or ``None`` for fresh entropy.
        **rule_options: rule options (:class:`~gubs_env.engine.options.RuleOptions`).

    Raises:
        ValueError: a bad player count, seed or rule option.
    """

    def __init__(self, num_players: int = 2, seed: int | None = None, **rule_options: Any) -> None:
        self._num_players = check_player_count(num_players)
        self._options = RuleOptions.from_dict(rule_options)
        self._uniform = LETTER_PLACEMENTS.index(self._options.letter_placement)
        self._row = np.zeros(L.ROW, dtype=np.int32)
        self._rng = np.zeros(RNG_WORDS, dtype=np.uint64)
        self._legal = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._mask = readonly_view(self._legal)
        self._row_view = readonly_view(self._row)
        self._actor = -1
        kernels.warm_up("one game", ONE_GAME_KERNELS, _exercise_one_game)  # before the first game, not during it
        self.reset(seed)

    def __getstate__(self) -> dict[str, Any]:
        # the read-only mask lends memory through a memoryview, which does not pickle: it is made anew
        return {key: value for key, value in self.__dict__.items() if key not in ("_mask", "_row_view")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._mask, self._row_view = readonly_view(self._legal), readonly_view(self._row)

    # --- a game -----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, num_players: int | None = None) -> None:
        """Start a new game: the deal of ``Game(num_players, seed=seed)``.

        Args:
            seed: an int >= 0, or ``None`` for fresh entropy.
            num_players: 2 to 6 (``None``: as before); later resets keep it.

        Raises:
            ValueError: a bad seed or player count; nothing changes.
        """
        players = self._num_players if num_players is None else check_player_count(num_players)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be None or an int >= 0, not {brief_value(seed)}")
        if seed > LARGEST_SEED:  # numpy seeds from any int: deal it as the reference does
            self.import_game(Game(players, seed=int(seed), record_log=False, **self._options.to_dict()))
            return
        self._num_players = players
        self._actor = kernels.start_game(
            self._row, self._rng, self._legal, np.uint64(seed), players, self._options.max_turns, self._uniform
        )

    def step(self, action: Any) -> None:
        """Apply the action id of the seat to act.

        Args:
            action: a Python ``int``, a numpy integer scalar or a 0-d numpy integer array.

        Raises:
            IllegalActionError: (a ``ValueError``) the id is not legal now (or the game is over); nothing changes.
            ValueError: ``action`` is not an id of the action space (a float, bool, string, ...); nothing changes.
        """
        a = checked_id(action)
        if not self._legal[a]:
            raise IllegalActionError(why_illegal(self._row, self._legal, a))
        self._actor = kernels.step_game(self._row, self._rng, a, self._legal)

    def import_game(self, position: Game | dict[str, Any]) -> None:
        """Continue from a reference position (a :class:`Game` or a ``to_dict`` dict).

        The position is checked as :meth:`FastGames.import_game <gubs_env.fast.FastGames.import_game>` checks it;
        its table size becomes this game's.

        Raises:
            InvalidStateError: (a ``ValueError``) not a valid position.
            ValueError: a position the compiled engine can't hold. Whatever is raised, nothing changes.
        """
        row, rng = position_to_row(position)
        self._row[:], self._rng[:] = row, rng
        self._num_players = int(row[L.NUM_PLAYERS])
        self._actor = kernels.view_game(self._row, self._legal)

    # --- reading ----------------------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self._num_players

    @property
    def options(self) -> RuleOptions:
        """The rule options of :meth:`reset`'s games."""
        return self._options

    @property
    def actor(self) -> int:
        """The seat that must decide, -1 once the game is over."""
        return self._actor

    @property
    def mask(self) -> np.ndarray:
        """int8 ``(356,)``, read-only and rewritten by every step: 1 at each legal id of :attr:`actor`."""
        return self._mask

    @property
    def row(self) -> np.ndarray:
        """int32 ``(ROW,)``, read-only: the position, as one row of ``FastGames.states`` (see ``layout``)."""
        return self._row_view

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (by the rules or at the turn limit)."""
        return self._actor < 0

    @property
    def over(self) -> bool:
        """The same as :attr:`is_over`: the name :class:`~gubs_env.encoding.id_table.IdTable` reads."""
        return self._actor < 0

    def action_mask(self) -> np.ndarray:
        """A writable copy of :attr:`mask`, the caller's to keep (all 0 once the game is over)."""
        return self._legal.copy()

    @property
    def truncated(self) -> bool:
        """Whether the game was cut at the turn limit (R23)."""
        return bool(self._row[L.TRUNCATED])

    @property
    def turn(self) -> int:
        """The turn number (``max_turns + 1`` once truncated)."""
        return int(self._row[L.TURN])

    def observe(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation: float32 ``(512,)``, the same vector as :func:`gubs_env.encoding.observation.encode`.

        Args:
            seat: a seat of the table.
            out: where to write it, a writable C-contiguous float32 ``(512,)`` array (``None``: a new one).

        Raises:
            ValueError: ``seat`` is not a seat of the table, or ``out`` is not such an array.
        """
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self._num_players:
            raise ValueError(f"seat must be an int from 0 to {self._num_players - 1}, not {brief_value(seat)}")
        if out is None:
            out = np.empty(OBS_SIZE, dtype=np.float32)
        elif type(out) is not np.ndarray or out.dtype != np.float32 or out.shape != (OBS_SIZE,):
            raise ValueError(f"out must be a float32 array of shape ({OBS_SIZE},)")
        elif not (out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("out must be writable and C-contiguous")
        encode(self._row, int(seat), out)
        return out

    observation = observe  # the IdTable name; an alias rather than a wrapper, so that it costs no extra call

    def scores(self) -> list[int]:
        """Points per seat now (docs/rules.md §6)."""
        return [int(score(self._row, s)) for s in range(self._num_players)]

    def winners(self) -> list[int]:
        """The winning seats once the game has ended by the rules (empty before, and after a truncation)."""
        if not self.is_over or self.truncated:
            return []
        won = np.zeros(MAX_PLAYERS, dtype=np.int64)
        winners_into(self._row, won)
        return np.flatnonzero(won).tolist()

    # --- between the engines ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The state dict: equal to the reference :meth:`Game.to_dict` at the same position."""
        return row_to_dict(self._row, self._rng)

    def export_game(self, *, record_log: bool = True) -> Game:
        """The position as a reference :class:`Game` (same position, same random future)."""
        return Game.from_dict(self.to_dict(), record_log=record_log)

    @property
    def game(self) -> Game:
        """The position as a reference :class:`Game` without a log: a copy, so changes to it do not reach this game."""
        return self.export_game(record_log=False)


ONE_GAME_KERNELS = (kernels.start_game, kernels.step_game, kernels.view_game, encode, score, winners_into)
"""Every kernel one game calls: compiled together when the first :class:`FastGame` of a process is made."""


def _exercise_one_game() -> None:
    """Each of :data:`ONE_GAME_KERNELS` once: a deal, a step, an observation, an import, the scores and winners."""
    game = FastGame(2, seed=0)
    game.step(int(np.flatnonzero(game.mask)[0]))
    game.observe(0)
    game.import_game(game.export_game(record_log=False))
    game.scores()
    winners_into(game._row, np.zeros(MAX_PLAYERS, dtype=np.int64))  # winners() asks it only once a game is over
