"""Self-play on RLlib: who plays each seat, the snapshot pool, and pushing snapshots to every env runner.

Modules of the multi-agent module: ``main`` (the one trained), ``random`` and ``heuristic`` (fixed agents) and
``pool_size`` snapshot slots ``snapshot_0``, ``snapshot_1``, ... (frozen copies of ``main``). In each episode
:class:`SeatMapping` puts ``main`` at one random seat (the learner's, whose results the league counts) and draws
every other seat by the pool's rule, as the sb3 backend does: the random agent with ``p_random``, the heuristic
with ``p_heuristic``, ``main`` itself at ``self_share`` of the rest (those seats are trained on too), a snapshot
otherwise, by the league's weights (:mod:`agents.training.core.league`); before the first snapshot ``main`` takes all
of the rest.

The league's facts travel after each iteration (:func:`update_league`): each env runner tallies the opponent
seats of its finished episodes (:func:`tally_episode`, RLlib's ``on_episode_end``) and hands the tally to the
driver, which sends back the snapshots' new weights.

A snapshot is written into the next slot of the learner's module and straight into that slot's module on
every env runner (:func:`push_snapshots`). RLlib's ``add_module`` + ``set_state`` route leaves env runners
playing an untrained copy for a whole iteration: an env runner skips module weights whose sequence number
it has already seen. Writing the module's state directly has no such check.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.training.core import seating
from agents.training.core.config import HEURISTIC as HEURISTIC  # the fixed agents' modules take the pool's names
from agents.training.core.config import RANDOM as RANDOM
from agents.training.core.config import SELF, SNAPSHOTS, PoolConfig
from agents.training.core.league import League, pair_score, snapshot_label
from agents.training.rllib.env import parse_agent_id

MAIN = "main"
SNAPSHOT_PREFIX = "snapshot_"
LEARNER_TAG = ".learner-"
"""What the compiled runner appends to an episode's id, with the learner's seat the core drew: the id is what every
chunk of an episode keeps from its start (RLlib maps a continuation's seats before it copies anything else)."""

ACTIVE_SNAPSHOTS: list[str] = []
"""The snapshot slots that hold weights in this process, oldest first.

Each env runner process keeps its own copy, written by :func:`push_snapshots` together with the weights (and
the driver's, for the checkpoint and for env runners started again after a failure); :class:`SeatMapping`
reads it when it draws an opponent.
"""
SNAPSHOT_WEIGHTS: list[float] = []
"""The drawing weight of each of :data:`ACTIVE_SNAPSHOTS` (same length; sent with them and by the league)."""
LEAGUE_TALLY: dict[str, list[float]] = {}
"""This env runner's opponent seats since the driver last asked: per seat label ``[seats, learner points]``."""


def snapshot_slot(index: int) -> str:
    """The module id of snapshot slot ``index``."""
    return f"{SNAPSHOT_PREFIX}{index}"


def slots(pool: PoolConfig) -> list[str]:
    """Every snapshot slot's module id."""
    return [snapshot_slot(i) for i in range(pool.pool_size)]


def _stream(episode_id: str, *key: int) -> np.random.Generator:
    """A generator fixed by the episode and ``key``: every call for one episode and seat draws the same."""
    return np.random.default_rng([zlib.crc32(episode_id.encode()), *key])


def learner_seat(episode: Any, num_players: int) -> int:
    """The seat ``main`` plays in an episode, which the compiled runner wrote into the episode's id.

    It is the seat the self-play core drew with the game, every backend's rule (:data:`LEARNER_TAG`).

    Raises:
        ValueError: an episode no compiled runner started (training runs only on
            :class:`~agents.training.rllib.runner.FastEnvRunner`).
    """
    _, tagged, seat = str(episode.id_).rpartition(LEARNER_TAG)
    if not (tagged and seat.isdecimal() and int(seat) < num_players):
        raise ValueError(f"episode {str(episode.id_)[:60]!r} names no learner seat: train on FastEnvRunner")
    return int(seat)


def tag_learner_seat(episode: Any, seat: int) -> None:
    """Name ``seat`` as the learner's in a new episode's id (before anything is added to it)."""
    episode.id_ = f"{episode.id_}{LEARNER_TAG}{seat}"


class SeatMapping:
    """RLlib's agent-to-module mapping for self-play: ``main`` at one random seat, the pool at the others."""

    def __init__(self, pool: PoolConfig) -> None:
        self.pool = pool

    def __call__(self, agent: str, episode: Any, **kwargs: Any) -> str:
        """The module that plays ``agent`` in ``episode`` (the same for every call of one episode)."""
        seat, players = parse_agent_id(agent)
        if seat == learner_seat(episode, players):
            return MAIN
        return self.opponent(_stream(episode.id_, seat + 1).random(), list(ACTIVE_SNAPSHOTS), SNAPSHOT_WEIGHTS)

    def opponent(self, u: float, snapshots: Sequence[str], weights: Sequence[float] = ()) -> str:
        """The opponent module for a uniform draw ``u`` in [0, 1) when ``snapshots`` hold weights.

        The seating rule both backends play (:func:`~agents.training.core.seating.seat_player`), with the league's
        ``weights`` (equal when they do not match the snapshots): one number per seat and episode, so every call
        for a seat maps it alike.
        """
        chosen = weights if len(weights) == len(snapshots) else [1.0] * len(snapshots)
        kind, snapshot = seating.seat_player(self.pool, u, chosen)
        if kind == SELF:
            return MAIN
        return snapshots[snapshot] if kind == SNAPSHOTS else kind


def next_slot(active: Sequence[str], pool: PoolConfig) -> str:
    """The slot the next snapshot goes to: a free one, else the oldest."""
    free = [slot for slot in slots(pool) if slot not in active]
    return free[0] if free else active[0]


def take_snapshot(algorithm: Any, pool: PoolConfig) -> str:
    """Copy ``main``'s weights into the next slot, on the learners and every env runner; returns the slot."""
    slot = next_slot(ACTIVE_SNAPSHOTS, pool)
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]

    def copy_main(learner: Any) -> None:
        learner.module[slot].set_state(weights)

    algorithm.learner_group.foreach_learner(copy_main)
    active = [s for s in ACTIVE_SNAPSHOTS if s != slot] + [slot]
    push_snapshots(algorithm, active)
    return slot


