"""The sb3 backend: sb3-contrib's MaskablePPO in this process, on the compiled engine's vector env.

A new run starts from a network's weights (``init``, by default the shipped network for its table), or from a fresh
network that imitates the teacher (the tuned heuristic; policy and critic fitted to its games,
:mod:`agents.training.imitation`) or search-labelled decisions (``labels``, :mod:`agents.training.expert`). The
learner then plays from a random seat against opponents drawn per seat and per episode from the pool
(:class:`~agents.training.core.config.PoolConfig`), in many environments at once. Output (besides
:mod:`agents.training.core.runs`' files): ``model.zip``, the final policy, and ``logs/`` (CSV and TensorBoard).
"""

from __future__ import annotations

import csv
import io
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.bots.spec import FINAL_MODEL
from agents.bots.threads import LearnerThreads, one_blas_thread
from agents.training.core import budget, reports, runs
from agents.training.core.config import CLIP_RANGE, MAX_GRAD_NORM, VALUE_COEF, TrainingConfig, learner_device
from agents.training.core.curves import DIAGNOSTICS, Series, plot_learning_curve
from agents.training.core.league import League
from agents.training.core.phases import (
    BUILDING,
    CHECKPOINTS,
    ENVIRONMENTS,
    EVALUATIONS,
    LEARNER,
    SAVING,
    Phases,
)
from agents.training.core.runs import Run, RunFileError, RunSetupError, RunState, TrainingResult
from agents.training.imitation.warm_start import Network, read_start, warm_start
from gubs_env.support.files import write_atomically


class CheckpointLoadError(RunSetupError):
    """A run's checkpoint that passed every check but that the learner cannot load: the run is left as it was."""


def train_sb3(run: Run) -> TrainingResult:
    """Run (or continue) ``run`` on sb3; see :func:`agents.training.train`.

    Everything that can be refused (snapshots, the checkpoint's digest, labels and init files) is checked before
    torch is imported or anything is written.
    """
    config = run.config
    learner_device(config.device)  # a device this machine lacks is refused before anything is written
    checkpoint = _verified_resume(run) if run.state is not None else b""
    init_layers, labels = read_start(run)
    with learner_threads(config.threads or 1) as threads:
        return _train(run, checkpoint, labels, init_layers, threads)


def _verified_resume(run: Run) -> bytes:
    """The committed checkpoint's bytes, its snapshots checked as safe model files."""
    from agents.bots.model_file import ModelFileError, load_policy

    assert run.state is not None
    try:
        for entry in run.state.snapshots:
            load_policy(runs.snapshot_file(run.out, entry))
        return runs.read_checkpoint(run.out, run.state)
    except (RunFileError, ModelFileError) as error:
        raise RunSetupError(str(error)) from None


@contextmanager
def learner_threads(threads: int) -> Iterator[LearnerThreads]:
    """Let torch use up to ``threads`` threads and numpy's BLAS one, inside the block.

    torch takes as many of the ``threads`` as other processes leave cores free (:class:`LearnerThreads`, measured
    now and again before each update), so that a busy machine slows a run in proportion to the cores it gets.
    numpy's BLAS only serves the snapshot opponents' small forward passes, and would otherwise start a thread
    per core for each: on a busy machine those threads wait on each other, and a 16-row pass took 5 ms instead
    of 0.5 (docs/results/training-log.md).
    """
    # the compiled engine's threads sleep between calls (gubs_env.fast sets this too, but only torch's import,
    # which comes first here, reads it): a waiting thread would otherwise spin on the core the learner needs
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    before = torch.get_num_threads()
    learner = LearnerThreads(threads)
    learner.start()
    try:
        with one_blas_thread():
            yield learner
    finally:
        torch.set_num_threads(before)


