"""The regularisers of the update: the entropy bonus and its schedule, and the magnet (a KL toward a reference policy).

Each term is checked to be what it says: a policy already equal to its magnet feels no pull, the uniform magnet's
pull is the entropy bonus's, the entropy gradient raises the entropy, the average magnet follows the policy at its
rate and is kept in the checkpoint; a backend that cannot apply a term refuses it in one line.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.training import ConfigError, TrainingConfig
from agents.training.core.config import NativeSettings
from agents.training.native.backend import NativeBackend
from agents.training.native.learner import Learner, Magnet
from tests.agents.test_selfplay_core import random_tensors


def learner(magnet: str = "average", **native: float) -> Learner:
    settings = NativeSettings(magnet=magnet, **native)  # type: ignore[arg-type]
    return Learner(TrainingConfig(hidden=(16,), native=settings).resolved())


def actor_gradient(learner: Learner, loss: torch.Tensor) -> torch.Tensor:
    learner.model.zero_grad(set_to_none=True)
    loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in learner.model.actor_parameters()])


def pull(learner: Learner, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """The magnet term on ``batch`` and its gradient on the actor."""
    assert learner.magnet is not None
    kl = learner.magnet.kl(learner.model.log_probs(batch["obs"], batch["masks"]), batch["obs"], batch["masks"])
    return kl.detach(), actor_gradient(learner, kl)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_policy_equal_to_its_average_magnet_feels_no_pull_and_one_moved_away_is_pulled_back(seed):
    torch.manual_seed(seed)
    fresh, batch = learner(), random_tensors(200, seed)
    kl, gradient = pull(fresh, batch)  # the average starts at the actor itself
    assert float(kl) == pytest.approx(0.0, abs=1e-6) and float(gradient.abs().max()) < 1e-6
    with torch.no_grad():
        for p in fresh.model.actor_parameters():
            p.add_(torch.randn_like(p) * 0.5)
    moved, _ = pull(fresh, batch)
    assert float(moved) > 1e-3
    optimizer = torch.optim.SGD(fresh.model.actor_parameters(), lr=0.05)
    for _ in range(20):  # steps on the magnet term alone bring the policy back toward the average
        kl, _ = pull(fresh, batch)
        optimizer.step()
    assert float(pull(fresh, batch)[0]) < float(moved)


def test_a_uniform_policy_feels_no_pull_from_the_uniform_magnet_whose_pull_is_the_entropy_bonuss():
    torch.manual_seed(2)
    uniform, batch = learner("uniform"), random_tensors(200, 2)
    head = uniform.model.actor[-1]
    with torch.no_grad():  # zero logits: every legal id alike
        head.weight.zero_()
        head.bias.zero_()
    kl, gradient = pull(uniform, batch)
    assert float(kl) == pytest.approx(0.0, abs=1e-6) and float(gradient.abs().max()) < 1e-6
    trained = learner("uniform")
    _, magnet_gradient = pull(trained, batch)
    log_p = trained.model.log_probs(batch["obs"], batch["masks"])
    entropy = -(log_p.exp() * log_p).sum(dim=1).mean()
    # KL(pi || uniform over the legal ids) = -H(pi) + log(legal ids): the same gradient as an entropy bonus
    torch.testing.assert_close(magnet_gradient, actor_gradient(trained, -entropy), rtol=1e-4, atol=1e-6)


def test_the_entropy_gradient_raises_the_entropy():
    torch.manual_seed(3)
    plain, batch = learner("none"), random_tensors(300, 3)

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


def test_the_average_magnet_follows_the_actor_at_its_rate_and_starts_where_a_warm_start_left_the_actor():
    torch.manual_seed(4)
    backend = NativeBackend(TrainingConfig(hidden=(16,), envs=2, native=NativeSettings(magnet="average")).resolved())
    actor = backend.learner.model.actor
    with torch.no_grad():  # what a warm start does to the actor, then its sync
        for p in actor.parameters():
            p.add_(1.0)
    backend.network().sync()
    magnet = backend.learner.magnet
    assert isinstance(magnet, Magnet) and magnet.actor is not None
    for mine, theirs in zip(magnet.actor.parameters(), actor.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs)
    before = [p.clone() for p in magnet.actor.parameters()]
    with torch.no_grad():
        for p in actor.parameters():
            p.add_(1.0)
    magnet.follow(actor)
    for old, mine, theirs in zip(before, magnet.actor.parameters(), actor.parameters(), strict=True):
        torch.testing.assert_close(mine, old + 0.01 * (theirs - old))


def test_the_average_magnet_is_kept_in_the_checkpoint(tmp_path):
    config = TrainingConfig(hidden=(16,), envs=4, batch_size=128, native=NativeSettings(magnet="average")).resolved()
    backend = NativeBackend(config)
    step = backend.iterate()
    assert np.isfinite(step.diagnostics["magnet_kl"])
    backend.save(tmp_path / "checkpoint.pt")
    again = NativeBackend(config)
    again.load((tmp_path / "checkpoint.pt").read_bytes())
    assert backend.learner.magnet is not None and again.learner.magnet is not None
    for saved, read in zip(
        backend.learner.magnet.actor.parameters(), again.learner.magnet.actor.parameters(), strict=True
    ):
        torch.testing.assert_close(saved, read)


@pytest.mark.parametrize("backend", ["sb3", "rllib"])
def test_a_backend_that_cannot_apply_the_magnet_refuses_it_in_one_line(backend):
    with pytest.raises(ConfigError, match=rf"^the {backend} backend cannot honour native: leave it unset$"):
        TrainingConfig(backend=backend, native=NativeSettings(magnet="uniform"))


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
