"""AgileRL's multi-agent PPO (``IPPO``) reading the parallel view's action masks from the infos, where it looks.

AgileRL's multi-agent algorithms take each agent's mask from ``infos[agent]["action_mask"]`` and refuse an
observation that holds one, so the parallel view for them is ``gubs_env.parallel_env(..., mask_in_observation=False)``.
But ``IPPO.extract_action_masks`` (AgileRL 2.45 to 2.58 at least) tests ``None in masks`` over a list of numpy
masks, which compares each mask with ``None`` element by element and raises "The truth value of an array with
more than one element is ambiguous" on the first step: masked IPPO fails on any environment whose masks are numpy
arrays, vectorized or not. :class:`MaskedIPPO` is ``IPPO`` with that one method written with identity tests;
everything else is AgileRL's. Needs the ``integrations`` extra (docs/integrations.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from agilerl.algorithms import IPPO


class MaskedIPPO(IPPO):
    """AgileRL's ``IPPO``, taking the action masks from the infos as numpy arrays (see the module's docstring)."""

    def extract_action_masks(self, infos: Any) -> dict[str, torch.Tensor | None]:
        """Each group's masks, stacked as IPPO stacks them (agents of the group first), or None without masks.

        Args:
            infos: the (vectorized) infos of a step: agent -> ``{"action_mask": array, ...}``.
        """
        grouped: dict[str, list[np.ndarray]] = {group: [] for group in self.observation_space}
        for agent, info in infos.items():
            mask = info.get("action_mask") if isinstance(info, dict) else None
            if mask is not None:
                group = self.get_group_id(agent) if self.has_grouped_agents() else agent
                grouped[group].append(np.asarray(mask))
        return {group: torch.Tensor(np.array(masks)) if masks else None for group, masks in grouped.items()}
