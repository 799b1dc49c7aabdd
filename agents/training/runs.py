"""A training run on disk.

run.json, checkpoints and snapshots (with their digests), resuming after a kill, the
training callback that evaluates, snapshots and checkpoints, and the learning curve.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import math
import os
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path, PurePosixPath
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from agents.bots.base import Agent
from agents.bots.random_agent import RandomAgent
from agents.evaluate.matches import match
from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically

RUN_FILE = "run.json"
SNAPSHOT_DIR = "snapshots"
SNAPSHOT_NAME = re.compile(r"step_(\d{9})\.zip")
CHECKPOINT_NAME = re.compile(r"checkpoint-(\d{9})\.zip")
LEGACY_CHECKPOINT = "checkpoint.zip"
"""The single checkpoint of runs written before checkpoints carried a digest: never loaded (see docs/security.md)."""
MAX_CHECKPOINT_BYTES = 2**31
MAX_RUN_FILE_BYTES = 2**20
CRASH_ENV = "GUBS_TRAIN_CRASH_AT"
"""Testing hook: ``POINT`` or ``POINT@TIMESTEPS`` ends the process abruptly (exit status :data:`CRASH_STATUS`, no
clean-up, as a kill would) the first time training reaches that point at that many timesteps or more. Points:
``snapshot`` (a snapshot written), ``eval`` (eval.csv written), ``checkpoint-file`` (a checkpoint written, run.json
not yet), ``run-json`` (run.json committed, older checkpoints not yet deleted)."""
CRASH_STATUS = 86


class RunFileError(ValueError):
    """A run folder whose run.json, checkpoint or snapshots cannot be trusted or read: the message says which."""


def crash_point(point: str, timesteps: int) -> None:
    """End the process here, at once, when :data:`CRASH_ENV` asks for this point (tests of killed runs)."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    name, _, at = wanted.partition("@")
    if name == point and timesteps >= (int(at) if at.isdigit() else 0):
        os._exit(CRASH_STATUS)


