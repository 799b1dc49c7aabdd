"""``train(config)``: the one loop that drives every training run, whatever the backend, from start to summary.

The loop owns the run: its folder and its resume (:mod:`~agents.training.core.runs`), the thread count, the warm
start, the budget, the league and its snapshots, the evaluations (:mod:`~agents.training.core.evaluation`), the
checkpoints and their commits, the report and the curve. A backend (:mod:`~agents.training.core.backend`) only
builds its trainer, runs one iteration at a time, exports its policy and saves and loads its own state, so a setting
of the loop reaches every backend at once.

A run ends with its final figure, measured on deals no choice of the run used, and its gain over the policy it
started from, paired on those deals. A run that starts from a trained network (``init``) first passes a promotion
gate: its end is kept only if it beats its start in a paired comparison on deals of the gate's own; otherwise the
start is kept, and the summary says why.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agents.bots.model_file import ModelFileError, PolicyWeights, load_policy, save_policy
from agents.bots.spec import FINAL_POLICY, AgentSpec
from agents.bots.threads import LearnerThreads, one_blas_thread
from agents.evaluate.luck import LuckSettings
from agents.evaluate.paired import DealDifference
from agents.training.core import evaluation, reports, runs
from agents.training.core.backend import Backend, make_backend
from agents.training.core.budget import BudgetBar, Cadence
from agents.training.core.config import (
    BUDGET_FIELDS,
    HEURISTIC,
    NETWORK_FIELDS,
    NEW_RUN_FIELDS,
    RANDOM,
    ConfigError,
    TrainingConfig,
    learner_device,
)
from agents.training.core.curves import plot_learning_curve, read_progress
from agents.training.core.evaluation import CURVE, FINAL, GATE, DealSet, Match
from agents.training.core.league import League
from agents.training.core.phases import BUILDING, CHECKPOINTS, EVALUATIONS, SAVING, TRAINING, Phases
from agents.training.core.runs import END_POLICY, RUN_FILE, START_POLICY, Run, RunFileError, RunSetupError, RunState
from agents.training.imitation.warm_start import read_start, warm_start
from gubs_env.support.cli import unwritable_folder
from gubs_env.support.files import first_free_folder, latest_folder

DEFAULT_OUT = Path("runs/gubs")
"""The default run folder; new runs take the next free one (runs/gubs-2, ...)."""
OLD_RLLIB_CHECKPOINT = "checkpoint"
"""The checkpoint folder of RLlib runs from before the shared run format: recognised, never loaded."""
OLD_SELFPLAY_FILES = ("state.json", "config.json")
"""The commit and config files of the self-play recipe's runs from before the native backend: recognised."""
LAST_OLD_LAYOUT_READER = "5a46385"
"""The last commit that resumes the runs of those two older layouts."""


@dataclass(frozen=True)
class TrainingResult:
    """What a finished invocation of :func:`train` leaves.

    Attributes:
        run_dir: the run folder (resume it with ``train(out=run_dir, resume=True)``).
        model: the final policy, ``policy.npz``: a model file every command plays.
        timesteps: the learner's decisions over the whole run.
        evaluation: the final figure's eval.csv rows, on deals no choice of the run used.
        config: the run's config, defaults filled in.
        opponent_seat_shares: the share of opponent seats each kind played over the run.
        gain: the final policy's win rate against the heuristic less the start's, paired on the final deals.
        kept: ``"end"``, or ``"start"`` where the promotion gate kept the policy the run started from (the end is
            then ``end.npz`` beside ``policy.npz``).
        gate: the end's win rate against the heuristic less the start's on the gate's deals (runs from ``init``).
    """

    run_dir: Path
    model: Path
    timesteps: int
    evaluation: list[dict[str, Any]] = field(default_factory=list)
    config: TrainingConfig | None = None
    opponent_seat_shares: dict[str, float] = field(default_factory=dict)
    gain: DealDifference | None = None
    kept: str = "end"
    gate: DealDifference | None = None

    def __str__(self) -> str:
        lines = [f"run {self.run_dir}: {self.timesteps:,} timesteps, model {self.model}"]
        if self.opponent_seat_shares:
            shares = ", ".join(f"{kind} {share:.1%}" for kind, share in self.opponent_seat_shares.items())
            lines.append(f"  opponent seats: {shares}")
        lines += [
            f"  {r['players']}p vs {r['opponent']}: {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]"
            for r in self.evaluation
        ]
        if self.gain is not None:
            lines.append(f"  gain over the start, against the heuristic: {self.gain}")
        return "\n".join(lines)


