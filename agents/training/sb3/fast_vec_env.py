"""Self-play training on the compiled engine: an SB3 ``VecEnv`` over :class:`gubs_env.envs.vector.GubsVectorEnv`.

:class:`FastSelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` (with ``action_masks()`` for sb3-contrib's
``MaskablePPO``): the sb3 backend's training games, on the compiled engine. The batched self-play loop is the
vector env's (one implementation); this adapter adds what belongs to training:

* each environment's learner sits at a seat drawn at every episode, and the other seats are played by opponents
  drawn from that environment's own :class:`~agents.training.OpponentPool` (random, heuristic, frozen snapshots,
  with the pool's probabilities and snapshot weighting), through the vector env's ``pick_opponents`` hook;
* the pool's agents become the vector env's batched opponents: a random agent the compiled random opponent, the
  heuristic one compiled call per round for all the games waiting on it
  (:func:`agents.bots.heuristic.decide.heuristic_actions`, the same ids as ``HeuristicAgent.act``), each snapshot
  one numpy forward pass per round over the stacked observations of its games; any other agent is asked game by
  game; a decision with a single legal id is played for any opponent without asking it, as ``SelfPlayEnv`` does;
* an environment whose episode ended is reset at once (SB3's auto-reset, the vector env's SAME_STEP mode): the
  ended episode's observation is in ``infos[i]["terminal_observation"]``.

Seeded the same way, each environment draws its opponents, its learner seats and its deals from the same
generators, in the same order, as its readable oracle does (:class:`gubs_env.envs.selfplay.SelfPlayEnv` with the
pool's opponents, ``tests/agents/pool_oracle.py``), so with deterministic opponents (the heuristic) both play the
same games decision for decision (``tests/agents/test_fast_vec_env.py`` checks it). Random and snapshot
opponents sample from other streams than the reference agents', so their games differ while following the same
distributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from agents.bots.base import Agent
from agents.bots.heuristic import HeuristicAgent
from agents.bots.heuristic.decide import heuristic_actions
from agents.bots.heuristic.tables import TABLES
from agents.bots.model_file import PolicyWeights
from agents.bots.ppo import PPOAgent, policy_logits, sample_masked
from agents.bots.random_agent import RandomAgent
from agents.training.core.config import PoolConfig
from agents.training.sb3.pool import OpponentPool
from gubs_env.engine import IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.engine.positions.serialize import brief
from gubs_env.envs.vector import RANDOM as RANDOM_OPPONENT
from gubs_env.envs.vector import GubsVectorEnv
from gubs_env.fast import RNG_WORDS, FastGames, seed_pcg64

LEARNER, RANDOM, HEURISTIC, SNAPSHOT = 0, 1, 2, 3
"""What plays a seat, per game (:attr:`FastSelfPlayVecEnv.seat_kinds`); any other agent plays as HEURISTIC does.