@dataclass
class RunState:
    """run.json: the committed checkpoint and what ``--resume`` needs besides it.

    run.json is a run's commit point: a checkpoint file counts once run.json names it with its SHA-256 digest,
    and everything in the folder past its ``timesteps`` (snapshots, evaluations) is discarded on resume.
    """

    timesteps: int = 0
    snapshots: list[str] = field(default_factory=list)
    """The opponent pool: ``snapshots/step_<timesteps>.zip`` names, relative to the run folder."""
    seconds: float = 0.0
    """Wall time of the training committed so far."""
    settings: dict[str, Any] = field(default_factory=dict)
    """What the run trains on (table sizes, opponent pool, shaping), for ``--resume``; train.py checks them."""
    checkpoint: str = ""
    """The committed checkpoint's file name in the run folder: ``checkpoint-<timesteps>.zip``."""
    checkpoint_sha256: str = ""
    """Its SHA-256 digest (hex): a checkpoint is loaded only when its bytes match it."""

    def save(self, path: Path) -> None:
        """Write atomically (a killed run never leaves a half-written file)."""
        write_atomically(path, json.dumps(asdict(self), indent=1).encode())

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read and check a state written by :meth:`save`.

        Raises:
            RunFileError: the file is unreadable, not JSON, has an unknown key or a value of the wrong kind.
        """
        try:
            raw = read_bounded(path, MAX_RUN_FILE_BYTES)
        except OSError as err:
            raise RunFileError(f"cannot read {path}: {err.strerror or err}") from None
        except FileTooLargeError:
            raise RunFileError(f"{path} is over {MAX_RUN_FILE_BYTES:,} bytes: not a run.json") from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise RunFileError(f"{path} is not JSON") from None
        if not isinstance(data, dict):
            raise RunFileError(f"{path} is not a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise RunFileError(f"{path}: unknown key {', '.join(map(repr, unknown))[:120]}")
        return _checked_state(cls(**data), path)


def _checked_state(state: RunState, path: Path) -> RunState:
    """``state`` when every field holds a value of its kind (see :class:`RunState`), else a RunFileError."""

    def wrong(name: str, what: str) -> RunFileError:
        return RunFileError(f"{path}: {name} must be {what}, not {getattr(state, name)!r:.80}")

    if not isinstance(state.timesteps, int) or isinstance(state.timesteps, bool) or state.timesteps < 0:
        raise wrong("timesteps", "a whole number of at least 0")
    seconds = state.seconds
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not math.isfinite(seconds) or seconds < 0:
        raise wrong("seconds", "a finite number of at least 0")
    if not isinstance(state.settings, dict):
        raise wrong("settings", "an object")
    if not isinstance(state.snapshots, list) or not all(isinstance(p, str) for p in state.snapshots):
        raise wrong("snapshots", "a list of file names")
    for entry in state.snapshots:
        steps = _snapshot_steps(entry)
        if steps is None or steps > state.timesteps:
            raise RunFileError(
                f"{path}: snapshot {entry!r:.80} is not a {SNAPSHOT_DIR}/step_<timesteps>.zip name "
                f"of at most {state.timesteps} timesteps"
            )
    if not isinstance(state.checkpoint, str) or not (
        state.checkpoint == "" or CHECKPOINT_NAME.fullmatch(state.checkpoint)
    ):
        raise wrong("checkpoint", "a checkpoint-<timesteps>.zip file name")
    digest = state.checkpoint_sha256
    if not isinstance(digest, str) or not (digest == "" or re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise wrong("checkpoint_sha256", "a SHA-256 digest in hex")
    return state


def _snapshot_steps(entry: str) -> int | None:
    """The timesteps of a ``snapshots/step_<timesteps>.zip`` entry, None for any other string."""
    parts = PurePosixPath(entry).parts
    if len(parts) != 2 or parts[0] != SNAPSHOT_DIR:
        return None
    matched = SNAPSHOT_NAME.fullmatch(parts[1])
    return int(matched[1]) if matched else None


def snapshot_file(run_dir: Path, entry: str) -> Path:
    """The file a run.json snapshot entry names, confined to the run's snapshots folder.

    Raises:
        RunFileError: the entry is not a ``snapshots/step_<n>.zip`` name, the file is missing, or it (or the
            snapshots folder) is a link leading elsewhere.
    """
    if _snapshot_steps(entry) is None:
        raise RunFileError(f"snapshot {entry!r:.80} is not a {SNAPSHOT_DIR}/step_<timesteps>.zip name")
    folder = run_dir.resolve() / SNAPSHOT_DIR
    path = run_dir / entry
    if path.resolve() != folder / PurePosixPath(entry).name:
        raise RunFileError(f"snapshot {path} leads outside {folder} (a link)")
    if not path.is_file():
        raise RunFileError(f"snapshot {path} is missing")
    return path


def read_checkpoint(run_dir: Path, state: RunState) -> bytes:
    """The committed checkpoint's bytes, once they match run.json's digest: the only checkpoint ever loaded.

    A checkpoint is a full stable-baselines3 save, which holds pickles; the digest proves it is the file this
    run wrote, not one put in its place.

    Raises:
        RunFileError: run.json names no checkpoint (written by an older train.py), or the file is missing,
            unreadable, too large or does not match the digest.
    """
    if not state.checkpoint or not state.checkpoint_sha256:
        raise RunFileError(
            f"{run_dir / RUN_FILE} names no checkpoint digest (a run from an older train.py): its checkpoint "
            "cannot be verified and is not loaded; start a new run"
        )
    path = run_dir / state.checkpoint
    try:
        data = read_bounded(path, MAX_CHECKPOINT_BYTES)
    except OSError as err:
        raise RunFileError(f"cannot read the checkpoint {path}: {err.strerror or err}") from None
    except FileTooLargeError:
        raise RunFileError(f"the checkpoint {path} is over {MAX_CHECKPOINT_BYTES:,} bytes") from None
    if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), state.checkpoint_sha256):
        raise RunFileError(
            f"the checkpoint {path} does not match the SHA-256 digest in {RUN_FILE}: it is not the file this run "
            "wrote, and is not loaded"
        )
    return data


def commit_checkpoint(run_dir: Path, model: Any, state: RunState) -> RunState:
    """Save ``model`` as the run's checkpoint at ``state.timesteps``; returns the state now in run.json.

    The steps, each safe to be killed after: the checkpoint file (written to a temporary name, then renamed),
    run.json naming it and its digest (the commit point), then the deletion of older checkpoints. A model at
    the timesteps of the committed checkpoint is that checkpoint (PPO changes its weights only after more
    timesteps), so then only run.json is written again.
    """
    name = f"checkpoint-{state.timesteps:09d}.zip"
    if name != state.checkpoint or not (run_dir / name).is_file():
        buffer = io.BytesIO()
        model.save(buffer)
        data = buffer.getvalue()
        write_atomically(run_dir / name, data)
        crash_point("checkpoint-file", state.timesteps)
        state = replace(state, checkpoint=name, checkpoint_sha256=hashlib.sha256(data).hexdigest())
    state.save(run_dir / RUN_FILE)
    crash_point("run-json", state.timesteps)
    for old in run_dir.glob("checkpoint-*.zip"):
        if old.name != name and CHECKPOINT_NAME.fullmatch(old.name):
            old.unlink(missing_ok=True)
    return state


def discard_uncommitted(run_dir: Path, state: RunState) -> int:
    """Remove what a killed run wrote after its last commit; returns the last evaluated timesteps kept (-1: none).

    Evaluations past the checkpoint leave eval.csv (they will be played again), and so do snapshots, other
    checkpoints and temporary files. Call it only once the checkpoint was verified.
    """
    for old in run_dir.glob("checkpoint-*.zip"):
        if old.name != state.checkpoint and CHECKPOINT_NAME.fullmatch(old.name):
            old.unlink(missing_ok=True)
    for tmp in [*run_dir.glob(".*.tmp"), *(run_dir / SNAPSHOT_DIR).glob(".*.tmp")]:
        tmp.unlink(missing_ok=True)
    for snapshot in (run_dir / SNAPSHOT_DIR).glob("step_*.zip"):
        steps = _snapshot_steps(f"{SNAPSHOT_DIR}/{snapshot.name}")
        if steps is not None and steps > state.timesteps:
            snapshot.unlink(missing_ok=True)
    return truncate_eval_log(run_dir / "eval.csv", state.timesteps)


def truncate_eval_log(path: Path, timesteps: int) -> int:
    """Drop eval.csv rows past ``timesteps`` (rewriting it atomically); returns the last timesteps kept (-1: none).

    Raises:
        RunFileError: the file cannot be read as CSV.
    """
    if not path.exists():
        return -1
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = list(reader.fieldnames or [])
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise RunFileError(f"cannot read {path}: {err}") from None
    kept = [r for r in rows if str(r.get("timesteps", "")).isdigit() and int(r["timesteps"]) <= timesteps]
    if len(kept) != len(rows):
        _write_csv(path, header, kept)
    return max((int(r["timesteps"]) for r in kept), default=-1)


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
        last_eval: int = -1,
        budget_start: float | None = None,
        opponent: str | None = None,
    ) -> None:
        super().__init__()
        self.budget_start = budget_start
        """When the time budget began (``perf_counter``; None: when training starts). train.py starts it with the
        command, so that set-up and a first run's compiling count against ``--minutes``."""
        self.out, self.run = out, run
        self.player_counts = player_counts
        self.seconds, self.total_steps = seconds, total_steps
        self.snapshot_every, self.pool_size = snapshot_every, pool_size
        self.eval_every, self.eval_games = eval_every, eval_games
        self.checkpoint_every = checkpoint_every
        self.progress = progress
        self.start = time.perf_counter()
        self._bar: tqdm | None = None
        self._steps_at_start = 0
        """The timesteps when this invocation started training (a resumed run starts above 0)."""
        self._marks: dict[str, int] = {}
        self._last_eval = last_eval
        """The timesteps of the last evaluation in eval.csv: one timestep is never evaluated twice."""
        self.eval_seconds = 0.0
        """Wall time spent in evaluations: neither environment nor learner time."""
        self.opponent = opponent
        """The spec of the fixed opponent the run trains against (``--opponent``), evaluated against too."""

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()
        if self.budget_start is None:
            self.budget_start = self.start
        self._steps_at_start = self.num_timesteps
        self._bar = self._new_bar()
        for name, every in (
            ("snapshot", self.snapshot_every),
            ("eval", self.eval_every),
            ("checkpoint", self.checkpoint_every),
        ):
            self._marks[name] = self.num_timesteps // every
        self._send_snapshots()

    def _new_bar(self) -> tqdm:
        """The training bar, with a total and an ETA whichever budget ends the run.

        A step budget counts timesteps. A time budget alone (the default ``--minutes 10``) counts seconds of the
        budget, so the bar's ETA is the time left, and shows the timesteps beside it: a bar over timesteps would
        have no total to reach.
        """
        if self.total_steps is not None or self.seconds is None:
            return tqdm(
                total=self.total_steps,
                initial=self.num_timesteps,
                unit="step",
                desc="training",
                disable=not self.progress,
                dynamic_ncols=True,
            )
        return tqdm(
            total=round(self.seconds),
            initial=min(round(self.seconds), int(self._budget_used())),
            unit="s",
            desc="training",
            disable=not self.progress,
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}",
        )

    def _update_bar(self) -> None:
        """Move the bar to the current timesteps (step budget) or elapsed seconds (time budget)."""
        bar = self._bar
        if bar is None or bar.disable:
            return
        if bar.unit == "step":
            bar.update(self.num_timesteps - bar.n)
            return
        elapsed = min(bar.total, int(self._budget_used()))
        if elapsed > bar.n:
            done = self.num_timesteps - self._steps_at_start
            rate = done / max(time.perf_counter() - self.start, 1e-9)
            bar.set_postfix_str(f"{self.num_timesteps:,} steps, {rate:,.0f} steps/s", refresh=False)
            bar.update(elapsed - bar.n)

    def _budget_used(self) -> float:
        """Seconds of the time budget used so far."""
        return time.perf_counter() - (self.start if self.budget_start is None else self.budget_start)

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
        self._update_bar()
        if self._due("snapshot", self.snapshot_every):
            self.take_snapshot()
        if self._due("eval", self.eval_every):
            self.evaluate()
        if self._due("checkpoint", self.checkpoint_every):
            self.checkpoint()
        over_time = self.seconds is not None and self._budget_used() >= self.seconds
        over_steps = self.total_steps is not None and self.num_timesteps >= self.total_steps
        return not (over_time or over_steps)

    def _on_training_end(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def take_snapshot(self) -> None:
        """Freeze the current policy into the opponent pool (the oldest leaves when the pool is full)."""
        name = f"{SNAPSHOT_DIR}/step_{self.num_timesteps:09d}.zip"
        buffer = io.BytesIO()
        self.model.save(buffer)
        write_atomically(self.out / name, buffer.getvalue())  # the pool never reads half a file
        crash_point("snapshot", self.num_timesteps)
        self.run.snapshots = [*self.run.snapshots, name][-self.pool_size :]
        self._send_snapshots()

    def evaluate(self) -> list[dict[str, Any]]:
        """Win rates of the greedy policy against random and heuristic players, appended to eval.csv.

        Does nothing when this timestep was already evaluated.
        """
        from agents.bots.ppo import PPOAgent

        if self.num_timesteps == self._last_eval:
            return []
        self._last_eval = self.num_timesteps
        started = time.perf_counter()
        learner = PPOAgent(self.model, deterministic=True, name="learner")
        seconds = self.run.seconds + started - self.start
        rows = evaluation_rows(
            learner,
            self.player_counts,
            self.eval_games,
            self.num_timesteps,
            seconds,
            progress=self.progress,
            opponent=self.opponent,
        )
        for row in rows:
            self.logger.record(f"eval/{row['players']}p_vs_{row['opponent']}", row["win_rate"])
        append_csv(self.out / "eval.csv", rows)
        crash_point("eval", self.num_timesteps)
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
        """Commit the model and the run state (see :func:`commit_checkpoint`)."""
        elapsed = time.perf_counter() - self.start
        state = replace(self.run, timesteps=self.num_timesteps, seconds=self.run.seconds + elapsed)
        committed = commit_checkpoint(self.out, self.model, state)
        self.run.checkpoint, self.run.checkpoint_sha256 = committed.checkpoint, committed.checkpoint_sha256


def evaluation_rows(
    agent: Agent,
    player_counts: Sequence[int],
    games: int,
    timesteps: int,
    seconds: float,
    progress: bool = False,
    opponent: str | None = None,
) -> list[dict[str, Any]]:
    """Win rates of ``agent`` against the random and heuristic agents at each table size, as eval.csv rows.

    ``opponent``, an agent spec, adds a row per table size against that agent (a run's ``--opponent``).

    The same deals for every evaluation of a run (seed ``10_000 * players``), so rows compare across time;
    ``seconds`` is the run's training time when the evaluated policy was taken. ``progress`` shows a bar over
    each match's games (an evaluation takes tens of seconds, in which the training bar stands still).
    """
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.registry import make_agent

    rows = []
    for n in player_counts:
        opponents = [RandomAgent(), HeuristicAgent()] + ([] if opponent is None else [make_agent(opponent)])
        for other in opponents:
            result = match(agent, other, n, games, seed=10_000 * n, progress=progress)
            low, high = result.interval
            rows.append(
                {
                    "timesteps": timesteps,
                    "players": n,
                    "opponent": other.name,
                    "games": result.games,
                    "win_rate": round(result.win_rate, 4),
                    "low": round(low, 4),
                    "high": round(high, 4),
                    "seconds": round(seconds, 1),
                }
            )
    return rows


def append_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a CSV file (with a header when the file is new), replacing it atomically: never half a row."""
    if not rows:
        return
    previous = path.read_text() if path.exists() else ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    if not previous:
        writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, (previous + buffer.getvalue()).encode())


def _write_csv(path: Path, header: list[str], rows: list[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, buffer.getvalue().encode())


def plot_learning_curve(eval_csv: Path, png: Path) -> None:
    """Win rate against timesteps, with the 95% intervals: a colour per table size, a line style per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with eval_csv.open() as f:
        rows = list(csv.DictReader(f))
    sizes = sorted({int(r["players"]) for r in rows})
    opponents = sorted({r["opponent"] for r in rows}, key=lambda o: (o != "heuristic", o))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for key in sorted({(r["players"], r["opponent"]) for r in rows}):
        series = [r for r in rows if (r["players"], r["opponent"]) == key]
        x = [int(r["timesteps"]) for r in series]
        colour = colours(sizes.index(int(key[0])) % 10)
        style = ("-", "--", "-.")[opponents.index(key[1]) % 3]
        label = f"{key[0]} players vs {key[1]}"
        ax.plot(x, [float(r["win_rate"]) for r in series], marker="o", color=colour, linestyle=style, label=label)
        low, high = [float(r["low"]) for r in series], [float(r["high"]) for r in series]
        ax.fill_between(x, low, high, color=colour, alpha=0.1)
    for n in sizes:  # chance at each table size, in its colour
        ax.axhline(1 / n, color=colours(sizes.index(n) % 10), linestyle=":", linewidth=1)
    ax.set_xlabel("training timesteps (learner decisions)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")  # beside the plot: it hides no point
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