def train(
    config: TrainingConfig | None = None,
    *,
    out: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    verbose: bool = False,
) -> TrainingResult:
    """Train (or continue training) a bot; returns where the run is and its final figures.

    Args:
        config: what to train (None: the defaults, or with ``resume`` the run's own config).
        out: the run folder (None: the first free one of ``runs/gubs``, ``runs/gubs-2``, ...; with ``resume``, the
            run under ``runs/`` saved last).
        resume: continue the run in ``out`` from its last checkpoint. With a ``config``, the run goes on with that
            config (it must name the run's backend); without one, with the run's own and the default budget.
        progress: show progress bars (with an ETA) and evaluation lines.
        verbose: show the backend's start-up logging (Ray's).

    Raises:
        RunSetupError: the folder cannot be written, holds a run (without ``resume``) or holds none (with it), or
            its run file, checkpoint or an input file cannot be trusted; nothing was changed.
        ConfigError: settings that only conflict once the backend's defaults are filled in.
    """
    run = open_run(config, out, resume, time.perf_counter())
    run.progress, run.verbose = progress, verbose
    created = first_missing(run.out)
    if run.state is None:
        runs.discard_uncommitted(run.out, None)  # the logs of a start killed before its first commit
    try:
        return Loop(run).drive()
    except BaseException:
        if created is not None and not holds_run(run.out):
            shutil.rmtree(created, ignore_errors=True)  # a run refused or stopped before its first commit
        raise


