"""The sb3 backend's games: an SB3 ``VecEnv`` over :class:`gubs_env.envs.vector.GubsVectorEnv`, seated by the league.

:class:`FastSelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` (with ``action_masks()`` for sb3-contrib's
``MaskablePPO``) on the compiled engine. The batched self-play loop is the vector env's; this adapter adds what
belongs to training:

* each game's learner sits at a seat drawn at every episode, and at the start of each episode the run's
  :class:`~agents.training.core.seating.Seating` gives every other seat its player (random play, the heuristic, the
  learner's current actor, a snapshot, or a fixed opponent), which it also plays, each player once per round for all
  the games waiting on it, through the vector env's ``pick_opponents`` hook; a decision with a single legal id is
  played without asking, as ``SelfPlayEnv`` does;
* a game whose episode ended is reset at once (SB3's auto-reset, the vector env's SAME_STEP mode): the ended
  episode's observation is in ``infos[i]["terminal_observation"]``, and who sat where in ``infos[i]["opponents"]``.

The seating sees each game from the learner's seat: seat ``j + 1`` of its rows is the opponent ``j + 1`` seats
clockwise from the learner, the vector env's opponent slot ``j``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from agents.training.core.seating import Seating
from gubs_env.engine import IllegalActionError
from gubs_env.engine.players import TableSizes
from gubs_env.engine.positions.serialize import brief
from gubs_env.envs.vector import GubsVectorEnv
from gubs_env.fast import FastGames

METHODS = ("action_masks",)
"""What ``env_method`` and ``get_attr`` reach: the call MaskablePPO makes."""
ATTRIBUTES = ("learner_seat", "num_players", "render_mode")
"""Per-environment values ``get_attr`` returns."""


class SeatingOpponent:
    """Every opponent seat of every game, asked of the seating: the vector env's one batched opponent."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray, slots: np.ndarray
    ) -> np.ndarray:
        """The ids of the players at opponent slot ``slots[k]`` of game ``games[k]``."""
        return self.seating.act(observations, masks, games, slots + 1)


