"""The native backend: the project's own PPO learner, trained on batches of whole games on the compiled engine.

:func:`train_native` runs a :class:`~agents.training.core.runs.Run` as the other backends do, in the same run folder
(:mod:`agents.training.core.runs`: run.json commits each checkpoint with its SHA-256 digest). Each update plays
``envs`` whole games (:class:`~agents.training.native.rollout.SelfPlayGames`) and learns from them
(:class:`~agents.training.native.learner.Learner`). Who sits where follows the seating rule of every backend
(:mod:`agents.training.core.seating`): each slot's games come from the self-play core's stream seeded with
``seed + slot`` (the learner's seat and the deal, as on every backend); with the native default every seat is the
current policy, and with ``every_seat`` every seat's decisions are samples.
Every ``eval_every`` timesteps the greedy policy plays ``eval_games`` seat-rotated games against the heuristic and
random play, on the same deals each time (:mod:`agents.training.native.evaluate`).

What the folder holds: run.json; ``checkpoint-<timesteps>.pt`` (the network, the optimizer, the value statistics and
the random streams, the games' included, read back with ``torch.load(weights_only=True)``: tensors and plain values,
never code);
``progress.csv`` (one row per update: entropy, approx KL, clip fraction, explained variance and ``grad_cosine``);
``eval.csv`` and ``learning_curve.png``; ``policy.npz``, the actor in the shipped weights-only format (with
``average_from``, the mean of its weights since then, which the evaluations play too).
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import asdict
from typing import Any

import numpy as np
import torch

from agents.bots.model_file import save_policy
from agents.bots.spec import FINAL_POLICY
from agents.bots.threads import LearnerThreads
from agents.evaluate.luck import LuckSettings, ObservationValue
from agents.training.core import budget, reports, runs
from agents.training.core.config import HEURISTIC, RANDOM, SELF
from agents.training.core.curves import plot_learning_curve, read_progress
from agents.training.core.league import League
from agents.training.core.phases import BUILDING, CHECKPOINTS, EVALUATIONS, LEARNER, SAVING, Phases
from agents.training.core.runs import Run, RunFileError, RunSetupError, RunState, TrainingResult
from agents.training.core.seating import seat_player
from agents.training.imitation.warm_start import Network, read_start, warm_start
from agents.training.native import rollout
from agents.training.native.evaluate import OPPONENT_KINDS, seat_rotated_match
from agents.training.native.learner import Learner, UpdateStats, ValueNorm, linear_layers, linears
from agents.training.native.luck_returns import LuckReturns
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.support.files import write_atomically

SEAT_KINDS = {SELF: rollout.POLICY, HEURISTIC: rollout.HEURISTIC, RANDOM: rollout.RANDOM}
"""The rollout's player of each kind of opponent seat the pool draws (the native backend keeps no snapshots)."""


def train_native(run: Run) -> TrainingResult:
    """Run (or continue) ``run`` on the native backend; see :func:`agents.training.train`."""
    config = run.config
    checkpoint = _verified_resume(run) if run.state is not None else None
    init, labels = read_start(run)
    threads = LearnerThreads(config.threads or 1)  # the cores other processes leave free, up to config.threads
    threads.start()
    phases = Phases(run.started)
    run.out.mkdir(parents=True, exist_ok=True)
    with phases.timed(BUILDING):
        trainer = NativeRun(run)
    if checkpoint is not None:
        trainer.load(checkpoint)
        runs.discard_uncommitted(run.out, trainer.state)
        print(f"resuming at update {trainer.state.iterations} ({trainer.state.timesteps:,} learner steps)")
    else:
        model = trainer.learner.model
        network = Network(model.parameters(), trainer.learner.imitation_heads, linears(model.actor))
        warm_start(run, init, labels, phases, threads, network)
        with phases.timed(EVALUATIONS):
            print(reports.describe_evaluation(trainer.evaluate(), 0), flush=True)
    return _train_loop(trainer, phases, threads)


def _verified_resume(run: Run) -> bytes:
    assert run.state is not None
    try:
        return runs.read_checkpoint(run.out, run.state)
    except RunFileError as error:
        raise RunSetupError(str(error)) from None


