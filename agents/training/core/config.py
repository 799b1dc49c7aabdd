"""The settings of a training run: one typed value, checked once, shared by the loop, every backend and the command.

``python train.py`` builds a :class:`TrainingConfig` from its flags (:mod:`agents.training.command`, which generates
them from the fields below), a notebook builds one by hand, and :func:`agents.training.train` runs it. A run's
run.json stores the config it was started with (:meth:`TrainingConfig.to_json`) and ``--resume`` reads it back
(:meth:`TrainingConfig.from_json`), so what a run trains on is written in one place.

A field left ``None`` takes its backend's default (:data:`DEFAULTS`, filled in by :meth:`TrainingConfig.resolved`);
a run file holds the values filled in, so a resumed run keeps the settings it started with. A setting the chosen
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

from agents.bots.model_file import MAX_WIDTH
from agents.bots.names import TUNED
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.luck import MAX_WORLDS
from gubs_env.engine.players import TableSizes
from gubs_env.support.cli import MAX_TRAINING_SEED

Backend = Literal["native", "sb3", "rllib"]
LuckValue = Literal["shipped", "critic"]
Teacher = Literal["heuristic", "heuristic-tuned"]
BACKENDS: tuple[Backend, ...] = ("native", "sb3", "rllib")
"""The trainers the loop drives: the project's own PPO over batches of whole games (``native``), stable-baselines3's
MaskablePPO in this process, or Ray RLlib on a local Ray or a cluster."""
LUCK_VALUES: tuple[LuckValue, ...] = ("shipped", "critic")
TEACHERS: tuple[Teacher, ...] = ("heuristic", "heuristic-tuned")
NO_INIT = "none"
"""``init``'s value for a fresh network."""

RANDOM = "random"
HEURISTIC = "heuristic"
"""The fixed opponents of the league, by the names the run reports them under."""
SELF = "self"
SNAPSHOTS = "snapshots"
"""The learner's current policy, and its frozen snapshots, by the names the run reports them under."""


class ConfigError(ValueError):
    """A training setting that is out of range, of the wrong kind, or that the chosen backend cannot honour."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_number(name: str, value: Any, *, above: float | None = None, at_least: float | None = None) -> None:
    if value is None:
        return
    if not _is_number(value):
        raise ConfigError(f"{name} must be a finite number, not {_brief(value)}")
    if above is not None and not value > above:
        raise ConfigError(f"{name} must be above {above:g}, not {value}")
    if at_least is not None and not value >= at_least:
        raise ConfigError(f"{name} must be at least {at_least:g}, not {value}")


def _check_share(name: str, value: Any) -> None:
    if value is not None and (not _is_number(value) or not 0 <= value <= 1):
        raise ConfigError(f"{name} must be a number from 0 to 1, not {_brief(value)}")


def _check_int(name: str, value: Any, low: int, high: int = 2**63 - 1) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, not {_brief(value)}")
    if not low <= value <= high:
        bound = f"at least {low}" if high == 2**63 - 1 else f"from {low} to {high}"
        raise ConfigError(f"{name} must be {bound}, not {value}")


def _check_bool(name: str, value: Any, optional: bool = False) -> None:
    if not isinstance(value, bool) and not (optional and value is None):
        raise ConfigError(f"{name} must be True or False, not {_brief(value)}")


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {_brief(value)}")


def _brief(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class PoolConfig:
    """The league: who plays the opponent seats, and how the learner's snapshots are kept and drawn.

    Each opponent seat of each game draws its player from one uniform number (:func:`~agents.training.core.league.
    seat_player`): the random agent with ``p_random``, the heuristic with ``p_heuristic``, and the rest of the
    seats are the learner's: ``self_share`` of them its current policy, the others one of its frozen snapshots (the
    newest ``pool_size`` are kept), drawn by prioritized fictitious self-play: by weights ``(1 - x) ** prioritize``,
    ``x`` the learner's recent score against the snapshot. Before the first snapshot the current policy plays all
    of the rest.

    The default is pure self-play: every seat the learner's current policy, no hand-written bot anywhere.
    ``PoolConfig(p_heuristic=0.35, self_share=0.4)`` is a league with the heuristic as an anchor.

    Raises:
        ConfigError: a share outside [0, 1], fixed shares adding up to more than 1, a pool size below 1, or a
            negative exponent.
    """

    p_random: float = 0.0
    """Share of the opponent seats played by the random agent."""
    p_heuristic: float = 0.0
    """Share of the opponent seats played by the heuristic; the rest are the learner's."""
    pool_size: int = 5
    """Snapshots of the learner kept in the league."""
    self_share: float = 1.0
    """Of the learner's seats, the share its current policy plays; the rest its snapshots."""
    prioritize: float = 1.0
    """Snapshots are drawn with weight (1 - the learner's score against them) ** this (0: evenly)."""

    def __post_init__(self) -> None:
        for name in ("p_random", "p_heuristic", "self_share"):
            _check_share(name, getattr(self, name))
            object.__setattr__(self, name, float(getattr(self, name)))
        if self.p_random + self.p_heuristic > 1 + 1e-12:
            raise ConfigError("p_random and p_heuristic add up to more than 1")
        _check_int("pool_size", self.pool_size, 1)
        _check_number("prioritize", self.prioritize, at_least=0)
        object.__setattr__(self, "prioritize", float(self.prioritize))

    @property
    def keeps_snapshots(self) -> bool:
        """Whether some of the learner's seats go to its snapshots."""
        return self.self_share < 1 and self.p_random + self.p_heuristic < 1

    @property
    def hand_written(self) -> bool:
        """Whether a hand-written bot (random play or the heuristic) takes some seats."""
        return self.p_random + self.p_heuristic > 0

    def shares(self, has_snapshots: bool) -> dict[str, float]:
        """Each kind's share of the seats (:data:`RANDOM`, :data:`HEURISTIC`, :data:`SELF`, :data:`SNAPSHOTS`)."""
        rest = max(0.0, 1.0 - self.p_random - self.p_heuristic)
        p_self = rest * self.self_share if has_snapshots else rest
        return {RANDOM: self.p_random, HEURISTIC: self.p_heuristic, SELF: p_self, SNAPSHOTS: rest - p_self}

    def kind(self, u: float, has_snapshots: bool) -> str:
        """The kind of player a uniform draw ``u`` in [0, 1) seats: one of the keys of :meth:`shares`."""
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


