"""What both engines of the RLlib env share: agent ids, spaces, the env config, deals, and what a step returns.

:mod:`gubs_env.envs.rllib_env` (one game, on either engine) and :mod:`agents.training.rllib.fast_tables`
(many games on the compiled engine, for :mod:`agents.training.rllib.runner`) build their results here, so the two
give the same dicts for the same game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.players import TableSizes, is_player_count
from gubs_env.envs.engines import Engine, resolve_engine

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
    if not (is_player_count(players) and seat < players):
        raise ValueError(f"no seat {seat} at a {players}-player table: {name!r}")
    return seat, players


def possible_agents(sizes: Sequence[int]) -> list[str]:
    """Every agent id of the table sizes, in a fixed order (by size, then seat)."""
    return [agent_id(seat, n) for n in sorted(set(sizes)) for seat in range(n)]


def observation_space() -> spaces.Dict:
    """One agent's observation space (the same for every seat and table size)."""
    return spaces.Dict(
        {
            OBS_KEY: spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            MASK_KEY: spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        }
    )


def env_config(sizes: TableSizes, skip_forced: bool = False) -> dict[str, Any]:
    """An env config written from the run's table sizes and ``skip_forced`` (Ray's configs are plain dicts).

    :func:`table_sizes` and :func:`skip_forced_of` read it back: the one way the run's settings cross into Ray.
    """
    return {"players": sizes.as_list(), "skip_forced": skip_forced}


def table_sizes(config: Mapping[str, Any]) -> TableSizes:
    """The ``players`` entry of an env config (one size or a list; default 2), checked as every table size is.

    Raises:
        ValueError: a missing, empty or out-of-range list.
    """
    return TableSizes.of(config.get("players", [2]))


def skip_forced_of(config: Mapping[str, Any]) -> bool:
    """The ``skip_forced`` entry of an env config (default False): forced decisions are played for their seat.

    A decision with one legal id is then neither observed nor acted on by its seat.

    Raises:
        ValueError: not True or False.
    """
    skip = config.get("skip_forced", False)
    if not isinstance(skip, bool):
        raise ValueError(f"skip_forced is True or False, not {skip!r}")
    return skip


def rule_options_of(config: Mapping[str, Any]) -> dict[str, Any]:
    """The ``rule_options`` entry of an env config as a dict (the engines check the values themselves).

    Raises:
        ValueError: not a mapping of option names.
    """
    rule_options = config.get("rule_options", {})
    if not isinstance(rule_options, Mapping) or not all(isinstance(key, str) for key in rule_options):
        raise ValueError(f"rule_options is a mapping of option names to values, not {rule_options!r}")
    return dict(rule_options)


def engine_of(config: Mapping[str, Any]) -> Engine:
    """The engine that plays for the ``engine`` entry of an env config; ``"reference"`` when it is missing.

    The entry takes what every ``engine=`` argument takes (:func:`~gubs_env.envs.engines.resolve_engine`), so
    ``"auto"`` is the compiled engine when numba is installed.

    Raises:
        ValueError: not one of :data:`~gubs_env.envs.engines.ENGINE_CHOICES`.
        ImportError: ``"fast"`` without numba.
    """
    return resolve_engine(config.get("engine", "reference"))


def slot_of(config: Mapping[str, Any]) -> int:
    """The run's slot an env plays, whose table size it takes.

    The ``slot`` entry of an env config, else the env runner's index RLlib's ``EnvContext`` carries (a runner's envs
    share one config), else 0.

    Raises:
        ValueError: a slot that is not an int of at least 0.
    """
    slot = config.get("slot", getattr(config, "worker_index", None) or 0)  # RLlib may leave the index None
    if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)) or slot < 0:
        raise ValueError(f"slot is an int of at least 0, not {slot!r}")
    return int(slot)


def observation(obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """One agent's observation: fresh float32 copies (the engines overwrite their arrays)."""
    return {OBS_KEY: np.array(obs, dtype=np.float32), MASK_KEY: np.array(mask, dtype=np.float32)}


def playing(observations: AgentDict) -> StepResult:
    """A step after which the game goes on: RLlib wants a reward with every observation, so 0 until the end."""
    return observations, dict.fromkeys(observations, 0.0), {"__all__": False}, {"__all__": False}, {}


def game_over(final: AgentDict, names: Sequence[str], winners: Sequence[int], truncated: bool) -> StepResult:
    """The game ended by its rules or at the turn limit (R23).

    Args:
        final: the last observation of every seat that has observed (keys in seat order), its mask empty.
        names: the table's agent ids by seat.
        winners: the winning seats (none after a truncation).
        truncated: the game stopped at the turn limit: 0 for all, and truncated rather than terminated.

    Returns:
        Every winner +1, every other seat -1; a truncated game gives 0 to all.
    """
    winning = {names[seat] for seat in winners}
    rewards = {name: 0.0 if truncated else (1.0 if name in winning else -1.0) for name in final}
    infos = {name: {"winners": sorted(winners), "truncated": truncated} for name in rewards}
    done = dict.fromkeys(rewards, True) | {"__all__": True}
    not_done = dict.fromkeys(rewards, False) | {"__all__": False}
    if truncated:
        return final, rewards, not_done, done, infos
    return final, rewards, done, not_done, infos


def illegal_end(final: AgentDict, chooser: str, action: int) -> StepResult:
    """The seat ``chooser`` chose an id that is not legal now and loses alone: -1 for it, 0 for the others."""
    rewards = {name: ILLEGAL_REWARD if name == chooser else 0.0 for name in final}
    infos = {chooser: {"illegal_action": action}}
    done = dict.fromkeys(rewards, True) | {"__all__": True}
    return final, rewards, done, dict.fromkeys(rewards, False) | {"__all__": False}, infos


def action_id(action: Any) -> int:
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
