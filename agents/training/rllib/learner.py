"""RLlib's PPO learner with the gradient agreement of every update (``grad_cosine``), as the other trainers log it.

A restored learner steps at the run's step size from its first update, as the other backends' resumed runs do.

Before each update the learner splits ``main``'s batch into two halves by game (:mod:`agents.training.core.diagnostics`:
the games alternately, in the order the batch holds them), computes the policy gradient of each half,
``-mean(advantage * log_prob)`` over the rows that count in the loss with the advantages centred, and logs the
cosine between them as ``grad_cosine`` among ``main``'s learner results.

Which game a row belongs to is gone once RLlib has batched its episodes, so a connector piece placed before the
module mapping (:class:`RecordGames`) notes each of ``main``'s rows' episode while the batch is still kept per episode.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.connectors.common.agent_to_module_mapping import AgentToModuleMapping
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns

from agents.training.core.diagnostics import agreement
from agents.training.rllib.module import MAIN

GRAD_COSINE = "grad_cosine"
"""The key of the agreement among ``main``'s learner results."""


class RecordGames(ConnectorV2):
    """A learner connector piece that notes the episode of each of ``main``'s rows, and changes nothing.

    It sits before :class:`AgentToModuleMapping`: until then a column holds one list of items per (episode, agent,
    module), in the order the mapping concatenates a module's rows.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.games: list[str] = []
        """The episode id of each of ``main``'s rows in the last batch."""

    def __call__(self, *, batch: dict[str, Any], **kwargs: Any) -> Any:
        """Note ``main``'s rows' episodes from the loss mask, a column of one item per row."""
        self.games = []
        for (episode, _, module), items in batch.get(Columns.LOSS_MASK, {}).items():
            if module == MAIN:  # RLlib appends "_<chunk>" to an episode's id: one game, whichever seat or chunk
                self.games.extend([str(episode).split("_")[0]] * len(items))
        return batch


class DiagnosedPPOLearner(PPOTorchLearner):
    """RLlib's PPO torch learner, logging ``grad_cosine`` for ``main`` before each update."""

    def build(self) -> None:
        """RLlib's build, then the piece that notes each row's game."""
        super().build()
        self._games = RecordGames()
        if self._learner_connector is not None:
            self._learner_connector.insert_before(AgentToModuleMapping, self._games)

    def set_state(self, state: Any) -> None:
        """RLlib's restore, then each optimizer's step size from the run's config, not the one its checkpoint saved.

        RLlib sets the configured step size only after an update: a run resumed with another ``--learning-rate``
        took its first update at the old one.
        """
        super().set_state(state)
        for optimizer, schedule in self._optimizer_lr_schedules.items():
            self._set_optimizer_lr(optimizer, lr=float(schedule.get_current_value()))

    def _make_batch_if_necessary(self, training_data: Any) -> Any:
        batch = super()._make_batch_if_necessary(training_data)
        if MAIN in batch.policy_batches and self._games.games:
            value = self.agreement(batch.policy_batches[MAIN], np.asarray(self._games.games))
            self.metrics.log_value((MAIN, GRAD_COSINE), value, window=1)
        return batch

    def agreement(self, data: Any, games: np.ndarray) -> float:
        """``grad_cosine`` of ``main``'s batch ``data`` whose rows belong to ``games`` (nan if they do not line up)."""
        actions = torch.as_tensor(np.asarray(data[Columns.ACTIONS]))
        if len(games) != len(actions):
            return float("nan")
        counted = np.ones(len(games), dtype=bool)
        if Columns.LOSS_MASK in data:  # the step RLlib adds to each episode for its value bootstrap
            counted = np.asarray(data[Columns.LOSS_MASK], dtype=bool)
        rows = np.flatnonzero(counted)
        observations = {key: torch.as_tensor(np.asarray(v)) for key, v in data[Columns.OBS].items()}
        advantages = torch.as_tensor(np.asarray(data[Columns.ADVANTAGES]), dtype=torch.float32)
        centred = advantages - advantages[torch.from_numpy(rows)].mean()
        module: Any = self.module[MAIN]  # a torch module
        parameters = [p for p in module.parameters() if p.requires_grad]

        def gradient(half: np.ndarray) -> torch.Tensor:
            index = torch.from_numpy(rows[half])
            part = {Columns.OBS: {key: v[index] for key, v in observations.items()}}
            logits = module.forward_train(part)[Columns.ACTION_DIST_INPUTS]
            log_probs = module.get_train_action_dist_cls().from_logits(logits).logp(actions[index])
            grads = torch.autograd.grad(-(centred[index] * log_probs).mean(), parameters, allow_unused=True)
            pairs = zip(grads, parameters, strict=True)
            return torch.cat([(g if g is not None else torch.zeros_like(p)).reshape(-1) for g, p in pairs])

        return agreement(games[rows], gradient)