def push_snapshots(
    algorithm: Any,
    active: Sequence[str],
    env_runner_ids: Sequence[int] | None = None,
    draw_weights: Sequence[float] | None = None,
) -> None:
    """Write the learner's weights of the ``active`` slots into every env runner (or those of ``env_runner_ids``).

    Also records ``active`` (and their ``draw_weights``, equal when not given) as this process's
    :data:`ACTIVE_SNAPSHOTS` and :data:`SNAPSHOT_WEIGHTS` (the driver's copy).
    """
    active = list(active)
    weights = algorithm.learner_group.get_weights(module_ids=active) if active else {}
    draws = [1.0] * len(active) if draw_weights is None else [float(w) for w in draw_weights]
    ACTIVE_SNAPSHOTS[:], SNAPSHOT_WEIGHTS[:] = active, draws
    # a module-level function travels by reference: in the env runner it writes that process's list
    install = functools.partial(_install_snapshots, weights=weights, active=active, draws=draws)
    group = algorithm.env_runner_group
    if env_runner_ids is None:
        group.foreach_env_runner(install, local_env_runner=True)
    else:
        group.foreach_env_runner(install, local_env_runner=False, remote_worker_ids=list(env_runner_ids))


def _install_snapshots(env_runner: Any, weights: dict[str, Any], active: list[str], draws: list[float]) -> None:
    """In an env runner: load the snapshot weights into its modules, then record which slots are active."""
    for slot, state in weights.items():
        env_runner.module[slot].set_state(state)
    ACTIVE_SNAPSHOTS[:], SNAPSHOT_WEIGHTS[:] = active, draws


def tally_episode(*, episode: Any, **kwargs: Any) -> None:
    """RLlib's ``on_episode_end`` in an env runner: the episode's opponent seats into :data:`LEAGUE_TALLY`.

    Each seat other than the learner's is labelled by its module (``main`` there is the learner itself); a
    snapshot's seat also adds the learner's pair score against it (:func:`agents.training.core.league.pair_score`).
    An episode without winners in its last infos (an illegal action ended it) counts no scores.
    """
    agents = list(episode.agent_ids)
    if not agents:
        return
    players = parse_agent_id(agents[0])[1]
    learner = learner_seat(episode, players)
    winners: set[int] | None = None
    for info in episode.get_infos(-1).values():
        if isinstance(info, dict) and "winners" in info:
            winners = set(info["winners"])
    for agent in agents:
        seat = parse_agent_id(agent)[0]
        if seat == learner:
            continue
        module = episode.module_for(agent)
        label = SELF if module == MAIN else snapshot_label(module) if module.startswith(SNAPSHOT_PREFIX) else module
        entry = LEAGUE_TALLY.setdefault(label, [0.0, 0.0])
        entry[0] += 1
        if winners is not None:
            entry[1] += pair_score(learner in winners, seat in winners)


def update_league(algorithm: Any, league: League, replaced: Sequence[str] = ()) -> None:
    """After an iteration: every env runner's tally into ``league``, then the snapshots' new weights sent out.

    ``replaced``: slots that took a new snapshot in this iteration; their old records are dropped after the tally
    (the games just tallied were played by their previous occupant).
    """
    for tally in algorithm.env_runner_group.foreach_env_runner(_take_tally, local_env_runner=True):
        league.record_tally(tally)
    for slot in replaced:
        league.forget(slot)
    weights = league.weights(list(ACTIVE_SNAPSHOTS))
    SNAPSHOT_WEIGHTS[:] = weights
    send = functools.partial(_set_draw_weights, draws=weights, active=list(ACTIVE_SNAPSHOTS))
    algorithm.env_runner_group.foreach_env_runner(send, local_env_runner=True)


def _take_tally(env_runner: Any) -> dict[str, list[float]]:
    """In an env runner: hand over the tally and start a new one."""
    tally = dict(LEAGUE_TALLY)
    LEAGUE_TALLY.clear()
    return tally


def _set_draw_weights(env_runner: Any, draws: list[float], active: list[str]) -> None:
    """In an env runner: the snapshots' new drawing weights (when its snapshots are the driver's)."""
    if list(ACTIVE_SNAPSHOTS) == active:
        SNAPSHOT_WEIGHTS[:] = draws
