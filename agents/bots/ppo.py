"""A trained MaskablePPO policy as an agent (the shipped networks are in :data:`agents.bots.names.CATALOGUE`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.bots.base import Agent, legal_ids
from agents.bots.model_file import PolicyWeights, actor_modules, load_policy, reads_rule_facts, save_policy
from agents.bots.names import CATALOGUE, NETWORKS
from gubs_env.encoding.rule_facts import policy_input

if TYPE_CHECKING:
    from gubs_env.engine import Game

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
        """What the weights were read from (a PolicyWeights or a live policy): another one is read anew."""
        self._version: tuple[int, ...] | None = None
        self._weights: PolicyWeights | None = None
        """The weights the forward pass reads: the model itself, or a copy of a live policy's."""
        self._first_t = np.empty((0, 0), dtype=np.float32)
        """The first weight of :attr:`_weights` transposed, made once per change of the weights."""
        self._linears: list[Any] = []
        self._activation_name = "tanh"

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
        return save_policy(target, weights.layers, weights.activation, rule_facts=weights.rule_facts)

    @classmethod
    def pretrained(cls, name: str = "2p", deterministic: bool = True) -> PPOAgent:
        """A shipped network by its spec (``"gubs-net"``, ``"ppo-2p"``, ...) or short name (``"net"``, ``"2p"``, ...).

        The networks are :data:`agents.bots.names.NETWORKS`, their files in :data:`agents.bots.names.CATALOGUE`.

        Raises:
            ValueError: a name no shipped network has.
        """
        found = [CATALOGUE[spec] for spec in NETWORKS if name in (spec, CATALOGUE[spec].short)]
        if not found:
            raise ValueError(f"unknown pretrained model {name!r}; shipped: {', '.join(NETWORKS)}")
        return cls.load(found[0].path, deterministic=deterministic, name=found[0].name)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
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
        weights = self._actor_weights()  # once: for a live model each call compares the weights' versions
        _check_mask(action_mask, (weights.action_count,), "action_mask")
        legal = legal_ids(action_mask)
        logits = self._logits(weights, observation, legal)
        return int(legal[self._choose(logits[None], None)[0]])

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
        empty = np.flatnonzero(~np.any(action_masks, axis=1))
        if empty.size:
            raise ValueError(f"action_masks row {empty[0]} allows no action: that seat is not the one to act")
        return self._choose(logits, action_masks).astype(np.int64, copy=False)

    def _choose(self, logits: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
        """The column each row plays among its legal ones: the most likely, or a draw (see :func:`sample_masked`)."""
        if self.deterministic:
            return np.argmax(logits if masks is None else np.where(masks != 0, logits, -np.inf), axis=1)
        return sample_masked(logits, masks, self.rng)

    @property
    def input_size(self) -> int:
        """The length of an observation the actor reads (512 for Gubs)."""
        return self._actor_weights().observation_length

    @property
    def output_size(self) -> int:
        """The number of action ids the actor scores (356 for Gubs)."""
        return self._actor_weights().action_count

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
        return self._logits(self._actor_weights(), observation, ids)

    def _logits(self, weights: PolicyWeights, observation: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        """:meth:`action_logits` with the weights already read: the shapes checked, then :func:`policy_logits`."""
        x = np.asarray(observation, dtype=np.float32)
        size = weights.observation_length
        if x.ndim == 2 and x.shape[1] == size:
            if ids is not None:
                raise ValueError("ids selects logits of one observation; for a batch, index the returned rows")
        elif x.shape != (size,):
            raise ValueError(
                f"observation must have shape ({size},) or (batch, {size}), not {x.shape}; this model reads "
                f"observations of {size} values"
            )
        return policy_logits(weights, x, ids, self._first_t)

    def _actor_weights(self) -> PolicyWeights:
        """The weights to play: the model's own, or a live policy's copied (see :meth:`_live_weights`)."""
        if isinstance(self.model, PolicyWeights):
            if self._source is not self.model:
                self._source = self.model
                self._use(self.model)
            assert self._weights is not None  # set by _use
            return self._weights
        return self._live_weights(self.model.policy)

    def _live_weights(self, policy: Any) -> PolicyWeights:
        """A live policy's weights, copied again after every in-place change (an optimizer step) unless frozen."""
        if self._source is not policy:
            self._linears, self._activation_name = actor_modules(policy)
            self._source, self._version = policy, None
        elif self.frozen and self._weights is not None:
            return self._weights
        # every in-place change of a tensor bumps its version: then copy the weights again
        version = tuple(m.weight._version + m.bias._version for m in self._linears)
        if version != self._version or self._weights is None:
            copied = tuple((_array(m.weight), _array(m.bias)) for m in self._linears)
            self._use(PolicyWeights(copied, self._activation_name, rule_facts=reads_rule_facts(copied)))
            self._version = version
        assert self._weights is not None  # just copied, or kept from the last copy
        return self._weights

    def _use(self, weights: PolicyWeights) -> None:
        """Play ``weights`` from now on, with their first weight transposed once for :func:`policy_logits`."""
        self._weights = weights
        self._first_t = np.ascontiguousarray(weights.layers[0][0].T)


def policy_logits(
    weights: PolicyWeights, observations: np.ndarray, ids: np.ndarray | None = None, first_t: np.ndarray | None = None
) -> np.ndarray:
    """The actor's logits, in numpy: the one forward pass of shipped models, agents and training snapshots.

    The numbers ``MaskablePPO.predict`` uses, at a fraction of torch's per-call cost, which matters when agents
    play many games. Observations are sparse (one has a few dozen non-zero values of 512, a batch shares about a
    hundred), so the first layer reads only the weight rows of the inputs that are non-zero somewhere; with
    ``ids`` the action head computes only those rows (a few ids are legal at a time, of 356).

    Args:
        weights: the actor.
        observations: one observation ``(512,)`` or a stack of them ``(k, 512)`` (not checked); an actor that reads
            the rule facts (``weights.rule_facts``) gets them appended here.
        ids: the action ids whose logits are wanted (default: all).
        first_t: the first weight transposed and contiguous, when the caller keeps it (made here otherwise).

    Returns:
        ``(len(ids),)`` or ``(num_actions,)`` for one observation; ``(k, len(ids))`` or ``(k, num_actions)``
        for a stack.
    """
    activation = ACTIVATION_FUNCTIONS[weights.activation]
    if weights.rule_facts:
        observations = policy_input(observations)
    (first_weight, first_bias), *hidden, (head_weight, head_bias) = weights.layers
    if first_t is None or first_t.shape != first_weight.shape[::-1]:
        first_t = np.ascontiguousarray(first_weight.T)
    inputs = np.flatnonzero(observations if observations.ndim == 1 else observations.any(axis=0))
    x = activation(observations[..., inputs] @ first_t[inputs] + first_bias)
    for weight, bias in hidden:
        x = activation(x @ weight.T + bias)
    if ids is None:
        return x @ head_weight.T + head_bias
    return x @ head_weight[ids].T + head_bias[ids]


def sample_masked(logits: np.ndarray, masks: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """One column per row, drawn from the softmax of the row's logits over its legal columns.

    Each row takes one uniform draw from ``rng``, in row order, and inverts the row's cumulative weights: a
    batch draws exactly what that many one-row calls would, so an agent's games do not depend on how its
    decisions were batched.

    Args:
        logits: ``(k, n)``.
        masks: ``(k, n)``, non-zero where a column is legal; None: every column is. Each row needs one.
        rng: the generator to draw from.

    Returns:
        int ``(k,)``: the column drawn in each row.
    """
    masked = logits if masks is None else np.where(masks != 0, logits, -np.inf)
    weights = np.exp(masked - masked.max(axis=1, keepdims=True)).cumsum(axis=1)
    # the draw is scaled in the weights' own precision, as one float32 row always was
    targets = rng.random(len(weights)).astype(weights.dtype) * weights[:, -1]
    # the first column whose cumulative weight passes the target: illegal columns add nothing, so never they
    chosen = np.count_nonzero(weights <= targets[:, None], axis=1)
    # a draw just below 1 can round to 1 in float32 and pass the whole row: then the row's last legal column, the
    # first whose cumulative weight is the row's total (no other draw is changed)
    return np.minimum(chosen, np.argmax(weights >= weights[:, -1:], axis=1))


def _check_mask(mask: np.ndarray, shape: tuple[int, ...], name: str) -> None:
    """``ValueError`` naming the expected shape unless ``mask`` has ``shape``."""
    if np.shape(mask) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, not {np.shape(mask)}")


def _array(tensor: Any) -> np.ndarray:
    """A copy of a torch tensor as a numpy array, wherever it lives (a model trained on a GPU too)."""
    return tensor.detach().cpu().numpy().copy()
