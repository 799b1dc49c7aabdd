"""The settings of a training run: one typed value, checked once, shared by every backend and the command.

``python train.py`` builds a :class:`TrainingConfig` from its flags, a notebook builds one by hand, and
:func:`agents.training.train` runs it on the backend it names. A run's run.json stores the config it was started
with (:meth:`TrainingConfig.to_json`) and ``--resume`` reads it back (:meth:`TrainingConfig.from_json`), so what
a run trains on is written in one place.

Every backend trains on the compiled engine, through the self-play core (:class:`gubs_env.fast.SelfPlayTables`). A
field left ``None`` takes its backend's default (:data:`DEFAULTS`, filled in by :meth:`TrainingConfig.resolved`); a
run file holds the values filled in, so a resumed run keeps the settings it started with. A setting the chosen
backend cannot honour is refused on construction with one line (:class:`ConfigError`), never ignored.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.bots.model_file import MAX_WIDTH
from agents.bots.names import TUNED
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.luck import MAX_WORLDS
from gubs_env.engine.players import TableSizes
from gubs_env.support.cli import MAX_TRAINING_SEED

Backend = Literal["sb3", "rllib", "native"]
LuckValue = Literal["shipped", "critic"]
LUCK_VALUES: tuple[LuckValue, ...] = ("shipped", "critic")
"""Who may judge the luck of luck-adjusted returns (``TrainingConfig.luck_value``)."""
BACKENDS: tuple[Backend, ...] = ("sb3", "rllib", "native")
"""The trainers: stable-baselines3's MaskablePPO in this process, Ray RLlib on a local Ray or a cluster, or the
project's own PPO learner over batches of whole games on the compiled engine (:mod:`agents.training.native`)."""
TEACHERS = ("heuristic", TUNED)
"""Whose games a new run may imitate before PPO (``heuristic-tuned`` when ``teacher`` is unset)."""
NO_INIT = "none"
"""``init``'s value for a fresh network: the policy starts from random weights."""
REFERENCE_ENGINE_RETIRED = "replaced by the compiled engine's self-play core, which plays the same games"
STEP_SCHEDULE_RETIRED = "the step-size schedule was removed: level with the constant step at both table sizes"
ANY_VALUE: Any = ...
"""In :data:`RETIRED`: a field a run may resume with whatever it holds."""
RETIRED: dict[str, tuple[Any, str]] = {
    "engine": ("fast", REFERENCE_ENGINE_RETIRED),
    "vec_env": ("dummy", REFERENCE_ENGINE_RETIRED),
    "workers": (ANY_VALUE, REFERENCE_ENGINE_RETIRED),
    "shaping": (0.0, "score-margin shaping was removed: it gained nothing, measured twice"),
}
"""Fields run files of earlier versions hold, each with the only value a run may still resume with
(:data:`ANY_VALUE`: any) and why the others are gone: training on the reference engine (``engine``, and its worker
processes ``vec_env`` and ``workers``), and sb3's score-margin reward (``shaping``; docs/results/training-log.md)."""
RETIRED_NATIVE: dict[str, tuple[Any, str]] = {
    "learning_rate_end": (None, STEP_SCHEDULE_RETIRED),
    "learning_rate_decay": (ANY_VALUE, STEP_SCHEDULE_RETIRED),
}
"""The same for the ``native`` section: the step-size schedule that runs of commits 28ddb4b to 04eafc3 wrote
(``learning_rate_end`` None: the constant step, which resumes as it was)."""

RANDOM = "random"
HEURISTIC = "heuristic"
"""The fixed opponents of the pool, by the names the run reports them under."""
SELF = "self"
SNAPSHOTS = "snapshots"
"""The learner's current policy, and its frozen snapshots, by the names the run reports them under."""


