"""Gubs as a native RLlib ``MultiAgentEnv``: one agent per seat, turn-based, masks in RLlib's convention.

Each reset deals a new game at a table size drawn from ``players`` (several sizes mix them). Only the agent
that must decide receives an observation; RLlib keeps every seat's last action and adds up its rewards until
that seat acts again, so interrupt windows, where a player acts out of turn, need nothing special.

Agent ids name the seat and the table size (``seat_2_of_4``), in a fixed order: the policy mapping can tell
from an id alone which seats a table has, and a table's ids never change between episodes.

An observation is ``{"observations": float32[OBS_SIZE], "action_mask": float32[NUM_ACTIONS]}``, the keys RLlib's
action-masking modules read. An action id that is in the space but not legal now ends the game with -1 for the
seat that chose it and 0 for the others, as the PettingZoo ``env()`` does: a policy that masks never sees it,
and RLlib's environment check (which steps unmasked random actions) runs through.

The config's ``engine`` picks who plays the game: ``"reference"`` (the default), the readable engine
(:class:`gubs_env.engine.Game`), or ``"fast"``, the compiled engine (:mod:`gubs_env.fast`, through one slot of
:class:`~agents.rllib.fast_tables.FastTables`). Both give the same episodes for a seed: the same deals, agents,
observations, masks and rewards. One game at a time the readable engine is the quicker; training plays all of an
env runner's games in one batch of the compiled engine through :class:`~agents.rllib.runner.FastEnvRunner`, which
steps :class:`~agents.rllib.fast_tables.FastTables` itself (docs/rllib.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.rllib.seats import (
    ILLEGAL_REWARD,
    MASK_KEY,
    OBS_KEY,
    AgentDict,
    StepResult,
    action_id,
    agent_id,
    deal,
    engine_of,
    game_over,
    illegal_end,
    observation,
    observation_space,
    parse_agent_id,
    playing,
    possible_agents,
    rule_options_of,
    table_sizes,
)
from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game

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
        config: ``players`` (list of table sizes, default ``[2]``), ``rule_options`` (engine rule options,
            e.g. ``{"max_turns": 500}``) and ``engine`` (``"reference"``, the default, or ``"fast"``); RLlib
            passes its ``EnvContext`` here.

    Raises:
        ValueError: a bad table size, rule option or engine.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(f"the env config is a mapping (players, rule_options, engine), not {config!r}")
        config = dict(config or {})
        self.sizes = table_sizes(config)
        self.rule_options = rule_options_of(config)
        self.engine = engine_of(config)
        self._play: _ReferenceGame | _FastGame = (
            _FastGame(self.sizes, self.rule_options)
            if self.engine == "fast"
            else _ReferenceGame(self.sizes, self.rule_options)
        )
        self.possible_agents = list[Any](possible_agents(self.sizes))
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
        """Deal a new game at a table size drawn from ``players``; ``seed`` fixes the sizes and deals from now on."""
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


class _ReferenceGame:
    """One game after another on the readable engine (the env's ``engine="reference"``)."""

    def __init__(self, sizes: list[int], rule_options: dict[str, Any]) -> None:
        Game(sizes[0], seed=0, record_log=False, **rule_options)  # the engine checks the options
        self.sizes, self.rule_options = sizes, rule_options
        self._rng = np.random.default_rng()
        self._codecs = {n: ActionCodec(n) for n in set(sizes)}
        self._game: Game | None = None
        self._seen: set[int] = set()

    def game(self) -> Game:
        assert self._game is not None  # the env resets before it asks
        return self._game

    def names(self) -> list[str]:
        return [agent_id(seat, self.game().num_players) for seat in range(self.game().num_players)]

    def seat_to_act(self) -> int:
        seat = self.game().current_player
        assert seat is not None  # a running game always has a player to decide
        return seat

    def reset(self, seed: int | None) -> AgentDict:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        players, game_seed = deal(self._rng, self.sizes)
        self._game = Game(players, seed=game_seed, record_log=False, **self.rule_options)
        self._seen = set()
        return self._to_act()

    def step(self, action: int) -> StepResult:
        game, seat = self.game(), self.seat_to_act()
        codec = self._codecs[game.num_players]
        if action not in codec.ids(game.legal_actions(), seat):
            return illegal_end(self._final_observations(), self.names()[seat], action)
        game.apply(codec.action(action, seat))
        if game.is_over:
            return game_over(self._final_observations(), self.names(), game.winners(), game.truncated)
        return playing(self._to_act())

    def _to_act(self) -> AgentDict:
        game, seat = self.game(), self.seat_to_act()
        self._seen.add(seat)
        mask = self._codecs[game.num_players].mask(game.legal_actions(), seat)
        return {self.names()[seat]: observation(encode(game.state, seat), mask)}

    def _final_observations(self) -> AgentDict:
        """Every seat that has observed gets a last observation (with an empty mask) to close its episode."""
        empty = np.zeros(NUM_ACTIONS, dtype=np.float32)
        names = self.names()
        return {names[seat]: observation(encode(self.game().state, seat), empty) for seat in sorted(self._seen)}


class _FastGame:
    """One game after another on the compiled engine: slot 0 of a one-slot :class:`FastTables`."""

    def __init__(self, sizes: list[int], rule_options: dict[str, Any]) -> None:
        from agents.rllib.fast_tables import FastTables  # numba loads only for this engine

        self._tables = FastTables(1, sizes, rule_options)
        self._actions = np.zeros(1, dtype=np.int64)

    def game(self) -> Game:
        return self._tables.export(0)

    def names(self) -> list[str]:
        return self._tables.names(0)

    def seat_to_act(self) -> int:
        return self._tables.seat_to_act(0)

    def reset(self, seed: int | None) -> AgentDict:
        return self._tables.reset([0], [seed])[0]

    def step(self, action: int) -> StepResult:
        self._actions[0] = action
        result = self._tables.step(self._actions)[0]
        assert result is not None  # the one slot acted
        return result
