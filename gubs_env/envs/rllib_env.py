"""Gubs as a native RLlib ``MultiAgentEnv``: one agent per seat, turn-based, masks in RLlib's convention.

Each reset deals a new game at the table size of the env's slot: a run's slots take ``players`` in turn (slot ``i``
plays ``players[i % len(players)]``, the rule of every backend), and the slot is the config's ``slot``, else the env
runner's index. Only the agent that must decide receives an observation; RLlib keeps every seat's last action and
adds up its rewards until that seat acts again, so interrupt windows, where a player acts out of turn, need nothing
special.

Agent ids name the seat and the table size (``seat_2_of_4``), in a fixed order: the policy mapping can tell
from an id alone which seats a table has, and a table's ids never change between episodes.

An observation is ``{"observations": float32[OBS_SIZE], "action_mask": float32[NUM_ACTIONS]}``, the keys RLlib's
action-masking modules read. An action id that is in the space but not legal now ends the game with -1 for the
seat that chose it and 0 for the others, as the PettingZoo ``env()`` does: a policy that masks never sees it,
and RLlib's environment check (which steps unmasked random actions) runs through.

The config's ``engine`` picks who plays the game (:func:`gubs_env.envs.engines.open_table`): ``"reference"``
(the default), the readable engine (:class:`gubs_env.engine.Game`), ``"fast"``, the compiled engine
(:class:`gubs_env.fast.FastGame`), or ``"auto"``. Both give the same episodes for a seed: the same deals, agents,
observations, masks and rewards. Training plays all of an env runner's games in one batch of the compiled engine
through :class:`~agents.training.rllib.runner.FastEnvRunner`, which steps
:class:`~agents.training.rllib.fast_tables.FastTables` itself (docs/rllib.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine import Game
from gubs_env.envs.engines import Engine, IdTable, open_table
from gubs_env.envs.rllib_seats import (
    ILLEGAL_REWARD,
    MASK_KEY,
    OBS_KEY,
    AgentDict,
    StepResult,
    action_id,
    agent_id,
    engine_of,
    game_over,
    illegal_end,
    observation,
    observation_space,
    parse_agent_id,
    playing,
    possible_agents,
    rule_options_of,
    skip_forced_of,
    slot_of,
    table_sizes,
)
from gubs_env.envs.selfplay import next_game

__all__ = [
    "ILLEGAL_REWARD",
    "MASK_KEY",
    "OBS_KEY",
    "AgentDict",
    "GubsMultiAgentEnv",
    "StepResult",
    "agent_id",
    "observation_space",
    "parse_agent_id",
    "table_sizes",
]


class GubsMultiAgentEnv(MultiAgentEnv):
    """Gubs for RLlib: one agent per seat, only the seat to decide observes.

    Args:
        config: ``players`` (the run's table sizes, default ``[2]``), ``slot`` (which of the run's slots this env
            is, so which size it plays; default the env runner's index, else 0), ``rule_options`` (engine rule
            options, e.g. ``{"max_turns": 500}``), ``engine`` (``"reference"``, the default, ``"fast"`` or
            ``"auto"``) and ``skip_forced`` (decisions with one legal id are played for their seat, which neither
            observes nor acts at them; default False); RLlib passes its ``EnvContext`` here. The agent ids cover
            every size of ``players``.

    Raises:
        ValueError: a bad table size, rule option or engine.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(f"the env config is a mapping (players, rule_options, engine), not {config!r}")
        config = config or {}
        self.sizes = table_sizes(config)
        self.rule_options = rule_options_of(config)
        self.engine = engine_of(config)
        self.players = int(self.sizes.per_slot(1, slot_of(config))[0])
        """The table size this env's games have."""
        self._play = _Games(self.engine, self.players, self.rule_options, skip_forced_of(config))
        self.possible_agents = list[Any](possible_agents(self.sizes.as_list()))
        self.agents = []
        one = observation_space()
        self.observation_spaces = dict.fromkeys(self.possible_agents, one)
        self.action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in self.possible_agents}
        self._started = False
        self._finished = False
        """The game ended, by its rules or by an illegal action."""

    @property
    def game(self) -> Game:
        """The game being played, as a reference :class:`Game`.

        The live game on the reference engine; on the fast one a copy (same position, same random future).

        Raises:
            RuntimeError: the env was not reset.
        """
        self._require_started()
        return self._play.game()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[AgentDict, AgentDict]:
        """Deal a new game at the slot's table size; ``seed`` fixes the deals from now on."""
        observations = self._play.reset(seed)
        self.agents = list[Any](self._play.names())
        self._started, self._finished = True, False
        return observations, {}

    def step(self, action_dict: AgentDict) -> StepResult:  # type: ignore[override]  # RLlib's signature
        """Apply the action of the seat to decide.

        Raises:
            RuntimeError: the env was not reset, or its game is over.
            ValueError: ``action_dict`` holds anything but one action of the seat to decide, or the action is
                not an id of the action space. Nothing changes.
        """
        self._require_started()
        if self._finished:
            raise RuntimeError("the game is over: call reset()")
        name = self.agents[self._play.seat_to_act()]
        if not isinstance(action_dict, Mapping) or set(action_dict) != {name}:
            keys = sorted(map(str, action_dict)) if isinstance(action_dict, Mapping) else action_dict
            raise ValueError(f"expected an action for {name} only, got {keys!r}")
        result = self._play.step(action_id(action_dict[name]))
        self._finished = bool(result[2]["__all__"] or result[3]["__all__"])
        return result

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step()")


