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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS

OBS_KEY = "observations"
MASK_KEY = "action_mask"
ILLEGAL_REWARD = -1.0

AgentDict = dict[Any, Any]
"""RLlib's ``MultiAgentDict``: agent id to a value."""
StepResult = tuple[AgentDict, AgentDict, AgentDict, AgentDict, AgentDict]
"""Observations, rewards, terminateds, truncateds and infos, each by agent id."""
_AGENT_ID = re.compile(r"seat_(\d)_of_(\d)")


def agent_id(seat: int, num_players: int) -> str:
    """The agent id of ``seat`` at a ``num_players`` table."""
    return f"seat_{seat}_of_{num_players}"


def parse_agent_id(name: str) -> tuple[int, int]:
    """``(seat, num_players)`` of an agent id made by :func:`agent_id`.

    Raises:
        ValueError: ``name`` is not such an id.
    """
    found = _AGENT_ID.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"not a Gubs agent id (seat_<seat>_of_<players>): {name!r}")
    seat, players = int(found[1]), int(found[2])
    if not (MIN_PLAYERS <= players <= MAX_PLAYERS and seat < players):
        raise ValueError(f"no seat {seat} at a {players}-player table: {name!r}")
    return seat, players


def observation_space() -> spaces.Dict:
    """One agent's observation space (the same for every seat and table size)."""
    return spaces.Dict(
        {
            OBS_KEY: spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            MASK_KEY: spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        }
    )


def table_sizes(config: Mapping[str, Any]) -> list[int]:
    """The ``players`` entry of an env config, checked: a non-empty list of sizes from 2 to 6.

    Raises:
        ValueError: a missing, empty or out-of-range list.
    """
    players = config.get("players", [2])
    if isinstance(players, (int, np.integer)) and not isinstance(players, bool):
        players = [players]
    if not isinstance(players, Sequence) or isinstance(players, str) or not players:
        raise ValueError(f"players must be a non-empty list of table sizes, not {players!r}")
    for size in players:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"a table size is an int from {MIN_PLAYERS} to {MAX_PLAYERS}, not {size!r}")
        if not MIN_PLAYERS <= size <= MAX_PLAYERS:
            raise ValueError(f"a table size is from {MIN_PLAYERS} to {MAX_PLAYERS}, not {size}")
    return [int(size) for size in players]


