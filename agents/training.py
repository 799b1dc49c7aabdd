"""Self-play training pieces: the opponent pool, the env that samples from it, and the training callbacks."""

from __future__ import annotations

import copy
import csv
import json
import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper
from tqdm import tqdm

from agents.base import Agent
from agents.evaluate import match
from agents.random_agent import RandomAgent
from gubs_env.wrappers import SelfPlayEnv


@dataclass
class PoolConfig:
    """How opponents are drawn for each seat of each training episode."""

    p_random: float = 0.1
    p_heuristic: float = 0.4
    """The rest of the time a frozen snapshot of the learner plays, the newest ones more often."""
    snapshots: list[str] = field(default_factory=list)


class OpponentPool:
    """Random and heuristic agents plus frozen snapshots of the learner, sampled per seat and episode."""

    def __init__(self, config: PoolConfig, seed: int | None = None) -> None:
        self.config = config
        self.rng = np.random.default_rng(seed)
        self._loaded: dict[str, Agent] = {}
        self._random = RandomAgent()
        self._heuristic: Agent | None = None

    def set_snapshots(self, paths: Sequence[str]) -> None:
        """Replace the snapshot list; snapshots no longer listed are forgotten."""
        self.config.snapshots = list(paths)
        self._loaded = {p: a for p, a in self._loaded.items() if p in self.config.snapshots}

    def sample(self) -> Agent:
        """One opponent."""
        p_random, p_heuristic = self.config.p_random, self.config.p_heuristic
        snapshots = self.config.snapshots
        if not snapshots:  # before the first snapshot the fixed agents share every seat, in proportion
            total = p_random + p_heuristic
            p_random, p_heuristic = (p_random / total, p_heuristic / total) if total else (1.0, 0.0)
        u = self.rng.random()
        if u < p_random:
            return self._random
        if u < p_random + p_heuristic:
            return self._heuristic_agent()
        weights = np.arange(1, len(snapshots) + 1, dtype=float)  # newer snapshots weigh more
        return self._snapshot(snapshots[self.rng.choice(len(snapshots), p=weights / weights.sum())])

    def _heuristic_agent(self) -> Agent:
        if self._heuristic is None:
            from agents.heuristic import HeuristicAgent

            self._heuristic = HeuristicAgent()
        return self._heuristic

    def _snapshot(self, path: str) -> Agent:
        if path not in self._loaded:
            from agents.ppo import PPOAgent

            model = SNAPSHOT_MODELS.get(path)
            self._loaded[path] = PPOAgent(model, deterministic=False, name=Path(path).stem, frozen=True)
        return self._loaded[path]


class SnapshotModels:
    """Snapshot models loaded once per process and shared by every pool (every env) in it.

    A full ``MaskablePPO.load`` builds and initialises a new network (slow); after the first one, a snapshot
    is a copy of that model with its own weights swapped in. Entries are keyed by path and modification
    time, so a file written again is read again; the least recently used ones are dropped beyond ``capacity``.
    """

    def __init__(self, capacity: int = 16) -> None:
        self.capacity = capacity
        self._models: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self._template = None

    def get(self, path: str):
        """The model saved at ``path``."""
        key = (path, os.stat(path).st_mtime_ns)
        if key in self._models:
            self._models.move_to_end(key)
            return self._models[key]
        model = self._models[key] = self._load(path)
        while len(self._models) > self.capacity:
            self._models.popitem(last=False)
        return model

    def _load(self, path: str):
        from stable_baselines3.common.save_util import load_from_zip_file

        from agents.ppo import PPOAgent

        if self._template is None:
            self._template = PPOAgent.load(path).model
        _, params, _ = load_from_zip_file(path, device="cpu")
        model = copy.copy(self._template)
        model.policy = copy.deepcopy(self._template.policy)
        model.policy.load_state_dict(params["policy"])
        return model


SNAPSHOT_MODELS = SnapshotModels()


