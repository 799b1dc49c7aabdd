"""The sb3 backend behind the loop: each iteration is one ``MaskablePPO.learn`` chunk, a rollout and its update.

The learner sits at one seat of each of ``envs`` games (:class:`~agents.training.sb3.fast_vec_env.FastSelfPlayVecEnv`);
the seating plays every other seat, the learner's current policy's among them as a sampling copy of its actor sent
before each rollout. The checkpoint is sb3's own zip file, loaded only once its bytes match run.json's digest.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger

from agents.bots.model_file import PolicyWeights, actor_modules, policy_weights
from agents.training.core.backend import Iteration, Network
from agents.training.core.config import CLIP_RANGE, MAX_GRAD_NORM, VALUE_COEF, TrainingConfig, learner_device
from agents.training.core.diagnostics import cosine
from agents.training.core.league import GameEnd
from agents.training.core.phases import ENVIRONMENTS
from agents.training.core.runs import RunSetupError
from agents.training.core.seating import Seating
from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv

SB3_DIAGNOSTICS = {
    "train/entropy_loss": "entropy",
    "train/approx_kl": "approx_kl",
    "train/clip_fraction": "clip_fraction",
    "train/explained_variance": "explained_variance",
    "train/value_loss": "value_loss",
    "train/policy_gradient_loss": "policy_loss",
    "train/learning_rate": "learning_rate",
}
"""sb3's logged values of an update, under progress.csv's names (the entropy loss is minus the entropy)."""


def make(config: TrainingConfig, verbose: bool = False) -> Sb3Backend:
    """The sb3 backend for ``config`` (resolved)."""
    return Sb3Backend(config)


class Sb3Backend:
    """sb3-contrib's MaskablePPO in this process (see the module's description)."""

    def __init__(self, config: TrainingConfig) -> None:
        assert config.envs is not None and config.n_steps is not None, "resolve the config"
        self.config = config
        self.rollout = config.envs * config.n_steps
        self.seating = Seating.of(config, config.envs, learner_plays_self=False)
        self.envs = FastSelfPlayVecEnv(self.seating, config.players, seed=config.seed)
        self.model = self._new_model()
        self.callback = _Rollouts(self.envs)

    def _new_model(self) -> Any:
        from sb3_contrib import MaskablePPO

        from agents.training.sb3.masked_policy import LeanMaskablePolicy

        config = self.config
        assert config.learning_rate is not None and config.ent_coef is not None, "resolve the config"
        assert config.gamma is not None and config.gae_lambda is not None and config.n_steps is not None
        model = MaskablePPO(
            LeanMaskablePolicy,
            self.envs,
            n_steps=config.n_steps,
            batch_size=config.batch_size,
            learning_rate=config.learning_rate,
            n_epochs=config.epochs or 1,
            gamma=config.gamma,
            gae_lambda=config.gae_lambda,
            ent_coef=config.ent_coef,
            max_grad_norm=MAX_GRAD_NORM,
            clip_range=CLIP_RANGE,
            vf_coef=VALUE_COEF,
            seed=config.seed,
            device=learner_device(config.device),
            policy_kwargs={"net_arch": list(config.hidden)},
        )
        model.set_logger(Logger(None, []))  # the update's values are read back, not written by sb3
        return model

    def network(self) -> Network:
        """The policy's actor and critic, for the warm start."""
        policy = self.model.policy
        return Network(policy.parameters(), sb3_heads(self.model), actor_modules(policy)[0])

    def iterate(self) -> Iteration:
        """One rollout of ``n_steps`` in every game, then sb3's update on it."""
        model = self.model
        self.seating.set_self(policy_weights(model.policy))
        steps, env_seconds = model.num_timesteps, self.envs.env_seconds
        model.ent_coef = self.config.entropy_at(steps)
        model.learn(total_timesteps=self.rollout, callback=self.callback, reset_num_timesteps=False,
                    log_interval=None)  # fmt: skip
        logged = model.logger.name_to_value
        diagnostics = {name: float(logged[key]) for key, name in SB3_DIAGNOSTICS.items() if key in logged}
        if "entropy" in diagnostics:
            diagnostics["entropy"] = -diagnostics["entropy"]
        diagnostics["grad_cosine"] = self.callback.grad_cosine
        diagnostics["entropy_coef"] = float(model.ent_coef)
        logged.clear()
        seconds = {ENVIRONMENTS: self.envs.env_seconds - env_seconds}
        return Iteration(model.num_timesteps - steps, diagnostics, self.callback.take_games(), seconds)

    def policy(self) -> PolicyWeights:
        """The actor, in numpy."""
        return policy_weights(self.model.policy)

    def set_league(self, snapshots: Sequence[tuple[str, PolicyWeights]], draw_weights: Sequence[float]) -> None:
        """The league's snapshots, for the episodes seated from now on."""
        self.seating.set_league(snapshots, draw_weights)

    def save(self, path: Path) -> None:
        """sb3's zip file of the learner."""
        buffer = io.BytesIO()
        self.model.save(buffer)
        path.write_bytes(buffer.getvalue())

    def load(self, checkpoint: bytes | Path) -> None:
        """The verified checkpoint's learner, with the config's step size and entropy bonus.

        Raises:
            RunSetupError: a checkpoint sb3 cannot load; the run is left as it was.
        """
        from sb3_contrib import MaskablePPO

        assert isinstance(checkpoint, bytes), "the sb3 checkpoint is one file"
        config = self.config
        try:  # a library's loader fails in many ways (zip, pickle, torch, spaces)
            model = MaskablePPO.load(
                io.BytesIO(checkpoint),
                env=self.envs,
                device=learner_device(config.device),
                learning_rate=config.learning_rate,
                ent_coef=config.ent_coef,
            )
        except Exception as error:
            lines = str(error).strip().splitlines()
            first = lines[0][:200] if lines else ""
            why = f"{type(error).__name__}: {first}"
            raise RunSetupError(f"the checkpoint matches its digest but cannot be loaded: {why}") from None
        model.set_logger(Logger(None, []))
        self.model = model

    def close(self) -> None:
        """Nothing to release: the games are arrays of this process."""


