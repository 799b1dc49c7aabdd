"""An RLlib env runner that plays all its games on the compiled engine, one batch for all of them.

RLlib's :class:`MultiAgentEnvRunner` steps a vector of :class:`~gubs_env.envs.rllib_env.GubsMultiAgentEnv` one game at
a time and, for every step of every game, runs its connector pipelines, callbacks and metrics: on 2 cores that
bookkeeping, not the game, bounds it (about 430 env steps/s with 8 games). :class:`FastEnvRunner` keeps RLlib's
runner (its modules, weights, state, metrics and episodes, which the learner reads as usual) and replaces only its
sampling loop: its ``num_envs_per_env_runner`` games are the slots of one
:class:`~agents.training.rllib.fast_tables.FastTables`, stepped together by one compiled call per table size;
each module chooses for all the games it plays in one forward pass; each step goes into the games' ``MultiAgentEpisode``
objects as RLlib's loop puts it there (the same observations, actions, rewards and model outputs); metrics are
counted once per ``sample()`` call.

Slot ``i`` is the run's slot ``worker index * num_envs + i``: it plays that slot's table size (the one rule of
:meth:`~gubs_env.engine.players.TableSizes.per_slot`) and the deals sub-env ``i`` of RLlib's own runner would
(seeded ``seed + worker index + i``). Its seats are seated by the run's league
(:class:`~agents.training.core.seating.Seating`, built from the env config): the seats the league gives the
learner's current policy are agents of module ``main``, and the seating plays the others inside the games. The
league's snapshots reach a runner through :meth:`FastEnvRunner.set_league`, and its finished games leave it through
:meth:`FastEnvRunner.take_games`, both called by the driver through Ray. What it leaves out: RLlib's env-to-module
and module-to-env connector pipelines (a custom connector in the config is not run: this project uses none; the
modules get the observation dicts batched as tensors, as RLlib's default pipeline gives them) and its
``on_episode_step`` callbacks (the episode callbacks at creation, start and end run as in RLlib).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.utils.metrics import (
    ENV_STEP_TIMER,
    NUM_AGENT_STEPS_SAMPLED,
    NUM_AGENT_STEPS_SAMPLED_LIFETIME,
    NUM_ENV_STEPS_SAMPLED,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_EPISODES,
    NUM_EPISODES_LIFETIME,
    NUM_MODULE_STEPS_SAMPLED,
    NUM_MODULE_STEPS_SAMPLED_LIFETIME,
    RLMODULE_INFERENCE_TIMER,
    WEIGHTS_SEQ_NO,
)

from agents.bots.model_file import PolicyWeights
from agents.bots.threads import set_torch_threads
from agents.training.core.config import PoolConfig
from agents.training.core.league import GameEnd
from agents.training.core.seating import Seating
from agents.training.rllib.fast_tables import FastTables
from gubs_env.envs.rllib_seats import MASK_KEY, OBS_KEY, AgentDict, rule_options_of, skip_forced_of, table_sizes

_NOT_STORED = (Columns.ACTIONS, Columns.ACTIONS_FOR_ENV)
"""Module outputs that are not extra model outputs of a step (the action is stored as the action)."""


class FastEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner with its games on one :class:`FastTables`.

    Used as ``config.env_runners(env_runner_cls=FastEnvRunner)`` with
    :class:`~gubs_env.envs.rllib_env.GubsMultiAgentEnv` as the env: its config gives the table sizes and rule options.
    """

    def make_env(self) -> None:
        """RLlib's vector env (its spaces, agent ids, env check and callbacks), and the games it stands for."""
        # An env runner has one CPU (train.py asks for one each). Torch's default of a thread per core made each
        # forward pass over 64 games wait on a second thread whose core was busy: a remote runner sampled 8x slower.
        set_torch_threads(1)
        super().make_env()
        config = self.config.env_config
        # the runners' games are the run's slots, numbered runner after runner (the local runner is 0)
        first = (self.worker_index or 0) * self.num_envs  # a runner built alone has no index
        seating = seating_of(config, self.num_envs)
        self._tables = FastTables(
            self.num_envs, table_sizes(config), rule_options_of(config), first, skip_forced=skip_forced_of(config),
            seating=seating,
        )  # fmt: skip
        if hasattr(self, "_league"):  # the league arrived before the games were built
            seating.set_league(*self._league)
        self._acting: list[tuple[str, dict[str, np.ndarray]]] = [("", {})] * self.num_envs
        """Per slot, the agent that must decide and its observation."""

    def set_league(self, snapshots: list[tuple[str, PolicyWeights]], draw_weights: list[float]) -> None:
        """The league's snapshots and their drawing weights, for the games seated from now on."""
        self._league = (snapshots, draw_weights)
        if hasattr(self, "_tables"):  # a local runner beside remote ones plays no games
            self._tables.seating.set_league(snapshots, draw_weights)

    def set_draw_weights(self, draw_weights: list[float]) -> None:
        """New drawing weights for the snapshots this runner holds."""
        snapshots: list[tuple[str, PolicyWeights]] = getattr(self, "_league", ([], []))[0]
        self.set_league(snapshots, draw_weights)

    def take_games(self) -> list[GameEnd]:
        """The learner's games that ended since the last call, as the league counts them."""
        if not hasattr(self, "_tables"):
            return []
        ended, self._tables.ended = self._tables.ended, []
        return ended

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[MultiAgentEpisode]:
        """At least ``num_timesteps`` env steps (or ``num_episodes`` whole episodes) from every slot together.

        Returns what RLlib's loop returns: the episodes that ended, then (when counting timesteps) a chunk of
        every ongoing one, which goes on in the next call.
        """
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._deal_all()
        if num_episodes is not None:
            self._needs_initial_reset = True
        done: list[MultiAgentEpisode] = []
        counts = _Counts()
        while counts.more(num_timesteps, num_episodes, self.config.count_steps_by):
            with self.metrics.log_time(RLMODULE_INFERENCE_TIMER):
                actions, extras = self._choose(explore, random_actions)
            with self.metrics.log_time(ENV_STEP_TIMER):
                results = self._tables.step(actions)
            ended = []
            episodes = self._episodes()
            for slot, result in enumerate(results):
                assert result is not None  # every slot has a game running: ended ones are dealt again at once
                name = self._acting[slot][0]
                episode = episodes[slot]
                observations, rewards, terminateds, truncateds, infos = result
                episode.add_env_step(
                    observations=observations,
                    actions={name: int(actions[slot])},
                    rewards=rewards,
                    infos=infos,
                    terminateds=terminateds,
                    truncateds=truncateds,
                    extra_model_outputs={name: extras[slot]} if extras[slot] else {},
                )
                counts.add(observations, episode)
                if episode.is_done:
                    ended.append(slot)
                else:
                    self._acting[slot] = next(iter(observations.items()))
            for slot in ended:
                episode = episodes[slot]
                self._make_on_episode_callback("on_episode_end", slot, episodes)
                self._prune_zero_len_sa_episodes(episode)
                done.append(episode.to_numpy() if self.episodes_to_numpy else episode)
                if num_episodes is not None and counts.episodes >= num_episodes:
                    break
            if ended:
                self._deal(ended, [None] * len(ended))
        self._log_counts(counts)
        self._done_episodes_for_metrics.extend(done)
        return done + self._cut_ongoing() if num_timesteps is not None else done

    def _deal_all(self) -> None:
        """New games and episodes in every slot; seeded like RLlib's vector env on the first deal."""
        self._ongoing_episodes = [None] * self.num_envs
        self._ongoing_episodes_for_metrics.clear()
        first = self._needs_initial_reset and self._seed is not None
        seeds = [self._seed + slot if first else None for slot in range(self.num_envs)]  # type: ignore[operator]
        self._deal(list(range(self.num_envs)), seeds)
        self._needs_initial_reset = False

    def _deal(self, slots: list[int], seeds: list[int | None]) -> None:
        """A new game and a new episode in each of ``slots``."""
        for slot, observations in zip(slots, self._tables.reset(slots, seeds), strict=True):
            self._new_episode(slot, self._ongoing_episodes)
            self._episodes()[slot].add_env_reset(observations=observations, infos={})
            self._make_on_episode_callback("on_episode_start", slot, self._episodes())
            self._acting[slot] = next(iter(observations.items()))

    def _choose(self, explore: bool, random_actions: bool) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """Every slot's action, each module choosing for all its slots at once; and each step's model outputs."""
        actions = np.zeros(self.num_envs, dtype=np.int64)
        extras: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        by_module: dict[str, list[int]] = {}
        for slot, (name, _) in enumerate(self._acting):
            by_module.setdefault(str(self._episodes()[slot].module_for(name)), []).append(slot)
        for module_id, slots in by_module.items():
            masks = np.stack([self._acting[slot][1][MASK_KEY] for slot in slots])
            if random_actions:  # uniform among the legal ids (an illegal one would end the game)
                actions[slots] = [np.random.choice(np.flatnonzero(mask)) for mask in masks]
                continue
            vectors = np.stack([self._acting[slot][1][OBS_KEY] for slot in slots])
            output = self._forward(module_id, vectors, masks, explore)
            actions[slots] = output[Columns.ACTIONS]
            stored = [column for column in output if column not in _NOT_STORED]
            for row, slot in enumerate(slots):
                if stored:
                    extras[slot] = {column: output[column][row] for column in stored}
                    extras[slot][WEIGHTS_SEQ_NO] = self._weights_seq_no
        return actions, extras

    def _forward(self, module_id: str, vectors: np.ndarray, masks: np.ndarray, explore: bool) -> dict[str, Any]:
        """One module's pass over a batch of observations: its actions and other outputs, as numpy arrays.

        The actions are drawn from the module's action distribution (its greedy choice unless exploring), unless
        the module gives them itself (the fixed agents).
        """
        assert self.module is not None  # RLlib builds it with the runner
        module = self.module[module_id]
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(vectors), MASK_KEY: torch.from_numpy(masks)}}
        with torch.no_grad():
            output = dict(module.forward_exploration(batch) if explore else module.forward_inference(batch))
            if Columns.ACTIONS not in output:
                get_class = module.get_exploration_action_dist_cls if explore else module.get_inference_action_dist_cls
                distribution = get_class().from_logits(output[Columns.ACTION_DIST_INPUTS])
                if not explore:
                    distribution = distribution.to_deterministic()
                output[Columns.ACTIONS] = distribution.sample()
                output.setdefault(Columns.ACTION_LOGP, distribution.logp(output[Columns.ACTIONS]))
        return {column: _to_numpy(value) for column, value in output.items()}

    def _cut_ongoing(self) -> list[MultiAgentEpisode]:
        """Chunks of the ongoing episodes to return now; they go on in their continuations (as RLlib's loop)."""
        chunks = []
        ongoing = self._episodes()
        continuations = [episode.cut(len_lookback_buffer=self.config.episode_lookback_horizon) for episode in ongoing]
        for episode in ongoing:
            if episode.env_t == 0:
                continue
            episode.validate()
            self._ongoing_episodes_for_metrics[episode.id_].append(episode)
            self._prune_zero_len_sa_episodes(episode)
            chunks.append(episode.to_numpy() if self.episodes_to_numpy else episode)
        self._ongoing_episodes = list(continuations)
        return chunks

    def _episodes(self) -> list[MultiAgentEpisode]:
        """The ongoing episode of every slot (RLlib's list allows None, which only a slot never dealt holds)."""
        return cast(list[MultiAgentEpisode], self._ongoing_episodes)

    def _log_counts(self, counts: _Counts) -> None:
        """The sampling metrics RLlib's loop logs step by step, logged once for the whole call."""
        if counts.env_steps:
            self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=counts.env_steps)
        self.metrics.log_value(NUM_ENV_STEPS_SAMPLED, counts.env_steps, reduce="sum")
        self.metrics.log_value(
            NUM_ENV_STEPS_SAMPLED_LIFETIME, counts.env_steps, reduce="lifetime_sum", with_throughput=True
        )
        if counts.episodes:
            self.metrics.log_value(NUM_EPISODES, counts.episodes, reduce="sum")
            self.metrics.log_value(NUM_EPISODES_LIFETIME, counts.episodes, reduce="lifetime_sum")
        for agent, steps in counts.agents.items():
            self.metrics.log_value((NUM_AGENT_STEPS_SAMPLED, agent), steps, reduce="sum")
            self.metrics.log_value((NUM_AGENT_STEPS_SAMPLED_LIFETIME, agent), steps, reduce="lifetime_sum")
        for module_id, steps in counts.modules.items():
            self.metrics.log_value((NUM_MODULE_STEPS_SAMPLED, module_id), steps, reduce="sum")
            self.metrics.log_value((NUM_MODULE_STEPS_SAMPLED_LIFETIME, module_id), steps, reduce="lifetime_sum")


