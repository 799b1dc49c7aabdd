"""The RLModule the RLlib backend trains: the project's masked PPO module, and the actor's export.

:class:`MaskedPPOModule` is RLlib's default PPO torch module over the observation vector alone, with illegal
ids pushed to the lowest float before the action distribution is built: sampling and the greedy choice only
ever pick a legal id, and the PPO loss sees the same masked distribution. The actor is a plain MLP (one
activation kind) followed by a linear head, so :func:`actor_layers` can export exactly what it computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

from gubs_env.envs.rllib_env import MASK_KEY, OBS_KEY

ACTIVATIONS: dict[type[torch.nn.Module], str] = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
"""Activation layers an exported actor may use, by the name the weights-only model file records."""

MAIN = "main"
"""The module id of the policy the backend trains: every agent of the games maps to it."""
_LOWEST = torch.finfo(torch.float32).min


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where the mask allows an id, the lowest float32 elsewhere."""
    return torch.where(mask > 0, logits, torch.full_like(logits, _LOWEST))


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module, reading ``{"observations", "action_mask"}`` and masking its logits.

    The encoder and heads are built for the observation vector; the module keeps the Dict space as its observation
    space, so connectors and checks see the env's real space.

    Raises:
        ValueError: an observation space other than the env's Dict of ``observations`` and ``action_mask``.
    """

    def __init__(self, *args: Any, observation_space: spaces.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space of {OBS_KEY!r} and {MASK_KEY!r}, "
                f"not {observation_space!r}"
            )
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)
        self.observation_space = observation_space

    def _split(self, batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """The batch with the networks' inputs under ``obs``, and the action mask."""
        observation = batch[Columns.OBS]
        return {**batch, Columns.OBS: observation[OBS_KEY]}, observation[MASK_KEY]

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
            inner = {Columns.OBS: torch.as_tensor(np.asarray(observations, dtype=np.float32))}
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


def imitation_heads(module: MaskedPPOModule) -> Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """The module's unmasked logits and values for a batch of observation vectors, with gradients.

    What the warm start fits (:func:`agents.training.imitation.demonstrations.fit`), as the sb3 learner's heads are
    fitted.
    """

    def heads(observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inner = {Columns.OBS: observations}
        logits = DefaultPPOTorchRLModule._forward(module, inner)[Columns.ACTION_DIST_INPUTS]
        return logits, torch.as_tensor(DefaultPPOTorchRLModule.compute_values(module, inner))

    return heads