class Loop:
    """One run, driven from its start to its summary (see the module's description)."""

    def __init__(self, run: Run) -> None:
        self.run, self.config, self.out = run, run.config, run.out
        self.phases = Phases(run.started)
        self.threads = LearnerThreads(self.config.threads or 1)
        self.state = run.state or RunState(backend=self.config.backend)
        self.state.config = self.config.to_json()
        self.seconds_before = self.state.seconds
        self.league = League.from_json(self.state.league, self.config.pool.prioritize)
        self.snapshots: list[tuple[str, PolicyWeights]] = []
        self.start: PolicyWeights | None = None
        self.timesteps_at_start = self.state.timesteps
        self.evaluation_seconds = 0.0
        self.seconds_per_game = 0.0
        """What a curve point's games took each, to keep time for the final figure within the budget."""

    def drive(self) -> TrainingResult:
        """Check every input, build the backend, train within the budget, then measure and report."""
        checkpoint = self._verified_resume()  # everything a resume reads is checked before anything is built
        init, labels = read_start(self.run)
        learner_device(self.config.device)  # a device this machine lacks is refused before anything is written
        self.threads.start()  # measured before the backend starts processes of its own (RLlib's env runners)
        self.out.mkdir(parents=True, exist_ok=True)
        with one_blas_thread():  # numpy's BLAS serves small forward passes: a thread per core would thrash
            with self.phases.timed(BUILDING):
                backend = make_backend(self.config, self.run.verbose)
            try:
                self._begin(backend, checkpoint, init, labels)
                self._train(backend)
                return self._finish(backend)
            finally:
                backend.close()

    def _verified_resume(self) -> bytes | Path | None:
        """A resumed run's checkpoint, its snapshots and its start, each checked; None for a new run."""
        state = self.state if self.run.state is not None else None
        if state is None:
            return None
        try:
            if runs.CHECKPOINT_SUFFIX[state.backend]:
                checkpoint: bytes | Path = runs.read_checkpoint(self.out, state)
            else:
                checkpoint = runs.verified_checkpoint_folder(self.out, state)
            self.snapshots = [(Path(e).name, load_policy(runs.snapshot_file(self.out, e))) for e in state.snapshots]
            self.start = load_policy(self.out / START_POLICY)
            return checkpoint
        except (RunFileError, ModelFileError) as error:
            raise RunSetupError(str(error)) from None

    def _begin(self, backend: Backend, checkpoint: bytes | Path | None, init: Any, labels: Any) -> None:
        """Go on from the checkpoint, or warm-start a new run, evaluate its start and commit it."""
        if checkpoint is not None:
            backend.load(checkpoint)
            runs.discard_uncommitted(self.out, self.state)  # what a killed invocation wrote after its last commit
            print(f"resuming at {self.state.timesteps:,} timesteps (iteration {self.state.iterations})", flush=True)
        else:
            warm_start(self.run, init, labels, self.phases, self.threads, backend.network())
            self.start = backend.policy()
            save_policy(self.out / START_POLICY, self.start.layers, self.start.activation)
            self._curve_point(self.start)
            self._commit(backend)  # from here on the folder is a run that resume can continue
        self._send_league(backend)

    def _train(self, backend: Backend) -> None:
        """Iterate until the budget is spent: each iteration's row, the league, snapshots, curve points, commits."""
        config, state = self.config, self.state
        bar = BudgetBar(config.seconds, config.steps, state.timesteps, self.run.started, self.run.progress)
        every = {"snapshot": config.snapshot_every, "curve": config.eval_every, "commit": config.checkpoint_every}
        due = {name: Cadence(steps, state.timesteps) for name, steps in every.items()}
        while not self._spent(bar):
            self.threads.adapt()  # the update takes the cores that are free now
            began = time.perf_counter()
            step = backend.iterate()
            self._count(step.seconds, time.perf_counter() - began)
            state.timesteps += step.timesteps
            state.iterations += 1
            self.league.record(step.games)
            seconds = self.seconds_before + time.perf_counter() - self.run.started
            row = reports.progress_row(step.diagnostics, state.timesteps, state.iterations, seconds)
            reports.append_csv(self.out / runs.PROGRESS_CSV, [row])
            if due["snapshot"].due(state.timesteps) and config.pool.keeps_snapshots:
                self._snapshot(backend)
            self._send_league(backend)
            if due["curve"].due(state.timesteps) and not self._curve_ends_past(bar):
                self._curve_point(backend.policy())
            if due["commit"].due(state.timesteps):
                self._commit(backend)
            bar.update(state.timesteps)
        bar.close()
        self._commit(backend)

    def _spent(self, bar: BudgetBar) -> bool:
        """Whether the budget is spent, keeping the time the final figure will take."""
        iterations = self.config.iterations
        over = bar.over(self.state.timesteps, reserve=self._final_seconds())
        return over or (iterations is not None and self.state.iterations >= iterations)

    def _curve_ends_past(self, bar: BudgetBar) -> bool:
        """Whether a curve point as long as the last one would end past the time kept for training."""
        reserve = self.evaluation_seconds + self._final_seconds()
        return bar.seconds is not None and bar.used() + reserve >= bar.seconds

    def _final_seconds(self) -> float:
        """What the final figure, the gain and the gate will take, at the last curve point's pace."""
        config = self.config
        policies = len(self._opponents()) + 1 + (2 if config.init_network is not None else 0)
        return self.seconds_per_game * config.final_games * policies * len(config.players.distinct)

    def _count(self, parts: dict[str, float], seconds: float) -> None:
        """An iteration's wall time: the parts its backend measured, the rest as training."""
        for name, part in parts.items():
            self.phases.add(name, part)
        self.phases.add(TRAINING, seconds - sum(parts.values()))

    def _send_league(self, backend: Backend) -> None:
        names = [name for name, _ in self.snapshots]
        backend.set_league(self.snapshots, self.league.weights(names))

    def _snapshot(self, backend: Backend) -> None:
        """The current policy into the league as a snapshot; the oldest leaves when the pool is full."""
        with self.phases.timed(CHECKPOINTS):
            name = f"step_{self.state.timesteps:09d}.npz"
            weights = backend.policy()
            save_policy(self.out / runs.SNAPSHOT_DIR / name, weights.layers, weights.activation)
            runs.crash_point("snapshot", self.state.timesteps)
            self.snapshots = [*self.snapshots, (name, weights)][-self.config.pool.pool_size :]
            self.state.snapshots = [f"{runs.SNAPSHOT_DIR}/{kept}" for kept, _ in self.snapshots]
            for left in set(self.league.records) - {kept for kept, _ in self.snapshots}:
                self.league.forget(left)

    def _commit(self, backend: Backend) -> None:
        """The backend's checkpoint, then run.json naming it (:func:`~agents.training.core.runs.commit_checkpoint`)."""
        with self.phases.timed(CHECKPOINTS):
            state = self.state
            state.league, state.opponent_seat_shares = self.league.to_json(), self.league.shares()
            state.seconds = self.seconds_before + time.perf_counter() - self.run.started
            committed = runs.commit_checkpoint(self.out, state, backend.save)
            state.checkpoint, state.checkpoint_sha256 = committed.checkpoint, committed.checkpoint_sha256

    def _curve_point(self, policy: PolicyWeights) -> None:
        """The policy now, on the curve's deals: eval.csv rows and a line."""
        started = time.perf_counter()
        with self.phases.timed(EVALUATIONS):
            rows, _ = self._rows(policy, CURVE, self.config.eval_games or 1)
            reports.append_csv(self.out / "eval.csv", rows)
            names = [name for name, _ in self.snapshots]
            reports.append_csv(self.out / runs.LEAGUE_CSV, self.league.rows(names, self.state.timesteps))
        runs.crash_point("eval", self.state.timesteps)
        self.evaluation_seconds = time.perf_counter() - started
        games = (self.config.eval_games or 1) * len(self._opponents()) * len(self.config.players.distinct)
        self.seconds_per_game = self.evaluation_seconds / games
        BudgetBar.write(reports.describe_evaluation(rows, f"curve at {self.state.timesteps:,} timesteps"))

    def _rows(self, policy: PolicyWeights, deals: DealSet, games: int) -> tuple[list[dict[str, Any]], Match]:
        """eval.csv rows of ``policy`` against random play, the heuristic and the run's other opponents.

        Also its match against the heuristic over every table size, for a paired comparison on the same deals.
        """
        config = self.config
        luck = LuckSettings() if config.eval_adjust_luck else None
        seconds = self.seconds_before + time.perf_counter() - self.run.started
        rows, against_heuristic = [], []
        for n in config.players.distinct:
            for opponent in self._opponents():
                played = evaluation.match(policy, opponent, n, games, deals, luck)
                rows.append(
                    reports.evaluation_row(played.result, n, str(opponent), self.state.timesteps, seconds, deals.name)
                )
                if opponent == HEURISTIC:
                    against_heuristic.append(played)
        return rows, evaluation.joined(against_heuristic)

    def _opponents(self) -> list[str | AgentSpec]:
        """Whom every evaluation plays: random play, the heuristic, then the run's own opponents."""
        return [RANDOM, HEURISTIC, *self.config.evaluated_against]

    def _finish(self, backend: Backend) -> TrainingResult:
        """The promotion gate, the final figure and the gain over the start; the model, the curve, the summary."""
        assert self.start is not None  # saved by a new run, read back by a resumed one
        with self.phases.timed(EVALUATIONS):
            end = backend.policy()
            final, kept, gate = self._promote(end, self.start)
            rows, final_match = self._rows(final, FINAL, self.config.final_games)
            reports.append_csv(self.out / "eval.csv", rows)
            gain = None
            if kept == "end":  # a start kept has no gain over itself
                gain = evaluation.paired_difference(final_match, self._heuristic_match(self.start, FINAL))
        model = save_policy(self.out / FINAL_POLICY, final.layers, final.activation)
        if kept == "start":  # the gate's choice need not be the user's: the trained end stays playable
            save_policy(self.out / END_POLICY, end.layers, end.activation)
        with self.phases.timed(SAVING):
            diagnostics = read_progress(self.out / runs.PROGRESS_CSV)
            plot_learning_curve(self.out / "eval.csv", self.out / "learning_curve.png", diagnostics)
        self._summary(rows, gain, gate, kept, diagnostics)
        shares = self.league.shares()
        return TrainingResult(self.out, model, self.state.timesteps, rows, self.config, shares, gain, kept, gate)

    def _heuristic_match(self, policy: PolicyWeights, deals: DealSet) -> Match:
        """``policy`` against the heuristic at every table size of the run, as one match over their deals."""
        games, sizes = self.config.final_games, self.config.players.distinct
        return evaluation.joined([evaluation.match(policy, HEURISTIC, n, games, deals) for n in sizes])

    def _promote(self, end: PolicyWeights, start: PolicyWeights) -> tuple[PolicyWeights, str, DealDifference | None]:
        """The policy kept, which one it is, and the promotion gate's comparison.

        A run from a trained network keeps its end only if the end beats its start on the gate's deals: the lower end
        of the paired interval above 0.
        """
        if self.config.init_network is None:
            return end, "end", None
        gate = evaluation.paired_difference(*(self._heuristic_match(policy, GATE) for policy in (end, start)))
        return (end, "end", gate) if gate.low > 0 else (start, "start", gate)

    def _summary(
        self,
        rows: list[dict[str, Any]],
        gain: DealDifference | None,
        gate: DealDifference | None,
        kept: str,
        diagnostics: dict[str, Any],
    ) -> None:
        """What the run did, where its time went, its curve, its final figure and its gain over the start."""
        trained = self.state.timesteps - self.timesteps_at_start
        print(self.phases.describe(trained, "timesteps"))
        if line := self.threads.describe():
            print(line)
        print(reports.describe_agreement([value for _, value in diagnostics["grad_cosine"]]))
        print(self.league.describe())
        print(reports.describe_curve(self.out / "eval.csv"))
        if gate is not None:
            print(describe_gate(gate, kept, self.config.final_games, self.out / END_POLICY))
        games = f"{self.config.final_games:,} games a table size"
        print(reports.describe_evaluation(rows, f"final figure ({games}, on deals no choice of the run used)"))
        if gain is not None:
            print(f"gain over the start against the heuristic, paired on the same deals: {gain}")
        out = self.out
        print(f"policy: {out / FINAL_POLICY}  curve: {out / 'learning_curve.png'}  log: {out / 'eval.csv'}")


