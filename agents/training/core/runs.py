"""A training run on disk, the same for every backend: the run folder, run.json and its commit protocol.

One run folder per run, written by the loop (:mod:`agents.training.loop`) whatever the backend: run.json
(:class:`RunState`: the run's config, how far it got, its league and snapshots, and its committed checkpoint with a
digest), the backend's checkpoint (sb3: ``checkpoint-<timesteps>.zip``; RLlib: ``checkpoint-<timesteps>/``, a folder;
native: ``checkpoint-<timesteps>.pt``), ``start.npz`` (the policy the run started from), ``end.npz`` (the one it ended
with, when the promotion gate kept the start), ``snapshots/``, the CSV logs and the learning curve. run.json is the
commit point: a checkpoint counts once run.json names it with its SHA-256 digest, and whatever a killed run wrote
after its last commit is discarded on resume (:func:`discard_uncommitted`). What a run reports in its logs is
:mod:`agents.training.core.reports`'.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import json
import math
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path, PurePosixPath
from typing import Any

from agents.training.core import league
from agents.training.core.config import TrainingConfig
from agents.training.core.reports import write_csv
from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically

RUN_FILE = "run.json"
RUN_FORMAT = 3
"""run.json's layout: 3 is the one loop's (its snapshots are policy files of every backend)."""
LAST_READER = {1: "6939125", 2: "6939125"}
"""The last commit that resumes a run of each earlier format (``git checkout <commit>``)."""
START_POLICY = "start.npz"
"""The policy a run started from, kept for the promotion gate and the final gain."""
END_POLICY = "end.npz"
"""The policy a run ended with, written only when the promotion gate kept its start in ``policy.npz``."""
CHECKPOINT_SUFFIX = {"sb3": ".zip", "rllib": "", "native": ".pt"}
"""How each backend's checkpoint name ends: a zip file, a folder, a torch file of tensors and plain values."""
SNAPSHOT_DIR = "snapshots"
LEAGUE_CSV = "league.csv"
"""Per snapshot in the pool at each evaluation: the learner's score against it and its share of the draws."""
PROGRESS_CSV = "progress.csv"
"""The learning diagnostics of each update (the RLlib backend and the self-play core write it; sb3 its own log)."""
SNAPSHOT_NAME = re.compile(r"step_(\d{9})\.npz")
"""A snapshot of the league: the learner's exported actor at that many timesteps."""
CHECKPOINT_NAME = re.compile(r"checkpoint-(\d{9})(\.zip|\.pt)?")
MAX_CHECKPOINT_BYTES = 2**31
MAX_RUN_FILE_BYTES = 2**20


class RunFileError(ValueError):
    """A run folder whose run.json, checkpoint or snapshots cannot be trusted or read: the message says which."""


class RunSetupError(ValueError):
    """A run that cannot start: its folder, its run file or an input file it names. The message is one line."""


@dataclass
class Run:
    """An opened run folder: what the loop and the warm start read of it.

    Attributes:
        out: the run folder.
        config: the config with its defaults filled in (:meth:`TrainingConfig.resolved`).
        state: the committed state of a resumed run (None: a new run).
        started: when the time budget began (``time.perf_counter``): set-up counts against ``minutes``.
        progress: show progress bars.
        verbose: show the backend's own start-up logging (RLlib).
    """

    out: Path
    config: TrainingConfig
    state: RunState | None
    started: float
    progress: bool = True
    verbose: bool = False


def crash_point(point: str, timesteps: int) -> None:
    """Where a kill would leave the run folder in a state of its own; does nothing.

    Tests replace this function to stop a run at one of these points and check that it resumes: ``snapshot`` (a
    snapshot written), ``eval`` (eval.csv written), ``checkpoint-file`` (a checkpoint written, run.json not yet),
    ``run-json`` (run.json committed, older checkpoints not yet deleted).
    """