def make_envs(config: TrainingConfig) -> Any:
    """The parallel training games (``config`` resolved), one :class:`FastSelfPlayVecEnv` on the self-play core.

    Game ``i`` plays the table size of slot ``i`` (:meth:`~gubs_env.engine.players.TableSizes.per_slot`), the rule
    of every backend.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.bots.registry import make_agent
    from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv
    from agents.training.sb3.pool import TimedVecEnv

    opponent = None if config.opponent is None else make_agent(config.opponent, config.seed)
    venv = FastSelfPlayVecEnv(
        config.envs or 1,
        config.players,
        config.seats,
        seed=config.seed,
        opponent=opponent,
    )
    venv.seed(config.seed)
    return TimedVecEnv(VecMonitor(venv))


def new_model(config: TrainingConfig, envs: Any) -> Any:
    """A fresh MaskablePPO learner on ``envs`` with ``config``'s settings (resolved)."""
    from sb3_contrib import MaskablePPO

    from agents.training.sb3.masked_policy import LeanMaskablePolicy, RuleFactsPolicy

    assert config.n_steps and config.batch_size and config.learning_rate and config.ent_coef is not None, "resolve it"
    assert config.gamma is not None and config.gae_lambda is not None, "resolve it"
    return MaskablePPO(
        RuleFactsPolicy if config.rule_facts else LeanMaskablePolicy,
        envs,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        n_epochs=config.epochs or 1,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef,
        max_grad_norm=MAX_GRAD_NORM,
        clip_range=CLIP_RANGE,
        vf_coef=VALUE_COEF,
        seed=config.seed,
        device=learner_device(config.device),
        policy_kwargs={"net_arch": [256, 256]},
    )


def _warm_start(model: Any, run: Run, labels: Any, init_layers: Any, phases: Phases, threads: LearnerThreads) -> None:
    """Before PPO: the policy from ``init``, then fitted to the labels or to the teacher's games, within the budget."""
    from agents.bots.model_file import actor_modules
    from agents.training.imitation.demonstrations import sb3_heads

    network = Network(model.policy.parameters(), sb3_heads(model), actor_modules(model.policy)[0])
    warm_start(run, init_layers, labels, phases, threads, network)


def _train(run: Run, checkpoint: bytes, labels: Any, init_layers: Any, threads: LearnerThreads) -> TrainingResult:
    """:func:`train_sb3` within its thread limits."""
    from stable_baselines3.common.logger import configure

    config, out = run.config, run.out
    phases = Phases(run.started)
    out.mkdir(parents=True, exist_ok=True)
    last_eval = -1
    with phases.timed(BUILDING):
        envs = make_envs(config)
        model = _load_checkpoint(run, checkpoint, envs) if run.state is not None else new_model(config, envs)
    if run.state is not None:
        last_eval = runs.discard_uncommitted(out, run.state)  # what a killed invocation wrote after its last commit
        state = replace(run.state, config=config.to_json())
        print(f"resuming at {model.num_timesteps:,} timesteps")
    else:
        _warm_start(model, run, labels, init_layers, phases, threads)
        # committed at once: from here on the folder is a run that resume can continue
        state = runs.commit_checkpoint(out, RunState(config=config.to_json()), model_writer(model))
    # one log folder per invocation: the CSV logger rewrites its file, and a resumed run must keep the earlier log
    model.set_logger(configure(str(_fresh_log_dir(out / "logs", model.num_timesteps)), ["csv", "tensorboard"]))
    callback = TrainingCallback(run, state, last_eval, phases, threads)
    send_league(model, envs, out, state, callback.league)  # before learn() deals the first episodes
    steps_before = model.num_timesteps
    _learn(model, callback, phases, envs, resumed=run.state is not None)
    callback.checkpoint()
    rows = callback.evaluate() or reports.rows_at(out / "eval.csv", model.num_timesteps)
    final = out / FINAL_MODEL
    with phases.timed(SAVING):
        buffer = io.BytesIO()
        model.save(buffer)
        write_atomically(final, buffer.getvalue())
        diagnostics = read_diagnostics(out / "logs")
        plot_learning_curve(out / "eval.csv", out / "learning_curve.png", diagnostics)
        envs.close()
    print(phases.describe(model.num_timesteps - steps_before))
    if line := threads.describe():
        print(line)
    print(reports.describe_agreement([value for _, value in diagnostics["grad_cosine"]]))
    print(callback.league.describe())
    print(f"model: {final}  curve: {out / 'learning_curve.png'}  log: {out / 'eval.csv'}")
    return TrainingResult(out, final, model.num_timesteps, rows, config, callback.league.shares())