class GubsMultiAgentEnv(MultiAgentEnv):
    """Gubs for RLlib: one agent per seat, only the seat to decide observes.

    Args:
        config: ``players`` (list of table sizes, default ``[2]``) and ``rule_options`` (engine rule options,
            e.g. ``{"max_turns": 500}``); RLlib passes its ``EnvContext`` here.

    Raises:
        ValueError: a bad table size or rule option.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(f"the env config is a mapping (players, rule_options), not {config!r}")
        config = dict(config or {})
        self.sizes = table_sizes(config)
        rule_options = config.get("rule_options", {})
        if not isinstance(rule_options, Mapping) or not all(isinstance(key, str) for key in rule_options):
            raise ValueError(f"rule_options is a mapping of option names to values, not {rule_options!r}")
        self.rule_options = dict(rule_options)
        Game(self.sizes[0], seed=0, record_log=False, **self.rule_options)  # the engine checks the options
        self.possible_agents = [agent_id(seat, n) for n in sorted(set(self.sizes)) for seat in range(n)]
        self.agents = []
        one = observation_space()
        self.observation_spaces = dict.fromkeys(self.possible_agents, one)
        self.action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in self.possible_agents}
        self._rng = np.random.default_rng()
        self._codecs = {n: ActionCodec(n) for n in set(self.sizes)}
        self.game: Game | None = None
        self._seen: set[int] = set()
        self._finished = False
        """The game ended, by its rules or by an illegal action."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[AgentDict, AgentDict]:
        """Deal a new game at a table size drawn from ``players``; ``seed`` fixes the sizes and deals from now on."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        players = self.sizes[int(self._rng.integers(len(self.sizes)))]
        self.game = Game(players, seed=int(self._rng.integers(2**63)), record_log=False, **self.rule_options)
        self.agents = [agent_id(seat, players) for seat in range(players)]
        self._seen = set()
        self._finished = False
        return self._to_act(), {}

    def step(self, action_dict: AgentDict) -> StepResult:  # type: ignore[override]  # RLlib's signature
        """Apply the action of the seat to decide.

        Raises:
            RuntimeError: the env was not reset, or its game is over.
            ValueError: ``action_dict`` holds anything but one action of the seat to decide, or the action is
                not an id of the action space. Nothing changes.
        """
        game = self._started()
        if self._finished:
            raise RuntimeError("the game is over: call reset()")
        seat = game.current_player
        assert seat is not None  # a running game always has a player to decide
        name = self.agents[seat]
        if not isinstance(action_dict, Mapping) or set(action_dict) != {name}:
            keys = sorted(map(str, action_dict)) if isinstance(action_dict, Mapping) else action_dict
            raise ValueError(f"expected an action for {name} only, got {keys!r}")
        action = _action_id(action_dict[name])
        legal = self._codecs[game.num_players].ids(game.legal_actions(), seat)
        if action not in legal:
            return self._end_illegal(seat, action)
        game.apply(self._codecs[game.num_players].action(action, seat))
        if game.is_over:
            self._finished = True
            return self._end()
        observations = self._to_act()
        # RLlib wants a reward with every observation of an agent that has acted before: nothing until the end
        return observations, dict.fromkeys(observations, 0.0), {"__all__": False}, {"__all__": False}, {}

    def _to_act(self) -> AgentDict:
        game = self._started()
        seat = game.current_player
        assert seat is not None
        self._seen.add(seat)
        return {self.agents[seat]: self._observe(seat, self._codecs[game.num_players].mask(game.legal_actions(), seat))}

    def _observe(self, seat: int, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {OBS_KEY: encode(self._started().state, seat), MASK_KEY: mask.astype(np.float32)}

    def _final_observations(self) -> AgentDict:
        """Every seat that has observed gets a last observation (with an empty mask) to close its episode."""
        empty = np.zeros(NUM_ACTIONS, dtype=np.float32)
        return {self.agents[seat]: self._observe(seat, empty) for seat in sorted(self._seen)}

    def _end(self) -> StepResult:
        """Every winner +1, every other seat -1; a truncated game (R23) gives 0 to all."""
        game = self._started()
        winners = set(game.winners())
        truncated = game.truncated
        rewards = {
            self.agents[seat]: 0.0 if truncated else (1.0 if seat in winners else -1.0) for seat in sorted(self._seen)
        }
        infos = {name: {"winners": sorted(winners), "truncated": truncated} for name in rewards}
        done = dict.fromkeys(rewards, True) | {"__all__": True}
        not_done = dict.fromkeys(rewards, False) | {"__all__": False}
        if truncated:
            return self._final_observations(), rewards, not_done, done, infos
        return self._final_observations(), rewards, done, not_done, infos

    def _end_illegal(self, seat: int, action: int) -> StepResult:
        """The seat that chose an illegal id loses the game alone: -1 for it, 0 for the others."""
        self._finished = True
        rewards = {self.agents[s]: ILLEGAL_REWARD if s == seat else 0.0 for s in sorted(self._seen)}
        infos = {self.agents[seat]: {"illegal_action": action}}
        done = dict.fromkeys(rewards, True) | {"__all__": True}
        return self._final_observations(), rewards, done, dict.fromkeys(rewards, False) | {"__all__": False}, infos

    def _started(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        return self.game


def _action_id(action: Any) -> int:
    """An action as an int id of the space.

    Raises:
        ValueError: not an integer from 0 to ``NUM_ACTIONS - 1``.
    """
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = int(action)
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}, not {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
    return int(action)
