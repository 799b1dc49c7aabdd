"""Self-play training on the compiled engine: every environment of a vector env in one :class:`FastGames` batch.

:class:`FastSelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` (with ``action_masks()`` for sb3-contrib's
``MaskablePPO``) that plays what a vector of :class:`agents.training.PoolSelfPlayEnv` plays, on the fast engine:

* each environment's learner sits at a seat drawn at every episode, and the other seats are played by opponents
  drawn from that environment's own :class:`~agents.training.OpponentPool` (random, heuristic, frozen snapshots,
  with the pool's probabilities and snapshot weighting);
* after the learner's actions, the opponents of every game are asked together, round after round, until every
  game waits on its learner again or has ended: random opponents in compiled code
  (:func:`gubs_env.fast.sample_legal`), each snapshot once per round for all the games waiting on it (a batched
  numpy forward pass over the stacked observations), the heuristic in compiled code too, once per round for all
  the games waiting on it (:func:`agents.bots.heuristic.decide.heuristic_actions`, the same ids as
  ``HeuristicAgent.act``); any other agent is asked game by game; a decision with a single legal id is played
  for any opponent without asking it, as ``SelfPlayEnv`` does;
* an environment whose episode ended is reset at once (SB3's auto-reset): the ended episode's observation is in
  ``infos[i]["terminal_observation"]``.

Seeded the same way, each environment draws its opponents, its learner seats and its deals from the same
generators, in the same order, as ``PoolSelfPlayEnv`` does, so with deterministic opponents (the heuristic) both
play the same games decision for decision (``tests/agents/test_fast_vec_env.py`` checks it). Random and snapshot
opponents sample from other streams than the reference agents', so their games differ while following the same
distributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from agents.bots.base import Agent
from agents.bots.heuristic import HeuristicAgent
from agents.bots.heuristic.decide import heuristic_actions
from agents.bots.model_file import PolicyWeights
from agents.bots.ppo import ACTIVATION_FUNCTIONS, PPOAgent
from agents.bots.random_agent import RandomAgent
from agents.training.pool import OpponentPool, PoolConfig
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.engine.positions.serialize import brief
from gubs_env.fast import SKIP, FastGames, sample_legal
from gubs_env.fast.core.rng import RNG_WORDS, seed_pcg64

LEARNER, RANDOM, HEURISTIC, SNAPSHOT = 0, 1, 2, 3
"""What plays a seat, per game (:attr:`FastSelfPlayVecEnv.seat_kinds`); any other agent plays as HEURISTIC does.

A HEURISTIC seat played by a :class:`~agents.bots.heuristic.HeuristicAgent` itself (not a subclass) is decided in
compiled code; any other agent there is asked game by game."""

METHODS = ("action_masks", "set_snapshots")
"""What ``env_method`` and ``get_attr`` reach: the calls MaskablePPO and the training callback make."""
ATTRIBUTES = ("learner_seat", "num_players", "render_mode")
"""Per-environment values ``get_attr`` returns."""


def policy_logits(
    weights: PolicyWeights, observations: np.ndarray, ids: np.ndarray | None = None, first_t: np.ndarray | None = None
) -> np.ndarray:
    """The actor's logits for a stack of observations, ``(k, 512)`` in, ``(k, 356)`` out: one numpy forward pass.

    With ``ids`` only those columns of the output are computed, ``(k, len(ids))``: the action head's rows of the
    ids the rows may choose, a few dozen of 356. The first layer reads only the inputs that are non-zero in some
    row (observations are sparse: a batch of them shares about a hundred non-zero inputs of 512), from
    ``first_t``, the first weight transposed and contiguous (made here when not given).
    """
    activation = ACTIVATION_FUNCTIONS[weights.activation]
    (first_weight, first_bias), *hidden, (head_weight, head_bias) = weights.layers
    if first_t is None:
        first_t = np.ascontiguousarray(first_weight.T)
    inputs = np.flatnonzero(observations.any(axis=0))
    x = activation(observations[:, inputs] @ first_t[inputs] + first_bias)
    for weight, bias in hidden:
        x = activation(x @ weight.T + bias)
    if ids is None:
        return x @ head_weight.T + head_bias
    return x @ head_weight[ids].T + head_bias[ids]


def sample_masked(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One id per row, drawn from the softmax of ``logits`` over the row's legal ids (``masks`` != 0).

    The Gumbel-max draw: the legal id with the largest logit plus Gumbel noise follows the softmax exactly, in a
    few whole-array operations (what matters for the handful of games a snapshot plays at once).
    """
    noise = rng.random(logits.shape)
    np.log(noise, out=noise)
    np.negative(noise, out=noise)
    np.log(noise, out=noise)
    perturbed = np.subtract(logits, noise, out=noise)
    perturbed[masks == 0] = -np.inf
    return np.argmax(perturbed, axis=1)