def _load_checkpoint(run: Run, checkpoint: bytes, envs: Any) -> Any:
    """The verified checkpoint's learner, with a step size or entropy bonus given anew applied."""
    from sb3_contrib import MaskablePPO

    assert run.state is not None
    config = run.config
    # the checkpoint's bytes matched run.json's digest: they, not the file again, are loaded; loaded before anything
    # in the folder is discarded, so a checkpoint that fails leaves the run as it was
    try:
        return MaskablePPO.load(
            io.BytesIO(checkpoint),
            env=envs,
            device=learner_device(config.device),
            learning_rate=config.learning_rate,
            ent_coef=config.ent_coef,
        )
    except Exception as error:  # a library's loader fails in many ways (zip, pickle, torch, spaces)
        envs.close()
        raise CheckpointLoadError(
            f"the checkpoint {run.out / run.state.checkpoint} matches its digest but cannot be loaded: "
            f"{type(error).__name__}: {_first_line(error)}"
        ) from None


def rollout_grad_cosine(policy: Any, buffer: Any) -> float:
    """The cosine between the actor's policy gradients of a rollout's two halves: even and odd environments.

    Each environment plays its own games, so the halves share no game. The gradient is that of
    ``-mean(advantage * log_prob)`` over the actor's parameters (its hidden layers and head), with the rollout's
    advantages centred on their mean as the update uses them. nan with a single environment.
    """
    import torch

    from agents.training.core.diagnostics import cosine

    if buffer.n_envs < 2:
        return float("nan")
    actor = [p for name, p in policy.named_parameters() if name.startswith(("mlp_extractor.policy_net", "action_net"))]
    device = policy.device  # the rollout is numpy on the CPU; the policy may be on a GPU
    advantages = torch.as_tensor(buffer.advantages - buffer.advantages.mean(), dtype=torch.float32, device=device)
    gradients = []
    for parity in (0, 1):
        envs = slice(parity, None, 2)
        obs = torch.as_tensor(buffer.observations[:, envs], device=device).reshape(-1, buffer.observations.shape[-1])
        actions = torch.as_tensor(buffer.actions[:, envs], device=device).reshape(-1).long()
        masks = buffer.action_masks[:, envs].reshape(-1, buffer.action_masks.shape[-1])
        _, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
        loss = -(advantages[:, envs].reshape(-1) * log_prob).mean()
        gradients.append(torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, actor)]))
    return cosine(gradients[0], gradients[1])


def _learn(model: Any, callback: TrainingCallback, phases: Phases, envs: Any, resumed: bool) -> None:
    """PPO until the callback says the budget is spent; its time split into the environments' and the learner's.

    The environments keep their own clock (``envs.env_seconds``); evaluations, snapshots and checkpoints taken
    during PPO are timed as phases of their own; what is left of PPO's wall time is the learner's.
    """
    others_before, env_before, start = sum(phases.seconds.values()), envs.env_seconds, time.perf_counter()
    model.learn(total_timesteps=10**12, callback=callback, reset_num_timesteps=not resumed)
    wall = time.perf_counter() - start
    env_seconds = envs.env_seconds - env_before  # the set-up's env time (the league's first deal) is not PPO's
    inside = sum(phases.seconds.values()) - others_before  # evaluations, snapshots, checkpoints during PPO
    phases.add(ENVIRONMENTS, env_seconds)
    phases.add(LEARNER, wall - env_seconds - inside)


LOG_PREFIX = "from_"
"""An invocation's log folder is this prefix and the timesteps it started from (:func:`_fresh_log_dir`)."""


def _fresh_log_dir(logs: Path, timesteps: int) -> Path:
    """``logs/from_<timesteps>``, or ``-2``, ``-3``, ... when an earlier invocation resumed from there too."""
    base = logs / f"{LOG_PREFIX}{timesteps:09d}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


SB3_COLUMNS = {
    "grad_cosine": "grad_cosine",
    "entropy": "train/entropy_loss",
    "approx_kl": "train/approx_kl",
    "clip_fraction": "train/clip_fraction",
    "explained_variance": "train/explained_variance",
}
"""Each of :data:`~agents.training.core.curves.DIAGNOSTICS`' columns in SB3's progress.csv."""


def read_diagnostics(logs: Path) -> Series:
    """The diagnostics of every invocation's SB3 log under ``logs`` (``from_<timesteps>/progress.csv``), in order.

    The folders' zero-padded names (:func:`_fresh_log_dir`) sort in the invocations' order. A log is read up to the
    timesteps the next one starts from: an invocation killed after its last commit kept logging updates the run
    then made again, and its log is kept as it was written. SB3 logs the entropy loss (minus the entropy): it is
    turned back into the entropy. Missing values are skipped.
    """
    series: Series = {name: [] for name in DIAGNOSTICS}
    folders = sorted(log.parent for log in logs.glob(f"{LOG_PREFIX}*/progress.csv"))
    ends = [_log_start(folder) for folder in folders[1:]] + [math.inf]
    for folder, end in zip(folders, ends, strict=True):
        with (folder / "progress.csv").open(newline="") as f:
            for row in csv.DictReader(f):
                text_steps = row.get("time/total_timesteps", "")
                if not text_steps or (steps := int(float(text_steps))) > end:
                    continue
                for name, column in SB3_COLUMNS.items():
                    text = row.get(column, "")
                    if text and text != "nan":
                        value = float(text)
                        series[name].append((steps, -value if name == "entropy" else value))
    return series


