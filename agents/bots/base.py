"""The agent interface shared by every bot: observation and action mask in, action id out."""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from gubs_env.encoding.action_table import ActionCodec
    from gubs_env.engine import Game


class Agent(ABC):
    """A policy over the flat action ids of :mod:`gubs_env.encoding.action_table`.

    Every agent answers ``act(observation, action_mask, game=None)``; the agents that search the position (the
    search bots) need ``game``, the :class:`~gubs_env.engine.Game` being played, and say so in one line without it.
    In a PettingZoo loop::

        observation, reward, terminated, truncated, info = env.last()
        action = agent.act(observation["observation"], observation["action_mask"], game=env.unwrapped.game)

    An agent is also a callable ``(observation, action_mask) -> id``, so it can be given directly as an
    opponent of :class:`gubs_env.envs.selfplay.SelfPlayEnv`.
    """

    name: str = "agent"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give an ``act`` written without the ``game`` parameter one, so that every agent answers the same call."""
        super().__init_subclass__(**kwargs)
        act = cls.__dict__.get("act")
        if callable(act) and not _takes_game(act):
            cls.act = _ignoring_game(act)  # type: ignore[method-assign]

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        """The agent's own generator, for any random choice it makes."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """Choose a legal action id (``action_mask[id] == 1``).

        ``game`` is the position the observation shows, for agents that decide from it (:attr:`needs_game`); the
        others leave it alone. A subclass of your own may leave the parameter out.
        """

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The id to play at ``game``'s current decision, for its current player.

        By default :meth:`act` on what the environments would show that player. Agents that search the game
        override it, and must use only what the player may know (:meth:`Game.resample`,
        :meth:`Game.information_state`); matches, tournaments and play ask every agent through this method.
        """
        from gubs_env.encoding.observation import encode

        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        return int(self.act(encode(game.state, seat), codec.mask(game.legal_actions(), seat)))

    needs_game: bool = False
    """True for agents that decide from the game itself (:meth:`act_in_game`), not from an observation alone;
    games with such an agent at the table run on the reference engine."""
    needs_log: bool = False
    """True for agents that read the game's log (what happened since their last decision: the language-model agent);
    games with such an agent at the table keep it."""

    def reset(self, seed: int | None = None) -> None:
        """Called before each game: reseeds the agent's generator (``None`` keeps its current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Same as :meth:`act`."""
        return self.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _takes_game(act: Callable[..., int]) -> bool:
    """Whether ``act`` accepts ``game=`` (by name, or through ``**kwargs``)."""
    parameters = inspect.signature(act).parameters.values()
    return any(p.name == "game" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _ignoring_game(act: Callable[..., int]) -> Callable[..., int]:
    """``act`` of a subclass that reads the observation alone, taking (and leaving alone) ``game=`` as well."""

    @functools.wraps(act)
    def act_with_game(self: Agent, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        return act(self, observation, action_mask)

    return act_with_game


def plays_like_an_agent(value: Any) -> bool:
    """Whether ``value`` (an object or a class) has ``act(observation, action_mask, ...)``: an agent but for its base.

    Any such object or class plays wherever an :class:`Agent` does; :class:`PlainAgent` wraps it.
    """
    return not isinstance(value, (str, bytes)) and callable(getattr(value, "act", None))


class PlainAgent(Agent):
    """An :class:`Agent` around any object with ``act(observation, action_mask)`` (``game=`` too, if it takes it).

    Its ``reset(seed)`` and ``name`` are used when it has them. It is how a tournament, a match or the
    environments play a class of your own that does not subclass :class:`Agent`.

    Args:
        player: the object that chooses.
        name: the agent's name (default: the object's ``name``, else its class's name).
    """

    def __init__(self, player: Any, name: str | None = None) -> None:
        super().__init__()
        self.player = player
        own = getattr(player, "name", None)
        self.name = name or (own if isinstance(own, str) and own else type(player).__qualname__)
        self._takes_game = _takes_game(player.act)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """The wrapped object's choice."""
        if self._takes_game:
            return int(self.player.act(observation, action_mask, game=game))
        return int(self.player.act(observation, action_mask))

    def reset(self, seed: int | None = None) -> None:
        """Reset the wrapped object too, when it has ``reset``."""
        super().reset(seed)
        reset = getattr(self.player, "reset", None)
        if callable(reset):
            reset(seed)


class AgentUnavailableError(RuntimeError):
    """An agent that cannot play on: the service it asks stayed down, or refused it (one line says which).

    A tournament stops at it, keeping every game played (:func:`agents.evaluate.tournament.run_tournament`).
    """


class NeedsGameError(TypeError):
    """An agent that searches the position was asked with an observation alone: pass ``game=`` too."""


def legal_ids(action_mask: np.ndarray) -> np.ndarray:
    """The ids a mask allows; raises ``ValueError`` when it allows none."""
    ids = np.flatnonzero(action_mask)
    if ids.size == 0:
        raise ValueError("the action mask allows no action: this agent is not the one to act")
    return ids
