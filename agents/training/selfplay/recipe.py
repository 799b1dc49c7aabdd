"""``train_selfplay``: pure self-play from scratch, one run folder, resumable, with its learning diagnostics.

Every seat of every game is the policy being trained, and every seat's decisions are samples (forced ones
excepted); no imitation and no hand-written bot at any seat. A batch is ``games`` whole games (about 37,000
samples at 2 players for 256 games), learnt from by :class:`~agents.training.selfplay.learner.Learner`; every
``eval_every`` timesteps the greedy policy plays ``eval_games`` seat-rotated games against the heuristic and random
play on the same deals each time.

The run folder:

* ``config.json``: the :class:`SelfPlayConfig` (the budget is the command's, not the run's);
* ``progress.csv``: one row per update (:data:`PROGRESS_COLUMNS`): entropy, approx KL, clip fraction, explained
  variance and ``grad_cosine``, the cosine between the policy gradients of the batch's two halves (split by game);
* ``eval.csv``: the curve, in the columns of every run's eval.csv; ``curves.png``: the curve beside the diagnostics;
* ``checkpoint.pt`` + ``state.json``: weights, optimizer and counters, read back with ``torch.load(weights_only=True)``
  (tensors only, never code); state.json names the checkpoint's SHA-256 and is written after it, so a run killed at
  any moment resumes from its last complete checkpoint, and rows written after it are dropped;
* ``policy.npz``: the actor in the shipped weights-only format (:func:`agents.bots.model_file.save_policy`), a
  model file every command plays.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.model_file import save_policy
from agents.bots.spec import FINAL_POLICY
from agents.bots.threads import LearnerThreads
from agents.evaluate.luck import MAX_WORLDS, LuckSettings
from agents.training.core.reports import append_csv, evaluation_row, rows_at
from agents.training.core.runs import truncate_eval_log
from agents.training.selfplay.charts import plot_run
from agents.training.selfplay.evaluate import OPPONENT_KINDS, seat_rotated_match
from agents.training.selfplay.learner import Learner, PPOSettings, UpdateStats
from agents.training.selfplay.luck_returns import LuckReturns
from agents.training.selfplay.rollout import POLICY, SelfPlayGames
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.support.files import write_atomically
from gubs_env.support.progress import progress_bar

PROGRESS_COLUMNS = ("timesteps", "samples", "games", "seconds", *(f.name for f in fields(UpdateStats)), "mean_return")
MAX_GAMES = 65_536
"""The most games a batch or an evaluation may hold."""
CHECKPOINT = "checkpoint.pt"
STATE = "state.json"


class SelfPlayRunError(ValueError):
    """A run folder that cannot be resumed (another config, a checkpoint that does not match), in one line."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """A from-scratch self-play run.

    Attributes:
        players: the table sizes, one per slot in turn (``(2,)``, ``(4,)``, ``(2, 4)``...).
        seed: the network's initialisation, the deals and the draws.
        games: whole games per batch.
        eval_every: timesteps between evaluations (policy decisions, forced ones included).
        eval_games: seat-rotated games per opponent and table size at each evaluation.
        eval_opponents: names of :data:`~agents.training.selfplay.evaluate.OPPONENT_KINDS`.
        checkpoint_every: updates between checkpoints.
        every_seat: learn from every seat's decisions; False keeps one seat a game (``slot % players``), as a
            trainer with one learner seat does (for comparison).
        skip_forced: decisions with a single legal id are played without becoming samples.
        luck_returns: each decision's return is its seat's outcome less the luck of the draws after it
            (:mod:`~agents.training.selfplay.luck_returns`; the same expectation, less of the draw's noise).
        luck_worlds: re-dealt decks per chance step for ``luck_returns``.
        eval_adjust_luck: evaluations also give the luck-adjusted win rate (eval.csv's ``adjusted``; about 10 ms a
            game more), whose points vary far less (:mod:`agents.evaluate.luck`).
        threads: torch's threads (the compiled engine uses one).
        ppo: the learner's settings.
    """

    players: tuple[int, ...] = (2,)
    seed: int = 0
    games: int = 256
    eval_every: int = 2_000_000
    eval_games: int = 2000
    eval_opponents: tuple[str, ...] = ("heuristic", "random")
    checkpoint_every: int = 10
    every_seat: bool = True
    skip_forced: bool = True
    luck_returns: bool = False
    luck_worlds: int = 16
    eval_adjust_luck: bool = False
    threads: int = 1
    ppo: PPOSettings = field(default_factory=PPOSettings)

    def __post_init__(self) -> None:
        if not self.players or any(not 2 <= n <= MAX_PLAYERS for n in self.players):
            raise SelfPlayRunError(f"players must be table sizes from 2 to {MAX_PLAYERS}, not {self.players}")
        if not 2 <= self.games <= MAX_GAMES or not 1 <= self.eval_games <= MAX_GAMES:
            raise SelfPlayRunError(f"games and eval_games must be from 2 and 1 to {MAX_GAMES:,}")
        if self.eval_every < 1 or self.checkpoint_every < 1 or self.threads < 1:
            raise SelfPlayRunError("eval_every, checkpoint_every and threads must be at least 1")
        if not 1 <= self.luck_worlds <= MAX_WORLDS:
            raise SelfPlayRunError(f"luck_worlds must be from 1 to {MAX_WORLDS}, not {self.luck_worlds}")
        unknown = set(self.eval_opponents) - set(OPPONENT_KINDS)
        if unknown:
            known = ", ".join(sorted(OPPONENT_KINDS))
            raise SelfPlayRunError(f"unknown evaluation opponent {sorted(unknown)[0]!r}; known: {known}")

    def to_json(self) -> dict[str, Any]:
        """The config as plain JSON values (config.json)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SelfPlayConfig:
        """The config a run folder holds; anything but its own keys and types is a :class:`SelfPlayRunError`."""
        try:
            ppo = _typed(PPOSettings(), _without_removed(data["ppo"], REMOVED_PPO))
            rest = _typed(cls(), _without_removed({k: v for k, v in data.items() if k != "ppo"}, REMOVED))
            return cls(**rest, ppo=PPOSettings(**ppo))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise SelfPlayRunError(f"config.json is not a self-play config: {str(error)[:200]}") from None


REMOVED = {"branch_rate": 0.0, "greedy_playouts": False}
"""Settings a config.json may hold from before they were removed, each at the value that left it off (the paired
playouts'; ``REMOVED_PPO``: theirs and the action-part head's among the learner's)."""
REMOVED_PPO = {"mc_coef": 1.0, "vine_coef": 1.0, "action_parts": False}
REMOVED_AT = "baf7785ee39dbfb26ef9067600293d25b8ccdbe3"
"""The last commit that has the removed settings' code (docs/training.md, "The levers, measured")."""


def _without_removed(data: Any, removed: dict[str, Any]) -> Any:
    """``data`` less the removed settings left off; a run that turned one on is refused (a ValueError, one line)."""
    if not isinstance(data, dict):
        return data
    for name, off in removed.items():
        if name in data and data[name] != off:
            raise ValueError(f"{name}={data[name]!r} was removed; resume this run at commit {REMOVED_AT}")
    return {k: v for k, v in data.items() if k not in removed}


def _typed(defaults: Any, data: Any) -> dict[str, Any]:
    """``data``'s fields with the types of ``defaults``' fields (a JSON list becomes a tuple); TypeError otherwise."""
    if not isinstance(data, dict) or set(data) - {f.name for f in fields(defaults)}:
        raise TypeError(f"unknown keys {sorted(set(data) - {f.name for f in fields(defaults)})[:3]}")
    out = {}
    for name, value in data.items():
        default = getattr(defaults, name)
        if isinstance(default, tuple):
            kind = type(default[0]) if default else int
            if not isinstance(value, list) or not all(type(v) is kind for v in value):
                raise TypeError(f"{name} must be a list of {kind.__name__}")
            value = tuple(value)
        elif isinstance(default, int):  # bool too: type() tells the two apart below
            if type(value) is not type(default):
                raise TypeError(f"{name} must be {type(default).__name__}")
        elif isinstance(default, float):
            if type(value) not in (int, float):
                raise TypeError(f"{name} must be a number")
            value = float(value)
        else:
            raise TypeError(f"{name} cannot be read")
        out[name] = value
    return out


@dataclass(frozen=True)
class SelfPlayResult:
    """What :func:`train_selfplay` returns: the run folder, its policy file, its counters and last evaluation."""

    run_dir: Path
    policy: Path
    timesteps: int
    samples: int
    evaluation: list[dict[str, Any]]
    median_grad_cosine: float


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_rows(path: Path) -> list[dict[str, str]]:
    """A CSV file's rows (none when it does not exist)."""
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


class SelfPlayRun:
    """A run folder in use: its config, learner, counters and files."""

    def __init__(self, out: Path, config: SelfPlayConfig, resume: bool) -> None:
        self.out = out
        self.config = config
        self.learner = Learner(config.ppo, config.seed)
        self.timesteps = self.samples = self.updates = 0
        self.seconds = 0.0
        self.luck = LuckReturns(config.luck_worlds) if config.luck_returns else None
        out.mkdir(parents=True, exist_ok=True)
        if resume:
            self._load()
        else:
            write_atomically(out / "config.json", json.dumps(config.to_json(), indent=2).encode())
        self.table = SelfPlayGames(config.games, config.players)
        self.all_policy = np.full((config.games, MAX_PLAYERS), POLICY, dtype=np.int8)

    def deal_seeds(self) -> np.ndarray:
        """The deals of the next batch: a function of the seed and the update count only (so resuming repeats none)."""
        base = (self.config.seed * 1_000_003 + self.updates) * self.config.games + 1_000_000_000
        return np.arange(base, base + self.config.games, dtype=np.uint64)

    def step(self) -> UpdateStats:
        """Play one batch of whole games and learn from it."""
        config = self.config
        seeds = self.deal_seeds()
        history: list[list[int]] | None = [[] for _ in seeds] if self.luck is not None else None
        batch = self.table.play(seeds, self.all_policy, self.learner.decide, not config.skip_forced, history)
        luck_scale = None
        if self.luck is not None and history is not None:
            luck_scale = self.luck.apply(batch, self.table.players, seeds, history)
        if not config.every_seat:
            batch = batch.only(batch.seat == batch.game % self.table.players[batch.game])
        stats = self.learner.update(batch, self.samples)
        self.timesteps += batch.decisions
        self.samples += len(batch)
        self.updates += 1
        row = {
            "timesteps": self.timesteps,
            "samples": self.samples,
            "games": self.updates * batch.games,
            "seconds": round(self.seconds, 1),
            **asdict(stats),
            "mean_return": float(batch.returns.mean()),
        }
        if luck_scale is not None:  # a column of luck-adjusted runs only: older runs' files keep their columns
            row["luck_scale"] = luck_scale
        append_csv(self.out / "progress.csv", [_rounded(row)])
        return stats

    @property
    def _luck_settings(self) -> LuckSettings | None:
        return LuckSettings() if self.config.eval_adjust_luck else None

    def evaluate(self) -> list[dict[str, Any]]:
        """The greedy policy against each evaluation opponent at each table size, on the run's fixed deals."""
        rows = [
            evaluation_row(
                seat_rotated_match(
                    self.learner.greedy, opponent, n, self.config.eval_games, 10_000 * n, self._luck_settings
                ),
                n,
                opponent,
                self.timesteps,
                self.seconds,
            )
            for n in sorted(set(self.config.players))
            for opponent in self.config.eval_opponents
        ]
        append_csv(self.out / "eval.csv", rows)
        return rows

    def checkpoint(self) -> None:
        """Write the weights and counters: the checkpoint first, then state.json naming its digest (the commit)."""
        buffer = io.BytesIO()
        torch.save(
            {
                "model": self.learner.model.state_dict(),
                "optimizer": self.learner.optimizer.state_dict(),
                "generator": self.learner.generator.get_state(),
            },
            buffer,
        )
        data = buffer.getvalue()
        write_atomically(self.out / CHECKPOINT, data)
        state = {
            "timesteps": self.timesteps,
            "samples": self.samples,
            "updates": self.updates,
            "seconds": round(self.seconds, 3),
            "checkpoint_sha256": _digest(data),
            "value_norm": self.learner.value_norm.state(),
            "rng": json.dumps(self.learner.rng.bit_generator.state),
        }
        if self.luck is not None:
            state["luck_returns"] = self.luck.state()
        write_atomically(self.out / STATE, json.dumps(state, indent=2).encode())
        layers = self.learner.model.actor_layers()
        save_policy(self.out / FINAL_POLICY, layers, "tanh", rule_facts=self.config.ppo.rule_facts)

    def _load(self) -> None:
        from agents.training.selfplay.learner import ValueNorm

        try:
            state = json.loads((self.out / STATE).read_text())
            data = (self.out / CHECKPOINT).read_bytes()
        except (OSError, ValueError) as error:
            raise SelfPlayRunError(f"{self.out} holds no self-play run to resume ({error})") from None
        if _digest(data) != state.get("checkpoint_sha256"):
            raise SelfPlayRunError(f"{self.out / CHECKPOINT} does not match its state.json: not resuming")
        try:
            saved = torch.load(io.BytesIO(data), weights_only=True)
            self.learner.model.load_state_dict(saved["model"])
            self.learner.optimizer.load_state_dict(saved["optimizer"])
            self.learner.generator.set_state(saved["generator"])
            self.learner.value_norm = ValueNorm.from_state([float(v) for v in state["value_norm"]])
            self.learner.rng.bit_generator.state = json.loads(state["rng"])
            self.timesteps, self.samples, self.updates = (int(state[k]) for k in ("timesteps", "samples", "updates"))
            self.seconds = float(state["seconds"])
            if self.luck is not None:
                self.luck = LuckReturns(self.config.luck_worlds, state["luck_returns"])
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise SelfPlayRunError(f"{self.out} cannot be resumed: {str(error).splitlines()[0]}") from None
        # rows written after the last checkpoint are done again
        truncate_eval_log(self.out / "eval.csv", self.timesteps)
        truncate_eval_log(self.out / "progress.csv", self.timesteps)


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in row.items()}