def _log_start(folder: Path) -> float:
    """The timesteps an invocation's log folder starts from (``from_<timesteps>``, maybe ``-2``); inf if unnamed so."""
    digits = folder.name.removeprefix(LOG_PREFIX).partition("-")[0]
    return int(digits) if digits.isdecimal() and len(digits) <= 18 else math.inf


def model_writer(model: Any) -> Callable[[Path], None]:
    """A ``write`` for :func:`~agents.training.core.runs.commit_checkpoint` that saves the model as one zip file."""

    def write(path: Path) -> None:
        buffer = io.BytesIO()
        model.save(buffer)
        path.write_bytes(buffer.getvalue())

    return write


def _first_line(error: BaseException, limit: int = 200) -> str:
    """An exception's message on one bounded line, for a one-line error."""
    lines = str(error).strip().splitlines()
    return lines[0][:limit] if lines else ""


class TrainingCallback(BaseCallback):
    """Snapshots into the pool, periodic evaluation, checkpoints, progress and the time budget.

    Args:
        run: the opened run (its config resolved).
        state: the run's committed state (kept up to date as snapshots and checkpoints are taken).
        last_eval: the timesteps of the last evaluation in eval.csv: one timestep is never evaluated twice.
    """

    def __init__(
        self,
        run: Run,
        state: RunState,
        last_eval: int = -1,
        phases: Phases | None = None,
        threads: LearnerThreads | None = None,
    ) -> None:
        super().__init__()
        self.phases = phases or Phases(run.started)
        self.threads = threads
        self.config, self.out, self.state = run.config, run.out, state
        self.league = League.from_json(state.league, run.config.seats.prioritize)
        """Who played the opponent seats, and the learner's score against each snapshot (the draws' weights)."""
        self.budget_start, self.progress = run.started, run.progress
        self.start = time.perf_counter()
        self.bar: budget.BudgetBar | None = None
        self._cadences: dict[str, budget.Cadence] = {}
        self._last_eval = last_eval
        self._evaluation_seconds: list[float] = []
        """How long each evaluation of this invocation took."""

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()
        config = self.config
        self.bar = budget.BudgetBar(config.seconds, config.steps, self.num_timesteps, self.budget_start, self.progress)
        every = {"snapshot": config.snapshot_every, "eval": config.eval_every, "checkpoint": config.checkpoint_every}
        self._cadences = {name: budget.Cadence(steps, self.num_timesteps) for name, steps in every.items()}

    def _on_rollout_start(self) -> None:
        send_league(self.model, self.training_env, self.out, self.state, self.league)

    def _on_rollout_end(self) -> None:
        # the advantages are computed by now; the update that follows learns from this very rollout
        buffer = self.model.rollout_buffer  # type: ignore[attr-defined]  # an on-policy algorithm has one
        self.logger.record("grad_cosine", rollout_grad_cosine(self.model.policy, buffer))
        if self.threads is not None:
            self.threads.adapt()  # the update that follows takes the cores that are free now

    def _due(self, name: str) -> bool:
        return self._cadences[name].due(self.num_timesteps)

    def _on_step(self) -> bool:
        assert self.bar is not None
        self.bar.update(self.num_timesteps)
        for info in self.locals["infos"]:
            if "opponents" in info:  # an episode ended
                record_episode(self.league, info)
        if self._due("snapshot"):
            self.take_snapshot()
        if self._due("eval") and not self._ends_before_an_evaluation():
            self.evaluate()
        if self._due("checkpoint"):
            self.checkpoint()
        return not self.bar.over(self.num_timesteps)

    def _ends_before_an_evaluation(self) -> bool:
        """Whether the time budget ends before an evaluation as long as the last one would: the final one comes then.

        So a periodic evaluation never pushes a run past its budget by its own length.
        """
        assert self.bar is not None
        if self.bar.seconds is None:
            return False
        last = self._evaluation_seconds[-1] if self._evaluation_seconds else 0.0
        return self.bar.used() + last >= self.bar.seconds

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def take_snapshot(self) -> None:
        """Freeze the current policy into the opponent pool (the oldest leaves when the pool is full)."""
        with self.phases.timed(CHECKPOINTS):
            self._take_snapshot()

    def _take_snapshot(self) -> None:
        name = f"{runs.SNAPSHOT_DIR}/step_{self.num_timesteps:09d}.zip"
        buffer = io.BytesIO()
        self.model.save(buffer)
        write_atomically(self.out / name, buffer.getvalue())  # the pool never reads half a file
        runs.crash_point("snapshot", self.num_timesteps)
        self.state.snapshots = [*self.state.snapshots, name][-self.config.seats.pool_size :]
        kept = set(snapshot_names(self.state))
        for left in set(self.league.records) - kept:
            self.league.forget(left)
        send_league(self.model, self.training_env, self.out, self.state, self.league, learner=False)

    def evaluate(self) -> list[dict[str, Any]]:
        """Win rates of the greedy policy against random and heuristic players, appended to eval.csv.

        Does nothing (and returns no row) when this timestep was already evaluated.
        """
        if self.num_timesteps == self._last_eval:
            return []
        self._last_eval = self.num_timesteps
        started = time.perf_counter()
        with self.phases.timed(EVALUATIONS):
            rows = self._evaluate()
        self._evaluation_seconds.append(time.perf_counter() - started)
        return rows

    def _evaluate(self) -> list[dict[str, Any]]:
        from agents.bots.ppo import PPOAgent

        started = time.perf_counter()
        learner = PPOAgent(self.model, deterministic=True, name="learner")
        seconds = self.state.seconds + started - self.start
        config = self.config
        rows = reports.evaluation_rows(
            learner,
            config.players.distinct,
            config.eval_games or 1,
            self.num_timesteps,
            seconds,
            progress=self.progress,
            opponents=config.evaluated_against,
            adjust_luck=config.eval_adjust_luck,
        )
        for row in rows:
            self.logger.record(f"eval/{row['players']}p_vs_{row['opponent']}", row["win_rate"])
        reports.append_csv(self.out / "eval.csv", rows)
        reports.append_csv(self.out / runs.LEAGUE_CSV, self.league.rows(snapshot_names(self.state), self.num_timesteps))
        runs.crash_point("eval", self.num_timesteps)
        budget.BudgetBar.write(reports.describe_evaluation(rows, self.num_timesteps))
        return rows

    def checkpoint(self) -> None:
        """Commit the model and the run state (see :func:`agents.training.core.runs.commit_checkpoint`)."""
        with self.phases.timed(CHECKPOINTS):
            self._checkpoint()

    def _checkpoint(self) -> None:
        elapsed = time.perf_counter() - self.start
        self.state.league, self.state.opponent_seat_shares = self.league.to_json(), self.league.shares()
        state = replace(self.state, timesteps=self.num_timesteps, seconds=self.state.seconds + elapsed)
        committed = runs.commit_checkpoint(self.out, state, model_writer(self.model))
        self.state.checkpoint, self.state.checkpoint_sha256 = committed.checkpoint, committed.checkpoint_sha256


def send_league(model: Any, envs: Any, out: Path, state: RunState, league: League, learner: bool = True) -> None:
    """Send the envs the snapshots with their drawing weights and (``learner``) the learner's current actor."""
    from agents.bots.model_file import policy_weights

    # the pool lists snapshots relative to the run directory, so a run can be moved and resumed
    weights = league.weights(snapshot_names(state))
    envs.env_method("set_snapshots", [str(out / entry) for entry in state.snapshots], weights)
    if learner:
        envs.env_method("set_learner", policy_weights(model.policy))


def snapshot_names(state: RunState) -> list[str]:
    """The pool's snapshots by the names the league knows them by (their file names, oldest first)."""
    return [Path(entry).name for entry in state.snapshots]


def record_episode(league: League, info: dict[str, Any]) -> None:
    """An ended learner episode's opponents and winners into the league (labels clockwise from the learner)."""
    labels, learner = info["opponents"], info["learner_seat"]
    seats = [(learner + j + 1) % (len(labels) + 1) for j in range(len(labels))]
    league.record_game(labels, seats, info.get("winners", ()), learner)
