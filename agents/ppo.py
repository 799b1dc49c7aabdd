"""A trained MaskablePPO policy as an agent, and the shipped models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.base import Agent, legal_ids

MODELS_DIR = Path(__file__).resolve().parent / "models"
PRETRAINED = {"2p": "gubs_2p.zip", "4p": "gubs_4p.zip"}
"""Shipped models by name: trained by train.py (see the README for the commands)."""


class PPOAgent(Agent):
    """Plays a ``sb3_contrib.MaskablePPO`` policy, always passing the action mask.

    Args:
        model: a loaded ``MaskablePPO`` (or anything with its ``policy.predict``).
        deterministic: take the most likely legal action (default) or sample from the policy.
        name: how the agent is reported.
        seed: seeds the sampling when ``deterministic`` is False.
        frozen: the model's weights will not change (a snapshot): they are read once, not checked at every
            call for training updates.
    """

    def __init__(
        self, model, deterministic: bool = True, name: str = "ppo", seed: int | None = None, frozen: bool = False
    ) -> None:
        super().__init__(seed)
        self.model = model
        self.deterministic = deterministic
        self.name = name
        self.frozen = frozen

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, name: str | None = None) -> PPOAgent:
        """Load a model saved by ``MaskablePPO.save`` (a .zip file)."""
        from sb3_contrib import MaskablePPO

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no model file at {path}")
        model = MaskablePPO.load(path, device="cpu")
        return cls(model, deterministic=deterministic, name=name or path.stem)

    @staticmethod
    def export(source: str | Path, target: str | Path) -> Path:
        """Save a trained model for shipping: the policy only, without the optimizer's state (a smaller file)."""
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(source, device="cpu")
        policy = model.policy
        # A fresh optimizer holds no moment estimates: two thirds of a training checkpoint's size.
        policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-4, **policy.optimizer_kwargs)
        target = Path(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        model.save(target)
        return target

    @classmethod
    def pretrained(cls, name: str = "2p", deterministic: bool = True) -> PPOAgent:
        """A shipped model by name: ``"2p"`` or ``"4p"``."""
        if name not in PRETRAINED:
            raise ValueError(f"unknown pretrained model {name!r}; shipped: {sorted(PRETRAINED)}")
        return cls.load(MODELS_DIR / PRETRAINED[name], deterministic=deterministic, name=f"ppo-{name}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's choice among the legal ids: the most likely one, or a sample."""
        legal = legal_ids(action_mask)
        logits = self.action_logits(observation, legal)
        if self.deterministic:
            return int(legal[np.argmax(logits)])
        weights = np.exp(logits - logits.max()).cumsum()
        return int(legal[np.searchsorted(weights, self.rng.random() * weights[-1], side="right")])

    def action_logits(self, observation: np.ndarray, ids: np.ndarray | None = None) -> np.ndarray:
        """The policy's logits before masking: for every id, or only for ``ids``.

        The actor's forward pass (features, actor layers, action head) in numpy: the numbers
        ``MaskablePPO.predict`` uses, at a fraction of torch's per-call cost for one observation, which
        matters when agents play many games. The weights are copied again whenever training changed them.
        Giving the legal ids skips the action head's other rows (most of them: a few ids are legal at a time).
        """
        (first_weight_t, first_bias), *hidden, (head_weight, head_bias) = self._actor_layers()
        x = np.asarray(observation, dtype=np.float32).reshape(-1)
        # An observation has a few dozen non-zero values: the first layer reads only their weight rows.
        nonzero = np.flatnonzero(x)
        x = self._activation(x[nonzero] @ first_weight_t[nonzero] + first_bias)
        for weight, bias in hidden:
            x = self._activation(weight @ x + bias)
        if ids is None:
            return head_weight @ x + head_bias
        return head_weight[ids] @ x + head_bias[ids]

    def _actor_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The actor's (weight, bias) pairs in numpy, the first weight transposed."""
        import torch

        policy = self.model.policy
        if getattr(self, "_layers_policy", None) is not policy:
            linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
            self._linears = [*linears, policy.action_net]
            self._activation = _numpy_activation(policy.mlp_extractor.policy_net)
            self._layers_policy, self._layers_version = policy, None
        elif self.frozen:
            return self._layers
        # every in-place change of a tensor (an optimizer step) bumps its version: then copy the weights again
        version = tuple(m.weight._version + m.bias._version for m in self._linears)
        if version != self._layers_version:
            self._layers = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in self._linears]
            first_weight, first_bias = self._layers[0]
            self._layers[0] = (np.ascontiguousarray(first_weight.T), first_bias)  # one input's weights per row
            self._layers_version = version
        return self._layers


def _numpy_activation(network) -> Callable[[np.ndarray], np.ndarray]:
    """The numpy twin of the activation between the actor's layers (SB3's MLPs use one kind throughout)."""
    import torch

    kinds = {type(m) for m in network if not isinstance(m, torch.nn.Linear)}
    if kinds == {torch.nn.Tanh}:
        return np.tanh
    if kinds == {torch.nn.ReLU}:
        return lambda x: np.maximum(x, 0)
    raise ValueError(f"PPOAgent supports Tanh or ReLU actor networks, not {sorted(k.__name__ for k in kinds)}")