class PoolSelfPlayEnv(SelfPlayEnv):
    """A :class:`SelfPlayEnv` whose opponents are drawn from an :class:`OpponentPool` at every reset.

    ``shaping`` adds a potential-based term to the reward: ``shaping * (phi(after) - phi(before))`` with
    ``phi`` the learner's score minus the best opponent score, and ``phi = 0`` once the game is over. It gives
    credit for gaining ground during the game without changing which policy is best; the win/loss reward
    at the end is unchanged.
    """

    def __init__(self, num_players: int, pool: PoolConfig, seed: int = 0, shaping: float = 0.0, **kwargs: Any) -> None:
        super().__init__(num_players=num_players, **kwargs)
        self.pool = OpponentPool(PoolConfig(**asdict(pool)), seed)
        self.shaping = shaping
        self._potential = 0.0

    def set_snapshots(self, paths: Sequence[str]) -> None:
        """Called from the trainer (through ``VecEnv.env_method``) when the snapshot list changes."""
        self.pool.set_snapshots(paths)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Draw this episode's opponents, then deal; a seed fixes both."""
        if seed is not None:
            self.pool.rng = np.random.default_rng([seed, 1])  # a stream apart from the env's own
        opponents = [self.pool.sample() for _ in range(self.num_players - 1)]
        for opponent in opponents:
            opponent.reset(int(self.pool.rng.integers(2**31)))
        self.set_opponents(opponents)
        observation, info = super().reset(seed=seed, options=options)
        self._potential = self._margin()
        return observation, info

    def step(self, action: int):
        """The env's step, with the shaping term added to the reward."""
        observation, reward, terminated, truncated, info = super().step(action)
        if not self.shaping:  # the scores cost time at every step
            return observation, reward, terminated, truncated, info
        potential = 0.0 if terminated or truncated else self._margin()
        reward += self.shaping * (potential - self._potential)
        self._potential = potential
        return observation, reward, terminated, truncated, info

    def _margin(self) -> float:
        scores = self._started().scores()
        me = scores[self.learner]
        return float(me - max(s for seat, s in enumerate(scores) if seat != self.learner))


class TimedVecEnv(VecEnvWrapper):
    """Counts the wall time spent inside the environments (stepping, resetting, action masks)."""

    def __init__(self, venv) -> None:
        super().__init__(venv)
        self.env_seconds = 0.0

    def reset(self):
        """Reset every env, timed."""
        start = time.perf_counter()
        obs = self.venv.reset()
        self.env_seconds += time.perf_counter() - start
        return obs

    def step_wait(self):
        """Wait for the step results, timed."""
        start = time.perf_counter()
        result = self.venv.step_wait()
        self.env_seconds += time.perf_counter() - start
        return result

    def step_async(self, actions) -> None:
        """Send the actions, timed."""
        start = time.perf_counter()
        self.venv.step_async(actions)
        self.env_seconds += time.perf_counter() - start

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """Call a method of the envs, timed: MaskablePPO gets the action masks this way at every step."""
        start = time.perf_counter()
        result = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        self.env_seconds += time.perf_counter() - start
        return result