@dataclass
class RunState:
    """run.json: the run's config, how far it got and its committed checkpoint.

    The checkpoint's digest is what makes it trusted: a checkpoint holds pickles (sb3's and RLlib's own formats),
    so ``--resume`` loads one only when its bytes match the digest this file committed.
    """

    backend: str = "native"
    config: dict[str, Any] = field(default_factory=dict)
    """The run's :class:`~agents.training.core.config.TrainingConfig` as :meth:`to_json` wrote it."""
    timesteps: int = 0
    """The learner's decisions so far."""
    iterations: int = 0
    """The loop's iterations so far: native updates, sb3 rollouts, RLlib training iterations."""
    seconds: float = 0.0
    """Wall time of the training committed so far."""
    snapshots: list[str] = field(default_factory=list)
    """The league's snapshots, oldest first: ``snapshots/step_<timesteps>.npz`` policy files."""
    checkpoint: str = ""
    """The committed checkpoint's name in the run folder: ``checkpoint-<timesteps>.zip`` or its RLlib folder."""
    checkpoint_sha256: str = ""
    """Its SHA-256 digest (hex; of a folder: :func:`folder_digest`)."""
    opponent_seat_shares: dict[str, float] = field(default_factory=dict)
    """The share of opponent seats each kind played so far (the learner itself, its snapshots, each fixed bot)."""
    league: dict[str, Any] = field(default_factory=dict)
    """The league's seat counts and per-snapshot records (:meth:`agents.training.core.league.League.to_json`)."""
    format: int = RUN_FORMAT

    def save(self, path: Path) -> None:
        """Write atomically (a killed run never leaves a half-written file)."""
        write_atomically(path, json.dumps(asdict(self), indent=1).encode())

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read and check a state written by :meth:`save`.

        Raises:
            RunFileError: the file is unreadable, not JSON, of an earlier format (named with the last commit that
                resumes it), has an unknown key or a value of the wrong kind.
        """
        if path.exists() and not path.is_file():  # a folder, a device or a pipe, which could block the read
            raise RunFileError(f"{path} is not a regular file")
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
        _check_format(data, path)
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise RunFileError(f"{path}: unknown key {', '.join(map(repr, unknown))[:120]}")
        return _checked_state(cls(**data), path)


def _check_format(data: dict[str, Any], path: Path) -> None:
    """A RunFileError for a run.json of an earlier format, naming the last commit that resumes it."""
    version = data.get("format", 1 if "settings" in data else None)
    if type(version) is int and version in LAST_READER:
        raise RunFileError(
            f"{path} is a run of an earlier version (run.json format {version}): it resumes with the trainer of "
            f"commit {LAST_READER[version]} (git checkout {LAST_READER[version]}); or start a new run"
        )


def _checked_state(state: RunState, path: Path) -> RunState:
    """``state`` when every field holds a value of its kind (see :class:`RunState`), else a RunFileError."""

    def wrong(name: str, what: str) -> RunFileError:
        return RunFileError(f"{path}: {name} must be {what}, not {getattr(state, name)!r:.80}")

    if state.backend not in CHECKPOINT_SUFFIX:
        raise wrong("backend", ", ".join(CHECKPOINT_SUFFIX))
    if state.format != RUN_FORMAT:
        raise wrong("format", str(RUN_FORMAT))
    for name in ("timesteps", "iterations"):
        value = getattr(state, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise wrong(name, "a whole number of at least 0")
    seconds = state.seconds
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not math.isfinite(seconds) or seconds < 0:
        raise wrong("seconds", "a finite number of at least 0")
    if not isinstance(state.config, dict):
        raise wrong("config", "an object")
    if not isinstance(state.snapshots, list) or not all(isinstance(p, str) for p in state.snapshots):
        raise wrong("snapshots", "a list of file names")
    for entry in state.snapshots:
        _check_snapshot_entry(state, entry, path)
    if not isinstance(state.checkpoint, str) or not (state.checkpoint == "" or _checkpoint_of(state, state.checkpoint)):
        kind = {"rllib": "checkpoint-<timesteps> folder"}.get(
            state.backend, f"checkpoint-<timesteps>{CHECKPOINT_SUFFIX[state.backend]} file"
        )
        raise wrong("checkpoint", f"a {kind} name")
    digest = state.checkpoint_sha256
    if not isinstance(digest, str) or not (digest == "" or re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise wrong("checkpoint_sha256", "a SHA-256 digest in hex")
    shares = state.opponent_seat_shares
    if not isinstance(shares, dict) or not all(isinstance(k, str) and _is_share(v) for k, v in shares.items()):
        raise wrong("opponent_seat_shares", "an object of shares from 0 to 1")
    try:
        league.checked(state.league)
    except ValueError as error:
        raise RunFileError(f"{path}: {error}") from None
    return state


def _is_share(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _check_snapshot_entry(state: RunState, entry: str, path: Path) -> None:
    steps = _snapshot_steps(entry)
    if steps is None or steps > state.timesteps:
        raise RunFileError(
            f"{path}: snapshot {entry!r:.80} is not a {SNAPSHOT_DIR}/step_<timesteps>.npz name "
            f"of at most {state.timesteps} timesteps"
        )


def checkpoint_name(backend: str, timesteps: int) -> str:
    """The checkpoint's name at ``timesteps``: a zip file (sb3), a folder (RLlib) or a torch file (native)."""
    return f"checkpoint-{timesteps:09d}{CHECKPOINT_SUFFIX[backend]}"


