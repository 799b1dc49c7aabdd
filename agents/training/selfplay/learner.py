"""The self-play learner: an actor-critic network, PPO over whole-game batches, and the diagnostics of each update.

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

from agents.training.core.diagnostics import cosine
from agents.training.selfplay.rollout import Batch
from agents.training.selfplay.vine import PairedValues
from gubs_env.encoding import action_table
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE, policy_input

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
        mc_coef: the weight of the sampled decisions' clipped surrogate (their advantages from the game's outcome).
        vine_coef: the weight of the branch points' surrogate (every legal id's paired advantage), when a run plays
            paired playouts (:mod:`agents.training.selfplay.vine`).
        hidden: the widths of the actor's and the critic's hidden layers.
        action_parts: the actor's second head over the parts ids share (:class:`ActorCritic`).
        rule_facts: both networks read the observation followed by its rule facts
            (:mod:`gubs_env.encoding.rule_facts`: the unseen copies of each kind, the chance of each kind on the
            deck's top, the score margin and standing), computed from each observation before the first layer.
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
    mc_coef: float = 1.0
    vine_coef: float = 1.0
    hidden: tuple[int, ...] = (256, 256)
    action_parts: bool = False
    rule_facts: bool = False

    def __post_init__(self) -> None:
        check_settings(self)


MAX_WIDTH = 8192
"""The widest hidden layer a config may ask for (the model files' own limit)."""


def check_settings(settings: PPOSettings) -> None:
    """``ValueError`` (one line) for a setting out of range: a run folder's config is read as data."""
    s = settings
    checks = {
        "learning_rate": 0 < s.learning_rate <= 1,
        "epochs": 1 <= s.epochs <= 100,
        "minibatch": 1 <= s.minibatch <= 10**7,
        "clip": 0 < s.clip < 1,
        "gamma": 0 < s.gamma <= 1,
        "lam": 0 <= s.lam <= 1,
        "entropy_start": 0 <= s.entropy_start <= 1,
        "entropy_end": 0 <= s.entropy_end <= 1,
        "entropy_decay": s.entropy_decay >= 1,
        "value_coef": 0 <= s.value_coef <= 100,
        "max_grad_norm": s.max_grad_norm > 0,
        "hidden": 1 <= len(s.hidden) <= 8 and all(1 <= w <= MAX_WIDTH for w in s.hidden),
        "mc_coef": 0 <= s.mc_coef <= 100,
        "vine_coef": 0 <= s.vine_coef <= 100,
    }
    wrong = [name for name, ok in checks.items() if not ok]
    if wrong:
        raise ValueError(f"PPO setting {wrong[0]} out of range: {getattr(s, wrong[0])!r}")


def entropy_coefficient(settings: PPOSettings, samples: int) -> float:
    """The entropy bonus after ``samples`` samples: linear from start to end over ``entropy_decay``, then flat."""
    progress = min(1.0, samples / max(1, settings.entropy_decay))
    return settings.entropy_start + (settings.entropy_end - settings.entropy_start) * progress


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
    """The actor (observation to 356 logits) and the critic (observation to a normalized value), apart.

    With ``action_parts`` the actor's logits add a second head over the parts ids share
    (:func:`~gubs_env.encoding.action_table.action_parts`: the operation, the card, the kind, the target seat...):
    an id's logit is its own score plus the scores of its parts, so what is learnt from one play of a card reaches
    every id that plays it. Both heads are linear in the last hidden layer, so they fold into one
    (:meth:`actor_layers`) and the shipped policy format holds the result.
    """

    parts: torch.Tensor
    """``(356, parts)``: which parts each id has (with ``action_parts`` only)."""

    def __init__(
        self, hidden: tuple[int, ...] = (256, 256), action_parts: bool = False, inputs: int = OBS_SIZE
    ) -> None:
        super().__init__()
        self.actor = _mlp(inputs, hidden, NUM_ACTIONS, 0.01)
        self.critic = _mlp(inputs, hidden, 1, 1.0)
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


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - predicted) / Var(target): 1 for a perfect critic, 0 for a constant one."""
    variance = float(np.var(target))
    return float("nan") if variance == 0 else 1.0 - float(np.var(target - predicted)) / variance


def paired_advantages(paired: PairedValues, old_probs: np.ndarray) -> np.ndarray:
    """``(P, 356)``: each legal id's paired outcome minus the policy's mean over them (0 at illegal ids).

    ``old_probs`` ``(P, 356)`` are the policy's probabilities at the branch points when they were played.
    """
    q = np.zeros(old_probs.shape, dtype=np.float32)
    q[paired.point, paired.action] = paired.outcome
    played = np.zeros(old_probs.shape, dtype=np.bool_)
    played[paired.point, paired.action] = True
    baseline = (old_probs * q).sum(axis=1, keepdims=True)
    return np.where(played, q - baseline, 0.0).astype(np.float32)


def _surrogate_gradient(model: ActorCritic, part: dict[str, torch.Tensor], coefs: tuple[float, float]) -> torch.Tensor:
    """The actor's gradient of the policy-gradient loss on these samples and branch points, flattened.

    The loss is the update's surrogate at ratio 1: ``-mean(A log π(a))`` over the samples, and
    ``-mean(Σ_a π_old(a) A(a) log π(a))`` over the branch points.
    """
    model.zero_grad(set_to_none=True)
    mc_coef, vine_coef = coefs
    loss = torch.zeros(())
    if mc_coef and part["obs"].shape[0]:
        log_pi = model.log_probs(part["obs"], part["masks"]).gather(1, part["actions"][:, None]).squeeze(1)
        loss = loss - mc_coef * (part["adv"] * log_pi).mean()
    if vine_coef and "p_obs" in part and part["p_obs"].shape[0]:
        log_pi = model.log_probs(part["p_obs"], part["p_masks"])
        loss = loss - vine_coef * (part["p_old"] * part["p_adv"] * log_pi).sum(dim=1).mean()
    if not loss.requires_grad:
        return torch.zeros(sum(p.numel() for p in model.actor_parameters()))
    loss.backward()
    grads = [p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel()) for p in model.actor_parameters()]
    gradient = torch.cat(grads).clone()
    model.zero_grad(set_to_none=True)
    return gradient


def gradient_agreement(
    model: ActorCritic,
    tensors: dict[str, torch.Tensor],
    game: np.ndarray,
    adv: torch.Tensor,
    coefs: tuple[float, float] = (1.0, 0.0),
    paired_game: np.ndarray | None = None,
) -> float:
    """The cosine between the policy gradients of two disjoint halves of a batch, split by game (even, odd slots).

    Near 1, both halves point the same way and a step follows the batch's signal; near 0, the gradient is noise:
    a step moves the policy in a direction the next batch would not confirm. ``tensors`` may hold branch points
    (keys ``p_*``, their games in ``paired_game``), which count in the gradient as they do in the update.
    """
    gradients = []
    for parity in (0, 1):
        half = torch.from_numpy(np.flatnonzero(game % 2 == parity))
        part = {k: tensors[k][half] for k in ("obs", "masks", "actions")} | {"adv": adv[half]}
        if paired_game is not None:
            points = torch.from_numpy(np.flatnonzero(paired_game % 2 == parity))
            part |= {k: tensors[k][points] for k in ("p_obs", "p_masks", "p_old", "p_adv")}
        gradients.append(_surrogate_gradient(model, part, coefs))
    return cosine(gradients[0], gradients[1])


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
        inputs = POLICY_INPUT_SIZE if settings.rule_facts else OBS_SIZE
        self.model = ActorCritic(settings.hidden, settings.action_parts, inputs)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=settings.learning_rate, eps=1e-5)
        self.value_norm = ValueNorm()
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def decide(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample an id for each row (Gumbel-max over the legal ids); returns ids, log-probabilities, values."""
        o = self.inputs(obs)
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
        log_p = self.model.log_probs(self.inputs(obs), torch.from_numpy(masks))
        ids = torch.argmax(log_p, dim=1).numpy()
        zeros = np.zeros(ids.shape[0], dtype=np.float32)
        return ids, zeros, zeros

    @torch.no_grad()
    def log_probs_np(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's log-probabilities ``(k, 356)`` as numpy (the paired playouts' policy)."""
        return self.model.log_probs(self.inputs(obs), torch.from_numpy(masks)).numpy()

    def inputs(self, obs: np.ndarray) -> torch.Tensor:
        """What the networks read for observations ``obs``: the observations, or with ``rule_facts`` their facts too."""
        return torch.from_numpy(policy_input(obs) if self.settings.rule_facts else obs)

    def update(self, batch: Batch, samples_before: int, paired: PairedValues | None = None) -> UpdateStats:
        """Learn from one batch: advantages, the gradient agreement, then ``epochs`` passes of clipped PPO.

        With ``paired`` (the playouts of the batch's branch points) the surrogate also holds, for each branch point,
        every legal id's paired advantage weighted by its probability, clipped as PPO clips a sample.
        """
        s = self.settings
        adv = advantages(batch, batch.values, s.lam, s.gamma)
        targets = adv + batch.values
        ev = explained_variance(batch.values, targets)
        if s.normalize_values:
            self.value_norm.update(targets)
        mean, std = self.value_norm.stats if s.normalize_values else (0.0, 1.0)
        norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        tensors = {
            "obs": self.inputs(batch.obs),
            "masks": torch.from_numpy(batch.masks),
            "actions": torch.from_numpy(batch.actions),
            "old_log_probs": torch.from_numpy(batch.log_probs),
            "adv": torch.from_numpy(norm_adv.astype(np.float32)),
            "targets": torch.from_numpy(((targets - mean) / std).astype(np.float32)),
        }
        coefs = (s.mc_coef, s.vine_coef if paired is not None else 0.0)
        paired_game = None
        if paired is not None and batch.branches is not None:
            tensors |= self._paired_tensors(batch, paired)
            paired_game = batch.game[batch.branches.samples]
        agreement = gradient_agreement(self.model, tensors, batch.game, tensors["adv"], coefs, paired_game)
        ent_coef = entropy_coefficient(s, samples_before)
        totals = np.zeros(5)
        steps = 0
        points = int(tensors["p_obs"].shape[0]) if "p_obs" in tensors else 0
        for _ in range(s.epochs):
            chunks = list(_minibatches(len(batch), s.minibatch, self.rng))
            point_chunks = np.array_split(self.rng.permutation(points), len(chunks))
            for idx, point_idx in zip(chunks, point_chunks, strict=True):
                part = {k: v[idx] for k, v in tensors.items() if not k.startswith("p_")}
                part |= {k: v[torch.from_numpy(point_idx)] for k, v in tensors.items() if k.startswith("p_")}
                totals += self._step(part, ent_coef, coefs)
                steps += 1
        entropy, kl, clipped, v_loss, p_loss = totals / max(1, steps)
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

    @torch.no_grad()
    def _paired_tensors(self, batch: Batch, paired: PairedValues) -> dict[str, torch.Tensor]:
        """The branch points' observations, masks, probabilities when played, and normalized paired advantages."""
        assert batch.branches is not None
        samples = batch.branches.samples
        obs, masks = self.inputs(batch.obs[samples]), torch.from_numpy(batch.masks[samples])
        old = self.model.log_probs(obs, masks).exp().numpy()
        adv = paired_advantages(paired, old)
        # the probability-weighted spread of the advantages, so that both terms of the surrogate are on one scale
        scale = math.sqrt(float((old * adv * adv).sum(axis=1).mean()) + 1e-8)
        return {
            "p_obs": obs,
            "p_masks": masks,
            "p_old": torch.from_numpy(old),
            "p_adv": torch.from_numpy(adv / scale),
        }

    def _step(self, mb: dict[str, torch.Tensor], ent_coef: float, coefs: tuple[float, float]) -> np.ndarray:
        s = self.settings
        mc_coef, vine_coef = coefs
        log_p = self.model.log_probs(mb["obs"], mb["masks"])
        new = log_p.gather(1, mb["actions"][:, None]).squeeze(1)
        log_ratio = new - mb["old_log_probs"]
        ratio = log_ratio.exp()
        adv = mb["adv"]
        policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - s.clip, 1 + s.clip) * adv).mean() * mc_coef
        if vine_coef and "p_obs" in mb and mb["p_obs"].shape[0]:
            old = mb["p_old"]
            p_ratio = (self.model.log_probs(mb["p_obs"], mb["p_masks"]).exp() / old.clamp_min(1e-8)).clamp_max(1e3)
            p_adv = mb["p_adv"]
            clipped_gain = torch.min(p_ratio * p_adv, p_ratio.clamp(1 - s.clip, 1 + s.clip) * p_adv)
            policy_loss = policy_loss - vine_coef * (old * clipped_gain).sum(dim=1).mean()
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