@dataclass
class RunState:
    """What a checkpoint records besides the model, so that ``--resume`` continues where a run stopped."""

    timesteps: int = 0
    snapshots: list[str] = field(default_factory=list)
    seconds: float = 0.0
    """Wall time of all earlier invocations."""
    settings: dict[str, Any] = field(default_factory=dict)
    """What the run trains on (table sizes, opponent pool, shaping), for ``--resume``."""

    def save(self, path: Path) -> None:
        """Write atomically (a killed run never leaves a half-written file)."""
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read a state written by :meth:`save`."""
        return cls(**json.loads(path.read_text()))


class TrainingCallback(BaseCallback):
    """Snapshots into the pool, periodic evaluation, checkpoints, progress and the time budget."""

    def __init__(
        self,
        out: Path,
        run: RunState,
        player_counts: list[int],
        seconds: float | None,
        total_steps: int | None,
        snapshot_every: int,
        pool_size: int,
        eval_every: int,
        eval_games: int,
        checkpoint_every: int,
        progress: bool = True,
    ) -> None:
        super().__init__()
        self.out, self.run = out, run
        self.player_counts = player_counts
        self.seconds, self.total_steps = seconds, total_steps
        self.snapshot_every, self.pool_size = snapshot_every, pool_size
        self.eval_every, self.eval_games = eval_every, eval_games
        self.checkpoint_every = checkpoint_every
        self.progress = progress
        self.start = time.perf_counter()
        self._bar: tqdm | None = None
        self._marks: dict[str, int] = {}
        self._last_eval = -1
        self.eval_seconds = 0.0
        """Wall time spent in evaluations: neither environment nor learner time."""

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()
        total = self.total_steps if self.total_steps else None
        self._bar = tqdm(
            total=total,
            initial=self.num_timesteps,
            unit="step",
            desc="training",
            disable=not self.progress,
            dynamic_ncols=True,
        )
        for name, every in (
            ("snapshot", self.snapshot_every),
            ("eval", self.eval_every),
            ("checkpoint", self.checkpoint_every),
        ):
            self._marks[name] = self.num_timesteps // every
        self._send_snapshots()

    def _send_snapshots(self) -> None:
        # the pool lists snapshots relative to the run directory, so a run can be moved and resumed
        self.training_env.env_method("set_snapshots", [str(self.out / p) for p in self.run.snapshots])

    def _due(self, name: str, every: int) -> bool:
        mark = self.num_timesteps // every
        if mark > self._marks[name]:
            self._marks[name] = mark
            return True
        return False

    def _on_step(self) -> bool:
        if self._bar is not None:
            self._bar.update(self.num_timesteps - self._bar.n)
        if self._due("snapshot", self.snapshot_every):
            self.take_snapshot()
        if self._due("eval", self.eval_every):
            self.evaluate()
        if self._due("checkpoint", self.checkpoint_every):
            self.checkpoint()
        over_time = self.seconds is not None and time.perf_counter() - self.start >= self.seconds
        over_steps = self.total_steps is not None and self.num_timesteps >= self.total_steps
        return not (over_time or over_steps)

    def _on_training_end(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def take_snapshot(self) -> None:
        """Freeze the current policy into the opponent pool (the oldest leaves when the pool is full)."""
        name = f"snapshots/step_{self.num_timesteps:09d}.zip"
        (self.out / "snapshots").mkdir(parents=True, exist_ok=True)
        self.model.save(self.out / name)
        self.run.snapshots = [*self.run.snapshots, name][-self.pool_size :]
        self._send_snapshots()

    def evaluate(self) -> list[dict[str, Any]]:
        """Win rates of the greedy policy against random and heuristic players, appended to eval.csv.

        Does nothing when this timestep was already evaluated.
        """
        from agents.heuristic import HeuristicAgent
        from agents.ppo import PPOAgent

        if self.num_timesteps == self._last_eval:
            return []
        self._last_eval = self.num_timesteps
        started = time.perf_counter()
        learner = PPOAgent(self.model, deterministic=True, name="learner")
        rows = []
        for n in self.player_counts:
            for opponent in (RandomAgent(), HeuristicAgent()):
                result = match(learner, opponent, n, self.eval_games, seed=10_000 * n)
                low, high = result.interval
                rows.append(
                    {
                        "timesteps": self.num_timesteps,
                        "players": n,
                        "opponent": opponent.name,
                        "games": result.games,
                        "win_rate": round(result.win_rate, 4),
                        "low": round(low, 4),
                        "high": round(high, 4),
                        "seconds": round(self.run.seconds + time.perf_counter() - self.start, 1),
                    }
                )
                self.logger.record(f"eval/{n}p_vs_{opponent.name}", result.win_rate)
        append_csv(self.out / "eval.csv", rows)
        self.eval_seconds += time.perf_counter() - started
        if self._bar is not None:
            self._bar.write(
                f"eval at {self.num_timesteps:,} steps: "
                + "; ".join(
                    f"{r['players']}p vs {r['opponent']} {r['win_rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}]"
                    for r in rows
                )
            )
        return rows

    def checkpoint(self) -> None:
        """Save the model and the run state, each file replaced atomically."""
        self.run.timesteps = self.num_timesteps
        tmp = self.out / "checkpoint.tmp.zip"
        self.model.save(tmp)
        os.replace(tmp, self.out / "checkpoint.zip")
        elapsed = time.perf_counter() - self.start
        state = replace(self.run, timesteps=self.num_timesteps, seconds=self.run.seconds + elapsed)
        state.save(self.out / "run.json")


def append_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a CSV file, writing the header when the file is new."""
    if not rows:
        return
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def plot_learning_curve(eval_csv: Path, png: Path) -> None:
    """Win rate against timesteps, with the 95% intervals, one line per table size and opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with eval_csv.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for key in sorted({(r["players"], r["opponent"]) for r in rows}):
        series = [r for r in rows if (r["players"], r["opponent"]) == key]
        x = [int(r["timesteps"]) for r in series]
        ax.plot(x, [float(r["win_rate"]) for r in series], marker="o", label=f"{key[0]} players vs {key[1]}")
        ax.fill_between(x, [float(r["low"]) for r in series], [float(r["high"]) for r in series], alpha=0.2)
    for n in sorted({int(r["players"]) for r in rows}):
        ax.axhline(1 / n, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("training timesteps (learner decisions)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