class _Rollouts(BaseCallback):
    """Collects what the loop wants of each rollout: the learner's ended games and the gradient agreement."""

    def __init__(self, envs: FastSelfPlayVecEnv) -> None:
        super().__init__()
        self.envs = envs
        self.games: list[GameEnd] = []
        self.grad_cosine = math.nan

    def _on_step(self) -> bool:
        for i, info in enumerate(self.locals["infos"]):
            if "opponents" in info:  # an episode ended
                self.games.append(_game_end(info, int(self.envs.num_players[i])))
        return True

    def _on_rollout_end(self) -> None:
        # the advantages are computed by now; the update that follows learns from this very rollout
        buffer = self.model.rollout_buffer  # type: ignore[attr-defined]  # an on-policy algorithm has one
        self.grad_cosine = rollout_grad_cosine(self.model.policy, buffer)

    def take_games(self) -> list[GameEnd]:
        """The games ended since the last call."""
        games, self.games = self.games, []
        return games


def _game_end(info: dict[str, Any], players: int) -> GameEnd:
    """An ended episode's seats as the league counts them (labels clockwise from the learner)."""
    labels, learner = tuple(info["opponents"]), int(info["learner_seat"])
    seats = tuple((learner + j + 1) % players for j in range(len(labels)))
    return GameEnd(labels, seats, tuple(info.get("winners", ())), learner)


def rollout_grad_cosine(policy: Any, buffer: Any) -> float:
    """The cosine between the actor's policy gradients of a rollout's two halves: even and odd environments.

    Each environment plays its own games, so the halves share no game. The gradient is that of
    ``-mean(advantage * log_prob)`` over the actor's parameters (its hidden layers and head), with the rollout's
    advantages centred on their mean as the update uses them. nan with a single environment.
    """
    import torch

    if buffer.n_envs < 2:
        return float("nan")
    actor = [p for name, p in policy.named_parameters() if name.startswith(("mlp_extractor.policy_net", "action_net"))]
    device = policy.device  # the rollout is numpy on the CPU; the policy may be on a GPU
    advantages = torch.as_tensor(buffer.advantages - buffer.advantages.mean(), dtype=torch.float32, device=device)
    gradients = []
    for parity in (0, 1):
        envs = slice(parity, None, 2)
        obs = torch.as_tensor(buffer.observations[:, envs], device=device).reshape(-1, buffer.observations.shape[-1])
        actions = torch.as_tensor(buffer.actions[:, envs], device=device).reshape(-1).long()
        masks = buffer.action_masks[:, envs].reshape(-1, buffer.action_masks.shape[-1])
        _, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
        loss = -(advantages[:, envs].reshape(-1) * log_prob).mean()
        gradients.append(torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, actor)]))
    return cosine(gradients[0], gradients[1])


def sb3_heads(model: Any) -> Callable[[Any], tuple[Any, Any]]:
    """An sb3 learner's policy logits and values for a batch of observations: what :func:`fit` fits."""
    policy = model.policy

    def heads(observations: Any) -> tuple[Any, Any]:
        logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.pi_features_extractor(observations)))
        values = policy.value_net(policy.mlp_extractor.forward_critic(policy.vf_features_extractor(observations)))
        return logits, values[:, 0]

    return heads