def _checkpoint_of(state: RunState, name: str) -> bool:
    """Whether ``name`` is a checkpoint name of ``state``'s backend."""
    matched = CHECKPOINT_NAME.fullmatch(name)
    return matched is not None and (matched[2] or "") == CHECKPOINT_SUFFIX[state.backend]


def _snapshot_steps(entry: str) -> int | None:
    """The timesteps of a ``snapshots/step_<timesteps>.npz`` entry, None for any other string."""
    parts = PurePosixPath(entry).parts
    if len(parts) != 2 or parts[0] != SNAPSHOT_DIR:
        return None
    matched = SNAPSHOT_NAME.fullmatch(parts[1])
    return int(matched[1]) if matched else None


def snapshot_file(run_dir: Path, entry: str) -> Path:
    """The file a run.json snapshot entry names, confined to the run's snapshots folder.

    Raises:
        RunFileError: the entry is not a ``snapshots/step_<n>.npz`` name, the file is missing, or it (or the
            snapshots folder) is a link leading elsewhere.
    """
    if _snapshot_steps(entry) is None:
        raise RunFileError(f"snapshot {entry!r:.80} is not a {SNAPSHOT_DIR}/step_<timesteps>.npz name")
    folder = run_dir.resolve() / SNAPSHOT_DIR
    path = run_dir / entry
    if path.resolve() != folder / PurePosixPath(entry).name:
        raise RunFileError(f"snapshot {path} leads outside {folder} (a link)")
    if not path.is_file():
        raise RunFileError(f"snapshot {path} is missing")
    return path


def folder_digest(folder: Path) -> str:
    """SHA-256 over the names, sizes and contents of every file in a checkpoint folder.

    Raises:
        RunFileError: the folder holds a link or anything but plain files and folders (never followed).
    """
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise RunFileError(f"{folder}: {relative} is a link or a special file, which a checkpoint never holds")
        if path.is_file():
            digest.update(f"{relative}\0{path.stat().st_size}\0".encode())
            _hash_file(digest, path)
    return digest.hexdigest()


def _committed(run_dir: Path, state: RunState) -> Path:
    """The committed checkpoint's path, once run.json names one with a digest."""
    if not state.checkpoint or not state.checkpoint_sha256:
        raise RunFileError(
            f"{run_dir / RUN_FILE} names no checkpoint digest (a run from an older train.py): its checkpoint "
            "cannot be verified and is not loaded; start a new run"
        )
    return run_dir / state.checkpoint


def read_checkpoint(run_dir: Path, state: RunState) -> bytes:
    """A committed checkpoint file's bytes (sb3, native), once they match run.json's digest: the only one ever loaded.

    Raises:
        RunFileError: run.json names no checkpoint, or the file is missing, unreadable, too large or does not
            match the digest.
    """
    path = _committed(run_dir, state)
    try:
        data = read_bounded(path, MAX_CHECKPOINT_BYTES)
    except OSError as err:
        raise RunFileError(f"cannot read the checkpoint {path}: {err.strerror or err}") from None
    except FileTooLargeError:
        raise RunFileError(f"the checkpoint {path} is over {MAX_CHECKPOINT_BYTES:,} bytes") from None
    if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), state.checkpoint_sha256):
        raise _not_ours(path)
    return data


def verified_checkpoint_folder(run_dir: Path, state: RunState) -> Path:
    """The committed RLlib checkpoint folder, once its files match run.json's digest.

    The digest keeps a swapped or altered checkpoint from being loaded; it cannot vouch for a run.json written by
    someone else, so resume only runs you trust as you would trust code.

    Raises:
        RunFileError: run.json names no checkpoint, the folder is missing, holds a link, or does not match.
    """
    path = _committed(run_dir, state)
    if path.is_symlink() or not path.is_dir():
        raise RunFileError(f"the checkpoint {path} is missing (or not a folder)")
    if not hmac.compare_digest(folder_digest(path), state.checkpoint_sha256):
        raise _not_ours(path)
    return path


