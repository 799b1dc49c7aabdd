"""A vector environment that runs a few environments in each of a few worker processes.

SB3's ``SubprocVecEnv`` gives every environment its own process: one message round trip per environment
and step, and as many processes as environments, which starves a machine with fewer cores than
environments. :class:`ShardedVecEnv` splits the environments into contiguous shards, one per worker, and each
worker steps its shard in a :class:`LeanDummyVecEnv`: one round trip per worker and step, and the workers use every
core while the learner waits for them.

MaskablePPO asks for the action masks through ``env_method("action_masks")`` at every step; the workers send
the masks along with every step's and reset's results, so that call needs no extra round trip.

:class:`LeanDummyVecEnv` is the in-process vector env of training (and each worker's): SB3's
``DummyVecEnv`` without the deep copies it makes of every step's results.
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

MASKS = "action_masks"


_FLAT: Any = None
"""The key DummyVecEnv files a flat observation space's buffer under (its annotations say str)."""


class LeanDummyVecEnv(DummyVecEnv):
    """``DummyVecEnv`` for environments that return new objects from every step (as ``SelfPlayEnv`` does).

    ``DummyVecEnv`` deep-copies the info dicts and the observation buffer at every step, a guard against
    environments that reuse and change those objects later; for fresh ones a plain copy of the observation
    array does, which saves a noticeable share of the environment time in training. Results are the same.
    Only flat ``Box`` observation spaces are supported.
    """

    def __init__(self, env_fns: list[Callable[[], gym.Env]]) -> None:
        super().__init__(env_fns)
        if self.keys != [None]:
            raise ValueError("LeanDummyVecEnv supports flat observation spaces only")

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env; a finished episode's last observation goes into its info and the env is reset."""
        for i, env in enumerate(self.envs):
            observation, self.buf_rews[i], terminated, truncated, info = env.step(self.actions[i])
            info["TimeLimit.truncated"] = truncated and not terminated
            self.buf_dones[i] = terminated or truncated
            if self.buf_dones[i]:
                info["terminal_observation"] = observation
                observation, self.reset_infos[i] = env.reset()
            self.buf_obs[_FLAT][i] = observation
            self.buf_infos[i] = info
        return self._obs_from_buf(), self.buf_rews.copy(), self.buf_dones.copy(), list(self.buf_infos)

    def _obs_from_buf(self) -> np.ndarray:
        return self.buf_obs[_FLAT].copy()


def _worker(remote, parent_remote, env_fns: CloudpickleWrapper) -> None:
    """Serve one shard: run each command on the shard's vector env and send back (ok, result)."""
    parent_remote.close()
    venv = LeanDummyVecEnv(env_fns.var)
    has_masks = venv.has_attr(MASKS)
    try:
        while True:
            command, payload = remote.recv()
            if command == "close":
                break
            try:
                result = _COMMANDS[command](venv, *payload)
                if command in ("step", "reset") and has_masks:
                    result = (result, venv.env_method(MASKS))
                remote.send((True, result))
            except Exception:  # reported to the main process, which raises it there
                remote.send((False, traceback.format_exc()))
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        venv.close()
        remote.close()


def _reset(venv: DummyVecEnv, seeds: list[int | None], options: list[dict]) -> VecEnvObs:
    if seeds[0] is not None:
        venv.seed(seeds[0])  # the main process's seeds are consecutive, like the shard's
    venv.set_options(options)
    return venv.reset()


_COMMANDS: dict[str, Callable[..., Any]] = {
    "spaces": lambda venv: (venv.observation_space, venv.action_space, venv.has_attr(MASKS)),
    "step": lambda venv, actions: venv.step(actions),
    "reset": _reset,
    "env_method": lambda venv, name, args, kwargs, indices: venv.env_method(name, *args, indices=indices, **kwargs),
    "get_attr": lambda venv, name, indices: venv.get_attr(name, indices),
    "set_attr": lambda venv, name, value, indices: venv.set_attr(name, value, indices),
    "env_is_wrapped": lambda venv, wrapper, indices: venv.env_is_wrapped(wrapper, indices),
}


