"""A trained MaskablePPO policy as an agent, and the shipped models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.bots.base import Agent, legal_ids
from agents.bots.model_file import Layer, PolicyWeights, actor_modules, load_policy, save_policy

MODELS_DIR = Path(__file__).resolve().parent / "models"
PRETRAINED = {"2p": "gubs_2p.zip", "4p": "gubs_4p.zip", "net": "gubs_net.npz"}
"""Shipped models by name: trained by train.py (docs/training.md has the commands)."""
SHIPPED_SPECS = {"ppo-2p": "2p", "ppo-4p": "4p", "gubs-net": "net"}
"""The agent spec of each shipped model: the two size-specific models and the one network for 2 to 6 players."""

ACTIVATION_FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0),
}
"""The numpy twin of each activation :mod:`agents.bots.model_file` accepts."""


class PPOAgent(Agent):
    """Plays a MaskablePPO actor, always passing the action mask, with a numpy forward pass.

    Args:
        model: the weights to play: :class:`~agents.bots.model_file.PolicyWeights` read from a file (how
            :meth:`load` and :meth:`pretrained` build an agent), or a live ``MaskablePPO`` (the learner during
            training), whose weights are copied again whenever training changed them.
        deterministic: take the most likely legal action (default) or sample from the policy.
        name: how the agent is reported.
        seed: seeds the sampling when ``deterministic`` is False.
        frozen: a live model's weights will not change (a snapshot): they are read once, not checked at every
            call for training updates. PolicyWeights never change.
    """

    def __init__(
        self,
        model: PolicyWeights | Any,
        deterministic: bool = True,
        name: str = "ppo",
        seed: int | None = None,
        frozen: bool = False,
    ) -> None:
        super().__init__(seed)
        self.model = model
        self.deterministic = deterministic
        self.name = name
        self.frozen = frozen
        self._source: object = None
        """What the prepared layers were read from (a PolicyWeights or a live policy): another one is read anew."""
        self._version: tuple[int, ...] | None = None
        self._layers: list[Layer] = []
        self._activation: Callable[[np.ndarray], np.ndarray] = np.tanh
        self._linears: list[Any] = []

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, name: str | None = None) -> PPOAgent:
        """Load the actor of a model file through :func:`agents.bots.model_file.load_policy` (nothing in it is run).

        Raises:
            FileNotFoundError: nothing at ``path``.
            agents.bots.model_file.ModelFileError: the file is not a model that can be read safely.
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no model file at {path}")
        return cls(load_policy(path), deterministic=deterministic, name=name or path.stem)

    @staticmethod
    def export(source: str | Path, target: str | Path) -> Path:
        """Write a model's actor for shipping in the weights-only format (see :mod:`agents.bots.model_file`).

        The source is read safely; the target holds the actor's weights only (no critic, no optimizer state).
        """
        weights = load_policy(source)
        return save_policy(target, weights.layers, weights.activation)

    @classmethod
    def pretrained(cls, name: str = "2p", deterministic: bool = True) -> PPOAgent:
        """A shipped model by name: ``"2p"``, ``"4p"`` or ``"net"`` (the one network for every table size)."""
        if name not in PRETRAINED:
            raise ValueError(f"unknown pretrained model {name!r}; shipped: {sorted(PRETRAINED)}")
        spec = next(spec for spec, short in SHIPPED_SPECS.items() if short == name)
        return cls.load(MODELS_DIR / PRETRAINED[name], deterministic=deterministic, name=spec)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's choice among the legal ids: the most likely one, or a sample.

        Raises:
            ValueError: ``observation`` is not one observation of the model's input size, the mask's shape does
                not fit, or the mask allows no action. A batch goes to :meth:`act_batch`.
        """
        if np.ndim(observation) != 1:
            raise ValueError(
                f"act takes one observation of shape ({self.input_size},), not an array of shape "
                f"{np.shape(observation)}; for a batch of shape (batch, {self.input_size}) use act_batch"
            )
        layers = self._actor_layers()  # once: for a live model each call compares the weights' versions
        _check_mask(action_mask, (layers[-1][0].shape[0],), "action_mask")
        legal = legal_ids(action_mask)
        return self._choose(legal, self._logits(layers, observation, legal))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's choices for a batch: one forward pass for all rows, the same ids as :meth:`act` row by row.

        Sampling (``deterministic=False``) draws from the agent's generator row after row, exactly as that many
        :meth:`act` calls would.

        Args:
            observations: ``(batch, input_size)``, one observation per row.
            action_masks: ``(batch, num_actions)``, each row's legal ids (non-zero).

        Returns:
            int64 ``(batch,)``: the chosen id of each row.

        Raises:
            ValueError: a shape that does not fit the model (the message says which was expected), or a row whose
                mask allows no action.
        """
        logits = self.action_logits(observations)
        if logits.ndim != 2:
            raise ValueError(
                f"act_batch takes a batch of shape (batch, {self.input_size}), not {np.shape(observations)}; "
                "for one observation use act"
            )
        _check_mask(action_masks, logits.shape, "action_masks")
        chosen = np.empty(logits.shape[0], dtype=np.int64)
        for row in range(logits.shape[0]):
            legal = np.flatnonzero(action_masks[row])
            if legal.size == 0:
                raise ValueError(f"action_masks row {row} allows no action: that seat is not the one to act")
            chosen[row] = self._choose(legal, logits[row, legal])
        return chosen

    def _choose(self, legal: np.ndarray, logits: np.ndarray) -> int:
        """The id among ``legal`` (with these logits) that the agent plays: the most likely, or a sample."""
        if self.deterministic:
            return int(legal[np.argmax(logits)])
        weights = np.exp(logits - logits.max()).cumsum()
        return int(legal[np.searchsorted(weights, self.rng.random() * weights[-1], side="right")])

    @property
    def input_size(self) -> int:
        """The length of an observation the actor reads (512 for Gubs)."""
        return int(self._actor_layers()[0][0].shape[0])

    @property
    def output_size(self) -> int:
        """The number of action ids the actor scores (356 for Gubs)."""
        return int(self._actor_layers()[-1][0].shape[0])

    def action_logits(self, observation: np.ndarray, ids: np.ndarray | None = None) -> np.ndarray:
        """The policy's logits before masking: for every id, or only for ``ids``; for one observation or a batch.

        The actor's forward pass (actor layers, action head) in numpy: the numbers ``MaskablePPO.predict``
        uses, at a fraction of torch's per-call cost for one observation, which matters when agents play many
        games. Giving the legal ids skips the action head's other rows (most of them: a few ids are legal at a
        time).

        Args:
            observation: one observation ``(input_size,)``, or a batch ``(batch, input_size)``.
            ids: for one observation only, the ids whose logits are wanted (default: all).

        Returns:
            ``(num_actions,)`` or ``(len(ids),)`` for one observation; ``(batch, num_actions)`` for a batch.

        Raises:
            ValueError: an observation of another length or rank than the model reads, or ``ids`` with a batch.
        """
        return self._logits(self._actor_layers(), observation, ids)

    def _logits(self, layers: list[Layer], observation: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        """:meth:`action_logits` with the layers already prepared."""
        (first_weight_t, first_bias), *hidden, (head_weight, head_bias) = layers
        x = np.asarray(observation, dtype=np.float32)
        size = first_weight_t.shape[0]
        if x.ndim == 2 and x.shape[1] == size:
            if ids is not None:
                raise ValueError("ids selects logits of one observation; for a batch, index the returned rows")
            # a batch: dense products, one per layer for every row (the sparse read below pays off for one row)
            x = self._activation(x @ first_weight_t + first_bias)
            for weight, bias in hidden:
                x = self._activation(x @ weight.T + bias)
            return x @ head_weight.T + head_bias
        if x.shape != (size,):
            raise ValueError(
                f"observation must have shape ({size},) or (batch, {size}), not {x.shape}; this model reads "
                f"observations of {size} values"
            )
        # An observation has a few dozen non-zero values: the first layer reads only their weight rows.
        nonzero = np.flatnonzero(x)
        x = self._activation(x[nonzero] @ first_weight_t[nonzero] + first_bias)
        for weight, bias in hidden:
            x = self._activation(weight @ x + bias)
        if ids is None:
            return head_weight @ x + head_bias
        return head_weight[ids] @ x + head_bias[ids]

    def _actor_layers(self) -> list[Layer]:
        """The actor's (weight, bias) pairs in numpy, the first weight transposed (one input's weights per row)."""
        if isinstance(self.model, PolicyWeights):
            if self._source is not self.model:
                self._source, self._activation = self.model, ACTIVATION_FUNCTIONS[self.model.activation]
                self._layers = _transposed_first(list(self.model.layers))
            return self._layers
        return self._live_layers(self.model.policy)

    def _live_layers(self, policy: Any) -> list[Layer]:
        """A live policy's layers, copied again after every in-place change (an optimizer step) unless frozen."""
        if self._source is not policy:
            self._linears, activation = actor_modules(policy)
            self._source, self._version = policy, None
            self._activation = ACTIVATION_FUNCTIONS[activation]
        elif self.frozen:
            return self._layers
        # every in-place change of a tensor bumps its version: then copy the weights again
        version = tuple(m.weight._version + m.bias._version for m in self._linears)
        if version != self._version:
            copied = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in self._linears]
            self._layers = _transposed_first(copied)
            self._version = version
        return self._layers


def _transposed_first(layers: list[Layer]) -> list[Layer]:
    """The layers with the first weight transposed and contiguous, for the sparse first-layer product."""
    first_weight, first_bias = layers[0]
    return [(np.ascontiguousarray(first_weight.T), first_bias), *layers[1:]]


def _check_mask(mask: np.ndarray, shape: tuple[int, ...], name: str) -> None:
    """``ValueError`` naming the expected shape unless ``mask`` has ``shape``."""
    if np.shape(mask) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, not {np.shape(mask)}")