@dataclass(frozen=True)
class NativeSettings:
    """The settings only the native backend reads (``TrainingConfig.native``); the others refuse a change to them.

    Raises:
        ConfigError: a value out of range.
    """

    clip: float = 0.2
    """PPO's ratio clip."""
    value_coef: float = 0.5
    """The value loss's weight."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this norm."""
    normalize_values: bool = True
    """The critic learns normalized targets, so its scale does not depend on the table size."""
    agreement_every: int = 4
    """grad_cosine is measured on every this many updates (1: every one)."""

    def __post_init__(self) -> None:
        _check_number("clip", self.clip, above=0)
        if self.clip >= 1:
            raise ConfigError(f"clip must be below 1, not {self.clip}")
        _check_number("value_coef", self.value_coef, at_least=0)
        _check_number("max_grad_norm", self.max_grad_norm, above=0)
        _check_int("agreement_every", self.agreement_every, 1)
        _check_bool("normalize_values", self.normalize_values)


@dataclass(frozen=True)
class RllibSettings:
    """The settings only the RLlib backend reads (``TrainingConfig.rllib``); the others refuse a change to them.

    Raises:
        ConfigError: a value out of range, or ``code_installed`` without a cluster to join.
    """

    env_runners: int = 1
    """Env runner actors (0: the driver steps the games itself)."""
    address: str | None = None
    """The Ray cluster to join, 'auto' or HOST:PORT (None: a local Ray of the run's own)."""
    code_installed: bool = False
    """With address: the cluster's nodes have this project installed, so its code is not shipped to them."""

    def __post_init__(self) -> None:
        _check_int("env_runners", self.env_runners, 0)
        if self.address is not None and (not isinstance(self.address, str) or not self.address.strip()):
            raise ConfigError("address is 'auto' or HOST:PORT, not empty")
        _check_bool("code_installed", self.code_installed)
        if self.code_installed and self.address is None:
            raise ConfigError("code_installed goes with address (a cluster to join)")


MAX_GRAD_NORM = 0.5
"""The norm each PPO update's gradient is clipped to on sb3 and RLlib (native's:
:attr:`NativeSettings.max_grad_norm`)."""
CLIP_RANGE = 0.2
"""PPO's ratio clip on sb3 and RLlib (native's: :attr:`NativeSettings.clip`)."""
VALUE_COEF = 0.5
"""The value loss's weight on sb3 and RLlib (native's: :attr:`NativeSettings.value_coef`). With these three and no
KL penalty, both libraries make the same PPO update."""

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