def describe_gate(gate: DealDifference, kept: str, games: int, end: Path) -> str:
    """The promotion gate's line: which policy was kept, and why; where the end is when the start was kept."""
    if kept == "end":
        return f"kept the end: it beat the start by {gate} on the gate's {games:,} games a table size"
    return (
        f"kept the start: the end was {gate} against it on the gate's {games:,} games a table size, "
        f"not better (the end: {end}; resume to train on)"
    )


def first_missing(folder: Path) -> Path | None:
    """The outermost of ``folder`` and its parents that does not exist yet (None: ``folder`` exists).

    What a new run creates, and so what it removes when it is refused before its first checkpoint: a refused run
    leaves nothing behind.
    """
    missing = None
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing = path
    return missing


def open_run(config: TrainingConfig | None, out: str | Path | None, resume: bool, started: float) -> Run:
    """The run folder checked and, when resuming, its state read and verified; the config resolved.

    Raises:
        RunSetupError: see :func:`train`.
    """
    folder, how = choose_out(Path(out) if out is not None else None, resume)
    if not resume:
        if holds_run(folder):
            raise RunSetupError(f"{folder} already holds a run: resume it (--resume), or choose another folder (--out)")
        resolved = (config or TrainingConfig()).resolved()
        print(f"new run in {folder} ({how})", flush=True)
        return Run(folder, resolved, None, started)
    state = load_state(folder)
    stored = stored_config(state, folder)
    chosen = config if config is not None else resumed_config(stored, {})  # the run's own, with a new budget
    if chosen.backend != state.backend:
        raise RunSetupError(f"{folder} is a {state.backend} run: it resumes on the {state.backend} backend only")
    given_anew = [
        name for name in NEW_RUN_FIELDS if getattr(chosen, name) and getattr(chosen, name) != getattr(stored, name)
    ]
    if given_anew:
        raise RunSetupError(
            "labels, init and eval_adjust_luck start a new run; a resumed run goes on from its checkpoint"
        )
    chosen = replace(chosen, **{name: getattr(stored, name) for name in NEW_RUN_FIELDS})  # how the run started
    for name in NETWORK_FIELDS:
        if getattr(chosen, name) != getattr(stored, name):
            kept = getattr(stored, name)
            raise RunSetupError(
                f"the run in {folder} keeps its own {name} ({kept}) for its life: give it as it was, or start a new run"
            )
    print(f"resuming the run in {folder} ({how})", flush=True)
    return Run(folder, chosen.resolved(), state, started)