class ConfigError(ValueError):
    """A training setting that is out of range, of the wrong kind, or that the chosen backend cannot honour."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_number(
    name: str, value: Any, *, above: float | None = None, at_least: float | None = None, optional: bool = False
) -> None:
    if value is None and optional:
        return
    if not _is_number(value):
        raise ConfigError(f"{name} must be a finite number, not {_brief(value)}")
    if above is not None and not value > above:
        raise ConfigError(f"{name} must be above {above:g}, not {value}")
    if at_least is not None and not value >= at_least:
        raise ConfigError(f"{name} must be at least {at_least:g}, not {value}")


def _check_share(name: str, value: Any, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not _is_number(value) or not 0 <= value <= 1:
        raise ConfigError(f"{name} must be a number from 0 to 1, not {_brief(value)}")


def _check_int(name: str, value: Any, low: int, high: int = 2**63 - 1, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, not {_brief(value)}")
    if not low <= value <= high:
        bound = f"at least {low}" if high == 2**63 - 1 else f"from {low} to {high}"
        raise ConfigError(f"{name} must be {bound}, not {value}")


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {_brief(value)}")


def _brief(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class PoolConfig:
    """The league: who plays the opponent seats, and how the learner's snapshots are kept and drawn.

    Each opponent seat of each episode is drawn on its own, from one uniform number: the random agent with
    ``p_random``, the heuristic with ``p_heuristic``, and the rest of the seats are the learner's: ``self_share`` of
    them its current policy, the others one of its frozen snapshots (the newest ``pool_size`` are kept). Before the
    first snapshot the current policy plays all of the rest. Which snapshot is drawn by prioritized fictitious
    self-play: by weights ``(1 - x) ** prioritize``, ``x`` the learner's recent score against that snapshot measured
    from the run's own games (:mod:`agents.training.core.league`), so the snapshots it does not yet beat are drawn more;
    0 draws them uniformly. Both backends and the vector env draw with :meth:`kind`, then :func:`weighted_index`.

    The defaults are the recipe of ``python train.py`` (docs/training.md says how they were chosen): about two
    thirds of the seats for the learner and its snapshots, a third for the heuristic as an anchor.
    ``PoolConfig(p_heuristic=1)`` trains against the heuristic alone.

    Raises:
        ConfigError: a share outside [0, 1], fixed shares adding up to more than 1, a pool size below 1, or a
            negative exponent.
    """

    p_random: float = 0.0
    p_heuristic: float = 0.35
    pool_size: int = 5
    self_share: float = 0.4
    """Of the learner's seats (those the fixed agents leave), the share its current policy plays."""
    prioritize: float = 1.0
    """The exponent of the snapshots' weights ``(1 - x) ** prioritize`` (0: drawn uniformly)."""

    def __post_init__(self) -> None:
        for name in ("p_random", "p_heuristic", "self_share"):
            _check_share(name, getattr(self, name))
            object.__setattr__(self, name, float(getattr(self, name)))
        if self.p_random + self.p_heuristic > 1 + 1e-12:
            raise ConfigError("p_random and p_heuristic add up to more than 1")
        _check_int("pool_size", self.pool_size, 1)
        _check_number("prioritize", self.prioritize, at_least=0)
        object.__setattr__(self, "prioritize", float(self.prioritize))

    def shares(self, has_snapshots: bool) -> dict[str, float]:
        """Each kind's share of the seats (:data:`RANDOM`, :data:`HEURISTIC`, :data:`SELF`, :data:`SNAPSHOTS`)."""
        rest = max(0.0, 1.0 - self.p_random - self.p_heuristic)
        p_self = rest * self.self_share if has_snapshots else rest
        return {RANDOM: self.p_random, HEURISTIC: self.p_heuristic, SELF: p_self, SNAPSHOTS: rest - p_self}

    def kind(self, u: float, has_snapshots: bool) -> str:
        """The kind of opponent a uniform draw ``u`` in [0, 1) seats: one of the keys of :meth:`shares`.

        For :data:`SNAPSHOTS`, :func:`weighted_index` chooses which with a second draw (or with the rest of this
        one: :meth:`rest`).
        """
        edge, last = 0.0, SELF
        for kind, share in self.shares(has_snapshots).items():
            if share > 0:
                edge, last = edge + share, kind
                if u < edge:
                    return kind
        return last  # u within rounding of 1

    def rest(self, u: float) -> float:
        """Where a draw ``u`` that chose a snapshot lies within the snapshots' share, as a new uniform draw."""
        shares = self.shares(True)
        start = 1.0 - shares[SNAPSHOTS]
        return min(max((u - start) / max(shares[SNAPSHOTS], 1e-12), 0.0), 1.0 - 1e-12)


PURE_SELF_PLAY = PoolConfig(p_random=0.0, p_heuristic=0.0, self_share=1.0)
"""Every seat the learner's current policy: the native backend's default, and the from-scratch preset's."""


FRESH_ENTROPY_START = 0.03
"""The native backend's entropy bonus at the start of a run from a fresh network (:class:`NativeSettings`)."""


@dataclass(frozen=True)
class NativeSettings:
    """The settings only the native backend reads (``TrainingConfig.native``); the others refuse a change to them.

    Attributes:
        clip: PPO's ratio clip.
        entropy_start, entropy_end, entropy_decay: the entropy bonus falls linearly from start to end over the
            first ``entropy_decay`` samples. ``entropy_start`` None is resolved with the run
            (:meth:`TrainingConfig.resolved`): :data:`FRESH_ENTROPY_START` for a fresh network (without it the
            policy collapsed before it had learnt anything), ``entropy_end`` for a trained one (``init``), whose
            policy a larger bonus would pull back towards chance.
        value_coef: the value loss's weight.
        max_grad_norm: gradients are clipped to this norm.
        normalize_values: the critic learns normalized targets (so its scale does not depend on the table size).
        agreement_every: ``grad_cosine`` is measured on every this many updates (1: on all), and is nan in
            progress.csv on the others. It reads the network without changing it, and costs about a fifth of an
            update (two more passes of the actor over the batch).

    Raises:
        ConfigError: a value out of range.
    """

    clip: float = 0.2
    entropy_start: float | None = None
    entropy_end: float = 0.003
    entropy_decay: int = 20_000_000
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_values: bool = True
    agreement_every: int = 4

    def __post_init__(self) -> None:
        _check_number("clip", self.clip, above=0)
        if self.clip >= 1:
            raise ConfigError(f"clip must be below 1, not {self.clip}")
        _check_share("entropy_start", self.entropy_start, optional=True)  # None: resolved with the run
        _check_share("entropy_end", self.entropy_end)
        _check_int("entropy_decay", self.entropy_decay, 1)
        _check_number("value_coef", self.value_coef, at_least=0)
        _check_number("max_grad_norm", self.max_grad_norm, above=0)
        _check_int("agreement_every", self.agreement_every, 1)
        if not isinstance(self.normalize_values, bool):
            raise ConfigError(f"normalize_values must be True or False, not {_brief(self.normalize_values)}")

    def entropy_coefficient(self, samples: int) -> float:
        """The entropy bonus after ``samples`` samples: linear from start to end over ``entropy_decay``, then flat."""
        if self.entropy_start is None:
            raise ConfigError("entropy_start is unset: train a resolved config (TrainingConfig.resolved())")
        progress = min(1.0, samples / self.entropy_decay)
        return self.entropy_start + (self.entropy_end - self.entropy_start) * progress