class _Games:
    """One game after another on either engine: the deals of a seat stream, ids in, the env's dicts out."""

    def __init__(self, engine: Engine, players: int, rule_options: dict[str, Any], skip_forced: bool) -> None:
        open_table(engine, players, 0, **rule_options)  # the engine checks the options now, not at the first reset
        self.engine, self.players, self.rule_options = engine, players, rule_options
        self.skip_forced = skip_forced
        self._rng = np.random.default_rng()
        self._table: IdTable | None = None
        self._names: list[str] = []
        self._seen: set[int] = set()
        """The seats that have observed in this game: they get a last observation and a reward at its end."""
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        """The legal ids the seat to act was shown: what its action is checked against."""

    def table(self) -> IdTable:
        assert self._table is not None  # the env resets before it asks
        return self._table

    def game(self) -> Game:
        return self.table().game

    def names(self) -> list[str]:
        return self._names

    def seat_to_act(self) -> int:
        return self.table().actor

    def reset(self, seed: int | None) -> AgentDict:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        # the slot's stream draws as the self-play core's does (a seat, then the deal), so both deal the same games;
        # RLlib's own runner seats the learner by the episode (agents.training.rllib.selfplay.learner_seat)
        while True:  # a deal whose forced decisions end it is followed by the next one
            _, deal = next_game(self._rng, self.players)
            self._table = open_table(self.engine, self.players, deal, **self.rule_options)
            self._play_forced()
            if not self._table.over:
                break
        self._names = [agent_id(seat, self.players) for seat in range(self.players)]
        self._seen = set()
        return self._to_act()

    def step(self, action: int) -> StepResult:
        table, seat = self.table(), self.seat_to_act()
        if not self._mask[action]:
            return illegal_end(self._final_observations(), self._names[seat], action)
        table.step(action)
        self._play_forced()
        if table.over:
            return game_over(self._final_observations(), self._names, table.winners(), table.truncated)
        return playing(self._to_act())

    def _play_forced(self) -> None:
        """With ``skip_forced``, play every decision with one legal id until one has more or the game is over."""
        table = self.table()
        while self.skip_forced and not table.over:
            mask = table.action_mask()
            if mask.sum() != 1:
                break
            table.step(int(np.argmax(mask)))

    def _to_act(self) -> AgentDict:
        table, seat = self.table(), self.seat_to_act()
        self._seen.add(seat)
        self._mask = table.action_mask()
        return {self._names[seat]: observation(table.observation(seat), self._mask)}

    def _final_observations(self) -> AgentDict:
        """Every seat that has observed gets a last observation (with an empty mask) to close its episode."""
        empty = np.zeros(NUM_ACTIONS, dtype=np.float32)
        table = self.table()
        return {self._names[seat]: observation(table.observation(seat), empty) for seat in sorted(self._seen)}
