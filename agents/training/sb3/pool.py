"""The opponent pool of self-play training (sb3 backend).

:class:`OpponentPool`: who sits at each opponent seat, the learner's frozen snapshots among them (the draws of
:class:`~agents.training.sb3.fast_vec_env.FastSelfPlayVecEnv`). :class:`TimedVecEnv`: the time spent in the games.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from agents.bots.base import Agent
from agents.bots.model_file import ModelFileError, PolicyWeights, load_policy
from agents.bots.random_agent import RandomAgent
from agents.training.core.config import HEURISTIC, RANDOM, SELF, PoolConfig
from agents.training.core.league import snapshot_label
from agents.training.core.seating import seat_player


class OpponentPool:
    """The league's opponents, drawn per seat and episode: fixed agents, the learner itself and its snapshots.

    The draw is :func:`~agents.training.core.seating.seat_player`, the same on both backends: one uniform number
    chooses the kind of opponent and, when it is a snapshot, which one by the league's weights.
    The learner's seats play a sampling copy of the learner's current actor (:meth:`set_learner`, sent by the
    trainer before every rollout); until it is first set they play uniformly at random.
    """

    def __init__(self, config: PoolConfig, seed: int | None = None, snapshots: Sequence[str] = ()) -> None:
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.snapshots: list[str] = list(snapshots)
        """The snapshot files the pool draws from, oldest first."""
        self.weights: list[float] = [1.0] * len(self.snapshots)
        """Each snapshot's drawing weight (the league's prioritization)."""
        self._loaded: dict[str, Agent] = {}
        self._random = RandomAgent()
        self._heuristic: Agent | None = None
        self._learner: Agent | None = None

    def set_snapshots(self, paths: Sequence[str], weights: Sequence[float] | None = None) -> None:
        """Replace the snapshot list and their weights (equal when not given); unlisted snapshots are forgotten."""
        self.snapshots = list(paths)
        self.weights = [1.0] * len(self.snapshots) if weights is None else [float(w) for w in weights]
        if len(self.weights) != len(self.snapshots):
            raise ValueError(f"{len(self.weights)} weights for {len(self.snapshots)} snapshots")
        self._loaded = {p: a for p, a in self._loaded.items() if p in self.snapshots}

    def set_learner(self, weights: PolicyWeights) -> None:
        """The learner's current actor, which the ``self`` seats play from now on (sampling)."""
        from agents.bots.ppo import PPOAgent

        if isinstance(self._learner, PPOAgent):
            self._learner.model = weights
        else:
            self._learner = PPOAgent(weights, deterministic=False, name=SELF, frozen=True)

    def sample(self) -> Agent:
        """One opponent."""
        return self.draw()[1]

    def draw(self) -> tuple[str, Agent]:
        """One opponent and its seat label (:mod:`agents.training.core.league`)."""
        kind, snapshot = seat_player(self.config, self.rng.random(), self.weights)
        if kind == RANDOM:
            return RANDOM, self._random
        if kind == HEURISTIC:
            return HEURISTIC, self._heuristic_agent()
        if kind == SELF:
            return SELF, self._learner or self._random
        path = self.snapshots[snapshot]
        return snapshot_label(Path(path).name), self._snapshot(path)

    def _heuristic_agent(self) -> Agent:
        if self._heuristic is None:
            from agents.bots.heuristic import HeuristicAgent

            self._heuristic = HeuristicAgent()
        return self._heuristic

    def _snapshot(self, path: str) -> Agent:
        if path not in self._loaded:
            from agents.bots.ppo import PPOAgent

            weights = SNAPSHOT_MODELS.get(path)
            self._loaded[path] = PPOAgent(weights, deterministic=False, name=Path(path).stem, frozen=True)
        return self._loaded[path]


class SnapshotModels:
    """Snapshot weights read once per process (through :func:`agents.bots.model_file.load_policy`) and shared.

    Every pool (every env) in a process plays the same :class:`~agents.bots.model_file.PolicyWeights` for a file.
    Entries are keyed by path and modification time, so a file written again is read again; the least recently
    used ones are dropped beyond ``capacity``.
    """

    def __init__(self, capacity: int = 16) -> None:
        self.capacity = capacity
        self._weights: OrderedDict[tuple[str, int], PolicyWeights] = OrderedDict()

    def get(self, path: str) -> PolicyWeights:
        """The actor saved at ``path``.

        Raises:
            agents.bots.model_file.ModelFileError: the file is missing or not a model that can be read safely.
        """
        try:
            key = (path, os.stat(path).st_mtime_ns)
        except OSError as err:
            raise ModelFileError(f"{path}: cannot read: {err.strerror or err}") from None
        if key in self._weights:
            self._weights.move_to_end(key)
            return self._weights[key]
        weights = self._weights[key] = load_policy(path)
        while len(self._weights) > self.capacity:
            self._weights.popitem(last=False)
        return weights


SNAPSHOT_MODELS = SnapshotModels()


class TimedVecEnv(VecEnvWrapper):
    """Counts the wall time spent inside the environments (stepping, resetting, action masks)."""

    def __init__(self, venv) -> None:
        super().__init__(venv)
        self.env_seconds = 0.0

    def reset(self):
        """Reset every env, timed."""
        start = time.perf_counter()
        obs = self.venv.reset()
        self.env_seconds += time.perf_counter() - start
        return obs

    def step_wait(self):
        """Wait for the step results, timed."""
        start = time.perf_counter()
        result = self.venv.step_wait()
        self.env_seconds += time.perf_counter() - start
        return result

    def step_async(self, actions) -> None:
        """Send the actions, timed."""
        start = time.perf_counter()
        self.venv.step_async(actions)
        self.env_seconds += time.perf_counter() - start

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """Call a method of the envs, timed: MaskablePPO gets the action masks this way at every step."""
        start = time.perf_counter()
        result = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        self.env_seconds += time.perf_counter() - start
        return result
