"""The networks' feature layer both backends share: the observation, or the observation followed by its rule facts.

A ``rule_facts`` run (:attr:`agents.training.core.config.TrainingConfig.rule_facts`) feeds its actor and critic the
observation and the 68 facts :func:`gubs_env.encoding.rule_facts.rule_facts` works out from it. The facts are
computed from the observations themselves (in numpy: they carry no gradient and add no parameter), so the saved
actor is a plain MLP over :data:`~gubs_env.encoding.rule_facts.POLICY_INPUT_SIZE` inputs, which
:func:`agents.bots.model_file.load_policy` reads as a rule-facts actor by that width.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces

from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE, rule_facts

INPUT_SPACE = spaces.Box(-1.0, 1.0, (POLICY_INPUT_SIZE,), np.float32)
"""What a rule-facts network reads: the observation's values, followed by the facts' (a margin may be negative)."""


def with_rule_facts(observations: torch.Tensor) -> torch.Tensor:
    """``(batch, 512)`` observations to ``(batch, 580)`` network inputs, on their device and dtype."""
    facts = torch.from_numpy(rule_facts(observations.detach().cpu().numpy()))
    return torch.cat([observations, facts.to(observations)], dim=-1)
