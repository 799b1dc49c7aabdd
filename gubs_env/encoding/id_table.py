"""One game played by action ids, whichever engine plays it: the :class:`IdTable` protocol.

Environments, evaluation games and training envs all do the same thing with a game: ask who decides, show that
seat its observation and mask, apply the id it chose, and read the outcome at the end. :class:`IdTable` names
that much, so each of them is written once for both engines:

- the compiled engine's :class:`gubs_env.fast.FastGame` implements it directly;
- :class:`ReferenceTable` implements it over the reference :class:`~gubs_env.engine.Game`, with
  :class:`~gubs_env.encoding.action_table.ActionCodec` turning ids into actions.

The protocol lives here, beside the ids and the observation it is written in, because this room is the lowest
one that both engines' tables can reach (``gubs_env.fast`` imports it, the reference engine is below it).
Choosing an engine needs both of them, so :func:`gubs_env.envs.engines.open_table` does that one room up.

>>> table = ReferenceTable(3, seed=7)
>>> table.actor, int(table.action_mask().sum()) > 0
(0, True)
>>> table.step(0)  # seat 0 draws (action id 0)
"""

from __future__ import annotations

import functools
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec, checked_id
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.positions.serialize import brief


@runtime_checkable
class IdTable(Protocol):
    """One game of Gubs played by action ids; both engines give the same game for the same seed and ids.

    ``isinstance(x, IdTable)`` checks that the names exist, not their signatures.
    """

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        ...

    @property
    def actor(self) -> int:
        """The seat that must decide now, or -1 once the game is over (by the rules or at the turn limit)."""
        ...

    @property
    def over(self) -> bool:
        """Whether the game has ended, by the rules or at the turn limit: the same as ``actor < 0``."""
        ...

    @property
    def truncated(self) -> bool:
        """Whether the game was stopped at the turn limit (``max_turns``, R23) rather than ended by the rules."""
        ...

    @property
    def game(self) -> Game:
        """The position as a reference :class:`Game`.

        On the reference engine the table's own game (changes to it change the table); on the compiled one a copy
        without a log (same position, same random future).
        """
        ...

    def action_mask(self) -> np.ndarray:
        """int8 ``(NUM_ACTIONS,)``, the caller's to keep: 1 at each legal id of :attr:`actor`, all 0 once over."""
        ...

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s float32 ``(OBS_SIZE,)`` vector of :mod:`gubs_env.encoding.observation`, the caller's to keep.

        Raises:
            ValueError: ``seat`` is not a seat of the table.
        """
        ...

    def step(self, action: Any) -> None:
        """Apply the action id of :attr:`actor`.

        Args:
            action: a Python ``int``, a numpy integer scalar or a 0-d numpy integer array.

        Raises:
            ValueError: ``action`` is not an id of the action space (a float, bool, string, ...).
            IllegalActionError: (a ``ValueError``) the id is not legal now, or the game is over. Either way
                nothing changes; the words are each engine's own.
        """
        ...

    def scores(self) -> list[int]:
        """Points per seat now (docs/rules.md §6)."""
        ...

    def winners(self) -> list[int]:
        """The winning seats once the game has ended by the rules (empty before, and after a truncation)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Deal a new game at the same table size and rule options; ``seed`` as ``Game(seed=seed)``.

        Raises:
            ValueError: a bad seed; nothing changes.
        """
        ...

    def import_game(self, position: Game | dict[str, Any]) -> None:
        """Continue from a position (a :class:`Game` or a ``to_dict`` dict); its table size becomes the table's.

        Raises:
            ValueError: not a valid position (or, on the compiled engine, one it can't hold); nothing changes.
        """
        ...


@functools.cache
def shared_codec(num_players: int) -> ActionCodec:
    """The codec of a table size, shared by every table of that size: it caches ids and actions as they are met."""
    return ActionCodec(num_players)


class ReferenceTable:
    """The reference engine as an :class:`IdTable`: a :class:`Game` played by action ids.

    Args:
        num_players: 2 to 6.
        seed: the deal (``None``: fresh entropy).
        record_log: keep the game's log (:attr:`Game.log`), which only the reference engine writes; slower.
        **rule_options: rule options (:class:`~gubs_env.engine.options.RuleOptions`).

    Raises:
        ValueError: a bad player count, seed or rule option.
    """

    def __init__(
        self, num_players: int = 2, seed: int | None = None, *, record_log: bool = False, **rule_options: Any
    ) -> None:
        self._record_log, self._options = record_log, rule_options
        self._game = Game(num_players, seed=seed, record_log=record_log, **rule_options)
        self._codec = shared_codec(self._game.num_players)

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self._game.num_players

    @property
    def actor(self) -> int:
        """The seat that must decide now, -1 once the game is over."""
        seat = self._game.current_player
        return -1 if seat is None else seat

    @property
    def over(self) -> bool:
        """Whether the game has ended (by the rules or at the turn limit)."""
        return self._game.is_over

    @property
    def truncated(self) -> bool:
        """Whether the game was stopped at the turn limit (R23)."""
        return self._game.truncated

    @property
    def game(self) -> Game:
        """The table's own game, live: applying an action to it plays it at the table."""
        return self._game

    def action_mask(self) -> np.ndarray:
        """int8 ``(NUM_ACTIONS,)``, a new array: 1 at each legal id of :attr:`actor`, all 0 once over."""
        seat = self._game.current_player
        if seat is None:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self._codec.mask(self._game.legal_actions(), seat)

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation vector, a new array.

        Raises:
            ValueError: ``seat`` is not a seat of the table.
        """
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be an int from 0 to {self.num_players - 1}, not {brief(seat)}")
        return encode(self._game.state, int(seat))

    def step(self, action: Any) -> None:
        """Apply the action id of :attr:`actor` (see :meth:`IdTable.step`).

        Raises:
            ValueError: ``action`` is not an id of the action space.
            IllegalActionError: the id is not legal now, or the game is over. Nothing changes.
        """
        action_id = checked_id(action)
        seat = self._game.current_player
        if seat is None:
            raise IllegalActionError(f"action id {action_id} is not legal: the game is over")
        self._game.apply(self._codec.action(action_id, seat))

    def scores(self) -> list[int]:
        """Points per seat now."""
        return self._game.scores()

    def winners(self) -> list[int]:
        """The winning seats once the game has ended by the rules."""
        return self._game.winners()

    def reset(self, seed: int | None = None) -> None:
        """Deal a new game at the same table size, rule options and log setting.

        Raises:
            ValueError: a bad seed; nothing changes.
        """
        self._game = Game(self.num_players, seed=seed, record_log=self._record_log, **self._options)

    def import_game(self, position: Game | dict[str, Any]) -> None:
        """Continue from a position: a :class:`Game` becomes the table's own game, a dict is read into a new one.

        Raises:
            ValueError: not a valid position; nothing changes.
        """
        game = position if isinstance(position, Game) else Game.from_dict(position, record_log=self._record_log)
        self._game, self._codec = game, shared_codec(game.num_players)
