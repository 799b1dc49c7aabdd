"""Gubs as a PettingZoo AEC environment: a thin adapter over either engine.

``raw_env`` maps engine decisions to agents and ids to actions; ``env()`` adds PettingZoo's standard
wrappers (an illegal id ends the game with -1 for the player who chose it, as in the classic
environments). The agent to act follows the engine: during an interrupt window or an Event choice it is
the player being asked, not the turn player.

The game is an :class:`~gubs_env.encoding.id_table.IdTable` from :func:`~gubs_env.envs.engines.open_table`:
the compiled engine (:class:`gubs_env.fast.FastGame`) when numba is installed, else the reference engine
(:class:`gubs_env.engine.Game`); ``engine=`` chooses. Both give the same episodes for a seed, action for action:
observations, masks, rewards, agent order, infos and errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gubs_env.encoding.action_table import NUM_ACTIONS, checked_id
from gubs_env.encoding.id_table import IdTable, ReferenceTable, shared_codec
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Game, IllegalActionError
from gubs_env.engine.positions.serialize import brief
from gubs_env.envs.engines import AUTO, open_table, resolve_engine
from gubs_env.viz.raster import state_rgb

RENDER_MODES = ("ansi", "human", "rgb_array")

_NO_IDS = np.zeros(NUM_ACTIONS, dtype=np.int8)
_NO_IDS.flags.writeable = False
"""``infos[agent]["action_mask"]`` of every agent that does not decide now: one shared read-only array, so that
a step writes one new mask, not one per seat."""


def env(
    num_players: int = 2,
    render_mode: str | None = None,
    engine: str = AUTO,
    record_log: bool = False,
    **rule_options: Any,
) -> AECEnv:
    """The Gubs AEC environment with the standard wrappers of PettingZoo's classic games.

    Args:
        num_players: 2 to 6.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it) or ``"rgb_array"``
            (``render()`` returns the table's picture as an ``H x W x 3`` ``uint8`` frame).
        engine: ``"auto"`` (the compiled engine when numba is installed), ``"fast"`` or ``"reference"``.
        record_log: keep the game's log, so that ``seat_text``/``seat_view`` hold the events since an agent's last
            decision (on the reference engine, which alone keeps one; slower).
        **rule_options: engine rule options, e.g. ``letter_placement="uniform"``, ``max_turns=500``.
    """
    wrapped: AECEnv = raw_env(
        num_players=num_players, render_mode=render_mode, engine=engine, record_log=record_log, **rule_options
    )
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class TableEnv:
    """What the AEC env and the parallel view share: the table they play, drawn on request.

    A subclass sets ``self._table`` (None until ``reset()``) and ``self.render_mode``.
    """

    _table: IdTable | None
    render_mode: str | None

    def render(self) -> str | np.ndarray | None:
        """The table from the acting player's view (all-seeing once the game is over).

        ``"ansi"`` returns it as text and ``"human"`` prints it; ``"rgb_array"`` returns the picture of
        :meth:`Game.view <gubs_env.engine.Game.view>` as a frame of :func:`gubs_env.viz.raster.frame_size`.
        """
        if self.render_mode is None:
            return None
        return render_table(self._started(), self.render_mode)

    def close(self) -> None:
        """Nothing to release."""

    def _started(self) -> IdTable:
        if self._table is None:
            raise RuntimeError("call reset() before using the environment")
        return self._table


class raw_env(TableEnv, AECEnv, EzPickle):
    """The bare environment: ``step`` raises the engine's ``IllegalActionError`` for an illegal id.

    Args:
        num_players: 2 to 6.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        engine: ``"auto"`` (the compiled engine when numba is installed), ``"fast"`` or ``"reference"``.
        record_log: keep the game's log for :meth:`seat_text` and :meth:`seat_view` (the reference engine then plays).
        **rule_options: engine rule options.

    Raises:
        ValueError: a bad player count, render mode, engine or rule option, or ``record_log`` with ``engine="fast"``.
        ImportError: ``engine="fast"`` without numba.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "gubs_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        engine: str = AUTO,
        record_log: bool = False,
        **rule_options: Any,
    ) -> None:
        EzPickle.__init__(self, num_players, render_mode, engine, record_log, **rule_options)
        super().__init__()
        Game(num_players, seed=0, record_log=False, **rule_options)  # validates, with the engine's errors
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, not {render_mode!r}")
        if not isinstance(record_log, bool) or (record_log and engine == "fast"):
            raise ValueError(f"record_log must be true or false, and true only off the fast engine, not {record_log!r}")
        self.record_log = record_log
        """Whether the game keeps its log (the reference engine plays then)."""
        self.engine = "reference" if record_log else resolve_engine(engine)
        """The engine that plays: ``"fast"`` or ``"reference"``."""
        self.num_players = int(num_players)
        self.rule_options = rule_options
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = self.possible_agents[:]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._codec = shared_codec(self.num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._table: IdTable | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        """The same Dict space for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(NUM_ACTIONS)`` for every agent and table size."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` fixes the whole game."""
        if self._table is None:
            self._table = (
                ReferenceTable(self.num_players, seed, record_log=True, **self.rule_options)
                if self.record_log
                else open_table(self.engine, self.num_players, seed, **self.rule_options)
            )
        else:
            self._table.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {"action_mask": _NO_IDS} for a in self.agents}
        self.agent_selection = self.possible_agents[self._table.actor]  # a new game always asks somebody
        self._show_mask(self.agent_selection)

    @property
    def game(self) -> Game:
        """The position as a reference :class:`Game`.

        On the reference engine it is the env's game itself; on the fast engine a copy exported from the compiled
        engine, so changes to it do not reach the env: assign a position instead. Assigning a :class:`Game` (or a
        ``to_dict`` dict) with the env's table size continues from that position; ``agent_selection`` follows its
        player to act.

        Raises:
            ValueError: (on assignment) not a valid position, or another table size; nothing changes.
        """
        return self._started().game

    @game.setter
    def game(self, position: Game | dict[str, Any]) -> None:
        table = self._started()
        game = position if isinstance(position, Game) else Game.from_dict(position, record_log=False)
        if game.num_players != self.num_players:
            raise ValueError(f"the env seats {self.num_players} players, not {game.num_players}")
        table.import_game(game)
        if table.actor >= 0:
            self._show_mask(self.possible_agents[table.actor])

    def seat_of(self, agent: str) -> int:
        """The seat of an agent name."""
        seat = self._seats.get(agent)
        if seat is None:
            raise ValueError(f"{brief(agent)} is not an agent of this env: {self.possible_agents}")
        return seat

    def seat_view(self, agent: str) -> dict[str, Any]:
        """What ``agent`` knows of the game, as a JSON-ready dict (:meth:`Game.seat_view`).

        It holds the events since the agent's last decision when the env keeps the game's log (``record_log=True``);
        elsewhere ``"events_recorded"`` is false.
        """
        seat = self.seat_of(agent)
        return self._started().game.seat_view(seat)

    def seat_text(self, agent: str) -> str:
        """:meth:`seat_view` in words (:meth:`Game.seat_text`): a per-agent text render for a person or a model."""
        seat = self.seat_of(agent)
        return self._started().game.seat_text(seat)

    def parse_action(self, agent: str, text: str) -> int:
        """The action id of the legal move ``text`` names for ``agent``.

        ``text`` is in the action notation (:mod:`gubs_env.engine.notation`): a legal move's text, case and spacing
        forgiven, or its number among :meth:`seat_view`'s legal moves, from 1.

        Raises:
            ValueError: ``agent`` is not the one to act, or ``text`` names no legal move (one line says why).
        """
        seat, table = self.seat_of(agent), self._started()
        if seat != table.actor:
            raise ValueError(f"{agent} does not act now: only the agent to act has legal moves")
        game = table.game
        return shared_codec(self.num_players).ids((game.parse_action(text),), seat)[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation; its action mask is non-zero only when it must act."""
        table, seat = self._started(), self.seat_of(agent)
        return {"observation": table.observation(seat), "action_mask": self._mask(table, seat)}

    def action_mask(self, agent: str) -> np.ndarray:
        """Only the mask (cheaper than :meth:`observe`)."""
        return self._mask(self._started(), self.seat_of(agent))

    @staticmethod
    def _mask(table: IdTable, seat: int) -> np.ndarray:
        """The table's mask for the seat to act, and an empty one for every other seat."""
        return table.action_mask() if seat == table.actor else np.zeros(NUM_ACTIONS, dtype=np.int8)

    def _show_mask(self, agent: str) -> None:
        """Select ``agent`` to decide: its legal ids go to its ``infos``, and the last decider's are emptied."""
        self.infos[self.agent_selection]["action_mask"] = _NO_IDS
        self.agent_selection = agent
        self.infos[agent]["action_mask"] = self._started().action_mask()

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
        table = self._started()
        try:
            table.step(action)
        except IllegalActionError:
            # the reference engine words the refusal, so that both engines say the same (a rare path)
            table.game.apply(self._codec.action(checked_id(action), table.actor))
            raise
        self._cumulative_rewards[agent] = 0
        if table.actor < 0:
            self.infos[agent]["action_mask"] = _NO_IDS
            self._finish(table)
            self._accumulate_rewards()  # every reward before the end is 0: nothing to add until then
        else:
            self._show_mask(self.possible_agents[table.actor])
        if self.render_mode == "human":
            self.render()

    def _finish(self, table: IdTable) -> None:
        """Every winner +1 and every other player -1; a truncated game gives 0 (docs/rules.md §6, R23)."""
        if table.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            winners = set(table.winners())
            self.rewards = {a: 1 if i in winners else -1 for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)


def render_table(table: IdTable, render_mode: str) -> str | np.ndarray | None:
    """The table from the deciding seat's view (all-seeing once over) in ``render_mode`` (one of RENDER_MODES)."""
    game = table.game
    if render_mode == "rgb_array":
        return state_rgb(game.state, game.current_player)
    text = game.render(game.current_player)
    if render_mode == "human":
        print(text + "\n")
        return None
    return text