def _train_loop(trainer: NativeRun, phases: Phases, threads: LearnerThreads) -> TrainingResult:
    """Update until the budget is spent, evaluating and checkpointing on the way; then the final evaluation."""
    run, config, state = trainer.run, trainer.run.config, trainer.state
    bar = budget.BudgetBar(config.seconds, config.steps, state.timesteps, run.started, run.progress)
    evaluations = budget.Cadence(config.eval_every, state.timesteps)
    checkpoints = budget.Cadence(config.checkpoint_every, state.timesteps)
    stats: UpdateStats | None = None
    while not bar.over(state.timesteps):
        began = time.perf_counter()
        threads.adapt()
        with phases.timed(LEARNER):
            stats = trainer.step()
        state.seconds += time.perf_counter() - began
        if evaluations.due(state.timesteps) and not bar.over(state.timesteps):
            with phases.timed(EVALUATIONS):
                rows = trainer.evaluate()
            bar.write(reports.describe_evaluation(rows, state.timesteps))
        if checkpoints.due(state.timesteps):
            with phases.timed(CHECKPOINTS):
                trainer.checkpoint()
        bar.update(state.timesteps)
        if not run.progress:  # no bar: a line per update, so that a log shows the run moving
            print(f"update {state.iterations}: {state.timesteps:,} learner steps", flush=True)
    bar.close()
    with phases.timed(EVALUATIONS):
        rows = reports.rows_at(run.out / "eval.csv", state.timesteps) or trainer.evaluate()
    with phases.timed(CHECKPOINTS):
        trainer.checkpoint()
    with phases.timed(SAVING):
        diagnostics = read_progress(run.out / runs.PROGRESS_CSV)
        plot_learning_curve(run.out / "eval.csv", run.out / "learning_curve.png", diagnostics)
    print(phases.describe(state.timesteps - trainer.timesteps_at_start, "learner steps"))
    if line := threads.describe():
        print(line)
    print(reports.describe_agreement([value for _, value in diagnostics["grad_cosine"]]))
    if stats is not None:
        print(f"last update: entropy {stats.entropy:.3f}, explained variance {stats.explained_variance:.2f}")
    print(trainer.league.describe())
    policy = run.out / FINAL_POLICY
    print(f"policy: {policy}  curve: {run.out / 'learning_curve.png'}  log: {run.out / 'eval.csv'}")
    return TrainingResult(run.out, policy, state.timesteps, rows, config, trainer.league.shares())