@dataclass(frozen=True)
class RllibSettings:
    """The settings only the RLlib backend reads (``TrainingConfig.rllib``); the others refuse a change to them.

    Attributes:
        env_runners: env runner actors (0: the driver steps the games itself).
        address: the Ray cluster to join, ``"auto"`` or ``HOST:PORT``; None: a local Ray.
        code_installed: with ``address``: the cluster's nodes have this project installed, so its code is not
            shipped to them.

    Raises:
        ConfigError: a value out of range, or ``code_installed`` without a cluster to join.
    """

    env_runners: int = 1
    address: str | None = None
    code_installed: bool = False

    def __post_init__(self) -> None:
        _check_int("env_runners", self.env_runners, 0)
        if self.address is not None and (not isinstance(self.address, str) or not self.address.strip()):
            raise ConfigError("address is 'auto' or HOST:PORT, not empty")
        if not isinstance(self.code_installed, bool):
            raise ConfigError(f"code_installed must be True or False, not {_brief(self.code_installed)}")
        if self.code_installed and self.address is None:
            raise ConfigError("code_installed goes with address (a cluster to join)")


MAX_GRAD_NORM = 0.5
"""The norm each PPO update's gradient is clipped to on sb3 (its own default) and RLlib (which clipped nothing
before; docs/results/training-log.md); native's is :attr:`NativeSettings.max_grad_norm`."""
CLIP_RANGE = 0.2
"""PPO's ratio clip on sb3 (its own default) and RLlib (whose default is 0.3); native's is
:attr:`NativeSettings.clip`."""
VALUE_COEF = 0.5
"""The value loss's weight on sb3 (its own default) and RLlib (whose default is 1.0); native's is
:attr:`NativeSettings.value_coef`. With these three, and no KL penalty (RLlib's default adds one), both libraries
make the same PPO update."""

DEVICE = re.compile(r"auto|cpu|cuda(:\d{1,2})?")
"""What :attr:`TrainingConfig.device` may be."""


def learner_device(device: str) -> str:
    """The torch device ``device`` means here: ``"auto"`` is ``"cuda"`` when torch sees a GPU, else ``"cpu"``.

    Raises:
        ConfigError: a CUDA device where torch sees none (a CPU build of torch, or no GPU).
    """
    import torch

    cuda = torch.cuda.is_available()
    if device == "auto":
        return "cuda" if cuda else "cpu"
    if device.startswith("cuda") and not cuda:
        raise ConfigError(f"device {device}: torch {torch.__version__} sees no CUDA GPU here; use auto or cpu")
    return device


def weighted_index(v: float, weights: Sequence[float]) -> int:
    """The index a uniform draw ``v`` in [0, 1) picks when item ``i`` weighs ``weights[i]`` (all 0: uniformly)."""
    cdf = np.cumsum(np.asarray(weights, dtype=float))
    if not len(cdf):
        raise ValueError("no weights to draw from")
    if cdf[-1] <= 0:
        return min(int(v * len(cdf)), len(cdf) - 1)
    return min(int(np.searchsorted(cdf / cdf[-1], v, side="right")), len(cdf) - 1)


