"""The self-play learner: an actor-critic network, PPO over whole-game batches, and the diagnostics of each update.

The actor is the shipped policy format (a Tanh MLP from the 512 observation values to the 356 action logits,
:func:`agents.bots.model_file.save_policy`), so a trained actor plays wherever a model file does. The critic is a
separate MLP of the same widths: its gradient never mixes with the actor's, so the policy gradient measured by
:func:`gradient_agreement` is the actor's alone.

What the update does differently from sb3-contrib's MaskablePPO, and why (docs/training.md has the measurements):

* batches of whole games (tens of thousands of samples) with few epochs: a Gubs outcome is mostly luck, and a
  small batch's gradient is mostly that luck;
* returns undiscounted and λ near 1 (:func:`advantages`): a game is about 90 decisions a seat long, and
  gamma 0.995 with lambda 0.95 let almost nothing of the outcome reach the early ones;
* value targets normalized by running statistics (:class:`ValueNorm`), so the critic's scale does not depend on the
  table size (at 4 players the mean outcome is -0.5);
* an entropy bonus that starts high and decays (:func:`entropy_coefficient`): without it the policy collapsed to a
  near-deterministic one before it had learnt anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numba as nb
import numpy as np
import torch
from torch import nn

from agents.training.selfplay.rollout import Batch
from gubs_env.encoding import action_table
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE

MASKED = -1e9
"""The logit an illegal id gets: far below any real one, and finite so that 0 × it stays 0."""


@dataclass(frozen=True)
class PPOSettings:
    """How each batch is learnt from.

    Attributes:
        learning_rate: Adam's step size.
        epochs: passes over each batch.
        minibatch: samples per gradient step.
        clip: PPO's ratio clip.
        gamma: the discount per decision of the seat (1: none).
        lam: GAE's λ.
        entropy_start, entropy_end, entropy_decay: the entropy bonus falls linearly from start to end over the
            first ``entropy_decay`` samples.
        value_coef: the value loss's weight.
        max_grad_norm: gradients are clipped to this norm.
        normalize_values: learn the critic on normalized targets (:class:`ValueNorm`).
        hidden: the widths of the actor's and the critic's hidden layers.
        action_parts: the actor's second head over the parts ids share (:class:`ActorCritic`).
    """

    learning_rate: float = 3e-4
    epochs: int = 2
    minibatch: int = 4096
    clip: float = 0.2
    gamma: float = 1.0
    lam: float = 0.98
    entropy_start: float = 0.03
    entropy_end: float = 0.003
    entropy_decay: int = 20_000_000
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_values: bool = True
    hidden: tuple[int, ...] = (256, 256)
    action_parts: bool = False


def entropy_coefficient(settings: PPOSettings, samples: int) -> float:
    """The entropy bonus after ``samples`` samples: linear from start to end over ``entropy_decay``, then flat."""
    progress = min(1.0, samples / max(1, settings.entropy_decay))
    return settings.entropy_start + (settings.entropy_end - settings.entropy_start) * progress


def _mlp(widths: tuple[int, ...], out: int, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    size = OBS_SIZE
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
    """The actor (observation to 356 logits) and the critic (observation to a normalized value), apart.

    With ``action_parts`` the actor's logits add a second head over the parts ids share
    (:func:`~gubs_env.encoding.action_table.action_parts`: the operation, the card, the kind, the target seat...):
    an id's logit is its own score plus the scores of its parts, so what is learnt from one play of a card reaches
    every id that plays it. Both heads are linear in the last hidden layer, so they fold into one
    (:meth:`actor_layers`) and the shipped policy format holds the result.
    """

    def __init__(self, hidden: tuple[int, ...] = (256, 256), action_parts: bool = False) -> None:
        super().__init__()
        self.actor = _mlp(hidden, NUM_ACTIONS, 0.01)
        self.critic = _mlp(hidden, 1, 1.0)
        self.part_head: nn.Linear | None = None
        if action_parts:
            parts, _ = action_table.action_parts()
            self.register_buffer("parts", torch.from_numpy(parts))
            self.part_head = nn.Linear(hidden[-1], parts.shape[1])
            nn.init.orthogonal_(self.part_head.weight, 0.01)
            nn.init.zeros_(self.part_head.bias)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The actor's logits over every id."""
        if self.part_head is None:
            return self.actor(obs)
        hidden = self.actor[:-1](obs)
        return self.actor[-1](hidden) + self.part_head(hidden) @ self.parts.T

    def log_probs(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Log-probabilities over the ids, illegal ones at about -1e9."""
        logits = self.logits(obs).masked_fill(masks == 0, MASKED)
        return torch.log_softmax(logits, dim=-1)

    def actor_parameters(self) -> list[nn.Parameter]:
        """The parameters of the policy (the critic's apart)."""
        own = list(self.actor.parameters())
        return own if self.part_head is None else own + list(self.part_head.parameters())

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The critic's normalized value of each observation."""
        return self.critic(obs).squeeze(-1)

    def actor_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The actor's linear layers as ``(weight, bias)`` float32 arrays, the model file's order (heads folded)."""
        layers = [(m.weight.detach().clone(), m.bias.detach().clone()) for m in self.actor if isinstance(m, nn.Linear)]
        if self.part_head is not None:
            weight, bias = layers[-1]
            parts = self.parts
            layers[-1] = (weight + parts @ self.part_head.weight.detach(), bias + parts @ self.part_head.bias.detach())
        return [(w.numpy().astype(np.float32), b.numpy().astype(np.float32)) for w, b in layers]


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
        """The statistics as numbers, for a run's state.json."""
        return [self.beta, self.mean, self.mean_sq, self.weight]

    @classmethod
    def from_state(cls, values: list[float]) -> ValueNorm:
        """The statistics :meth:`state` gave."""
        norm = cls(values[0])
        norm.mean, norm.mean_sq, norm.weight = values[1:]
        return norm


@nb.njit(cache=True)
def _gae(
    order: np.ndarray, values: np.ndarray, returns: np.ndarray, last: np.ndarray, gamma: float, lam: float
) -> np.ndarray:
    """GAE along each trajectory (``order`` lists the samples trajectory by trajectory, in time order)."""
    out = np.zeros(values.shape[0], dtype=np.float32)
    running = 0.0
    following = 0.0
    for k in range(order.shape[0] - 1, -1, -1):
        i = order[k]
        # at the seat's last decision the return is the game's outcome; before it, the next decision's value
        bootstrap = returns[i] if last[i] else gamma * following + gamma * lam * running
        running = bootstrap - values[i]
        following = values[i]
        out[i] = running
    return out


def advantages(batch: Batch, values: np.ndarray, lam: float, gamma: float = 1.0) -> np.ndarray:
    """Each sample's advantage: GAE on its seat's trajectory, whose only reward is the game's end.

    With no discount and lambda 1 this is the final reward minus the sample's value: the outcome reaches the first
    decision of a game as fully as the last. (A discount counts the seat's own decisions, not the game's.)
    """
    order = np.argsort(batch.trajectory, kind="stable")
    return _gae(order, values.astype(np.float32), batch.returns, batch.last, float(gamma), float(lam))


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


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - predicted) / Var(target): 1 for a perfect critic, 0 for a constant one."""
    variance = float(np.var(target))
    return float("nan") if variance == 0 else 1.0 - float(np.var(target - predicted)) / variance


def _policy_gradient(
    model: ActorCritic, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor, adv: torch.Tensor
) -> torch.Tensor:
    """The actor's gradient of the policy-gradient loss -E[A log π(a)] on these samples, flattened."""
    model.zero_grad(set_to_none=True)
    log_pi = model.log_probs(obs, masks).gather(1, actions[:, None]).squeeze(1)
    (-(adv * log_pi).mean()).backward()
    grads = [p.grad.reshape(-1) for p in model.actor_parameters() if p.grad is not None]
    gradient = torch.cat(grads).clone()
    model.zero_grad(set_to_none=True)
    return gradient


def cosine(a: torch.Tensor, b: torch.Tensor) -> float:
    """The cosine of two vectors (0 when either is zero)."""
    norm = float(a.norm() * b.norm())
    return 0.0 if norm == 0 else float(a @ b) / norm


def gradient_agreement(
    model: ActorCritic, tensors: dict[str, torch.Tensor], game: np.ndarray, adv: torch.Tensor
) -> float:
    """The cosine between the policy gradients of two disjoint halves of a batch, split by game (even, odd slots).

    Near 1, both halves point the same way and a step follows the batch's signal; near 0, the gradient is noise:
    a step moves the policy in a direction the next batch would not confirm.
    """
    halves = [torch.from_numpy(np.flatnonzero(game % 2 == parity)) for parity in (0, 1)]
    grads = [
        _policy_gradient(model, tensors["obs"][h], tensors["masks"][h], tensors["actions"][h], adv[h]) for h in halves
    ]
    return cosine(grads[0], grads[1])


def _minibatches(size: int, minibatch: int, rng: np.random.Generator) -> Iterator[torch.Tensor]:
    order = rng.permutation(size)
    count = max(1, round(size / minibatch))
    for part in np.array_split(order, count):
        yield torch.from_numpy(part)


class Learner:
    """The network, its optimizer and value statistics, and the PPO update over whole-game batches."""

    def __init__(self, settings: PPOSettings, seed: int) -> None:
        torch.manual_seed(seed)
        self.settings = settings
        self.model = ActorCritic(settings.hidden, settings.action_parts)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=settings.learning_rate, eps=1e-5)
        self.value_norm = ValueNorm()
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def decide(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample an id for each row (Gumbel-max over the legal ids); returns ids, log-probabilities, values."""
        o = torch.from_numpy(obs)
        log_p = self.model.log_probs(o, torch.from_numpy(masks))
        noise = -torch.log(-torch.log(torch.rand(log_p.shape, generator=self.generator).clamp_(1e-20, 1.0)))
        ids = torch.argmax(log_p + noise, dim=1)
        mean, std = self.value_norm.stats
        values = self.model.value(o) * std + mean
        chosen = log_p.gather(1, ids[:, None]).squeeze(1)
        return ids.numpy(), chosen.numpy(), values.numpy()

    @torch.no_grad()
    def greedy(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The most likely legal id for each row (how network bots play in tournaments)."""
        log_p = self.model.log_probs(torch.from_numpy(obs), torch.from_numpy(masks))
        ids = torch.argmax(log_p, dim=1).numpy()
        zeros = np.zeros(ids.shape[0], dtype=np.float32)
        return ids, zeros, zeros

    def update(self, batch: Batch, samples_before: int) -> UpdateStats:
        """Learn from one batch: advantages, the gradient agreement, then ``epochs`` passes of clipped PPO."""
        s = self.settings
        adv = advantages(batch, batch.values, s.lam, s.gamma)
        targets = adv + batch.values
        ev = explained_variance(batch.values, targets)
        if s.normalize_values:
            self.value_norm.update(targets)
        mean, std = self.value_norm.stats if s.normalize_values else (0.0, 1.0)
        norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        tensors = {
            "obs": torch.from_numpy(batch.obs),
            "masks": torch.from_numpy(batch.masks),
            "actions": torch.from_numpy(batch.actions),
            "old_log_probs": torch.from_numpy(batch.log_probs),
            "adv": torch.from_numpy(norm_adv.astype(np.float32)),
            "targets": torch.from_numpy(((targets - mean) / std).astype(np.float32)),
        }
        agreement = gradient_agreement(self.model, tensors, batch.game, tensors["adv"])
        ent_coef = entropy_coefficient(s, samples_before)
        totals = np.zeros(6)
        steps = 0
        for _ in range(s.epochs):
            for idx in _minibatches(len(batch), s.minibatch, self.rng):
                totals += self._step({k: v[idx] for k, v in tensors.items()}, ent_coef)
                steps += 1
        entropy, kl, clipped, v_loss, p_loss, _ = totals / max(1, steps)
        return UpdateStats(
            entropy=float(entropy),
            approx_kl=float(kl),
            clip_fraction=float(clipped),
            explained_variance=ev,
            grad_cosine=agreement,
            value_loss=float(v_loss),
            policy_loss=float(p_loss),
            entropy_coef=ent_coef,
        )

    def _step(self, mb: dict[str, torch.Tensor], ent_coef: float) -> np.ndarray:
        s = self.settings
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
        return np.array([float(part.detach()) for part in parts] + [0.0])
