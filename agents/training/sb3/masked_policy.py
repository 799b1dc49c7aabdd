"""MaskablePPO's actor-critic policy with a cheaper masked action distribution (the one train.py uses).

sb3-contrib's ``MaskableCategorical`` builds torch's ``Categorical`` twice per forward pass (once on the raw
logits, once on the masked ones), validates its arguments each time, and normalises the masked logits with
``logsumexp``. On the CPU that last step is the expensive one: the masked entries sit at -1e8, and torch's
vectorised ``exp`` falls back to a slow path for inputs that underflow, which ``log_softmax`` avoids.

:class:`LeanMaskedCategorical` is the same distribution computed once, with ``log_softmax`` and ``softmax``:
the same masked value, log-probabilities and entropy (masked ids contribute nothing), sampled by the Gumbel-max
rule instead of ``torch.multinomial`` (the same distribution), equal to sb3-contrib's up to float rounding
(``tests/agents/test_masked_policy.py`` compares them). Its policy, :class:`LeanMaskablePolicy`, is sb3-contrib's
``MaskableActorCriticPolicy`` with this distribution: the same networks and parameter names, so its saved weights
load wherever a MaskablePPO file does (agents/bots/model_file.py).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
    MaybeMasks,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch.distributions import Distribution

MASKED_LOGIT = -1e8
"""What a masked id's logit becomes, as in sb3-contrib: finite, so no NaN reaches a gradient."""


class LeanMaskedCategorical(MaskableCategorical):
    """A categorical distribution over logits whose masked entries are removed; see the module docstring.

    Args:
        logits: unnormalised log-probabilities, ``(batch, n)``.
        masks: ``(batch, n)`` booleans (True: allowed), or ``None`` for no masking.
    """

    def __init__(self, logits: torch.Tensor, masks: MaybeMasks = None) -> None:
        self._original_logits = logits
        self.apply_masking(masks)

    def apply_masking(self, masks: MaybeMasks) -> None:
        """Keep the ids where ``masks`` is True (``None``: all of them), replacing any earlier mask."""
        raw = self._original_logits
        if masks is None:
            self.masks = None
            self._masked_logits = raw
        else:
            self.masks = torch.as_tensor(masks, dtype=torch.bool, device=raw.device).reshape(raw.shape)
            masked = torch.tensor(MASKED_LOGIT, dtype=raw.dtype, device=raw.device)
            self._masked_logits = torch.where(self.masks, raw, masked)
        self.__dict__.pop("probs", None)
        self.logits = torch.log_softmax(self._masked_logits, dim=-1)
        # what torch's Categorical.__init__ sets, without its second normalisation and argument checks
        self._param = self.logits
        self._num_events = raw.shape[-1]
        Distribution.__init__(self, raw.shape[:-1], validate_args=False)

    @cached_property
    def probs(self) -> torch.Tensor:
        """The probabilities (softmax, not ``exp`` of the log-probabilities: that ``exp`` takes the slow path)."""
        return torch.softmax(self._masked_logits, dim=-1)

    def sample(self, sample_shape: torch.Size | list[int] | tuple[int, ...] = ()) -> torch.Tensor:
        """Draw ids by the Gumbel-max rule, cheaper than ``torch.multinomial``, which follows the softmax exactly."""
        logits = self._masked_logits
        shape = torch.Size(sample_shape) + logits.shape
        with torch.no_grad():
            noise = torch.rand(shape, dtype=logits.dtype, device=logits.device)
            gumbel = noise.log_().neg_().log_().neg_()  # -log(-log(u)); u = 0 gives -inf, never the argmax
            return (logits.detach() + gumbel).argmax(dim=-1)

    def entropy(self) -> torch.Tensor:
        """The entropy over the allowed ids (a masked id's tiny probability counts as none)."""
        p_log_p = self.logits * self.probs
        if self.masks is not None:
            p_log_p = torch.where(self.masks, p_log_p, torch.zeros((), dtype=p_log_p.dtype, device=p_log_p.device))
        return -p_log_p.sum(-1)


class LeanMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution, built on :class:`LeanMaskedCategorical`."""

    def proba_distribution(self, action_logits: torch.Tensor) -> LeanMaskableCategoricalDistribution:
        """Set the distribution from the action net's logits (masks come with ``apply_masking``)."""
        self.distribution = LeanMaskedCategorical(action_logits.view(-1, self.action_dim))
        return self


class LeanMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`LeanMaskableCategoricalDistribution`; same networks."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, *args: Any, **kwargs: Any):
        super().__init__(observation_space, action_space, *args, **kwargs)
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"LeanMaskablePolicy needs a Discrete action space, not {type(action_space).__name__}")
        self.action_dist = LeanMaskableCategoricalDistribution(int(action_space.n))