def choose_out(out: Path | None, resume: bool) -> tuple[Path, str]:
    """The run folder: ``out``, or the default one (see :func:`train`), checked to be writable; and how it was chosen.

    Raises:
        RunSetupError: no run to resume under the default folder, or a folder that cannot be written.
    """
    how = "as given"
    if out is None:
        if resume:
            found = latest_folder(DEFAULT_OUT, lambda folder: folder / RUN_FILE)
            if found is None:
                raise RunSetupError(
                    f"no run to resume under {DEFAULT_OUT.parent}/ (no {DEFAULT_OUT}* folder holds a {RUN_FILE}): "
                    "name the run's folder (--out)"
                )
            out, how = found, f"the run under {DEFAULT_OUT.parent}/ saved last"
        else:
            out, how = first_free_folder(DEFAULT_OUT, holds_run), "the first free default folder"
    problem = unwritable_folder(out)
    if problem:
        raise RunSetupError(problem)
    return out, how


def holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run: a run.json, or the files of a run of an older layout."""
    old_layout = (folder / OLD_RLLIB_CHECKPOINT).exists() or all((folder / n).is_file() for n in OLD_SELFPLAY_FILES)
    return (folder / RUN_FILE).exists() or old_layout


def load_state(folder: Path) -> RunState:
    """The committed state of the run in ``folder``.

    Raises:
        RunSetupError: no run there, a run of an older layout or format, or a run.json that cannot be trusted.
    """
    if not (folder / RUN_FILE).exists():
        if holds_run(folder):
            raise RunSetupError(
                f"{folder} is a run of an older layout: it resumes with the trainer of commit {LAST_OLD_LAYOUT_READER} "
                f"(git checkout {LAST_OLD_LAYOUT_READER}); or start a new run"
            )
        raise RunSetupError(f"no checkpoint in {folder} (expected {folder / RUN_FILE})")
    try:
        return RunState.load(folder / RUN_FILE)
    except RunFileError as error:
        raise RunSetupError(str(error)) from None


def stored_config(state: RunState, folder: Path) -> TrainingConfig:
    """The config a run.json holds, with the run's backend.

    Raises:
        RunSetupError: a config :class:`TrainingConfig` refuses (a hostile or damaged run.json).
    """
    try:
        return TrainingConfig.from_json({**state.config, "backend": state.backend})
    except ConfigError as error:
        raise RunSetupError(f"{folder / RUN_FILE}: {error}") from None


def resumed_config(stored: TrainingConfig, given: dict[str, Any]) -> TrainingConfig:
    """A resumed run's config: its own, with the settings given anew replacing its own; the budget is new.

    The budget (``minutes``, ``steps``, ``iterations``) bounds one invocation, so it is never taken from the run:
    what is not given falls back to the default budget.

    Raises:
        ConfigError: a setting given anew that the config refuses.
    """
    fresh = {name: None for name in BUDGET_FIELDS}
    return replace(stored, **{**fresh, **given})
