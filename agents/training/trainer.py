"""``train(config)``: the one entry point of training, for the command line and for notebooks alike.

It opens the run folder (a new one, or the run to resume, verified before anything is loaded), then hands the run
to the backend the config names: :mod:`agents.training.sb3.train` here, :mod:`agents.training.rllib` on Ray, or
:mod:`agents.training.native.train`. All three write the same run folder (:mod:`agents.training.core.runs`) and
return the same :class:`TrainingResult`.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.training.core.config import BUDGET_FIELDS, NETWORK_FIELDS, NEW_RUN_FIELDS, ConfigError, TrainingConfig
from agents.training.core.runs import (
    RUN_FILE,
    Run,
    RunFileError,
    RunSetupError,
    RunState,
    TrainingResult,
    discard_uncommitted,
)
from gubs_env.support.cli import unwritable_folder
from gubs_env.support.files import first_free_folder, latest_folder

DEFAULT_OUT = {"sb3": Path("runs/gubs"), "rllib": Path("runs/rllib"), "native": Path("runs/native")}
"""Each backend's default run folder; new runs take the next free one (runs/gubs-2, ...)."""
OLD_RLLIB_CHECKPOINT = "checkpoint"
"""The checkpoint folder of RLlib runs from before the shared run format: recognised, never loaded."""
OLD_SELFPLAY_FILES = ("state.json", "config.json")
"""The commit and config files of the self-play recipe's runs from before the native backend: recognised, never
loaded."""
LAST_SELFPLAY_RECIPE = "5a46385"
"""The last commit whose ``python -m agents.training.baselines`` resumes those runs."""


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
        out: the run folder (None: the backend's default folder, the first free one of ``runs/gubs``,
            ``runs/gubs-2``, ...; with ``resume``, the run under ``runs/`` saved last).
        resume: continue the run in ``out`` from its last checkpoint. With a ``config``, the run goes on with
            that config (it must name the run's backend); without one, with the run's own and the default
            budget (10 minutes).
        progress: show progress bars (with an ETA) and evaluation lines.
        verbose: show the backend's start-up logging (Ray's).

    Raises:
        RunSetupError: the folder cannot be written, holds a run (without ``resume``) or holds none (with it), or
            its run file, checkpoint or an input file cannot be trusted; nothing was changed.
        ConfigError: settings that only conflict once the backend's defaults are filled in.
    """
    started = time.perf_counter()
    run = open_run(config, out, resume, started)
    run.progress, run.verbose = progress, verbose
    created = first_missing(run.out)
    if run.state is None:
        discard_uncommitted(run.out, None)  # the logs of a start killed before its first commit
    try:
        if run.config.backend == "rllib":
            from agents.training.rllib.train import train_rllib

            return train_rllib(run)
        if run.config.backend == "native":
            from agents.training.native.train import train_native

            return train_native(run)
        from agents.training.sb3.train import train_sb3

        return train_sb3(run)
    except BaseException:
        if created is not None and not holds_run(run.out):
            shutil.rmtree(created, ignore_errors=True)  # a run refused or stopped before its first commit
        raise


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
    backend = config.backend if config is not None else None
    folder, how = choose_out(Path(out) if out is not None else None, resume, backend)
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
        raise RunSetupError("labels and init start a new run; a resumed run goes on from its checkpoint")
    chosen = replace(chosen, **{name: getattr(stored, name) for name in NEW_RUN_FIELDS})  # how the run started
    for name in NETWORK_FIELDS:
        if getattr(chosen, name) != getattr(stored, name):
            kept = getattr(stored, name)
            raise RunSetupError(
                f"the run in {folder} keeps its own {name} ({kept}) for its life: give it as it was, or start a new run"
            )
    resolved = chosen.resolved()
    print(f"resuming the run in {folder} ({how})", flush=True)
    return Run(folder, resolved, state, started)


def choose_out(out: Path | None, resume: bool, backend: str | None) -> tuple[Path, str]:
    """The run folder: ``out``, or the default one (see :func:`train`), checked to be writable; and how it was chosen.

    Raises:
        RunSetupError: no run to resume under the default folder, or a folder that cannot be written.
    """
    how = "as given"
    if out is None:
        default = DEFAULT_OUT[backend or "sb3"]
        if resume:
            found = latest_folder(default, lambda folder: folder / RUN_FILE)
            if found is None:
                raise RunSetupError(
                    f"no run to resume under {default.parent}/ (no {default}* folder holds a {RUN_FILE}): "
                    "name the run's folder (--out)"
                )
            out, how = found, f"the run under {default.parent}/ saved last"
        else:
            out, how = first_free_folder(default, holds_run), "the first free default folder"
    problem = unwritable_folder(out)
    if problem:
        raise RunSetupError(problem)
    return out, how


def holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run: a run.json, or the commit of an older RLlib or self-play run."""
    return any((folder / name).exists() for name in (RUN_FILE, OLD_RLLIB_CHECKPOINT)) or holds_old_selfplay_run(folder)


def holds_old_selfplay_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run of the self-play recipe from before the native backend (its two files)."""
    return all((folder / name).is_file() for name in OLD_SELFPLAY_FILES)


def load_state(folder: Path) -> RunState:
    """The committed state of the run in ``folder``.

    Raises:
        RunSetupError: no run there, a run of an older layout, or a run.json that cannot be trusted.
    """
    if not (folder / RUN_FILE).exists():
        if (folder / OLD_RLLIB_CHECKPOINT).exists():
            raise RunSetupError(
                f"{folder} is an RLlib run from an older version (its run.json is inside {OLD_RLLIB_CHECKPOINT}/): "
                "it cannot be resumed; start a new run"
            )
        if holds_old_selfplay_run(folder):
            raise RunSetupError(
                f"{folder} is a run of the self-play recipe from before the native backend: resume it with "
                f"python -m agents.training.baselines at commit {LAST_SELFPLAY_RECIPE}, or start a new run"
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