class FastSelfPlayVecEnv(VecEnv):
    """``num_envs`` self-play games against the league's players: an SB3 adapter over one ``GubsVectorEnv``.

    The games, the opponent rounds and the new episodes are :class:`gubs_env.envs.vector.GubsVectorEnv`'s (in its
    SAME_STEP autoreset mode); this class seats each episode's opponents by the seating and speaks SB3's ``VecEnv``
    (infos as a list of dicts, ``terminal_observation``).

    Args:
        seating: the run's seating, one slot per game, the learner's other seats played by a copy of its actor
            (``learner_plays_self=False``; :meth:`Seating.set_self`).
        players: one table size for every game, or a list whose sizes cycle over the games.
        seed: game ``i``'s stream of games starts from ``seed + i``.
        on_illegal: ``"lose"`` (an illegal learner id ends that episode with reward -1 and
            ``info["illegal_action"] = True``) or ``"raise"`` (the engine's ``IllegalActionError``, nothing
            changes), as in ``SelfPlayEnv``.
        **rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad count, table size, seed or rule option.
    """

    def __init__(
        self,
        seating: Seating,
        players: int | Sequence[int] | TableSizes = 2,
        seed: int = 0,
        on_illegal: str = "lose",
        **rule_options: Any,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, not {brief(seed)}")
        num_envs = len(seating.players)
        self.vector = GubsVectorEnv(
            num_envs,
            players,
            pick_opponents=self._pick_opponents,
            autoreset_mode=AutoresetMode.SAME_STEP,
            on_illegal=on_illegal,
            **rule_options,
        )
        self.render_mode = None
        self.seating = seating
        self._caller = SeatingOpponent(seating)
        self._first_seeds = [seed + i for i in range(num_envs)]
        self._ended_labels: list[list[str]] = [[] for _ in range(num_envs)]
        """Per game, its ended episode's opponents' labels (the next episode is seated before the step returns)."""
        self.env_seconds = 0.0
        """Wall time spent in the games (stepping, resetting, action masks)."""
        self._started = False
        self._pending: Any = None
        self._has_pending = False
        super().__init__(num_envs, self.vector.single_observation_space, self.vector.single_action_space)

    @property
    def games(self) -> FastGames:
        """The batch of games (one per environment)."""
        return self.vector.games

    @property
    def learner_seat(self) -> np.ndarray:
        """Per environment, the learner's seat in the current episode."""
        return self.vector.learner_seat

    @property
    def num_players(self) -> np.ndarray:
        """Per environment, its table size."""
        return self.vector.num_players

    # --- the VecEnv interface ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start a new episode in every environment (with the seeds of :meth:`seed`, when it was called)."""
        began = time.perf_counter()
        given = [seed for seed in self._seeds if seed is not None]
        seeds = [int(seed) for seed in given] if len(given) == self.num_envs else None
        if seeds is None and not self._started:
            seeds = self._first_seeds
        self._reset_seeds()
        self._reset_options()
        observations, _ = self.vector.reset(seed=seeds)
        self._started = True
        self.reset_infos = [{"learner_seat": int(s)} for s in self.learner_seat]
        self.env_seconds += time.perf_counter() - began
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the learners' actions for :meth:`step_wait`."""
        self._pending, self._has_pending = actions, True

    def step_wait(self) -> VecEnvStepReturn:
        """Apply the learners' actions; the vector env plays the opponents and starts the episodes that ended."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if not self._has_pending:
            raise RuntimeError("call step_async() before step_wait()")
        began = time.perf_counter()
        pending, self._pending, self._has_pending = self._pending, None, False
        observations, rewards, terminated, truncated, info = self.vector.step(pending)
        dones = terminated | truncated
        infos = self._infos(dones, truncated & ~terminated, info)
        self.env_seconds += time.perf_counter() - began
        return observations, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Each environment's legal ids for its learner, as a bool ``(num_envs, 356)`` array."""
        return self.vector.action_masks()

    def close(self) -> None:
        """Nothing to release: the games are arrays of this process."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Per environment: an attribute of :data:`ATTRIBUTES`, or a bound method of :data:`METHODS`.

        The methods make ``has_attr("action_masks")`` hold, which MaskablePPO checks.

        Raises:
            AttributeError: any other name.
        """
        rows = self._indices(indices)
        if attr_name in METHODS:
            return [getattr(self, attr_name)] * len(rows)
        if attr_name == "render_mode":
            return [None] * len(rows)
        if attr_name in ATTRIBUTES:
            values = getattr(self, attr_name)
            return [int(values[i]) for i in rows]
        raise AttributeError(f"FastSelfPlayVecEnv has no per-environment attribute {brief(attr_name)}")

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Nothing can be set from outside.

        Raises:
            AttributeError: always.
        """
        raise AttributeError(f"FastSelfPlayVecEnv has no settable attribute {brief(attr_name)}")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks``: one mask per environment.

        Raises:
            AttributeError: any other name.
        """
        rows = self._indices(indices)
        if method_name == "action_masks":
            began = time.perf_counter()
            masks = self.action_masks()
            self.env_seconds += time.perf_counter() - began
            return [masks[i] for i in rows]
        raise AttributeError(f"FastSelfPlayVecEnv has no method {brief(method_name)} for env_method")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No environment is wrapped (wrap the whole vector in ``VecMonitor`` for episode statistics)."""
        return [False] * len(self._indices(indices))

    # --- episodes ---------------------------------------------------------------------------------

    def _pick_opponents(self, i: int, num_players: int) -> list[Any]:
        """The vector env's per-episode hook: game ``i``'s next episode seated, its last one's labels kept."""
        self._ended_labels[i] = self.seating.labels[i][1:num_players]
        self.seating.seat(np.array([i]), np.array([num_players]), np.array([0]))
        return [self._caller] * (num_players - 1)

    # --- results ----------------------------------------------------------------------------------

    def _infos(self, dones: np.ndarray, cut: np.ndarray, info: dict[str, Any]) -> list[dict[str, Any]]:
        """Per environment ``learner_seat``; at an episode's end also its scores, winners, last observation, labels.

        The labels (``opponents``) are the ended episode's opponents' seat labels, clockwise from the learner.
        """
        infos: list[dict[str, Any]] = [{"learner_seat": int(s)} for s in self.learner_seat]
        ended = np.flatnonzero(dones)
        if not ended.size:
            return infos
        final, final_obs = info["final_info"], info["final_obs"]
        illegal = final.get("illegal_action")
        for i in ended.tolist():
            n = int(self.num_players[i])
            infos[i] = {
                "learner_seat": int(final["learner_seat"][i]),
                "scores": [int(s) for s in final["scores"][i, :n]],
                "winners": np.flatnonzero(final["winners"][i]).tolist(),
                "terminal_observation": final_obs[i],
                "TimeLimit.truncated": bool(cut[i]),
                "opponents": self._ended_labels[i],
            }
            if illegal is not None and illegal[i]:
                infos[i]["illegal_action"] = True
        return infos

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))


__all__ = ["FastSelfPlayVecEnv", "IllegalActionError"]
