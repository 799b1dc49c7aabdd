"""The native backend's learner: an actor-critic network, PPO over whole-game batches, and each update's diagnostics.

The actor is the shipped policy format (a Tanh MLP from the 512 observation values to the 356 action logits,
:func:`agents.bots.model_file.save_policy`), so a trained actor plays wherever a model file does. The critic is a
separate MLP of the same widths: its gradient never mixes with the actor's, so the policy gradient measured by
:func:`gradient_agreement` is the actor's alone.

What the update does differently from sb3-contrib's MaskablePPO, and why (measured in docs/results/selfplay-log.md):

* batches of whole games (tens of thousands of samples) with few epochs: a Gubs outcome is mostly luck, and a
  small batch's gradient is mostly that luck;
* returns undiscounted and λ near 1 (:func:`advantages`): a game is about 90 decisions a seat long, and
  gamma 0.995 with lambda 0.95 let almost nothing of the outcome reach the early ones;
* value targets normalized by running statistics (:class:`ValueNorm`), so the critic's scale does not depend on the
  table size (at 4 players the mean outcome is -0.5);
* an entropy bonus that starts high and decays (:meth:`~agents.training.core.config.TrainingConfig.entropy_at`):
  without it the policy collapsed to a near-deterministic one before it had learnt anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numba as nb
import numpy as np
import torch
from torch import nn

from agents.training.core.config import TrainingConfig
from agents.training.core.diagnostics import agreement
from agents.training.core.games import Batch
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE

MASKED = -1e9
"""The logit an illegal id gets: far below any real one, and finite so that 0 × it stays 0."""


def _mlp(inputs: int, widths: tuple[int, ...], out: int, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    size = inputs
    for width in widths:
        linear = nn.Linear(size, width)
        nn.init.orthogonal_(linear.weight, math.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.Tanh()]
        size = width
    head = nn.Linear(size, out)
    nn.init.orthogonal_(head.weight, out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """The actor (observation to 356 logits) and the critic (observation to a normalized value), apart."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256), inputs: int = OBS_SIZE) -> None:
        super().__init__()
        self.actor = _mlp(inputs, hidden, NUM_ACTIONS, 0.01)
        self.critic = _mlp(inputs, hidden, 1, 1.0)

    def log_probs(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Log-probabilities over the ids, illegal ones at about -1e9."""
        logits = self.actor(obs).masked_fill(masks == 0, MASKED)
        return torch.log_softmax(logits, dim=-1)

    def actor_parameters(self) -> list[nn.Parameter]:
        """The parameters of the policy (the critic's apart)."""
        return list(self.actor.parameters())

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The critic's normalized value of each observation."""
        return self.critic(obs).squeeze(-1)


def linears(actor: nn.Sequential) -> list[nn.Linear]:
    """An actor's linear layers, input to output."""
    return [m for m in actor if isinstance(m, nn.Linear)]


def linear_layers(actor: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """An actor's linear layers as ``(weight, bias)`` float32 arrays, input to output (the model file's order)."""
    return [
        (m.weight.detach().cpu().numpy().astype(np.float32), m.bias.detach().cpu().numpy().astype(np.float32))
        for m in linears(actor)
    ]


class ValueNorm:
    """Running mean and variance of the value targets (exponential, debiased), to learn the critic on unit scale."""

    def __init__(self, beta: float = 0.99) -> None:
        self.beta = beta
        self.mean = 0.0
        self.mean_sq = 0.0
        self.weight = 0.0

    def update(self, targets: np.ndarray) -> None:
        """Fold one batch's targets into the statistics."""
        self.mean = self.beta * self.mean + (1 - self.beta) * float(targets.mean())
        self.mean_sq = self.beta * self.mean_sq + (1 - self.beta) * float(np.square(targets).mean())
        self.weight = self.beta * self.weight + (1 - self.beta)

    @property
    def stats(self) -> tuple[float, float]:
        """(mean, standard deviation); (0, 1) before any update."""
        if self.weight == 0:
            return 0.0, 1.0
        mean = self.mean / self.weight
        var = max(self.mean_sq / self.weight - mean * mean, 1e-4)
        return mean, math.sqrt(var)

    def state(self) -> list[float]:
        """The statistics as numbers, kept in the run's checkpoint."""
        return [self.beta, self.mean, self.mean_sq, self.weight]

    @classmethod
    def from_state(cls, values: list[float]) -> ValueNorm:
        """The statistics :meth:`state` gave."""
        norm = cls(values[0])
        norm.mean, norm.mean_sq, norm.weight = values[1:]
        return norm


@nb.njit(cache=True)
def _gae(
    order: np.ndarray,
    values: np.ndarray,
    returns: np.ndarray,
    rewards: np.ndarray,
    last: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE along each trajectory (``order`` lists the samples trajectory by trajectory, in time order)."""
    out = np.zeros(values.shape[0], dtype=np.float32)
    running = 0.0
    following = 0.0
    for k in range(order.shape[0] - 1, -1, -1):
        i = order[k]
        # at the seat's last decision the return is the game's outcome; before it, the next decision's value
        bootstrap = returns[i] if last[i] else gamma * following + gamma * lam * running
        running = rewards[i] + bootstrap - values[i]
        following = values[i]
        out[i] = running
    return out


def advantages(batch: Batch, values: np.ndarray, lam: float, gamma: float = 1.0) -> np.ndarray:
    """Each sample's advantage: GAE on its seat's trajectory, whose rewards are the game's end (and ``batch.rewards``).

    With no discount and lambda 1 this is the final reward (plus the rewards from the sample on) minus the sample's
    value: the outcome reaches the first decision of a game as fully as the last. (A discount counts the seat's own
    decisions, not the game's.)
    """
    order = np.argsort(batch.trajectory, kind="stable")
    return _gae(order, values.astype(np.float32), batch.returns, batch.rewards, batch.last, float(gamma), float(lam))


@dataclass
class UpdateStats:
    """What one update did: the columns of a run's progress.csv."""

    entropy: float
    approx_kl: float
    clip_fraction: float
    explained_variance: float
    grad_cosine: float
    value_loss: float
    policy_loss: float
    entropy_coef: float
    learning_rate: float


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - predicted) / Var(target): 1 for a perfect critic, 0 for a constant one."""
    variance = float(np.var(target))
    return float("nan") if variance == 0 else 1.0 - float(np.var(target - predicted)) / variance


def _surrogate_gradient(model: ActorCritic, part: dict[str, torch.Tensor]) -> torch.Tensor:
    """The actor's gradient of the policy-gradient loss on these samples, flattened.

    The loss is the update's surrogate at ratio 1: ``-mean(A log π(a))``.
    """
    model.zero_grad(set_to_none=True)
    if not part["obs"].shape[0]:
        return torch.zeros(sum(p.numel() for p in model.actor_parameters()))
    log_pi = model.log_probs(part["obs"], part["masks"]).gather(1, part["actions"][:, None]).squeeze(1)
    (-(part["adv"] * log_pi).mean()).backward()
    grads = [p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel()) for p in model.actor_parameters()]
    gradient = torch.cat(grads).clone()
    model.zero_grad(set_to_none=True)
    return gradient


def gradient_agreement(
    model: ActorCritic, tensors: dict[str, torch.Tensor], game: np.ndarray, adv: torch.Tensor
) -> float:
    """The cosine between the policy gradients of two disjoint halves of a batch, split by game (:func:`agreement`).

    Near 1, both halves point the same way and a step follows the batch's signal; near 0, the gradient is noise:
    a step moves the policy in a direction the next batch would not confirm.
    """

    def gradient(rows: np.ndarray) -> torch.Tensor:
        index = torch.from_numpy(rows)
        part = {k: tensors[k][index] for k in ("obs", "masks", "actions")} | {"adv": adv[index]}
        return _surrogate_gradient(model, part)

    return agreement(game, gradient)


def _minibatches(size: int, minibatch: int, rng: np.random.Generator) -> Iterator[torch.Tensor]:
    order = rng.permutation(size)
    count = max(1, round(size / minibatch))
    for part in np.array_split(order, count):
        yield torch.from_numpy(part)


class Learner:
    """The network, its optimizer and value statistics, and the PPO update over whole-game batches.

    Args:
        config: a native run's config, resolved (:meth:`TrainingConfig.resolved`): its seed, network widths, rule
            facts, PPO settings and :class:`~agents.training.core.config.NativeSettings`.
    """

    def __init__(self, config: TrainingConfig) -> None:
        assert config.learning_rate is not None and config.epochs is not None, "resolve the config"
        torch.manual_seed(config.seed)
        self.config = config
        self.model = ActorCritic(config.hidden)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.learning_rate, eps=1e-5)
        self.value_norm = ValueNorm()
        self.rng = np.random.default_rng(config.seed)
        self.generator = torch.Generator().manual_seed(config.seed)

    @torch.no_grad()
    def decide(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample an id for each row (Gumbel-max over the legal ids); returns ids, log-probabilities, values."""
        o = self.inputs(obs)
        log_p = self.model.log_probs(o, torch.from_numpy(masks))
        noise = -torch.log(-torch.log(torch.rand(log_p.shape, generator=self.generator).clamp_(1e-20, 1.0)))
        ids = torch.argmax(log_p + noise, dim=1)
        chosen = log_p.gather(1, ids[:, None]).squeeze(1)
        return ids.numpy(), chosen.numpy(), self._outcomes(o).numpy()

    @torch.no_grad()
    def outcome(self, obs: np.ndarray) -> np.ndarray:
        """The critic's expected final reward of each observation's seat (+1 a win, -1 a loss)."""
        return self._outcomes(self.inputs(obs)).numpy()

    def _outcomes(self, inputs: torch.Tensor) -> torch.Tensor:
        mean, std = self.value_norm.stats
        return self.model.value(inputs) * std + mean

    def imitation_heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor's logits and the critic's values for a batch of observations.

        What a warm start fits (:func:`agents.training.imitation.demonstrations.fit`).
        """
        inputs = self.inputs(obs.numpy())
        return self.model.actor(inputs), self.model.value(inputs)

    @staticmethod
    def inputs(obs: np.ndarray) -> torch.Tensor:
        """What the networks read for observations ``obs``."""
        return torch.from_numpy(obs)

    def update(self, batch: Batch, samples_before: int, measure_agreement: bool = True) -> UpdateStats:
        """Learn from one batch: advantages, the gradient agreement, then ``epochs`` passes of clipped PPO.

        Without ``measure_agreement`` the agreement is nan. It reads the network and changes nothing, so the update
        is the same either way.
        """
        config, native = self.config, self.config.native
        assert config.gae_lambda is not None and config.gamma is not None and config.batch_size is not None
        assert config.learning_rate is not None
        adv = advantages(batch, batch.values, config.gae_lambda, config.gamma)
        targets = adv + batch.values
        ev = explained_variance(batch.values, targets)
        if native.normalize_values:
            self.value_norm.update(targets)
        mean, std = self.value_norm.stats if native.normalize_values else (0.0, 1.0)
        norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        tensors = {
            "obs": self.inputs(batch.obs),
            "masks": torch.from_numpy(batch.masks),
            "actions": torch.from_numpy(batch.actions),
            "old_log_probs": torch.from_numpy(batch.log_probs),
            "adv": torch.from_numpy(norm_adv.astype(np.float32)),
            "targets": torch.from_numpy(((targets - mean) / std).astype(np.float32)),
        }
        grad_cosine = (
            gradient_agreement(self.model, tensors, batch.game, tensors["adv"]) if measure_agreement else math.nan
        )
        ent_coef = config.entropy_at(samples_before)
        for group in self.optimizer.param_groups:  # what a resumed run steps with, whatever its checkpoint saved
            group["lr"] = config.learning_rate
        totals = np.zeros(5)
        steps = 0
        for _ in range(config.epochs or 1):
            for idx in _minibatches(len(batch), config.batch_size, self.rng):
                totals += self._step({k: v[idx] for k, v in tensors.items()}, ent_coef)
                steps += 1
        entropy, kl, clipped, v_loss, p_loss = totals / max(1, steps)
        return UpdateStats(
            entropy=float(entropy),
            approx_kl=float(kl),
            clip_fraction=float(clipped),
            explained_variance=ev,
            grad_cosine=grad_cosine,
            value_loss=float(v_loss),
            policy_loss=float(p_loss),
            entropy_coef=ent_coef,
            learning_rate=config.learning_rate,
        )

    def _step(self, mb: dict[str, torch.Tensor], ent_coef: float) -> np.ndarray:
        s = self.config.native
        log_p = self.model.log_probs(mb["obs"], mb["masks"])
        new = log_p.gather(1, mb["actions"][:, None]).squeeze(1)
        log_ratio = new - mb["old_log_probs"]
        ratio = log_ratio.exp()
        adv = mb["adv"]
        policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - s.clip, 1 + s.clip) * adv).mean()
        probs = log_p.exp()
        entropy = -(probs * log_p).sum(dim=1).mean()  # illegal ids: probability 0 times a finite log
        value_loss = (self.model.value(mb["obs"]) - mb["targets"]).pow(2).mean()
        loss = policy_loss - ent_coef * entropy + s.value_coef * value_loss
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), s.max_grad_norm)
        self.optimizer.step()
        with torch.no_grad():
            kl = ((ratio - 1) - log_ratio).mean()
            clipped = ((ratio - 1).abs() > s.clip).float().mean()
        parts = (entropy, kl, clipped, value_loss, policy_loss)
        return np.array([float(part.detach()) for part in parts])