def _not_ours(path: Path) -> RunFileError:
    return RunFileError(
        f"the checkpoint {path} does not match the SHA-256 digest in {RUN_FILE}: it is not the one this run "
        "wrote, and is not loaded"
    )


def commit_checkpoint(run_dir: Path, state: RunState, write: Callable[[Path], None]) -> RunState:
    """Save the run's checkpoint at ``state.timesteps`` with ``write``; returns the state now in run.json.

    ``write(path)`` writes the checkpoint at ``path`` (a file for sb3, a folder for RLlib). The steps, each safe to
    be killed after: the checkpoint under a temporary name, renamed into place; run.json naming it and its digest
    (the commit point); then the deletion of older checkpoints. A model at the timesteps of the committed
    checkpoint is that checkpoint (PPO changes its weights only after more timesteps), so then only run.json is
    written again.
    """
    name = checkpoint_name(state.backend, state.timesteps)
    target = run_dir / name
    if name != state.checkpoint or not target.exists():
        temporary = run_dir / f".{name}.tmp"
        _remove(temporary)
        write(temporary)
        digest = folder_digest(temporary) if temporary.is_dir() else _file_digest(temporary)
        _remove(target)  # an uncommitted leftover of a killed run at the same timesteps
        os.replace(temporary, target)
        crash_point("checkpoint-file", state.timesteps)
        state = replace(state, checkpoint=name, checkpoint_sha256=digest)
    state.save(run_dir / RUN_FILE)
    crash_point("run-json", state.timesteps)
    _remove_other_checkpoints(run_dir, name)
    return state


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    _hash_file(digest, path)
    return digest.hexdigest()


def _hash_file(digest: Any, path: Path) -> None:
    """Feed ``path``'s bytes to ``digest`` a block at a time (a checkpoint can be large)."""
    with path.open("rb") as file:
        while block := file.read(2**20):
            digest.update(block)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _remove_other_checkpoints(run_dir: Path, keep: str) -> None:
    for old in run_dir.glob("checkpoint-*"):
        if old.name != keep and CHECKPOINT_NAME.fullmatch(old.name):
            _remove(old)


def discard_uncommitted(run_dir: Path, state: RunState | None) -> int:
    """Remove what a killed run wrote after its last commit; returns the last evaluated timesteps kept (-1: none).

    Evaluations past the checkpoint leave eval.csv (they will be played again), and so do snapshots, other
    checkpoints and temporary files. Call it only once the checkpoint was verified; with no state (a new run), it
    clears what a start killed before its first commit left, so that the new run's logs begin at its step 0.
    """
    committed = -1 if state is None else state.timesteps
    _remove_other_checkpoints(run_dir, "" if state is None else state.checkpoint)
    for tmp in [*run_dir.glob(".*.tmp"), *(run_dir / SNAPSHOT_DIR).glob(".*.tmp")]:
        _remove(tmp)
    for snapshot in (run_dir / SNAPSHOT_DIR).glob("step_*.npz"):
        steps = _snapshot_steps(f"{SNAPSHOT_DIR}/{snapshot.name}")
        if steps is not None and steps > committed:
            snapshot.unlink(missing_ok=True)
    truncate_eval_log(run_dir / LEAGUE_CSV, committed)
    truncate_eval_log(run_dir / PROGRESS_CSV, committed)
    return truncate_eval_log(run_dir / "eval.csv", committed)


def truncate_eval_log(path: Path, timesteps: int) -> int:
    """Drop a log's rows past ``timesteps`` (rewriting it atomically); returns the last timesteps kept (-1: none).

    A negative ``timesteps`` (nothing committed) removes the log, whatever it holds.

    Raises:
        RunFileError: the file cannot be read as CSV.
    """
    if timesteps < 0:
        path.unlink(missing_ok=True)
    if not path.exists():
        return -1
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = list(reader.fieldnames or [])
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise RunFileError(f"cannot read {path}: {err}") from None
    kept = [r for r in rows if _count(r.get("timesteps")) <= timesteps]
    if len(kept) != len(rows):
        write_csv(path, header, kept)
    return max((int(r["timesteps"]) for r in kept), default=-1)


def _count(value: object) -> float:
    """A CSV cell as a whole count, or infinity for anything else (a hand-edited or damaged row is dropped)."""
    text = str(value)
    return int(text) if text.isdecimal() and len(text) <= 18 else float("inf")