_EVERY_BACKEND: dict[str, Any] = {"threads": 2, "skip_forced": True}
"""What every backend takes: two torch threads for the learner (fewer where other processes keep cores busy), and
forced decisions played without becoming samples."""
_PPO_DEFAULTS: dict[str, Any] = {
    **_EVERY_BACKEND,
    "envs": 64,
    "n_steps": 64,
    "batch_size": 1024,
    "epochs": 5,
    "eval_games": 200,
    "learning_rate": 1e-4,
    "ent_coef": 0.0,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "imitate_games": 1500,
    "pool": PoolConfig(),
    "every_seat": False,
}
"""What sb3 and RLlib share: the warm start (no teacher games when it starts from a network), then small steps in a
league."""
DEFAULTS: dict[Backend, dict[str, Any]] = {
    "sb3": {**_PPO_DEFAULTS, "eval_every": 250_000, "snapshot_every": 150_000, "checkpoint_every": 100_000},
    "rllib": {**_PPO_DEFAULTS, "eval_every": 100_000, "snapshot_every": 50_000, "checkpoint_every": 50_000},
    "native": {
        **_EVERY_BACKEND,
        "envs": 256,
        "batch_size": 4096,
        "epochs": 2,
        "eval_every": 2_000_000,
        "eval_games": 2000,
        "checkpoint_every": 500_000,
        "learning_rate": 3e-4,
        "gamma": 1.0,
        "gae_lambda": 0.98,
        "imitate_games": 0,
        "pool": PURE_SELF_PLAY,
        "every_seat": True,
    },
}
"""What a ``None`` field means, per backend (docs/training.md).

sb3 and RLlib run one recipe: a warm start, then PPO with a small step size and no entropy bonus, so that it
improves on where it started instead of drifting from it, in a league (:class:`PoolConfig`'s defaults). The warm
start is the shipped network for the table (:func:`shipped_start`); a fresh network imitates the tuned heuristic
(1,500 games) instead. sb3: many games per batch, so the policy's forward passes and the opponents' batches are
wide; large minibatches; evaluations, snapshots and checkpoints spaced out as the timesteps come fast. RLlib: the
same 1,024-step minibatches from iterations of about 4,000 environment steps (``envs * n_steps`` per env runner),
two torch threads for the driver's learner, which updates while the env runners wait (1.3x the timesteps of one
thread on 2 cores), cadences suited to its slower stepping.

The native backend is self-play from scratch: every seat its current policy and every seat's decisions samples,
batches of 256 whole games with two epochs, undiscounted returns with λ 0.98, and the entropy schedule of
:class:`NativeSettings` (docs/training.md, "What learns and why"), and two torch threads for the update (1.3x the
timesteps a wall minute of one thread on an idle 2-core machine; one where another process keeps a core busy). The
``*_every`` cadences count the learner's own decisions (timesteps) on every backend."""

DEFAULT_MINUTES = 10.0
"""The time budget of an invocation that sets neither ``minutes``, ``steps`` nor ``iterations``."""
WARM_START_LEARNING_RATE = 1e-3
"""Adam's step size for fitting a fresh policy to demonstrations (``imitate_lr``'s default, and the imitation's)."""
INIT_WARM_START_LEARNING_RATE = 3e-4
"""The warm start's step size from a trained policy (``init``): smaller, so it is corrected rather than redrawn."""
INIT_LEARNING_RATE = 3e-5
"""PPO's step size from a trained policy (``init``): its ten minutes of updates are mostly noise, and at 1e-4 they
moved ppo-2p by up to 3.6 points either way (docs/results/training-log.md)."""


def shipped_start(players: TableSizes) -> AgentSpec:
    """The shipped network an sb3 or RLlib run starts from when ``init`` is unset and it imitates nothing.

    The strongest against the heuristic at the run's table sizes (docs/results.md): ``ppo-2p`` at 2 players alone,
    ``gubs-net`` (one network for 2 to 6 players) at any other size or mix.
    """
    return AgentSpec.parse("ppo-2p" if players.distinct == [2] else "gubs-net")


BUDGET_FIELDS = ("minutes", "steps", "iterations")
"""The fields that bound one invocation: a resumed run takes them from its own command, not from run.json."""
COUNT_FIELDS = (
    "steps",
    "epochs",
    "eval_games",
    "iterations",
    "envs",
    "n_steps",
    "batch_size",
    "eval_every",
    "snapshot_every",
    "checkpoint_every",
    "threads",
    "luck_worlds",
)
"""The fields that are counts of at least 1 when set."""
NEW_RUN_FIELDS = ("labels", "init", "eval_adjust_luck")
"""The fields that only shape a new run's start: resuming with them is refused."""
SCRATCH_REFUSES = ("imitate_games", "labels", "init", "opponent", "eval_opponents")
"""The fields :meth:`TrainingConfig.from_scratch` refuses: each would bring a hand-written bot or a teacher in."""
NETWORK_FIELDS = ("rule_facts", "hidden", "luck_returns", "luck_value")
"""The fields a run keeps for its life (they shape its networks, or what its checkpoint holds): a resumed run
refuses another value."""