class NativeRun:
    """A native run in use: its learner, its games, its counters (run.json's :class:`RunState`) and its files."""

    def __init__(self, run: Run) -> None:
        config = run.config
        assert config.envs is not None, "resolve the config"
        self.run = run
        self.state = run.state or RunState(backend="native")
        self.state.config = config.to_json()
        self.learner = Learner(config)
        self.samples = 0
        self.luck = self._luck_returns(None) if config.luck_returns else None
        self.league = League.from_json(self.state.league, config.seats.prioritize)
        self.games = rollout.SelfPlayGames(config.envs, config.players)
        self.games.tables.seed_streams(np.arange(config.envs), config.seed + np.arange(config.envs))
        self.timesteps_at_start = self.state.timesteps

    def _luck_returns(self, state: Any) -> LuckReturns:
        """The luck-adjusted returns of the run, judged by the shipped luck network or by the learner's own critic."""
        config = self.run.config
        value = ObservationValue(self.learner.outcome) if config.luck_value == "critic" else None
        return LuckReturns(config.luck_worlds, state, value=value)

    def seat_kinds(self, learners: np.ndarray) -> np.ndarray:
        """Who plays each seat of the next batch's games, around each game's learner seat.

        The seating rule every backend follows (:mod:`agents.training.core.seating`): every seat but the learner's
        draws its player from the pool, from a stream of the seed and the update count (so a resumed run seats its
        games as it would have).
        """
        config = self.run.config
        players = self.games.players
        rng = np.random.default_rng([config.seed, self.state.iterations, 7])
        kinds = np.full((len(players), MAX_PLAYERS), rollout.POLICY, dtype=np.int8)
        counts: dict[str, list[float]] = {}
        for game, n in enumerate(players):
            for seat in range(int(n)):
                if seat != learners[game]:
                    kind = seat_player(config.seats, float(rng.random()), ()).kind
                    kinds[game, seat] = SEAT_KINDS[kind]
                    counts.setdefault(kind, [0, 0.0])[0] += 1
        self.league.record_tally(counts)
        return kinds

    def step(self) -> UpdateStats:
        """Play one batch of whole games and learn from it; one row of progress.csv."""
        config, state = self.run.config, self.state
        learners = self.games.deal_next()
        history: list[list[int]] | None = [[] for _ in learners] if self.luck is not None else None
        kinds = self.seat_kinds(learners)
        batch = self.games.play(None, kinds, self.learner.decide, not config.skip_forced, history)
        luck_scale = None
        if self.luck is not None and history is not None:
            luck_scale = self.luck.apply(batch, self.games.players, self.games.tables.deals, history)
        if not config.every_seat:
            batch = batch.only(batch.seat == learners[batch.game])
        measure = state.iterations % config.native.agreement_every == 0
        stats = self.learner.update(batch, self.samples, measure)
        state.timesteps += batch.policy_decisions
        average, start = self.learner.average, config.average_from
        if average is not None and start is not None and state.timesteps >= start:
            average.add(self.learner.model.actor)
        self.samples += len(batch)
        state.iterations += 1
        row = {
            "timesteps": state.timesteps,
            "samples": self.samples,
            "games": state.iterations * batch.games,
            "seconds": round(state.seconds, 1),
            **asdict(stats),
            "mean_return": float(batch.returns.mean()) if len(batch) else 0.0,
        }
        if luck_scale is not None:  # a column of luck-adjusted runs only
            row["luck_scale"] = luck_scale
        reports.append_csv(self.run.out / runs.PROGRESS_CSV, [_rounded(row)])
        return stats

    def evaluate(self) -> list[dict[str, Any]]:
        """The greedy shipped policy against the heuristic and random play at each table size, on the run's fixed deals.

        The shipped policy is the actor, or with ``average_from`` the mean of its weights
        (:class:`~agents.training.native.learner.ActorAverage`).
        """
        config, state = self.run.config, self.state
        assert config.eval_games is not None
        adjust = LuckSettings() if config.eval_adjust_luck else None
        rows = [
            reports.evaluation_row(
                seat_rotated_match(self.learner.greedy, opponent, n, config.eval_games, 10_000 * n, adjust),
                n,
                opponent,
                state.timesteps,
                state.seconds,
            )
            for n in config.players.distinct
            for opponent in OPPONENT_KINDS
        ]
        reports.append_csv(self.run.out / "eval.csv", rows)
        return rows

    def checkpoint(self) -> None:
        """Commit the weights, the optimizer and the counters, then write the shipped actor as ``policy.npz``.

        The commit is :func:`~agents.training.core.runs.commit_checkpoint`'s: the checkpoint, then run.json naming it.
        """
        state = self.state
        state.league, state.opponent_seat_shares = self.league.to_json(), self.league.shares()
        data = self._checkpoint_bytes()
        committed = runs.commit_checkpoint(self.run.out, state, lambda path: write_atomically(path, data))
        state.checkpoint, state.checkpoint_sha256 = committed.checkpoint, committed.checkpoint_sha256
        save_policy(
            self.run.out / FINAL_POLICY,
            linear_layers(self.learner.shipped_actor()),
            "tanh",
            rule_facts=self.run.config.rule_facts,
        )

    def _checkpoint_bytes(self) -> bytes:
        learner, average = self.learner, self.learner.average
        saved = {
            "model": learner.model.state_dict(),
            "optimizer": learner.optimizer.state_dict(),
            "generator": learner.generator.get_state(),
            "value_norm": learner.value_norm.state(),
            "rng": json.dumps(learner.rng.bit_generator.state),
            "samples": self.samples,
            "luck_returns": self.luck.state() if self.luck is not None else None,
            "games": torch.from_numpy(self.games.tables.streams.view(np.int64).copy()),
            "average_from": self.run.config.average_from,
            "average": average.actor.state_dict() if average is not None and average.count else None,
            "average_count": average.count if average is not None else 0,
        }
        buffer = io.BytesIO()
        torch.save(saved, buffer)
        return buffer.getvalue()

    def load(self, data: bytes) -> None:
        """Go on from a verified checkpoint's bytes.

        Raises:
            RunSetupError: a checkpoint that does not fit this run's network or holds values of the wrong kind.
        """
        learner = self.learner
        try:
            saved = torch.load(io.BytesIO(data), weights_only=True)
            learner.model.load_state_dict(saved["model"])
            learner.optimizer.load_state_dict(saved["optimizer"])
            learner.generator.set_state(saved["generator"])
            learner.value_norm = ValueNorm.from_state([float(v) for v in saved["value_norm"]])
            learner.rng.bit_generator.state = json.loads(saved["rng"])
            self.samples = int(saved["samples"])
            self._load_streams(saved.get("games"))
            self._load_average(saved)
            if self.luck is not None:
                self.luck = self._luck_returns(saved["luck_returns"])
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunSetupError(f"{self.run.out} cannot be resumed: {first[:200]}") from None

    def _load_average(self, saved: dict[str, Any]) -> None:
        """The mean of the weights where the checkpoint left it; a fresh one if it began at another ``average_from``."""
        average = self.learner.average
        if average is None or saved.get("average") is None or saved.get("average_from") != self.run.config.average_from:
            return
        average.actor.load_state_dict(saved["average"])
        average.count = int(saved["average_count"])

    def _load_streams(self, saved: Any) -> None:
        """The games' streams where the checkpoint left them; a checkpoint of an earlier version kept none."""
        tables = self.games.tables
        if saved is None:  # new streams of the seed and the update count: no deal of the run's start again
            slots = np.arange(tables.num_slots)
            tables.seed_streams(
                slots,
                np.random.SeedSequence([self.run.config.seed, self.state.iterations]).generate_state(
                    tables.num_slots, np.uint64
                ),
            )
            return
        if (
            not isinstance(saved, torch.Tensor)
            or tuple(saved.shape) != tables.streams.shape
            or saved.dtype != torch.int64
        ):
            raise ValueError(f"its game streams are not int64 {tables.streams.shape}")
        streams = saved.numpy().view(np.uint64)
        # numpy's PCG64 states: an odd increment (word 3, its low half), else the generator can stall
        if not ((streams[:, 3] & np.uint64(1)) == 1).all() or (streams[:, 4] > 1).any():
            raise ValueError("its game streams are not generator states")
        tables.streams[:] = streams


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    # five significant digits, not decimals: a step size of 3e-5 keeps its own
    return {k: (float(f"{v:.5g}") if isinstance(v, float) else v) for k, v in row.items()}