_EVERY_BACKEND: dict[str, Any] = {"threads": 2, "imitate_games": 0, "skip_forced": True, "eval_games": 1000}
_EVERY_BACKEND |= {"gamma": 1.0, "gae_lambda": 0.98}  # a game's one reward comes at its end, ~90 decisions a seat
_LIBRARY_PPO: dict[str, Any] = {**_EVERY_BACKEND, "envs": 64, "n_steps": 256, "batch_size": 2048, "epochs": 4}
_LIBRARY_PPO |= {"learning_rate": 3e-4, "ent_coef": 0.01, "every_seat": False}
DEFAULTS: dict[Backend, dict[str, Any]] = {
    "native": {**_EVERY_BACKEND, "envs": 256, "batch_size": 4096, "epochs": 2, "learning_rate": 3e-4, "ent_coef": 0.03}
    | {"ent_coef_end": 0.003, "every_seat": True}
    | {"eval_every": 2_000_000, "snapshot_every": 2_000_000, "checkpoint_every": 500_000},
    "sb3": {**_LIBRARY_PPO, "eval_every": 500_000, "snapshot_every": 500_000, "checkpoint_every": 250_000},
    "rllib": {**_LIBRARY_PPO, "eval_every": 250_000, "snapshot_every": 250_000, "checkpoint_every": 100_000},
}
"""What a ``None`` field means, per backend (docs/training.md, "Settings").

Every backend starts from a fresh network in pure self-play, with two learner threads, forced decisions played
without becoming samples, and undiscounted returns. The native backend plays batches of 256 whole games and learns
from every seat, with an entropy bonus that decays (``ent_coef`` to ``ent_coef_end``); sb3 and RLlib learn from the
learner's seat of 64 games, 256 steps each, with a constant bonus. The ``*_every`` cadences count timesteps."""

DEFAULT_MINUTES = 10.0
"""The time budget of an invocation that sets neither ``minutes``, ``steps`` nor ``iterations``."""
WARM_START_LEARNING_RATE = 1e-3
"""Adam's step size for fitting a fresh policy to demonstrations (``imitate_lr``'s default)."""
INIT_WARM_START_LEARNING_RATE = 3e-4
"""The warm start's step size from a trained policy (``init``): smaller, so it is corrected rather than redrawn."""
INIT_LEARNING_RATE = 3e-5
"""PPO's step size from a trained policy (``init``): a small step keeps what the network knows."""

BUDGET_FIELDS = ("minutes", "steps", "iterations")
"""The fields that bound one invocation: a resumed run takes them from its own command, not from run.json."""
COUNT_FIELDS: tuple[str, ...] = (
    "steps",
    "epochs",
    "eval_games",
    "final_games",
    "iterations",
    "envs",
    "n_steps",
    "batch_size",
)
COUNT_FIELDS += ("eval_every", "snapshot_every", "checkpoint_every", "threads", "luck_worlds")
"""The fields that are counts of at least 1 when set."""
NEW_RUN_FIELDS = ("labels", "init", "eval_adjust_luck")
"""The fields that only shape a new run's start: resuming with them is refused."""
NETWORK_FIELDS = ("hidden", "luck_returns", "luck_value")
"""The fields a run keeps for its life (they shape its networks, or what its checkpoint holds)."""


