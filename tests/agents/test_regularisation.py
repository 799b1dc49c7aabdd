"""The entropy bonus and its schedule, on every backend: the entropy gradient raises the entropy, and each backend
steps with the scheduled bonus (a constant one, or one falling linearly from ``ent_coef`` to ``ent_coef_end``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.training import TrainingConfig
from agents.training.native.backend import NativeBackend
from agents.training.native.learner import Learner
from agents.training.rllib.backend import entropy_schedule
from tests.agents.test_selfplay_core import random_tensors


def actor_gradient(learner: Learner, loss: torch.Tensor) -> torch.Tensor:
    learner.model.zero_grad(set_to_none=True)
    loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in learner.model.actor_parameters()])


def test_the_entropy_gradient_raises_the_entropy():
    torch.manual_seed(3)
    plain, batch = Learner(TrainingConfig(hidden=(16,)).resolved()), random_tensors(300, 3)

    def entropy() -> torch.Tensor:
        log_p = plain.model.log_probs(batch["obs"], batch["masks"])
        return -(log_p.exp() * log_p).sum(dim=1).mean()

    with torch.no_grad():  # a peaked policy, so that there is entropy to gain
        plain.model.actor[-1].bias.copy_(torch.randn(356) * 5)
    before = float(entropy().detach())
    optimizer = torch.optim.SGD(plain.model.actor_parameters(), lr=1.0)
    for _ in range(10):
        actor_gradient(plain, -entropy())
        optimizer.step()
    assert float(entropy().detach()) > before + 0.1


def test_the_native_update_steps_with_the_scheduled_bonus():
    config = TrainingConfig(hidden=(16,), envs=4, batch_size=128, ent_coef=0.2, ent_coef_end=0.0, ent_decay=10**9)
    backend = NativeBackend(config.resolved())
    first, second = (backend.iterate() for _ in range(2))
    assert first.diagnostics["entropy_coef"] == 0.2
    samples = backend.samples - second.timesteps  # what the second update had learnt from before it
    assert second.diagnostics["entropy_coef"] == pytest.approx(config.resolved().entropy_at(samples))
    assert np.isfinite(second.diagnostics["entropy"])


def test_rllib_takes_a_constant_bonus_or_its_own_schedule_over_environment_steps():
    constant = TrainingConfig(backend="rllib", ent_coef=0.05).resolved()
    assert entropy_schedule(constant) == 0.05
    falling = TrainingConfig(backend="rllib", ent_coef=0.1, ent_coef_end=0.01, ent_decay=1000).resolved()
    assert entropy_schedule(falling) == [[0, 0.1], [1000, 0.01]]


def test_sb3_learns_with_the_scheduled_entropy_bonus():
    from agents.training.sb3.backend import Sb3Backend

    config = TrainingConfig(
        backend="sb3", envs=4, n_steps=32, batch_size=64, hidden=(16,), ent_coef=0.2, ent_coef_end=0.0, ent_decay=256
    ).resolved()
    backend = Sb3Backend(config)
    try:
        bonuses = [backend.iterate().diagnostics["entropy_coef"] for _ in range(3)]
    finally:
        backend.close()
    assert bonuses == pytest.approx([0.2, 0.2 * (1 - 128 / 256), 0.0])