@dataclass(frozen=True)
class TrainingConfig:
    """Everything a training run trains on, checked on construction.

    Build one in Python (``TrainingConfig(players=(2, 4), minutes=30)``) and pass it to
    :func:`agents.training.train`, or let ``python train.py`` build it from its flags. Fields left ``None`` take the
    backend's default (:data:`DEFAULTS`); :meth:`resolved` fills them in.

    Raises:
        ConfigError: a value out of range or of the wrong kind, or a setting the backend cannot honour.
    """

    players: TableSizes = field(default_factory=lambda: TableSizes((2,)))
    """Table sizes to train on; several are mixed across the parallel environments (one size or a list)."""
    backend: Backend = "sb3"
    minutes: float | None = None
    """Wall-clock minutes of one invocation (its set-up included); 10 when no budget is given."""
    steps: int | None = None
    """Total learner timesteps (the learner's own decisions), counted across resumes."""
    iterations: int | None = None
    """Total RLlib training iterations, counted across resumes (rllib only)."""
    seed: int = 0
    envs: int | None = None
    """Parallel games: sb3's environments, or the games each RLlib env runner steps together."""
    pool: PoolConfig | None = None
    """Who plays the opponent seats (None: the backend's default: the league on sb3 and RLlib, every seat the
    learner's current policy on the native backend, which keeps no snapshots)."""
    opponent: AgentSpec | None = None
    """One agent that plays every opponent seat instead of the pool, evaluated against too (sb3)."""
    learning_rate: float | None = None
    ent_coef: float | None = None
    gamma: float | None = None
    """The discount of PPO's returns (1: undiscounted; a game's one reward comes at its end)."""
    gae_lambda: float | None = None
    """GAE's λ: how far each advantage looks ahead (1: the whole rest of the game)."""
    epochs: int | None = None
    n_steps: int | None = None
    """Rollout length per environment before each update (RLlib: its iteration is ``envs * n_steps`` per runner)."""
    batch_size: int | None = None
    """PPO minibatch, on every backend."""
    eval_every: int | None = None
    eval_games: int | None = None
    """Games per evaluation, opponent and table size (the native backend's are seat-rotated, on the same deals)."""
    eval_opponents: tuple[AgentSpec, ...] = ()
    """Agents every evaluation also plays against, besides random and the heuristic (e.g. ``("gubs-net",)``)."""
    eval_adjust_luck: bool = False
    """Evaluations also measure the luck-adjusted win rate (:mod:`agents.evaluate.luck`): eval.csv's ``adjusted``."""
    snapshot_every: int | None = None
    checkpoint_every: int | None = None
    imitate_games: int | None = None
    """The teacher's games a new run imitates before PPO (0: none)."""
    teacher: str | None = None
    """Whose games are imitated (:data:`TEACHERS`; None: ``heuristic-tuned``); only with ``imitate_games``."""
    labels: tuple[Path, ...] = ()
    """Search-labelled decisions to imitate instead of the teacher's games (expert iteration)."""
    init: AgentSpec | str | None = None
    """A network (shipped name or model file) whose weights the policy starts from, or ``"none"``: a fresh network.
    None: on sb3 and RLlib the shipped network for the table (:func:`shipped_start`) when the run imitates nothing
    and its actor has the shipped shape, else a fresh one; a fresh one on the native backend."""
    imitate_lr: float | None = None
    threads: int | None = None
    hidden: tuple[int, ...] = (256, 256)
    """Widths of the actor's and the critic's hidden layers (RLlib and native; the sb3 learner's are 256x256)."""
    every_seat: bool | None = None
    """Learn from the decisions of every seat the learner's current policy plays, not only its own seat's (the
    native backend; sb3 and RLlib learn from one seat a game)."""
    skip_forced: bool | None = None
    """Decisions with a single legal id are played without becoming samples (the native backend and RLlib either
    way, by default; sb3 always). On RLlib the seats then neither observe nor act at them."""
    luck_returns: bool = False
    """Each decision learns from its outcome less the luck of the draws after it (the native backend:
    :mod:`agents.training.native.luck_returns`; the same expectation, less of the draw's noise)."""
    luck_worlds: int = 16
    """Re-dealt decks per chance step for ``luck_returns``."""
    luck_value: LuckValue = "shipped"
    """Who judges the luck of ``luck_returns``: the shipped judge of the table size (fitted on heuristic games), or the
    run's own critic (``"critic"``: no network fitted on another agent's games, so the run is self-play alone)."""
    average_from: int | None = None
    """From this many learner timesteps on (or from a resume past it), the run evaluates and writes the mean of the
    actor's weights over its updates since, not the last weights (the native backend:
    :class:`agents.training.native.learner.ActorAverage`). None: off."""
    native: NativeSettings = field(default_factory=NativeSettings)
    """The settings only the native backend reads."""
    rule_facts: bool = False
    """Both networks read the observation followed by its rule facts (:mod:`gubs_env.encoding.rule_facts`), worked
    out in their feature layer (:mod:`agents.training.core.features`); fixed for the life of a run."""
    rllib: RllibSettings = field(default_factory=RllibSettings)
    """The settings only the RLlib backend reads: its env runners and the cluster."""
    device: str = "auto"
    """Where the learner computes: ``"auto"`` (a CUDA GPU when torch sees one, else the CPU), ``"cpu"``,
    ``"cuda"`` or ``"cuda:N"`` (sb3; RLlib places its learner on a GPU itself: ``"cuda"``). The games are played
    on the CPU whatever it is."""

    def __post_init__(self) -> None:
        self._normalise()
        self._check_values()
        self._check_backend()

    def _normalise(self) -> None:
        """Turn the forms a caller may pass (a list of sizes, spec text, path strings) into the typed ones."""
        set_ = object.__setattr__
        try:
            set_(self, "players", TableSizes.of(self.players))
        except ValueError as error:
            raise ConfigError(f"players: {error}") from None
        set_(self, "pool", _section("pool", self.pool, PoolConfig, optional=True))
        set_(self, "native", _section("native", self.native, NativeSettings))
        set_(self, "rllib", _section("rllib", self.rllib, RllibSettings))
        for name in ("opponent", "init"):
            value = getattr(self, name)
            if value is not None and not (name == "init" and value == NO_INIT):
                set_(self, name, _spec(name, value))
        others = self.eval_opponents
        if isinstance(others, (str, AgentSpec)):
            others = (others,)
        if not isinstance(others, Sequence):
            raise ConfigError(f"eval_opponents must be a list of agent specs, not {_brief(others)}")
        set_(self, "eval_opponents", tuple(_spec("eval_opponents", spec) for spec in others))
        if isinstance(self.labels, (str, Path)):
            set_(self, "labels", (self.labels,))
        if not isinstance(self.labels, Sequence) or not all(isinstance(p, (str, Path)) for p in self.labels):
            raise ConfigError(f"labels must be a list of file paths, not {_brief(self.labels)}")
        set_(self, "labels", tuple(Path(p) for p in self.labels))
        if isinstance(self.hidden, list):
            set_(self, "hidden", tuple(self.hidden))

    def _check_values(self) -> None:
        _check_choice("backend", self.backend, BACKENDS)
        if self.teacher is not None:
            _check_choice("teacher", self.teacher, TEACHERS)
        _check_choice("luck_value", self.luck_value, LUCK_VALUES)
        _check_number("minutes", self.minutes, above=0, optional=True)
        for name in COUNT_FIELDS:
            _check_int(name, getattr(self, name), 1, optional=True)
        _check_int("seed", self.seed, 0, MAX_TRAINING_SEED)
        _check_int("imitate_games", self.imitate_games, 0, optional=True)
        _check_int("average_from", self.average_from, 0, optional=True)
        _check_number("learning_rate", self.learning_rate, above=0, optional=True)
        _check_number("imitate_lr", self.imitate_lr, above=0, optional=True)
        _check_number("ent_coef", self.ent_coef, at_least=0, optional=True)
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            if value is not None and not (_is_number(value) and 0 < value <= 1):
                raise ConfigError(f"{name} must be a number above 0 and at most 1, not {_brief(value)}")
        if not isinstance(self.hidden, tuple) or not self.hidden:
            raise ConfigError(f"hidden must be a list of layer widths, not {_brief(self.hidden)}")
        for width in self.hidden:
            _check_int("a hidden layer's width", width, 1, MAX_WIDTH)  # the policy file every backend exports
        for name in ("eval_adjust_luck", "rule_facts", "luck_returns", "every_seat", "skip_forced"):
            value = getattr(self, name)
            if not isinstance(value, bool) and not (value is None and name in ("every_seat", "skip_forced")):
                raise ConfigError(f"{name} must be True or False, not {_brief(value)}")
        if self.luck_worlds > MAX_WORLDS:
            raise ConfigError(f"luck_worlds must be at most {MAX_WORLDS}, not {self.luck_worlds}")
        if not isinstance(self.device, str) or not DEVICE.fullmatch(self.device):
            raise ConfigError(f"device must be auto, cpu, cuda or cuda:N, not {_brief(self.device)}")

    def _check_backend(self) -> None:
        """Refuse what the chosen backend cannot do, naming the setting and the backend (one line)."""
        refused = [name for name, set_ in self._unsupported().items() if set_]
        if refused:
            raise ConfigError(f"the {self.backend} backend cannot honour {', '.join(refused)}: leave it unset")
        if (self.luck_worlds != 16 or self.luck_value != "shipped") and not self.luck_returns:
            raise ConfigError("luck_worlds and luck_value go with luck_returns")

    def _unsupported(self) -> dict[str, bool]:
        """Each setting the chosen backend cannot honour, and whether it is set."""
        cluster_default = RllibSettings()
        rllib_only = {"iterations": self.iterations is not None} | {
            item.name: getattr(self.rllib, item.name) != getattr(cluster_default, item.name)
            for item in fields(RllibSettings)
        }
        sb3_only = {"opponent": self.opponent is not None}
        native_only = {
            "every_seat": bool(self.every_seat),
            "luck_returns": self.luck_returns,
            "average_from": self.average_from is not None,
            "native": self.native != NativeSettings(),
        }
        if self.backend == "sb3":
            # sb3's vector env skips forced decisions in compiled code
            forced = self.skip_forced is False
            return {**rllib_only, **native_only, "hidden": self.hidden != (256, 256), "skip_forced": forced}
        if self.backend == "rllib":
            return {**sb3_only, **native_only, "device cuda:N": self.device.startswith("cuda:")}
        return {
            **rllib_only,
            **sb3_only,
            "n_steps (a batch is whole games)": self.n_steps is not None,
            "ent_coef (its entropy bonus is native's schedule)": self.ent_coef is not None,
            "snapshot_every (it keeps no snapshots)": self.snapshot_every is not None,
            "a pool with snapshots (self_share below 1)": self.pool is not None and self.pool.self_share < 1,
            "eval_opponents": bool(self.eval_opponents),
            "device cuda": self.device.startswith("cuda"),
        }

    @classmethod
    def from_scratch(cls, **changes: Any) -> TrainingConfig:
        """The from-scratch preset: the native backend, every seat its current policy, nothing imitated.

        No hand-written bot plays a seat and none is imitated, so what the run learns is self-play's alone
        (``python train.py --from-scratch``). ``changes`` set any other field.

        Raises:
            ConfigError: a change that brings a hand-written bot or a teacher in (a pool with the heuristic or
                random play, imitated games, labels), or any the config refuses.
        """
        brought = [name for name in SCRATCH_REFUSES if changes.get(name)]
        pool = changes.get("pool")
        if pool is not None and _section("pool", pool, PoolConfig) != PURE_SELF_PLAY:
            brought.append("pool (p_random, p_heuristic, self_share)")
        if brought:
            left_out = ", ".join(brought)
            refusal = "the from-scratch preset plays no hand-written bot and imitates nothing"
            raise ConfigError(f"{refusal}: leave out {left_out}")
        return cls(**{"backend": "native", "imitate_games": 0, "pool": PURE_SELF_PLAY, **changes})

    def resolved(self) -> TrainingConfig:
        """A copy with every ``None`` field filled in from :data:`DEFAULTS` (and the budget's default).

        Raises:
            ConfigError: an RLlib minibatch larger than the iteration it is drawn from, or a teacher for a run
                that imitates no teacher games.
        """
        defaults = DEFAULTS[self.backend]
        values: dict[str, Any] = {name: value for name, value in defaults.items() if getattr(self, name) is None}
        if "threads" in values:  # never more torch threads than cores
            values["threads"] = min(values["threads"], os.cpu_count() or 1)
        if self.minutes is None and self.steps is None and self.iterations is None:
            values["minutes"] = DEFAULT_MINUTES
        values.update(self._warm_start(values))
        resolved = replace(self, **values)
        if resolved.backend == "rllib" and (resolved.batch_size or 0) > resolved.iteration_steps:
            raise ConfigError(
                f"batch_size ({resolved.batch_size}) cannot exceed an iteration's {resolved.iteration_steps} steps "
                "(envs x n_steps x env runners)"
            )
        return resolved

    def _warm_start(self, defaults: dict[str, Any]) -> dict[str, Any]:
        """The warm start's unset fields: where the policy starts, what it imitates, the step sizes and the bonus.

        sb3 and RLlib start from :func:`shipped_start` unless the run asks to imitate, or its actor is not the
        shipped networks' shape (rule facts, other widths); the native backend, self-play's, starts fresh. A run
        that starts from a network imitates no teacher games unless asked (they would pull it back to the teacher),
        PPO steps at :data:`INIT_LEARNING_RATE`, and the native backend's entropy bonus stays at its end value.
        """
        values: dict[str, Any] = {}
        asks_to_imitate = bool(self.labels) or bool(self.imitate_games)
        if self.init is None and self.backend != "native":
            starts_fresh = asks_to_imitate or self.rule_facts or self.hidden != (256, 256)
            values["init"] = NO_INIT if starts_fresh else shipped_start(self.players)
        starts_trained = isinstance(values.get("init", self.init), AgentSpec)
        if self.imitate_games is None and starts_trained:
            values["imitate_games"] = 0
        games = values.get("imitate_games", defaults.get("imitate_games", self.imitate_games))
        imitates = bool(self.labels) or bool(games)
        if self.teacher is not None and not imitates:
            raise ConfigError("teacher goes with imitate_games: this run imitates no teacher games")
        if self.teacher is None and imitates:
            values["teacher"] = TUNED
        if self.imitate_lr is None:
            values["imitate_lr"] = INIT_WARM_START_LEARNING_RATE if starts_trained else WARM_START_LEARNING_RATE
        if self.learning_rate is None and starts_trained:
            values["learning_rate"] = INIT_LEARNING_RATE
        if self.backend == "native" and self.native.entropy_start is None:
            start = self.native.entropy_end if starts_trained else FRESH_ENTROPY_START
            values["native"] = replace(self.native, entropy_start=start)
        return values

    @property
    def init_network(self) -> AgentSpec | None:
        """The network the policy starts from; None: a fresh one (or, before :meth:`resolved`, sb3's default)."""
        return self.init if isinstance(self.init, AgentSpec) else None

    @property
    def seats(self) -> PoolConfig:
        """Who plays the opponent seats: ``pool``, or the backend's default pool when it is unset."""
        return self.pool if self.pool is not None else DEFAULTS[self.backend]["pool"]

    @property
    def iteration_steps(self) -> int:
        """RLlib's environment steps per training iteration: ``n_steps`` for each game of each env runner."""
        return (self.envs or 1) * (self.n_steps or 1) * max(self.rllib.env_runners, 1)

    @property
    def evaluated_against(self) -> tuple[AgentSpec, ...]:
        """The agents evaluations play besides random and the heuristic: ``opponent``, then ``eval_opponents``."""
        first = () if self.opponent is None else (self.opponent,)
        return tuple(dict.fromkeys(first + self.eval_opponents))

    @property
    def seconds(self) -> float | None:
        """The time budget in seconds (None: none)."""
        return None if self.minutes is None else self.minutes * 60

    def to_json(self) -> dict[str, Any]:
        """The config as JSON-ready data (specs as their text, paths as strings, the pool as an object)."""
        data: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, TableSizes):
                value = value.as_list()
            elif isinstance(value, (PoolConfig, NativeSettings, RllibSettings)):
                value = {f.name: getattr(value, f.name) for f in fields(value)}
            elif isinstance(value, AgentSpec):
                value = str(value)
            elif isinstance(value, tuple):
                value = [str(v) if isinstance(v, (Path, AgentSpec)) else v for v in value]
            data[item.name] = value
        return data

    @classmethod
    def from_json(cls, data: Any) -> TrainingConfig:
        """A config read back from :meth:`to_json`'s data, as a run file holds it.

        A run file is data from anyone: unknown keys are refused, and so is an opponent or init spec that would
        import code (a ``module:Class`` spec must be given again on the command line).

        Raises:
            ConfigError: not an object, an unknown key, or any value :class:`TrainingConfig` refuses.
        """
        if not isinstance(data, dict):
            raise ConfigError(f"config must be an object, not {_brief(data)}")
        data = _without_retired(data)
        known = {item.name for item in fields(cls)}
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise ConfigError(f"unknown setting {', '.join(map(repr, unknown))[:120]}")
        others = data.get("eval_opponents", [])
        if not isinstance(others, list) or len(others) > 16:
            raise ConfigError(f"eval_opponents must be a list of at most 16 agent specs, not {_brief(others)}")
        for name, text in [("opponent", data.get("opponent")), ("init", data.get("init"))] + [
            ("eval_opponents", text) for text in others
        ]:
            if text is not None and not isinstance(text, str):
                raise ConfigError(f"{name} must be an agent spec (a string) or null, not {_brief(text)}")
            if isinstance(text, str) and len(text) > 300:
                raise ConfigError(f"{name} is over 300 characters: not an agent spec")
            if isinstance(text, str) and text != NO_INIT and _spec(name, text).names_code:
                raise ConfigError(
                    f"{name} {text[:60]!r} names code to import, which a run file may not; give it again "
                    "on the command line"
                )
        try:
            return cls(**data)
        except TypeError as error:  # a value of a kind no check foresaw (a pool given as a list)
            raise ConfigError(str(error)) from None