class FastSelfPlayVecEnv(VecEnv):
    """``num_envs`` self-play environments against pool opponents, stepped together on the compiled engine.

    Args:
        num_envs: how many environments (games) the vector holds.
        players: one table size for every environment, or a list whose sizes cycle over the environments
            (environment ``i`` plays ``players[i % len(players)]``), as train.py's ``--players`` does.
        pool: the opponent pool's probabilities (its snapshot list is set later by ``set_snapshots``).
        seed: environment ``i``'s generators start from ``seed + i`` (see :meth:`seed` to change them).
        shaping: weight of ``PoolSelfPlayEnv``'s potential-based score-margin term (0: none).
        on_illegal: ``"lose"`` (an illegal learner id ends that episode with reward -1 and
            ``info["illegal_action"] = True``) or ``"raise"`` (the engine's ``IllegalActionError``, nothing
            changes), as in ``SelfPlayEnv``.
        threads: threads of the compiled kernels (``None``: one).
        **rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad count, table size, probability, shaping or rule option.
    """

    def __init__(
        self,
        num_envs: int,
        players: int | Sequence[int] = 2,
        pool: PoolConfig | None = None,
        seed: int = 0,
        shaping: float = 0.0,
        on_illegal: str = "lose",
        threads: int | None = None,
        **rule_options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, not {brief(num_envs)}")
        sizes = [players] if isinstance(players, int) else list(players) if isinstance(players, (list, tuple)) else []
        if not sizes or not all(type(n) is int and MIN_PLAYERS <= n <= MAX_PLAYERS for n in sizes):
            raise ValueError(
                f"players must be a table size from {MIN_PLAYERS} to {MAX_PLAYERS} or a list of them, "
                f"not {brief(players)}"
            )
        if type(on_illegal) is not str or on_illegal not in ("lose", "raise"):
            raise ValueError(f"on_illegal must be 'lose' or 'raise', not {brief(on_illegal)}")
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not 0 <= shaping < float("inf"):
            raise ValueError(f"shaping must be a finite number of at least 0, not {brief(shaping)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, not {brief(seed)}")
        config = PoolConfig() if pool is None else pool
        if not isinstance(config, PoolConfig):
            raise ValueError(f"pool must be None or a PoolConfig, not {brief(pool)}")
        chances = (config.p_random, config.p_heuristic)
        if (
            not all(isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p <= 1 for p in chances)
            or sum(chances) > 1
        ):
            raise ValueError("the pool's p_random and p_heuristic must be probabilities adding up to at most 1")
        self.on_illegal = on_illegal
        self.shaping = float(shaping)
        self.render_mode = None
        self.num_players = np.array([sizes[i % len(sizes)] for i in range(num_envs)], dtype=np.int64)
        self.games = FastGames(num_envs, sizes[0], threads=1 if threads is None else threads, **rule_options)
        self.pools = [OpponentPool(PoolConfig(**asdict(config)), seed + i) for i in range(num_envs)]
        self._episode_rngs = [np.random.default_rng(seed + i) for i in range(num_envs)]
        self._sample_rng = np.random.default_rng([seed, 2])
        self._first_t: dict[int, tuple[PolicyWeights, np.ndarray]] = {}
        """Per snapshot in play (by id, with the weights kept so an id is never reused), its first weight
        transposed: made once, not at every forward pass; emptied when the pool changes."""
        self._chooser = np.random.default_rng([seed, 3]).integers(2**63, size=num_envs, dtype=np.uint64)
        self.learner_seat = np.zeros(num_envs, dtype=np.int64)
        self.seat_kinds = np.full((num_envs, MAX_PLAYERS), LEARNER, dtype=np.int8)
        self.seat_agents: list[list[Agent | None]] = [[None] * MAX_PLAYERS for _ in range(num_envs)]
        """Per environment and seat, the opponent playing it (None at the learner's seat)."""
        self._opponents: list[list[Agent]] = [[] for _ in range(num_envs)]
        """Per environment, this episode's opponents clockwise from the learner (as SelfPlayEnv lists them)."""
        self._rows = np.arange(num_envs)
        self._compiled_heuristic = np.zeros((num_envs, MAX_PLAYERS), dtype=bool)
        """Per environment and seat, whether the compiled heuristic decides for that seat's opponent."""
        self._heuristic_rngs = np.zeros((num_envs * (MAX_PLAYERS - 1), RNG_WORDS), dtype=np.uint64)
        """The generators of the compiled heuristic's agents: one row per distinct agent object of an episode (a
        pool hands the same HeuristicAgent to all its heuristic seats, and they share its generator), seeded when
        ``reset`` reseeds the agent. The agent's own ``rng`` is then left alone and read by nothing."""
        self._heuristic_row = np.zeros((num_envs, MAX_PLAYERS), dtype=np.int64)
        """Per environment and seat, the row of ``_heuristic_rngs`` its compiled heuristic draws from."""
        self._agent_rows: list[dict[int, int]] = [{} for _ in range(num_envs)]
        """Per environment, this episode's compiled heuristic agents (by ``id``) and their generator rows."""
        self._heuristic_ids = np.zeros(num_envs, dtype=np.int64)
        self._actions = np.full(num_envs, SKIP, dtype=np.int64)
        self._random_ids = np.zeros(num_envs, dtype=np.int64)
        self._legal_counts = np.zeros(num_envs, dtype=np.int64)
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self._final_obs = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._terminated = np.zeros(num_envs, dtype=bool)
        self._truncated = np.zeros(num_envs, dtype=bool)
        self._potential = np.zeros(num_envs, dtype=np.float64)
        self._started = False
        self._pending: Any = None
        self._has_pending = False
        super().__init__(num_envs, spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_ACTIONS))

    # --- the VecEnv interface ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start a new episode in every environment (with the seeds of :meth:`seed`, when it was called)."""
        for i, seed in enumerate(self._seeds):
            if seed is not None:  # the streams PoolSelfPlayEnv.reset(seed=...) starts
                self._episode_rngs[i] = np.random.default_rng(seed)
                self.pools[i].rng = np.random.default_rng([seed, 1])
        self._reset_seeds()
        self._reset_options()
        if not self._started:
            players = self.num_players
            self.games.reset(np.zeros(self.num_envs, dtype=np.uint64), players)
            self._started = True
        self._start_episodes(self._rows)
        self.reset_infos = [{"learner_seat": int(s)} for s in self.learner_seat]
        return self.games.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the learners' actions for :meth:`step_wait`."""
        self._pending, self._has_pending = actions, True

    def step_wait(self) -> VecEnvStepReturn:
        """Apply the learners' actions, play the opponents, and reset the environments whose episode ended."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if not self._has_pending:
            raise RuntimeError("call step_async() before step_wait()")
        pending, self._pending, self._has_pending = self._pending, None, False
        actions = self._checked_actions(pending)
        illegal = self.games.mask[self._rows, np.clip(actions, 0, NUM_ACTIONS - 1)] == 0
        if illegal.any() and self.on_illegal == "raise":
            self.games.step(actions)  # raises the engine's error naming the game; nothing changes
        if illegal.any():
            self._final_obs[illegal] = self.games.obs[illegal]
        self._rewards.fill(0.0)
        self._terminated[:] = illegal
        self._truncated.fill(False)
        self._actions[:] = actions
        self._actions[illegal] = SKIP
        self.games.step(self._actions)
        self._collect_ends()
        self._play_opponents()
        self._rewards[illegal] = -1.0
        if self.shaping:
            self._add_shaping()
        dones = self._terminated | self._truncated
        infos = self._infos(dones, illegal)
        rewards = self._rewards.copy()  # the next episodes' first opponent rounds write into the buffers
        ended = np.flatnonzero(dones)
        if ended.size:
            self._start_episodes(ended)
        return self.games.obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Each environment's legal ids for its learner, as a bool ``(num_envs, 356)`` array."""
        np.not_equal(self.games.mask, 0, out=self._masks)
        return self._masks

    def set_snapshots(self, paths: Sequence[str]) -> None:
        """Replace every pool's snapshot list (what the training callback sends through ``env_method``)."""
        for pool in self.pools:
            pool.set_snapshots(paths)
        self._first_t.clear()  # made again for the snapshots still in play

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
        """``action_masks`` (one mask per environment) or ``set_snapshots`` (for every pool; ``None`` each).

        Raises:
            AttributeError: any other name.
        """
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name == "set_snapshots":
            for i in rows:
                self.pools[i].set_snapshots(*method_args, **method_kwargs)
            return [None] * len(rows)
        raise AttributeError(f"FastSelfPlayVecEnv has no method {brief(method_name)} for env_method")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No environment is wrapped (wrap the whole vector in ``VecMonitor`` for episode statistics)."""
        return [False] * len(self._indices(indices))

    # --- episodes ---------------------------------------------------------------------------------

    def _start_episodes(self, rows: np.ndarray) -> None:
        """Draw opponents, then seat and deal until each game reaches its learner's first decision."""
        for i in rows:
            self._draw_opponents(int(i))
        started = rows
        while rows.size:
            seeds = np.empty(rows.size, dtype=np.uint64)
            for k, i in enumerate(rows):
                rng, n = self._episode_rngs[i], int(self.num_players[i])
                self._seat(int(i), int(rng.integers(n)))
                seeds[k] = int(rng.integers(2**63))
            self.games.reset_games(rows, seeds)
            self._play_opponents()
            rows = rows[self.games.actor[rows] < 0]  # a game over before its learner's first decision: again
        if self.shaping:
            self._potential[started] = self._margins()[started]

    def _draw_opponents(self, i: int) -> None:
        """Environment ``i``'s opponents for an episode, drawn and reseeded as PoolSelfPlayEnv.reset does."""
        pool = self.pools[i]
        opponents = [pool.sample() for _ in range(int(self.num_players[i]) - 1)]
        rows = self._agent_rows[i]
        rows.clear()
        for j, opponent in enumerate(opponents):
            seed = int(pool.rng.integers(2**31))
            opponent.reset(seed)
            if _compiled(opponent):  # the stream the agent's reset starts, where the compiled code reads it
                row = rows.setdefault(id(opponent), i * (MAX_PLAYERS - 1) + j)
                seed_pcg64(self._heuristic_rngs[row], np.uint64(seed))
        self._opponents[i] = opponents

    def _seat(self, i: int, learner: int) -> None:
        """Put environment ``i``'s learner at ``learner`` and its opponents clockwise from it."""
        n = int(self.num_players[i])
        seats: list[Agent | None] = [None] * MAX_PLAYERS
        self.seat_kinds[i] = LEARNER
        self._compiled_heuristic[i] = False
        for j, opponent in enumerate(self._opponents[i]):
            seat = (learner + j + 1) % n
            seats[seat] = opponent
            self.seat_kinds[i, seat] = _kind(opponent)
            self._compiled_heuristic[i, seat] = _compiled(opponent)
            self._heuristic_row[i, seat] = self._agent_rows[i].get(id(opponent), 0)
        self.seat_agents[i] = seats
        self.learner_seat[i] = learner

    # --- the opponents ----------------------------------------------------------------------------

    def _play_opponents(self) -> None:
        """Ask the opponents, round after round, until every game waits on its learner or is over."""
        games = self.games
        while True:
            seats = games.actor
            waiting = np.flatnonzero((seats >= 0) & (seats != self.learner_seat))
            if not waiting.size:
                return
            self._actions.fill(SKIP)
            kinds = self.seat_kinds[waiting, seats[waiting]]
            np.sum(games.mask, axis=1, dtype=np.int64, out=self._legal_counts)
            forced = self._legal_counts[waiting] == 1
            cheap = waiting[forced | (kinds == RANDOM)]
            if cheap.size:  # a single legal id, or a random opponent: compiled sampling over the batch
                sample_legal(games.mask, self._chooser, self._random_ids, threads=1)
                self._actions[cheap] = self._random_ids[cheap]
            asked = waiting[~forced & (kinds != RANDOM)]
            self._ask_policies(asked, self.seat_kinds[asked, seats[asked]])
            games.step(self._actions)
            self._collect_ends()

    def _ask_policies(self, rows: np.ndarray, kinds: np.ndarray) -> None:
        """Actions of the heuristic (compiled, one call for all), snapshots (a forward pass each), other agents."""
        games = self.games
        compiled = self._compiled_heuristic[rows, games.actor[rows]]
        if compiled.any():
            heuristic_rows = rows[compiled]
            rng_rows = self._heuristic_row[heuristic_rows, games.actor[heuristic_rows]]
            heuristic_actions(
                games.obs, games.mask, heuristic_rows, rng_rows, self._heuristic_rngs, self._heuristic_ids
            )
            self._actions[heuristic_rows] = self._heuristic_ids[heuristic_rows]
            rows, kinds = rows[~compiled], kinds[~compiled]
        groups: dict[int, tuple[PolicyWeights, list[int]]] = {}
        for i, kind in zip(rows.tolist(), kinds.tolist(), strict=True):
            agent = self.seat_agents[i][int(games.actor[i])]
            assert agent is not None  # every seat but the learner's has an opponent
            if kind == SNAPSHOT:
                assert isinstance(agent, PPOAgent) and isinstance(agent.model, PolicyWeights)
                groups.setdefault(id(agent.model), (agent.model, []))[1].append(i)
            else:
                self._actions[i] = agent.act(games.obs[i], games.mask[i])
        for weights, members in groups.values():
            index = np.asarray(members)
            masks = games.mask[index]
            ids = np.flatnonzero(masks.any(axis=0))  # the ids some of these games may choose
            first_t = self._first_t.get(id(weights))
            if first_t is None or first_t[0] is not weights:
                first_t = self._first_t[id(weights)] = (weights, np.ascontiguousarray(weights.layers[0][0].T))
            logits = policy_logits(weights, games.obs[index], ids, first_t[1])
            self._actions[index] = ids[sample_masked(logits, masks[:, ids], self._sample_rng)]

    # --- results ----------------------------------------------------------------------------------

    def _collect_ends(self) -> None:
        """Record the learner's reward and the end flags of the games the last engine step ended."""
        games = self.games
        ended = games.terminated | games.truncated
        if not ended.any():
            return
        rows = np.flatnonzero(ended)
        self._rewards[rows] = games.rewards[rows, self.learner_seat[rows]]
        self._terminated[rows] |= games.terminated[rows]
        self._truncated[rows] |= games.truncated[rows]
        games.observe(self.learner_seat, out=self._final_obs)  # the learner's view of the ended games

    def _infos(self, dones: np.ndarray, illegal: np.ndarray) -> list[dict[str, Any]]:
        """Per environment ``learner_seat``; at an episode's end also its scores, winners and last observation."""
        infos: list[dict[str, Any]] = [{"learner_seat": int(s)} for s in self.learner_seat]
        ended = np.flatnonzero(dones)
        if not ended.size:
            return infos
        scores = self.games.scores(ended)
        for i in ended.tolist():
            n = int(self.num_players[i])
            info = infos[i]
            info["scores"] = [int(s) for s in scores[i, :n]]
            info["winners"] = self.games.winners(i)
            info["terminal_observation"] = self._final_obs[i].copy()
            info["TimeLimit.truncated"] = bool(self._truncated[i] and not self._terminated[i])
            if illegal[i]:
                info["illegal_action"] = True
        return infos

    def _add_shaping(self) -> None:
        """PoolSelfPlayEnv's potential-based term: shaping * (margin after - margin before), 0 once over."""
        potential = np.where(self._terminated | self._truncated, 0.0, self._margins())
        self._rewards += (self.shaping * (potential - self._potential)).astype(np.float32)
        self._potential[:] = potential

    def _margins(self) -> np.ndarray:
        """Per game, the learner's score minus the best other score."""
        scores = self.games.scores().astype(np.float64)
        rows = self._rows
        mine = scores[rows, self.learner_seat].copy()
        scores[rows, self.learner_seat] = -np.inf
        for i in rows:  # seats a game does not have hold 0, not a score
            scores[i, int(self.num_players[i]) :] = -np.inf
        return mine - scores.max(axis=1)

    # --- checks -----------------------------------------------------------------------------------

    def _checked_actions(self, actions: Any) -> np.ndarray:
        """The learners' actions as int64 ids of the action space, or a ValueError."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer ids, not {brief(actions)}")
        if ((array < 0) | (array >= NUM_ACTIONS)).any():
            raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}")
        return array.astype(np.int64)

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))


def _compiled(agent: Agent) -> bool:
    """Whether the compiled heuristic plays for ``agent``: a HeuristicAgent itself (a subclass may decide otherwise)."""
    return type(agent) is HeuristicAgent


def _kind(agent: Agent) -> int:
    """How a pool's opponent is asked: in compiled code (random), in batches (snapshots) or one game at a time."""
    if isinstance(agent, RandomAgent):
        return RANDOM
    if isinstance(agent, PPOAgent) and isinstance(agent.model, PolicyWeights):
        return SNAPSHOT
    return HEURISTIC


__all__ = ["FastSelfPlayVecEnv", "IllegalActionError", "policy_logits", "sample_masked"]