@dataclass(frozen=True)
class TrainingConfig:
    """Everything a training run trains on, checked on construction.

    Build one in Python (``TrainingConfig(players=(2, 4), minutes=30)``) and pass it to
    :func:`agents.training.train`, or let ``python train.py`` build it from its flags (each field is a flag of the
    same name). Fields left ``None`` take the backend's default (:data:`DEFAULTS`); :meth:`resolved` fills them in.

    Raises:
        ConfigError: a value out of range or of the wrong kind, or a setting the backend cannot honour.
    """

    backend: Backend = "native"
    """The trainer: native (the project's own PPO), sb3 or rllib (docs/rllib.md)."""
    players: TableSizes = field(default_factory=lambda: TableSizes((2,)))
    """table sizes, 2 to 6; several are mixed across the games, slot i playing players[i % len(players)]."""
    minutes: float | None = None
    """Wall-clock minutes of this invocation, set-up included."""
    steps: int | None = None
    """Total learner timesteps (the learner's own decisions), counted across resumes."""
    iterations: int | None = None
    """Total iterations (native updates, sb3 rollouts, RLlib training iterations), counted across resumes."""
    seed: int = 0
    """The run's seed: the network's start, the deals and every draw."""
    envs: int | None = None
    """Games played together (RLlib: per env runner)."""
    pool: PoolConfig = field(default_factory=PoolConfig)
    """Who plays the opponent seats: pure self-play unless the league's shares say otherwise."""
    opponent: AgentSpec | None = None
    """One agent spec at every opponent seat instead of the league, evaluated against too (the exploiter check)."""
    learning_rate: float | None = None
    """Adam's step size (from --init's network: 3e-5)."""
    ent_coef: float | None = None
    """The entropy bonus at the run's start (from --init's network: ent_coef_end)."""
    ent_coef_end: float | None = None
    """The entropy bonus it falls to, linearly over ent_decay samples (default: 0.003 on native; on sb3 and rllib
    ent_coef, a constant bonus)."""
    ent_decay: int = 20_000_000
    """Samples (decisions learnt from) over which the entropy bonus falls from ent_coef to ent_coef_end (rllib: its
    environment steps, every seat's)."""
    gamma: float | None = None
    """The discount of the returns (1: undiscounted; a game's one reward comes at its end)."""
    gae_lambda: float | None = None
    """GAE's lambda: how far each advantage looks ahead."""
    epochs: int | None = None
    """PPO's passes over each batch."""
    n_steps: int | None = None
    """Rollout length per game before each update, sb3 and RLlib (native's batches are whole games)."""
    batch_size: int | None = None
    """PPO's minibatch."""
    eval_every: int | None = None
    """Timesteps between the learning curve's points."""
    eval_games: int | None = None
    """Games per curve point, opponent and table size: seat-rotated, on the curve's own deals."""
    final_games: int = 2000
    """Games per table size of the final figure, and of the promotion gate of a run from --init, each on deals of
    its own."""
    eval_opponents: tuple[AgentSpec, ...] = ()
    """Agent specs every evaluation plays, besides random play and the heuristic."""
    eval_adjust_luck: bool = False
    """Evaluations also give the luck-adjusted win rate (docs/luck.md; slower)."""
    snapshot_every: int | None = None
    """Timesteps between snapshots into the league, when it keeps any (self_share below 1)."""
    checkpoint_every: int | None = None
    """Timesteps between checkpoints."""
    init: AgentSpec | str | None = None
    """A network to start from, a shipped name or a model file, or none: a fresh network."""
    imitate_games: int | None = None
    """Teacher games a new run imitates before PPO."""
    teacher: Teacher | None = None
    """Whose games --imitate-games imitates (default: heuristic-tuned)."""
    labels: tuple[Path, ...] = ()
    """Search-labelled decisions to imitate instead of a teacher's games (expert iteration)."""
    imitate_lr: float | None = None
    """The warm start's step size (default: 1e-3; from --init's network: 3e-4)."""
    threads: int | None = None
    """Torch threads of the learner, at most one per core and as many as other processes leave free."""
    hidden: tuple[int, ...] = (256, 256)
    """Widths of the actor's and the critic's hidden layers."""
    every_seat: bool | None = None
    """Learn from every seat the learner's current policy plays, not only its own (native)."""
    skip_forced: bool | None = None
    """Play decisions with one legal id without learning from them (sb3: always)."""
    luck_returns: bool = False
    """Each decision learns from its outcome less the luck of the draws after it (native; docs/training.md)."""
    luck_worlds: int = 16
    """Re-dealt decks per chance step of --luck-returns."""
    luck_value: LuckValue = "shipped"
    """Who judges the luck of --luck-returns: the shipped luck network, or the run's own critic."""
    native: NativeSettings = field(default_factory=NativeSettings)
    """The settings only the native backend reads."""
    rllib: RllibSettings = field(default_factory=RllibSettings)
    """The settings only the RLlib backend reads: its env runners and the cluster."""
    device: str = "auto"
    """Where the learner computes: auto (a CUDA GPU when torch sees one), cpu, cuda or cuda:N (sb3, RLlib)."""

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
        for name, kind in (("pool", PoolConfig), ("native", NativeSettings), ("rllib", RllibSettings)):
            set_(self, name, _section(name, getattr(self, name), kind))
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
        _check_number("minutes", self.minutes, above=0)
        for name in COUNT_FIELDS:
            _check_int(name, getattr(self, name), 1)
        _check_int("seed", self.seed, 0, MAX_TRAINING_SEED)
        _check_int("imitate_games", self.imitate_games, 0)
        _check_number("learning_rate", self.learning_rate, above=0)
        _check_number("imitate_lr", self.imitate_lr, above=0)
        _check_number("ent_coef", self.ent_coef, at_least=0)
        _check_number("ent_coef_end", self.ent_coef_end, at_least=0)
        _check_int("ent_decay", self.ent_decay, 1)
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            if value is not None and not (_is_number(value) and 0 < value <= 1):
                raise ConfigError(f"{name} must be a number above 0 and at most 1, not {_brief(value)}")
        if not isinstance(self.hidden, tuple) or not self.hidden:
            raise ConfigError(f"hidden must be a list of layer widths, not {_brief(self.hidden)}")
        for width in self.hidden:
            _check_int("a hidden layer's width", width, 1, MAX_WIDTH)  # the policy file every backend exports
        for name in ("eval_adjust_luck", "luck_returns"):
            _check_bool(name, getattr(self, name))
        for name in ("every_seat", "skip_forced"):
            _check_bool(name, getattr(self, name), optional=True)
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
        rllib_only = {item.name: getattr(self.rllib, item.name) != getattr(RllibSettings(), item.name)
                      for item in fields(RllibSettings)}  # fmt: skip
        native_only = {
            "every_seat": bool(self.every_seat),
            "luck_returns": self.luck_returns,
            "native": self.native != NativeSettings(),
        }
        if self.backend == "sb3":  # its vector env plays forced decisions in compiled code
            return {**rllib_only, **native_only, "skip_forced": self.skip_forced is False}
        if self.backend == "rllib":
            return {**native_only, "device cuda:N": self.device.startswith("cuda:")}
        return {
            **rllib_only,
            "n_steps (a batch is whole games)": self.n_steps is not None,
            "device cuda": self.device.startswith("cuda"),
        }

    @property
    def pure_self_play(self) -> bool:
        """Whether no hand-written bot plays a seat and nothing is imitated or started from."""
        return not (
            self.pool.hand_written
            or self.opponent is not None
            or self.imitate_games
            or self.labels
            or self.init_network is not None
        )

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
        values.update(self._warm_start())
        resolved = replace(self, **(values | self._entropy()))
        if resolved.backend == "rllib" and (resolved.batch_size or 0) > resolved.iteration_steps:
            raise ConfigError(
                f"batch_size ({resolved.batch_size}) cannot exceed an iteration's {resolved.iteration_steps} steps "
                "(envs x n_steps x env runners)"
            )
        return resolved

    def _warm_start(self) -> dict[str, Any]:
        """The warm start's unset fields: where the policy starts, what it imitates, the step sizes and the bonus.

        A new run starts from a fresh network and imitates nothing unless asked. One that starts from a network
        (``init``) steps at :data:`INIT_LEARNING_RATE`, and its entropy bonus stays at its end value.
        """
        values: dict[str, Any] = {}
        imitates = bool(self.labels) or bool(self.imitate_games)  # None: the default, none
        if self.teacher is not None and not imitates:
            raise ConfigError("teacher goes with imitate_games: this run imitates no teacher games")
        if self.teacher is None and imitates:
            values["teacher"] = TUNED  # the stronger of the two, the default teacher
        starts_trained = self.init_network is not None
        if self.imitate_lr is None:
            values["imitate_lr"] = INIT_WARM_START_LEARNING_RATE if starts_trained else WARM_START_LEARNING_RATE
        if self.learning_rate is None and starts_trained:
            values["learning_rate"] = INIT_LEARNING_RATE
        return values

    def _entropy(self) -> dict[str, Any]:
        """The bonus's ends: without an end, a constant bonus; from a trained network, the end's value throughout."""
        defaults = DEFAULTS[self.backend]
        end = defaults.get("ent_coef_end") if self.ent_coef_end is None else self.ent_coef_end
        start = self.ent_coef
        if start is None:
            start = end if self.init_network is not None and end is not None else defaults["ent_coef"]
        return {"ent_coef": start, "ent_coef_end": start if end is None else end}

    def entropy_at(self, samples: int) -> float:
        """The entropy bonus after ``samples`` samples: linear from ``ent_coef`` to ``ent_coef_end``, then flat."""
        if self.ent_coef is None or self.ent_coef_end is None:
            raise ConfigError("the entropy bonus is unset: train a resolved config (TrainingConfig.resolved())")
        progress = min(1.0, samples / self.ent_decay)
        return self.ent_coef * (1 - progress) + self.ent_coef_end * progress  # each end exactly at its end

    @property
    def init_network(self) -> AgentSpec | None:
        """The network the policy starts from; None: a fresh one."""
        return self.init if isinstance(self.init, AgentSpec) else None

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
        """The config as JSON-ready data (specs as their text, paths as strings, the sections as objects)."""
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
        unknown = sorted(str(key) for key in data if key not in {item.name for item in fields(cls)})
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
        except TypeError as error:  # a value of a kind no check foresaw (a section given as a list)
            raise ConfigError(str(error)) from None


def _section(name: str, value: Any, kind: type) -> Any:
    """``value`` (a ``kind`` or the mapping of its fields, as a run file holds it) as a ``kind``; or a ConfigError."""
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