LEAGUE_KEY = "league"
"""The env config's entry the run's league comes in: its pool's fields, its seed and its fixed opponent's spec."""


def league_config(pool: PoolConfig, seed: int, opponent: str | None) -> dict[str, Any]:
    """The league's settings as the env config carries them to the env runners (Ray's configs are plain dicts)."""
    fields = {item: getattr(pool, item) for item in pool.__dataclass_fields__}
    return {"pool": fields, "seed": seed, "opponent": opponent}


def seating_of(config: Any, num_slots: int) -> Seating:
    """The seating of an env runner's games, from the env config's league (none: pure self-play)."""
    league = config.get(LEAGUE_KEY) or {}
    opponent = None
    if league.get("opponent") is not None:
        from agents.bots.registry import make_agent

        opponent = make_agent(league["opponent"], int(league.get("seed", 0)))
    return Seating(num_slots, PoolConfig(**league.get("pool", {})), int(league.get("seed", 0)), opponent)


class _Counts:
    """What one ``sample()`` call has sampled, counted as RLlib's loop counts it."""

    def __init__(self) -> None:
        self.env_steps = 0
        self.agent_steps = 0
        self.episodes = 0
        self.agents: Counter[str] = Counter()
        self.modules: Counter[str] = Counter()

    def add(self, observations: AgentDict, episode: MultiAgentEpisode) -> None:
        """One env step whose next observations are ``observations`` (RLlib counts an agent per observation)."""
        self.env_steps += 1
        self.agent_steps += len(observations)
        self.episodes += episode.is_done
        for name in observations:
            self.agents[str(name)] += 1
            self.modules[str(episode.module_for(name))] += 1

    def more(self, num_timesteps: int | None, num_episodes: int | None, count_steps_by: str) -> bool:
        """Whether to step again: fewer than ``num_timesteps`` steps, or ``num_episodes`` episodes, so far."""
        if num_timesteps is None:
            return self.episodes < (num_episodes or 0)
        return (self.env_steps if count_steps_by == "env_steps" else self.agent_steps) < num_timesteps


def _to_numpy(value: Any) -> Any:
    """A module output as numpy (tensors are detached first; anything else goes through ``np.asarray``)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)