def _without_retired(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` less the fields runs of earlier versions held, or a ConfigError for a run trained in a retired way.

    Those fields: the :data:`RETIRED` and :data:`RETIRED_NATIVE` ones, the teacher of a run that imitated nothing,
    and the fresh network's entropy bonus that earlier versions wrote into the native section of every run. The
    RLlib settings that earlier versions kept at the top level are moved into the ``rllib`` section.
    """
    current = _without_fields(data, RETIRED)
    flat = [item.name for item in fields(RllibSettings) if item.name in current]
    if flat and "rllib" in current:
        raise ConfigError(f"{flat[0]} is given twice: at the top level and in the rllib section")
    if flat:
        current["rllib"] = {name: current.pop(name) for name in flat}
    if not current.get("imitate_games") and not current.get("labels"):
        current.pop("teacher", None)  # earlier versions wrote the default teacher into runs that imitated nothing
    native = current.get("native")
    if isinstance(native, dict):
        native = current["native"] = _without_fields(native, RETIRED_NATIVE, "native.")
        unread = current.get("backend") != "native"  # sb3 and RLlib never read the native section
        if unread and native.get("entropy_start") == FRESH_ENTROPY_START:
            current["native"] = {**native, "entropy_start": None}
    return current


def _without_fields(data: dict[str, Any], retired: dict[str, tuple[Any, str]], prefix: str = "") -> dict[str, Any]:
    """``data`` less the ``retired`` fields, or a ConfigError naming one that holds a value no run resumes with."""
    for name, (kept, why) in retired.items():
        if name in data and kept is not ANY_VALUE and data[name] != kept:
            raise ConfigError(f"this run was trained with {prefix}{name} {_brief(data[name])} ({why}): start a new run")
    return {key: value for key, value in data.items() if key not in retired}


def _section(name: str, value: Any, kind: type, optional: bool = False) -> Any:
    """``value`` (a ``kind`` or the mapping of its fields, as a run file holds it) as a ``kind``; or a ConfigError."""
    if value is None and optional:
        return None
    if isinstance(value, Mapping):
        unknown = sorted(repr(key) for key in value if key not in {item.name for item in fields(kind)})
        if unknown:  # named by repr: a key of a run file may hold any character, a line break too
            raise ConfigError(f"unknown {name} setting {', '.join(unknown)[:120]}")
        value = kind(**value)
    if not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__name__}, not {_brief(value)}")
    return value


def _spec(name: str, value: Any) -> AgentSpec:
    """``value`` (spec text or an AgentSpec) as an AgentSpec, or a ConfigError naming the setting."""
    try:
        return AgentSpec.of(value)
    except AgentSpecError as error:
        raise ConfigError(f"{name}: {error}") from None