def holds_selfplay_run(out: Path) -> bool:
    """Whether ``out`` holds a self-play run that can be resumed."""
    return (out / STATE).is_file() and (out / "config.json").is_file()


def stored_config(out: Path) -> SelfPlayConfig:
    """The config of the run in ``out`` (its config.json, read as data from anyone).

    Raises:
        SelfPlayRunError: a config.json that is not JSON or not a self-play config.
    """
    try:
        data = json.loads((out / "config.json").read_text())
    except (ValueError, RecursionError):
        raise SelfPlayRunError(f"{out / 'config.json'} is not JSON") from None
    return SelfPlayConfig.from_json(data)


def train_selfplay(
    config: SelfPlayConfig | None = None,
    out: str | Path = "runs/selfplay",
    minutes: float | None = 30.0,
    timesteps: int | None = None,
    resume: bool = False,
    progress: bool = True,
) -> SelfPlayResult:
    """Train (or resume) a from-scratch self-play run in ``out`` until ``minutes`` of this call or ``timesteps`` in all.

    A resumed run keeps its own config (``config`` is ignored then). Returns the run's result after a final
    evaluation and checkpoint; prints a summary with the median ``grad_cosine`` over the run's last half.
    """
    out = Path(out)
    if resume:
        if not holds_selfplay_run(out):
            raise SelfPlayRunError(f"{out} holds no self-play run to resume; leave out resume to start one")
        config = stored_config(out)
    elif holds_selfplay_run(out):
        raise SelfPlayRunError(f"{out} already holds a self-play run: resume it, or choose another folder")
    config = config or SelfPlayConfig()
    if minutes is None and timesteps is None:
        raise SelfPlayRunError("give a budget: minutes, timesteps or both")
    threads = LearnerThreads(config.threads)  # the cores other processes leave free, up to config.threads
    threads.start()
    run = SelfPlayRun(out, config, resume)
    if not resume:
        run.evaluate()
    start = time.monotonic()
    budget = math.inf if minutes is None else minutes * 60
    bar = progress_bar(
        total=round(budget) if minutes is not None else timesteps,
        disable=not progress,
        unit="s" if minutes is not None else "step",
        desc=f"self-play {out}",
        leave=False,
    )
    next_eval = (run.timesteps // config.eval_every + 1) * config.eval_every
    while time.monotonic() - start < budget and (timesteps is None or run.timesteps < timesteps):
        began = time.monotonic()
        threads.adapt()
        stats = run.step()
        if run.timesteps >= next_eval:
            rows = run.evaluate()
            next_eval += config.eval_every
            bar.set_postfix_str(f"vs heuristic {rows[0]['win_rate']:.1%}")
        run.seconds += time.monotonic() - began
        if run.updates % config.checkpoint_every == 0:
            run.checkpoint()
        bar.update((round(time.monotonic() - start) - bar.n) if minutes is not None else run.timesteps - bar.n)
        bar.set_description(f"self-play {run.timesteps / 1e6:.1f}M steps, grad_cosine {stats.grad_cosine:+.2f}")
    bar.close()
    rows = rows_at(out / "eval.csv", run.timesteps) or run.evaluate()
    run.checkpoint()
    plot_run(out, read_rows(out / "eval.csv"), read_rows(out / "progress.csv"))
    median = median_grad_cosine(read_rows(out / "progress.csv"))
    result = SelfPlayResult(out, out / FINAL_POLICY, run.timesteps, run.samples, rows, median)
    print(summary(result))
    if line := threads.describe():
        print(line)
    return result


def median_grad_cosine(progress: list[dict[str, str]]) -> float:
    """The median ``grad_cosine`` over the last half of a run's updates (nan before any)."""
    values = [float(r["grad_cosine"]) for r in progress[len(progress) // 2 :]]
    return float(np.median(values)) if values else math.nan


def summary(result: SelfPlayResult) -> str:
    """The lines a run ends with."""
    lines = [
        f"self-play run {result.run_dir}: {result.timesteps:,} timesteps, {result.samples:,} samples trained on",
        f"  median grad_cosine over the last half of the updates: {result.median_grad_cosine:.2f}",
    ]
    for row in result.evaluation:
        lines.append(
            f"  {row['players']} players vs {row['opponent']}: {row['win_rate']:.1%} "
            f"[{row['low']:.1%}, {row['high']:.1%}] over {row['games']} games"
        )
    lines.append(f"  policy: {result.policy}")
    return "\n".join(lines)
