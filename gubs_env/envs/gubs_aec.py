"""Gubs as a PettingZoo AEC environment: a thin adapter over :class:`gubs_env.engine.Game`.

``raw_env`` maps engine decisions to agents and ids to actions; ``env()`` adds PettingZoo's standard
wrappers (an illegal id ends the game with -1 for the player who chose it, as in the classic
environments). The agent to act follows the engine: during an interrupt window or an Event choice it is
the player being asked, not the turn player.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game
from gubs_env.engine.positions.serialize import brief

RENDER_MODES = ("ansi", "human")


def env(num_players: int = 2, render_mode: str | None = None, **rule_options: Any) -> AECEnv:
    """The Gubs AEC environment with the standard wrappers of PettingZoo's classic games.

    Args:
        num_players: 2 to 6.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        **rule_options: engine rule options, e.g. ``letter_placement="uniform"``, ``max_turns=500``.
    """
    wrapped: AECEnv = raw_env(num_players=num_players, render_mode=render_mode, **rule_options)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """The bare environment: ``step`` raises the engine's ``IllegalActionError`` for an illegal id."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "gubs_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int = 2, render_mode: str | None = None, **rule_options: Any) -> None:
        EzPickle.__init__(self, num_players, render_mode, **rule_options)
        super().__init__()
        Game(num_players, seed=0, record_log=False, **rule_options)  # validates, with the engine's errors
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, not {render_mode!r}")
        self.num_players = int(num_players)
        self.rule_options = rule_options
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = self.possible_agents[:]
        self._codec = ActionCodec(self.num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        """The same Dict space for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(NUM_ACTIONS)`` for every agent and table size."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` fixes the whole game."""
        self.game = Game(self.num_players, seed=seed, record_log=False, **self.rule_options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        first = self.game.current_player
        assert first is not None  # a new game always asks somebody
        self.agent_selection = self.possible_agents[first]

    def seat_of(self, agent: str) -> int:
        """The seat of an agent name."""
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation; its action mask is non-zero only when it must act."""
        return {
            "observation": encode(self._started().state, self.seat_of(agent)),
            "action_mask": self.action_mask(agent),
        }

    def action_mask(self, agent: str) -> np.ndarray:
        """Only the mask (cheaper than :meth:`observe`)."""
        seat, game = self.seat_of(agent), self._started()
        if seat != game.current_player:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self._codec.mask(game.legal_actions(), seat)

    def step(self, action: int | None) -> None:
        """Apply the acting agent's action id.

        ``action`` is a Python ``int``, a numpy integer scalar or a 0-d numpy integer array.

        Raises:
            ValueError: ``action`` is not an id of the action space (a float, bool, string, ...); nothing changes.
            IllegalActionError: (a ``ValueError``) the id is not legal now; nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._started()
        seat = game.current_player
        assert seat is not None  # the game is on: every agent would be terminated or truncated otherwise
        game.apply(self._codec.action(_as_id(action), seat))
        self._cumulative_rewards[agent] = 0
        if game.is_over:
            self._finish(game)
        else:
            next_seat = game.current_player
            assert next_seat is not None
            self.agent_selection = self.possible_agents[next_seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self, game: Game) -> None:
        """Every winner +1 and every other player -1; a truncated game gives 0 (RULES.md §6, R23)."""
        if game.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            winners = set(game.winners())
            self.rewards = {a: 1 if i in winners else -1 for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)

    def render(self) -> str | None:
        """The table as text from the acting player's view (``"ansi"`` returns it, ``"human"`` prints it)."""
        if self.render_mode is None:
            return None
        game = self._started()
        text = game.render(game.current_player)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def _started(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def _as_id(action: Any) -> int:
    """An action id given as a Python int, a numpy integer scalar or a 0-d numpy integer array; never converted."""
    zero_d = type(action) is np.ndarray and action.shape == () and np.issubdtype(action.dtype, np.integer)
    if type(action) is int or isinstance(action, np.integer) or zero_d:
        value = int(action)
    else:  # bools, floats (even 3.0), strings, containers
        raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}, not {brief(action)}")
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"action id {brief(value)} is outside 0..{NUM_ACTIONS - 1}")
    return value
