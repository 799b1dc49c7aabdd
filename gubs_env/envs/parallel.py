"""Gubs as a PettingZoo ``ParallelEnv``: every seat is an agent at every step, and a seat with nothing to decide waits.

>>> import gubs_env
>>> env = gubs_env.parallel_env(num_players=3)
>>> observations, infos = env.reset(seed=7)
>>> sorted(observations) == env.agents == ["player_0", "player_1", "player_2"]
True
>>> int(observations["player_1"]["action_mask"][WAIT]), int(observations["player_1"]["action_mask"].sum())
(1, 1)

Gubs asks players out of turn (interrupts, Event choices) and chains decisions, so no fixed order of turns fits
it: the game says who decides next. This view asks everyone at every step. The seat that must decide (the one
``gubs_env.env()`` would select) gets its legal ids of the action table (docs/action_table.md); every other seat
gets one legal id, :data:`WAIT`. So no mask is ever empty, a seat that waits is never taken for a seat that has
left the game, and one step applies exactly one decision: the same decisions, in the same order, as the AEC env.

**Ids.** The action space is ``Discrete(357)``: ids 0 to 355 are the action table's, unchanged, and
``WAIT = 356`` is this view's own. The mask is ``(357,)``.

**Rewards** are 0 until the game ends, then +1 for every winner and -1 for every other seat; a game cut at the
turn limit ends with ``truncations`` True and 0 for all. Then ``agents`` is empty: call ``reset()``.

**Illegal ids.** With ``on_illegal="lose"`` (the default, as ``gubs_env.env()``'s wrapper does) an illegal id (a
decision that is not legal, or anything but :data:`WAIT` from a seat that waits) ends the game: -1 for each seat
that sent one, 0 for the others, ``infos[agent]["illegal_action"]`` True. ``"raise"`` raises the engine's
``IllegalActionError`` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.id_table import IdTable
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.positions.serialize import brief
from gubs_env.envs import masks
from gubs_env.envs.engines import AUTO, open_table, resolve_engine
from gubs_env.envs.gubs_aec import RENDER_MODES, TableEnv

WAIT = NUM_ACTIONS
"""The id of waiting: the one legal id of every seat that has nothing to decide (356, after the table's ids)."""
PARALLEL_ACTIONS = NUM_ACTIONS + 1
"""The size of the parallel view's action space: the action table's ids and :data:`WAIT`."""


def parallel_env(num_players: int = 2, **options: Any) -> GubsParallelEnv:
    """The Gubs ``ParallelEnv``: ``GubsParallelEnv(num_players, **options)``, PettingZoo's name for it.

    Args:
        num_players: 2 to 6.
        **options: ``render_mode``, ``engine``, ``mask_dtype``, ``mask_in_observation``, ``on_illegal`` and rule
            options, as :class:`GubsParallelEnv` takes them.
    """
    return GubsParallelEnv(num_players, **options)


class GubsParallelEnv(TableEnv, ParallelEnv, EzPickle):
    """Every seat an agent at every step; the seat that must decide picks an action id, the others :data:`WAIT`.

    Args:
        num_players: 2 to 6.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``, as ``gubs_env.env()``.
        engine: ``"auto"`` (the compiled engine when numba is installed), ``"fast"`` or ``"reference"``.
        mask_dtype: ``"int8"`` (the default, what PettingZoo's tests and AgileRL read) or ``"bool"``.
        mask_in_observation: ``True`` (the default, as ``gubs_env.env()``): each observation is a dict of the
            512-vector and the mask, and the infos hold the mask too. ``False``: each observation is the plain
            512-vector and the mask is in the infos only, where AgileRL's multi-agent algorithms read it (they
            refuse an observation that holds one).
        on_illegal: ``"lose"`` (an illegal id ends the game, -1 for its sender) or ``"raise"``.
        **rule_options: engine rule options, e.g. ``max_turns=500``.

    Observations are ``{"observation": float32 (512,), "action_mask": (357,)}`` per agent (or the 512-vector alone,
    with ``mask_in_observation=False``), each seen from its own seat; ``infos[agent]["action_mask"]`` always holds
    the mask. Every agent must be given an action at every step
    (an agent left out waits).

    Raises:
        ValueError: a bad player count, render mode, engine, mask dtype, ``on_illegal`` or rule option.
        ImportError: ``engine="fast"`` without numba.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "gubs_parallel_v0", "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        engine: str = AUTO,
        mask_dtype: str = "int8",
        mask_in_observation: bool = True,
        on_illegal: str = "lose",
        **rule_options: Any,
    ) -> None:
        EzPickle.__init__(
            self, num_players, render_mode, engine, mask_dtype, mask_in_observation, on_illegal, **rule_options
        )
        Game(num_players, seed=0, record_log=False, **rule_options)  # validates, with the engine's errors
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, not {brief(render_mode)}")
        if type(mask_in_observation) is not bool:
            raise ValueError(f"mask_in_observation must be True or False, not {brief(mask_in_observation)}")
        if type(on_illegal) is not str or on_illegal not in ("lose", "raise"):
            raise ValueError(f"on_illegal must be 'lose' or 'raise', not {brief(on_illegal)}")
        self.engine = resolve_engine(engine)
        """The engine that plays: ``"fast"`` or ``"reference"``."""
        self.mask_dtype = masks.mask_dtype(mask_dtype)
        """The numpy dtype of every mask handed out."""
        self.mask_in_observation = mask_in_observation
        """Whether each observation is a dict that holds the mask (else the plain 512-vector)."""
        self.on_illegal = on_illegal
        self.num_players = int(num_players)
        self.rule_options = rule_options
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents: list[str] = []
        vector = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        mask = masks.mask_space(PARALLEL_ACTIONS, self.mask_dtype)
        space = spaces.Dict({"observation": vector, "action_mask": mask}) if mask_in_observation else vector
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces: dict[str, spaces.Space] = {
            agent: spaces.Discrete(PARALLEL_ACTIONS) for agent in self.possible_agents
        }
        self._table: IdTable | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        """The same Dict space for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(357)``: the action table's ids and :data:`WAIT`, the same object at every call."""
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Deal a new game; ``seed`` fixes it, and deals what ``gubs_env.env()`` deals for that seed."""
        if self._table is None:
            self._table = open_table(self.engine, self.num_players, seed, **self.rule_options)
        else:
            self._table.reset(seed)
        self.agents = self.possible_agents[:]
        observations, by_agent = self._observations()
        return observations, {agent: {"action_mask": mask} for agent, mask in by_agent.items()}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the deciding seat's id; every other agent's must be :data:`WAIT` (or left out).

        Args:
            actions: agent name -> id, as a Python int, a numpy integer scalar or a 0-d numpy integer array.

        Returns:
            ``observations, rewards, terminations, truncations, infos``, each keyed by every agent of the step.

        Raises:
            RuntimeError: before ``reset()``, or after the game has ended.
            ValueError: not a mapping of agents to ids of the action space, or the deciding seat's id missing;
                nothing changes.
            IllegalActionError: (a ``ValueError``) with ``on_illegal="raise"``, an id that is not legal now;
                nothing changes.
        """
        table = self._started()
        if not self.agents:
            raise RuntimeError("the game has ended: call reset()")
        ids = self._ids(actions, table.actor)
        offenders = self._offenders(table, ids)
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        ended = bool(offenders)
        if not ended:
            table.step(ids[table.actor])
            ended = table.actor < 0
            if ended and not table.truncated:
                winners = set(table.winners())
                rewards = {agent: 1.0 if seat in winners else -1.0 for seat, agent in enumerate(agents)}
        for seat in offenders:
            rewards[agents[seat]] = -1.0
        truncated = ended and not offenders and table.truncated
        terminations = dict.fromkeys(agents, ended and not truncated)
        truncations = dict.fromkeys(agents, truncated)
        observations, by_agent = self._observations()
        infos: dict[str, dict[str, Any]] = {agent: {"action_mask": mask} for agent, mask in by_agent.items()}
        for seat in offenders:
            infos[agents[seat]]["illegal_action"] = True
        if ended:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _ids(self, actions: Mapping[str, Any], actor: int) -> list[int]:
        """One id per seat (:data:`WAIT` for a waiting seat left out), each checked to be in the action space."""
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict of agent names to ids, not {brief(actions)}")
        unknown = [agent for agent in actions if agent not in self.possible_agents]
        if unknown:
            raise ValueError(f"{brief(unknown[0])} is not an agent of this env: {self.possible_agents}")
        deciding = self.possible_agents[actor]
        if deciding not in actions:
            raise ValueError(f"{deciding} must decide now, and has no action")
        return [_checked(actions.get(agent, WAIT)) for agent in self.possible_agents]

    def _offenders(self, table: IdTable, ids: list[int]) -> list[int]:
        """The seats whose ids are not legal now; with ``on_illegal="raise"`` the first one raises instead."""
        actor = table.actor
        legal = table.action_mask()
        offenders = [seat for seat, chosen in enumerate(ids) if _illegal(chosen, seat, actor, legal)]
        if offenders and self.on_illegal == "raise":
            seat = offenders[0]
            if seat != actor:
                raise IllegalActionError(f"{self.possible_agents[seat]} waits now: its one legal id is {WAIT}")
            if ids[seat] == WAIT:
                raise IllegalActionError(f"{self.possible_agents[seat]} must decide now, and cannot wait")
            table.step(ids[seat])  # raises the engine's error, with its reason; nothing changes
        return offenders

    def _observations(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Every seat's observation and mask: its legal ids when it decides, else only :data:`WAIT`.

        Every seat is an agent from ``reset()`` to the step that ends the game, so this is every agent's.
        """
        table = self._started()
        rows = np.zeros((self.num_players, PARALLEL_ACTIONS), dtype=self.mask_dtype)
        rows[:, WAIT] = 1
        if table.actor >= 0:
            rows[table.actor, :NUM_ACTIONS] = table.action_mask()
            rows[table.actor, WAIT] = 0
        by_agent = dict(zip(self.possible_agents, rows, strict=True))
        vectors = {agent: table.observation(seat) for seat, agent in enumerate(self.possible_agents)}
        if not self.mask_in_observation:
            return vectors, by_agent
        return {agent: {"observation": vectors[agent], "action_mask": by_agent[agent]} for agent in vectors}, by_agent

    @property
    def game(self) -> Game:
        """The position as a reference :class:`Game` (on the compiled engine, a copy)."""
        return self._started().game


def _checked(action: Any) -> int:
    """An id of the parallel action space (the table's ids and :data:`WAIT`) as an int; nothing is converted.

    Raises:
        ValueError: not a Python int, numpy integer scalar or 0-d numpy integer array from 0 to :data:`WAIT`.
    """
    zero_d = type(action) is np.ndarray and action.shape == () and np.issubdtype(action.dtype, np.integer)
    if not (type(action) is int or isinstance(action, np.integer) or zero_d) or not 0 <= int(action) <= WAIT:
        raise ValueError(f"an action is an int id from 0 to {WAIT} (wait), not {brief(action)}")
    return int(action)


def _illegal(chosen: int, seat: int, actor: int, legal: np.ndarray) -> bool:
    """Whether ``seat`` may not send ``chosen`` now: a waiting seat sends :data:`WAIT`, the deciding seat a legal id."""
    if seat != actor:
        return chosen != WAIT
    return chosen == WAIT or not legal[chosen]