class ShardedVecEnv(VecEnv):
    """``len(env_fns)`` environments run by ``workers`` processes, each stepping a contiguous share of them.

    Args:
        env_fns: functions that build the environments (pickled with cloudpickle, as SB3 does).
        workers: number of worker processes, from 1 to ``len(env_fns)``.
        start_method: a ``multiprocessing`` start method (default: ``forkserver`` where available, else
            ``spawn``); ``fork`` starts fastest.

    Raises:
        ValueError: no environments, or ``workers`` out of range.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], workers: int, start_method: str | None = None) -> None:
        if not env_fns:
            raise ValueError("ShardedVecEnv needs at least one environment")
        if not 1 <= workers <= len(env_fns):
            raise ValueError(f"workers must be between 1 and the number of envs ({len(env_fns)}), not {workers}")
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        context: Any = mp.get_context(start_method)  # typeshed's BaseContext lacks Process; every real one has it
        self.shards = [range(int(s[0]), int(s[-1]) + 1) for s in np.array_split(np.arange(len(env_fns)), workers)]
        self.remotes, self.processes = [], []
        for shard in self.shards:
            remote, work_remote = context.Pipe()
            fns = CloudpickleWrapper([env_fns[i] for i in shard])
            # daemon: a crashed main process leaves no workers behind
            process = context.Process(target=_worker, args=(work_remote, remote, fns), daemon=True)
            process.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(process)
        self.closed = False
        observation_space, action_space, self._has_masks = self._ask([0], "spaces")[0]
        self._masks: list[np.ndarray] | None = None
        super().__init__(len(env_fns), observation_space, action_space)

    # --- talking to the workers ---

    def _send(self, worker: int, command: str, *payload: Any) -> None:
        if self.closed:
            raise RuntimeError("the vector environment is closed")
        self.remotes[worker].send((command, payload))

    def _receive(self, workers: Sequence[int]) -> list[Any]:
        # every worker's reply is read before raising, so that none is left in a pipe for the next command
        replies = [self.remotes[worker].recv() for worker in workers]
        for worker, (ok, result) in zip(workers, replies, strict=True):
            if not ok:
                raise RuntimeError(f"an environment failed in worker {worker}:\n{result}")
        return [result for _, result in replies]

    def _ask(self, workers: Sequence[int], command: str, *payloads: Any) -> list[Any]:
        """Send ``command`` to every worker in ``workers`` (payload ``payloads[i]`` or none), then collect."""
        for i, worker in enumerate(workers):
            self._send(worker, command, *(payloads[i] if payloads else ()))
        return self._receive(workers)

    def _by_worker(self, indices: VecEnvIndices) -> dict[int, list[int]]:
        """The requested env indices grouped by worker, as indices within each worker's shard."""
        groups: dict[int, list[int]] = {}
        for index in self._get_indices(indices):
            worker = next(w for w, shard in enumerate(self.shards) if index in shard)
            groups.setdefault(worker, []).append(index - self.shards[worker].start)
        return groups

    def _per_env(self, command: str, indices: VecEnvIndices, *payload: Any) -> list[Any]:
        groups = self._by_worker(indices)
        results = self._ask(list(groups), command, *[(*payload, local) for local in groups.values()])
        return [value for result in results for value in result]

    def _keep_masks(self, results: list[Any]) -> list[Any]:
        if not self._has_masks:
            return results
        self._masks = [mask for _, masks in results for mask in masks]
        return [result for result, _ in results]

    # --- the VecEnv interface ---

    def reset(self) -> np.ndarray:
        """Reset every environment, with the seeds and options set since the last reset."""
        payloads = [(self._seeds[s.start : s.stop], self._options[s.start : s.stop]) for s in self.shards]
        observations = self._keep_masks(self._ask(range(len(self.shards)), "reset", *payloads))
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(observations)

    def step_async(self, actions: np.ndarray) -> None:
        """Send each worker its share of the actions."""
        for worker, shard in enumerate(self.shards):
            self._send(worker, "step", actions[shard.start : shard.stop])

    def step_wait(self) -> VecEnvStepReturn:
        """Collect the shards' results in env order (finished episodes are reset, as in ``DummyVecEnv``)."""
        results = self._keep_masks(self._receive(range(len(self.shards))))
        observations, rewards, dones, infos = zip(*results, strict=True)
        return (
            np.concatenate(observations),
            np.concatenate(rewards),
            np.concatenate(dones),
            [info for shard_infos in infos for info in shard_infos],
        )

    def close(self) -> None:
        """Stop the workers."""
        if self.closed:
            return
        for remote in self.remotes:
            remote.send(("close", ()))
        for process in self.processes:
            process.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Call a method of the environments; the action masks come from the last step's results."""
        if method_name == MASKS and self._masks is not None and not method_args and not method_kwargs:
            return [self._masks[i] for i in self._get_indices(indices)]
        return self._per_env("env_method", indices, method_name, method_args, method_kwargs)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of the environments (looked up through their wrappers)."""
        return self._per_env("get_attr", indices, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the environments."""
        groups = self._by_worker(indices)
        self._ask(list(groups), "set_attr", *[(attr_name, value, local) for local in groups.values()])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """Whether the environments are wrapped by ``wrapper_class``."""
        return self._per_env("env_is_wrapped", indices, wrapper_class)
