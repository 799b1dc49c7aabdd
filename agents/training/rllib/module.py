"""The RLModules: the project's masked PPO module, fixed agents as modules, and the actor's export.

:class:`MaskedPPOModule` is RLlib's default PPO torch module over the observation vector alone, with illegal
ids pushed to the lowest float before the action distribution is built: sampling and the greedy choice only
ever pick a legal id, and the PPO loss sees the same masked distribution. The actor is a plain MLP (one
activation kind) followed by a linear head, so :func:`actor_layers` can export exactly what it computes.

:class:`FixedAgentModule` lets any :class:`agents.bots.base.Agent` (the random and heuristic agents) play a seat as a
module of the multi-agent module: never trained, it hands back the agent's actions directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from agents.bots.base import Agent
from agents.training.core.features import INPUT_SPACE, with_rule_facts
from agents.training.rllib.env import MASK_KEY, OBS_KEY

ACTIVATIONS: dict[type[torch.nn.Module], str] = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
"""Activation layers an exported actor may use, by the name the weights-only model file records."""

_LOWEST = torch.finfo(torch.float32).min
RULE_FACTS = "rule_facts"
"""The ``model_config`` key that gives the module's networks the rule facts too (``TrainingConfig.rule_facts``)."""


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where the mask allows an id, the lowest float32 elsewhere."""
    return torch.where(mask > 0, logits, torch.full_like(logits, _LOWEST))


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module, reading ``{"observations", "action_mask"}`` and masking its logits.

    The encoder and heads are built for the observation vector, or with ``model_config["rule_facts"]`` for the
    observation followed by its rule facts (:mod:`agents.training.core.features`, worked out in every pass); the
    module keeps the Dict space as its observation space, so connectors and checks see the env's real space.

    Raises:
        ValueError: an observation space other than the env's Dict of ``observations`` and ``action_mask``.
    """

    def __init__(self, *args: Any, observation_space: spaces.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space of {OBS_KEY!r} and {MASK_KEY!r}, "
                f"not {observation_space!r}"
            )
        model_config = kwargs.get("model_config")
        facts = isinstance(model_config, dict) and model_config.get(RULE_FACTS) is True
        super().__init__(*args, observation_space=INPUT_SPACE if facts else observation_space[OBS_KEY], **kwargs)
        self.observation_space = observation_space
        self.rule_facts = facts

    def inputs(self, observations: torch.Tensor) -> torch.Tensor:
        """What the networks read for a batch of observation vectors (with the rule facts when the module has them)."""
        return with_rule_facts(observations) if self.rule_facts else observations

    def _split(self, batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """The batch with the networks' inputs under ``obs``, and the action mask."""
        observation = batch[Columns.OBS]
        return {**batch, Columns.OBS: self.inputs(observation[OBS_KEY])}, observation[MASK_KEY]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: the default forward pass on the vector, then the mask."""
        inner, mask = self._split(batch)
        output = super()._forward(inner, **kwargs)
        output[Columns.ACTION_DIST_INPUTS] = mask_logits(output[Columns.ACTION_DIST_INPUTS], mask)
        return output

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training: the default train pass on the vector, then the mask (the loss sees the masked policy)."""
        inner, mask = self._split(batch)
        output = super()._forward_train(inner, **kwargs)
        output[Columns.ACTION_DIST_INPUTS] = mask_logits(output[Columns.ACTION_DIST_INPUTS], mask)
        return output

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """The critic's values, from the observation vector."""
        if embeddings is None:
            batch, _ = self._split(batch)
        return torch.as_tensor(super().compute_values(batch, embeddings))

    def actor_logits(self, observations: np.ndarray) -> np.ndarray:
        """The actor's logits before masking for a batch of observation vectors (float32, one row each)."""
        with torch.no_grad():
            inner = {Columns.OBS: self.inputs(torch.as_tensor(np.asarray(observations, dtype=np.float32)))}
            return super()._forward(inner)[Columns.ACTION_DIST_INPUTS].cpu().numpy()


def actor_layers(module: MaskedPPOModule) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The actor as ``(weight (out, in), bias (out,))`` pairs from input to output, and its activation.

    Raises:
        ValueError: the actor is not a plain MLP with one activation kind (tanh or relu) and a linear head.
    """
    linears, activation = actor_linears(module)
    layers = [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]
    return layers, activation


def actor_linears(module: MaskedPPOModule) -> tuple[list[torch.nn.Linear], str]:
    """The actor's linear layers from input to output, and its activation.

    Raises:
        ValueError: see :func:`actor_layers`.
    """
    actor = getattr(module.encoder, "actor_encoder", None)
    if actor is None:
        raise ValueError("the module shares its encoder with the critic (vf_share_layers): export needs its own actor")
    parts = [m for m in actor.modules() if not list(m.children())] + [
        m for m in module.pi.modules() if not list(m.children())
    ]
    linears = [m for m in parts if isinstance(m, torch.nn.Linear)]
    others = {type(m) for m in parts if not isinstance(m, (torch.nn.Linear, torch.nn.Identity))}
    if len(others) != 1 or next(iter(others)) not in ACTIVATIONS:
        raise ValueError(f"the actor must use one activation of {sorted(ACTIVATIONS.values())}, not {others}")
    if not isinstance(parts[-1], torch.nn.Linear):
        raise ValueError("the actor must end with a linear layer (no output activation)")
    return linears, ACTIVATIONS[next(iter(others))]


def _fixed_agent(name: str, seed: int) -> Agent:
    """The fixed agent a :class:`FixedAgentModule` plays: ``random`` or ``heuristic``."""
    if name == "random":
        from agents.bots.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "heuristic":
        from agents.bots.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    raise ValueError(f"a fixed-agent module plays 'random' or 'heuristic', not {name!r}")


class FixedAgentModule(RLModule):
    """A module that is never trained: the agent named by ``model_config["agent"]`` chooses each row's action.

    A plain (not a torch) module: the torch learner leaves it out of its optimizers, as it should.
    """

    def setup(self) -> None:
        """Build the agent (``random`` or ``heuristic``) from the module's config."""
        config = self.model_config if isinstance(self.model_config, dict) else {}
        self.agent = _fixed_agent(config.get("agent", ""), int(config.get("seed", 0)))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The agent's action for every row of the batch."""
        observations = np.asarray(batch[Columns.OBS][OBS_KEY], dtype=np.float32)
        masks = np.asarray(batch[Columns.OBS][MASK_KEY])
        actions = [self.agent.act(observation, mask) for observation, mask in zip(observations, masks, strict=True)]
        return {Columns.ACTIONS: np.array(actions, dtype=np.int64)}


def imitation_heads(module: MaskedPPOModule) -> Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """The module's unmasked logits and values for a batch of observation vectors, with gradients.

    What the warm start fits (:func:`agents.training.imitation.demonstrations.fit`), as the sb3 learner's heads are
    fitted.
    """

    def heads(observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inner = {Columns.OBS: module.inputs(observations)}
        logits = DefaultPPOTorchRLModule._forward(module, inner)[Columns.ACTION_DIST_INPUTS]
        return logits, torch.as_tensor(DefaultPPOTorchRLModule.compute_values(module, inner))

    return heads