A HEURISTIC seat played by a :class:`~agents.bots.heuristic.HeuristicAgent` itself (not a subclass) is decided in
compiled code, a greedy :class:`~agents.bots.ppo.PPOAgent` in one ``act_batch`` call for the games waiting on it,
and any other agent game by game."""

METHODS = ("action_masks", "set_snapshots", "set_learner")
"""What ``env_method`` and ``get_attr`` reach: the calls MaskablePPO and the training callback make."""
ATTRIBUTES = ("learner_seat", "num_players", "render_mode")
"""Per-environment values ``get_attr`` returns."""


class SnapshotOpponent:
    """A frozen snapshot as a batched opponent: one forward pass for all the games waiting on it, then a draw.

    The pass and the draw are :class:`~agents.bots.ppo.PPOAgent`'s own (:func:`~agents.bots.ppo.policy_logits`,
    :func:`~agents.bots.ppo.sample_masked`), from the env's sampling generator rather than an agent's.
    """

    def __init__(self, weights: PolicyWeights, rng: np.random.Generator) -> None:
        self.weights = weights
        self.rng = rng
        self.first_t = np.ascontiguousarray(weights.layers[0][0].T)
        """The first weight transposed, made once (not at every forward pass)."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """An id per game, drawn from the policy's distribution over the game's legal ids."""
        ids = np.flatnonzero(masks.any(axis=0))  # the ids some of these games may choose
        logits = policy_logits(self.weights, observations, ids, self.first_t)
        return ids[sample_masked(logits, masks[:, ids], self.rng)]


class AgentOpponent:
    """Any other :class:`~agents.bots.base.Agent` as a batched opponent.

    A policy agent answers all the games waiting on it in one ``act_batch`` call; any other agent is asked game by
    game through its ``act``.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's id for each game."""
        if isinstance(self.agent, PPOAgent):
            return self.agent.act_batch(observations, masks)
        return np.array([self.agent.act(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64)


class CompiledHeuristic:
    """The pool's :class:`~agents.bots.heuristic.HeuristicAgent` seats, all decided in one compiled call per round.

    Each seat draws its ties from its own agent's generator.
    The generators are rows of ``rngs``, one per distinct agent object of an episode (a pool hands the same
    HeuristicAgent to all its heuristic seats, and they share its generator), seeded where the agent's ``reset``
    seeds it; the agent's own ``rng`` is then left alone and read by nothing.
    """

    def __init__(self, num_envs: int) -> None:
        self.rngs = np.zeros((num_envs * (MAX_PLAYERS - 1), RNG_WORDS), dtype=np.uint64)
        self.row_of = np.zeros((num_envs, MAX_PLAYERS - 1), dtype=np.int64)
        """Per environment and opponent slot, the row of ``rngs`` its heuristic draws from."""

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray, slots: np.ndarray
    ) -> np.ndarray:
        """The heuristic's id for each waiting game (see :class:`gubs_env.envs.vector.GubsVectorEnv`)."""
        out = np.zeros(len(games), dtype=np.int64)
        rows = np.arange(len(games), dtype=np.int64)
        heuristic_actions(observations, masks, rows, self.row_of[games, slots], self.rngs, out)
        return out


class FastSelfPlayVecEnv(VecEnv):
    """``num_envs`` self-play environments against pool opponents: an SB3 adapter over one ``GubsVectorEnv``.

    The games, the opponent rounds and the new episodes are :class:`gubs_env.envs.vector.GubsVectorEnv`'s (in its
    SAME_STEP autoreset mode); this class draws each episode's opponents from the environment's pool, turns them
    into batched opponents, and speaks SB3's ``VecEnv`` (infos as a list of dicts, ``terminal_observation``).

    Args:
        num_envs: how many environments (games) the vector holds.
        players: one table size for every environment, or a list whose sizes cycle over the environments
            (environment ``i`` plays ``players[i % len(players)]``), as train.py's ``--players`` does.
        pool: the opponent pool's probabilities (its snapshot list is set later by ``set_snapshots``).
        seed: environment ``i``'s generators start from ``seed + i`` (see :meth:`seed` to change them).
        on_illegal: ``"lose"`` (an illegal learner id ends that episode with reward -1 and
            ``info["illegal_action"] = True``) or ``"raise"`` (the engine's ``IllegalActionError``, nothing
            changes), as in ``SelfPlayEnv``.
        threads: threads of the compiled loop (``None``: one).
        opponent: an agent that plays every opponent seat of every episode instead of the pool (train.py's
            ``--opponent``: training against one fixed bot, as the exploiter check does).
        **rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad count, table size, probability or rule option.
    """

    def __init__(
        self,
        num_envs: int,
        players: int | Sequence[int] | TableSizes = 2,
        pool: PoolConfig | None = None,
        seed: int = 0,
        on_illegal: str = "lose",
        threads: int | None = None,
        opponent: Agent | None = None,
        **rule_options: Any,
    ) -> None:
        if opponent is not None and not isinstance(opponent, Agent):
            raise ValueError(f"opponent must be None or an Agent, not {brief(opponent)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, not {brief(seed)}")
        config = PoolConfig() if pool is None else pool
        if not isinstance(config, PoolConfig):  # a PoolConfig checks its own shares
            raise ValueError(f"pool must be None or a PoolConfig, not {brief(pool)}")
        self.vector = GubsVectorEnv(
            num_envs,
            players,
            pick_opponents=self._pick_opponents,
            autoreset_mode=AutoresetMode.SAME_STEP,
            on_illegal=on_illegal,
            threads=1 if threads is None else threads,
            **rule_options,
        )
        self.render_mode = None
        self.pools = [OpponentPool(config, seed + i) for i in range(num_envs)]
        self.opponent = opponent
        self._first_seeds = [seed + i for i in range(num_envs)]
        self._sample_rng = np.random.default_rng([seed, 2])
        self._heuristic = CompiledHeuristic(num_envs)
        self._batched: dict[int, tuple[Any, Any]] = {}
        """Per snapshot weights or other agent in play (by id, with the object kept so an id is never reused),
        its batched opponent: made once, not per episode; emptied when the pool changes."""
        self._opponents: list[list[Agent]] = [[] for _ in range(num_envs)]
        """Per environment, this episode's opponents clockwise from the learner (as SelfPlayEnv lists them)."""
        self._labels: list[list[str]] = [[] for _ in range(num_envs)]
        """Per environment, this episode's opponents' seat labels (:mod:`agents.training.core.league`)."""
        self._ended_labels: list[list[str]] = [[] for _ in range(num_envs)]
        """Per environment, the labels of the episode that ended in this step (the next one is drawn before the
        step returns)."""
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

    @property
    def seat_agents(self) -> list[list[Agent | None]]:
        """Per environment and seat, the opponent playing it (None at the learner's seat and past the table)."""
        table: list[list[Agent | None]] = []
        for i, opponents in enumerate(self._opponents):
            n, learner = int(self.num_players[i]), int(self.learner_seat[i])
            seats: list[Agent | None] = [None] * MAX_PLAYERS
            for j, opponent in enumerate(opponents):
                seats[(learner + j + 1) % n] = opponent
            table.append(seats)
        return table

    @property
    def seat_kinds(self) -> np.ndarray:
        """Per environment and seat (int8 ``(num_envs, 6)``): LEARNER, or how that seat's opponent is asked."""
        kinds = np.full((self.num_envs, MAX_PLAYERS), LEARNER, dtype=np.int8)
        for i, seats in enumerate(self.seat_agents):
            for seat, agent in enumerate(seats):
                if agent is not None:
                    kinds[i, seat] = _kind(agent)
        return kinds

    # --- the VecEnv interface ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start a new episode in every environment (with the seeds of :meth:`seed`, when it was called)."""
        seeds: list[int] | None = None
        given = [seed for seed in self._seeds if seed is not None]
        if len(given) == self.num_envs:
            seeds = [int(seed) for seed in given]
            for pool, seed in zip(self.pools, seeds, strict=True):  # the stream the oracle's reset(seed=...) starts
                pool.rng = np.random.default_rng([seed, 1])
        elif not self._started:
            seeds = self._first_seeds
        self._reset_seeds()
        self._reset_options()
        observations, _ = self.vector.reset(seed=seeds)
        self._started = True
        self.reset_infos = [{"learner_seat": int(s)} for s in self.learner_seat]
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
        pending, self._pending, self._has_pending = self._pending, None, False
        observations, rewards, terminated, truncated, info = self.vector.step(pending)
        dones = terminated | truncated
        return observations, rewards, dones, self._infos(dones, truncated & ~terminated, info)

    def action_masks(self) -> np.ndarray:
        """Each environment's legal ids for its learner, as a bool ``(num_envs, 356)`` array."""
        return self.vector.action_masks()

    def set_snapshots(self, paths: Sequence[str], weights: Sequence[float] | None = None) -> None:
        """Replace every pool's snapshots and their drawing weights (what the training callback sends)."""
        for pool in self.pools:
            pool.set_snapshots(paths, weights)
        self._batched.clear()  # made again for the snapshots still in play

    def set_learner(self, weights: PolicyWeights) -> None:
        """The learner's current actor for every pool's ``self`` seats (sent before every rollout)."""
        for pool in self.pools:
            pool.set_learner(weights)
        self._batched.clear()

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
        """``action_masks`` (one mask per environment), ``set_snapshots`` or ``set_learner`` (``None`` each).

        Raises:
            AttributeError: any other name.
        """
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name in ("set_snapshots", "set_learner"):
            for i in rows:
                getattr(self.pools[i], method_name)(*method_args, **method_kwargs)
            self._batched.clear()
            return [None] * len(rows)
        raise AttributeError(f"FastSelfPlayVecEnv has no method {brief(method_name)} for env_method")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No environment is wrapped (wrap the whole vector in ``VecMonitor`` for episode statistics)."""
        return [False] * len(self._indices(indices))

    # --- episodes ---------------------------------------------------------------------------------

    def _pick_opponents(self, i: int, num_players: int) -> list[Any]:
        """The vector env's per-episode hook: environment ``i``'s opponents, drawn from its pool, batched."""
        return [self._batched_opponent(agent) for agent in self._draw_opponents(i)]

    def _draw_opponents(self, i: int) -> list[Agent]:
        """Environment ``i``'s opponents for an episode, drawn and reseeded as the readable oracle's reset does."""
        pool = self.pools[i]
        seats = int(self.num_players[i]) - 1
        if self.opponent is None:
            drawn = [pool.draw() for _ in range(seats)]
        else:
            drawn = [(self.opponent.name, self.opponent)] * seats
        opponents = [agent for _, agent in drawn]
        self._ended_labels[i], self._labels[i] = self._labels[i], [label for label, _ in drawn]
        rows: dict[int, int] = {}
        for j, opponent in enumerate(opponents):
            seed = int(pool.rng.integers(2**31))
            opponent.reset(seed)
            if _compiled(opponent):  # the stream the agent's reset starts, where the compiled code reads it
                row = rows.setdefault(id(opponent), i * (MAX_PLAYERS - 1) + j)
                seed_pcg64(self._heuristic.rngs[row], np.uint64(seed))
                self._heuristic.row_of[i, j] = row
        self._opponents[i] = opponents
        return opponents

    def _batched_opponent(self, agent: Agent) -> Any:
        """How the vector env plays ``agent``: compiled random, the compiled heuristic, or a batched opponent."""
        kind = _kind(agent)
        if kind == RANDOM:
            return RANDOM_OPPONENT
        if _compiled(agent):
            return self._heuristic
        # one batched opponent per snapshot's weights (a snapshot is a PPOAgent: _kind says so)
        key: Any = cast(PPOAgent, agent).model if kind == SNAPSHOT else agent
        known = self._batched.get(id(key))
        if known is None or known[0] is not key:
            made = SnapshotOpponent(key, self._sample_rng) if kind == SNAPSHOT else AgentOpponent(agent)
            known = self._batched[id(key)] = (key, made)
        return known[1]

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


def _compiled(agent: Agent) -> bool:
    """Whether the compiled heuristic plays for ``agent``: a HeuristicAgent itself with the default weights.

    A subclass may decide otherwise, and another weight set decides through its own ``act``.
    """
    return type(agent) is HeuristicAgent and agent.tables is TABLES


def _kind(agent: Agent) -> int:
    """How an opponent is asked: in compiled code, by batched draws, or as :class:`AgentOpponent` asks it.

    Random agents are compiled; sampling policies from weights (the pool's snapshots) are drawn from in batches;
    every other agent, a greedy policy included, goes through :class:`AgentOpponent`.
    """
    if isinstance(agent, RandomAgent):
        return RANDOM
    # a sampling policy from weights is drawn from in the snapshots' batched way; a greedy one (train.py's
    # --opponent ppo-2p) must keep choosing its most likely id, as it does in tournaments
    if isinstance(agent, PPOAgent) and isinstance(agent.model, PolicyWeights) and not agent.deterministic:
        return SNAPSHOT
    return HEURISTIC


__all__ = ["FastSelfPlayVecEnv", "IllegalActionError", "policy_logits", "sample_masked"]
