"""One config trained on several seeds, and their curves drawn together: ``python -m agents.recipes.seeds --seeds 0 1``.

Each seed is a run of its own in ``OUT/seed-<seed>`` (:func:`agents.training.train`). The budget is each run's in
all: a run that has spent it is kept, and one cut short (a killed command, a session that ended) resumes for what it
has left, so the command can be run again to finish, to redraw or to add seeds. Then every run's eval.csv is
gathered into ``OUT/curves.csv`` and drawn as ``OUT/curves_<players>p.png``: each seed a thin line, their mean a
thick one, and each run's gradient agreement beside them. The command takes every flag of ``python train.py``
besides ``--seeds`` and ``--jobs`` (``python -m agents.recipes.seeds --seeds 0 1 --minutes 120``): this is how the
from-scratch figures of docs/results/selfplay-log.md are made.

The runs go side by side, one process each and one per core by default (``jobs``), so two seeds of two hours take
two hours on two cores. Every line a run prints is led by its seed, and its progress bar is a line every few seconds
with its ETA. Each learner takes as many torch threads as the cores the others leave free
(:class:`agents.bots.threads.LearnerThreads`), so the runs do not thrash.
"""

from __future__ import annotations

import _thread
import argparse
import csv
import io
import os
import signal
import sys
import time
from collections.abc import Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agents.evaluate.processes import when_parent_ends, worker_count
from agents.training.command import RETIRED_FLAGS, config_from_args
from agents.training.command import build_parser as build_training_parser
from agents.training.core.config import DEFAULT_MINUTES, ConfigError, TrainingConfig
from agents.training.core.curves import CURVE_DEALS, read_progress
from agents.training.core.reports import describe_agreement
from agents.training.core.runs import RUN_FILE, RunSetupError, RunState
from agents.training.loop import load_state, open_run, stored_config, train
from gubs_env.support.cli import add_jobs_argument, failure, jobs_or_cores, run_command, training_seed

PROG = "python -m agents.recipes.seeds"

CURVES_CSV = "curves.csv"
FINISHED = 0.99
"""A run that has spent this share of its budget is finished (its last update may stop a little short of it)."""
POLL_SECONDS = 0.5
"""How often the runs side by side are looked at, to start the next one when one ends."""
STOP_SECONDS = 30.0
"""How long a run side by side may take to stop once interrupted, before it is ended."""


def seed_folder(out: Path, seed: int) -> Path:
    """Where the run of one seed goes."""
    return out / f"seed-{seed}"


class SeedRunError(RuntimeError):
    """A run side by side that stopped before its end (an error, printed above, or a process killed)."""


@dataclass(frozen=True)
class SeedRun:
    """One seed's run still to train: a new one, or one to resume for what is left of its budget."""

    seed: int
    config: TrainingConfig
    folder: Path
    resume: bool


def train_seeds(
    config: TrainingConfig,
    seeds: Sequence[int],
    out: Path,
    progress: bool = True,
    verbose: bool = False,
    jobs: int | None = None,
) -> list[Path]:
    """Train ``config`` on each seed not yet finished in ``out``; returns the run folders, in the order of ``seeds``.

    Args:
        config: the runs' config; each run takes its seed from ``seeds`` and the budget is each run's in all.
        seeds: one run each, in ``out/seed-<seed>``.
        out: the folder of the runs.
        progress: show each run's progress bar (side by side: a line every few seconds, led by its seed).
        verbose: show the backend's start-up logging.
        jobs: runs trained side by side, each in a process of its own (None: one per core; RLlib: one, since
            each run starts a Ray of its own). 1 trains them one after another in this process.

    Raises:
        RunSetupError: a run in ``out`` that cannot be resumed with ``config`` (another backend, other networks),
            checked for every seed before any trains; or an input a run refused once started (its ``init``).
        ConfigError: settings the config refuses once its defaults are filled in.
        SeedRunError: a run side by side that stopped before its end (the others ran to theirs).
    """
    if config.minutes is None and config.steps is None and config.iterations is None:
        config = replace(config, minutes=DEFAULT_MINUTES)  # each run's in all, as any other budget given here
    runs = [run for run in (_planned(config, seed, out) for seed in seeds) if run is not None]
    if jobs is None:
        jobs = 1 if config.backend == "rllib" else jobs_or_cores(None)
    if jobs > 1 and len(runs) > 1 and worker_count(jobs, "train_seeds") > 1:
        _side_by_side(runs, jobs, progress, verbose)
    else:
        for run in runs:
            train(run.config, out=run.folder, resume=run.resume, progress=progress, verbose=verbose)
    return [seed_folder(out, seed) for seed in seeds]


def _planned(config: TrainingConfig, seed: int, out: Path) -> SeedRun | None:
    """What ``seed`` still needs (None: its run has spent the budget), said in one line."""
    folder = seed_folder(out, seed)
    wanted = replace(config, seed=seed)
    if not (folder / RUN_FILE).exists():
        print(f"seed {seed}: a new run in {folder}", flush=True)
        return SeedRun(seed, wanted, folder, resume=False)
    state = load_state(folder)
    if _spent(wanted, state):
        print(f"seed {seed}: {folder} has spent its budget, kept", flush=True)
        return None
    print(f"seed {seed}: resuming {folder}", flush=True)
    return SeedRun(seed, replace(wanted, minutes=_minutes_left(wanted, state)), folder, resume=True)


def _side_by_side(runs: list[SeedRun], jobs: int, progress: bool, verbose: bool) -> None:
    """Each run in a spawned process, ``jobs`` at a time; a refusal is one line for every seed refused.

    Every run's folder is checked here before any process starts (``open_run`` prints its line again there). When
    this process is stopped, so are the runs: each resumes from its last checkpoint.
    """
    from multiprocessing import get_context

    for run in runs:
        with redirect_stdout(io.StringIO()):
            open_run(run.config, run.folder, run.resume, time.perf_counter())
    context = get_context("spawn")  # a forked torch can deadlock
    waiting = list(runs)
    running: list[tuple[Any, Any]] = []  # each process, and the pipe a refusal comes back through
    ended: list[tuple[Any, Any]] = []
    try:
        while waiting or running:
            ended += [entry for entry in running if not entry[0].is_alive()]
            running = [entry for entry in running if entry[0].is_alive()]
            while waiting and len(running) < jobs:
                run = waiting.pop(0)
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(target=_train_led_by_seed, args=(run, progress, verbose, writer))
                process.name = f"seed {run.seed}"
                process.start()
                writer.close()  # the child's end: once it exits, the pipe reads as ended
                running.append((process, reader))
            time.sleep(POLL_SECONDS)
    finally:  # stopped early (Ctrl-C): each run stops as it would alone, and resumes from its last checkpoint
        for process, _ in running:
            if process.is_alive():
                os.kill(process.pid, signal.SIGINT)
        for process, _ in running:
            process.join(timeout=STOP_SECONDS)
            process.terminate()
    stopped = sorted(f"{process.name} (exit status {process.exitcode})" for process, _ in ended if process.exitcode)
    if stopped:
        raise SeedRunError(f"runs stopped before their end: {', '.join(stopped)}; run the command again to resume them")
    refused = [line for line in (_refusal(reader) for _, reader in ended) if line]
    if refused:
        raise RunSetupError("; ".join(sorted(refused)))


def _refusal(reader: Any) -> str | None:
    """The one line a run's process sent before it ended, or None (it sent nothing)."""
    try:
        return reader.recv() if reader.poll() else None
    except EOFError:
        return None


def _train_led_by_seed(run: SeedRun, progress: bool, verbose: bool, refusals: Any) -> None:
    """A run in a process of its own, every line it prints led by its seed (its bar: a line every few seconds).

    A file or setting the run refuses once started (its ``init``) is sent through the pipe ``refusals``, one line.
    """
    sys.stdout = _LedLines(sys.__stdout__, f"seed {run.seed}: ")
    sys.stderr = _LedLines(sys.__stderr__, f"seed {run.seed}: ")
    when_parent_ends(_thread.interrupt_main)  # a killed command leaves no run training behind
    try:
        train(run.config, out=run.folder, resume=run.resume, progress=progress, verbose=verbose)
    except (ConfigError, RunSetupError) as error:
        refusals.send(f"seed {run.seed}: {error}")
    except KeyboardInterrupt:  # Ctrl-C, or the command was stopped: the run resumes from its last checkpoint
        pass


class _LedLines(io.TextIOBase):
    """A text stream that writes each whole line to ``stream`` with ``lead`` before it.

    It is no terminal, so a progress bar writes plain timed lines to it rather than redrawing in place.
    """

    def __init__(self, stream: Any, lead: str) -> None:
        self.stream, self.lead, self.pending = stream, lead, ""

    def write(self, text: str) -> int:
        """Pass on the whole lines of ``text`` (and of what came before it), each led by ``lead``."""
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.stream.write(self.lead + line + "\n")
        self.stream.flush()
        return len(text)


def _spent(config: TrainingConfig, state: RunState) -> bool:
    """Whether a run has spent ``config``'s budget: its steps or iterations (totals already), or its minutes."""
    if config.steps is not None and state.timesteps >= FINISHED * config.steps:
        return True
    if config.iterations is not None and state.iterations >= config.iterations:
        return True
    return config.minutes is not None and state.seconds / 60 >= FINISHED * config.minutes


def _minutes_left(config: TrainingConfig, state: RunState) -> float | None:
    """What is left of the run's time budget in all (None: it has none)."""
    return None if config.minutes is None else config.minutes - state.seconds / 60


def gather_curves(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """Every evaluation row of the runs, with the run's seed (read from its run.json)."""
    rows = []
    for folder in folders:
        seed = stored_config(load_state(folder), folder).seed
        with (folder / "eval.csv").open(newline="") as file:
            for row in csv.DictReader(file):
                if row.get("deals") != CURVE_DEALS:
                    continue
                rows.append(
                    {
                        "players": int(row["players"]),
                        "seed": seed,
                        "timesteps": int(row["timesteps"]),
                        "opponent": row["opponent"],
                        "win_rate": float(row["win_rate"]),
                        "low": float(row["low"]),
                        "high": float(row["high"]),
                        "games": int(row["games"]),
                    }
                )
    return rows


def opponents_of(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The opponents the rows measure, the heuristic first (the curve that matters most), then as they come."""
    names = list(dict.fromkeys(row["opponent"] for row in rows))
    return sorted(names, key=lambda name: name != "heuristic")


def write_curves(rows: list[dict[str, Any]], out: Path, folders: Sequence[Path] = ()) -> list[Path]:
    """``curves.csv`` and one chart per table size: the win rates and each run's gradient agreement.

    The agreement is read from the progress.csv of ``folders``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    with (out / CURVES_CSV).open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    charts = []
    opponents = opponents_of(rows)
    for n in sorted({row["players"] for row in rows}):
        fig, axes = plt.subplots(1, len(opponents) + 1, figsize=(4.7 * (len(opponents) + 1), 3.8), squeeze=False)
        for ax, opponent in zip(axes[0], opponents, strict=False):
            _plot_seeds(ax, [r for r in rows if r["players"] == n and r["opponent"] == opponent])
            ax.axhline(1 / n, color="grey", ls=":", lw=0.8)  # an equal share of the wins
            ax.set_title(f"{n}p vs {opponent}")
        axes[0][0].legend(fontsize=7)
        _plot_agreement(axes[0][-1], folders)
        fig.suptitle(f"{n} players, {len(folders)} seeds")
        fig.tight_layout()
        chart = out / f"curves_{n}p.png"
        fig.savefig(chart, dpi=110)
        plt.close(fig)
        charts.append(chart)
    return charts


def _plot_seeds(ax: Any, rows: list[dict[str, Any]]) -> None:
    """Each seed's win rates (thin), and their mean at each point at least two of them reached (thick)."""
    by_seed: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_seed.setdefault(row["seed"], []).append(row)
    for seed, seed_rows in sorted(by_seed.items()):
        steps = [r["timesteps"] / 1e6 for r in seed_rows]
        ax.plot(steps, [r["win_rate"] for r in seed_rows], lw=0.8, alpha=0.6, label=f"seed {seed}")
    runs = list(by_seed.values())
    enough = 1 if len(runs) == 1 else 2
    steps, mean = [], []
    for i in range(max((len(r) for r in runs), default=0)):
        points = [r[i] for r in runs if len(r) > i]
        if len(points) >= enough:
            steps.append(sum(p["timesteps"] for p in points) / len(points) / 1e6)
            mean.append(sum(p["win_rate"] for p in points) / len(points))
    ax.plot(steps, mean, color="black", lw=2, label="mean")
    ax.set_ylim(0, 1)
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylabel(f"win rate ({rows[0]['games'] if rows else 0} games per point)")
    ax.grid(alpha=0.3)


def _plot_agreement(ax: Any, folders: Sequence[Path]) -> None:
    """Each run's grad_cosine per update, smoothed over 25 updates."""
    for folder in folders:
        points = read_progress(folder / "progress.csv").get("grad_cosine", [])
        if points:
            steps = [step / 1e6 for step, _ in points]
            ax.plot(steps, smoothed([value for _, value in points], 25), lw=1, label=folder.name)
    ax.axhline(0.3, color="tab:green", ls=":", lw=1)
    ax.set_title("grad_cosine (two halves of each batch)")
    ax.set_xlabel("timesteps (millions)")
    ax.set_ylim(-0.2, 1)
    ax.grid(alpha=0.3)


def smoothed(values: list[float], window: int) -> list[float]:
    """A trailing mean over ``window`` values (fewer at the start)."""
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def summarize(rows: list[dict[str, Any]], folders: Sequence[Path] = ()) -> list[str]:
    """Per table size and opponent, each seed's first and last point; each run's gradient agreement (last half)."""
    lines = []
    for n in sorted({row["players"] for row in rows}):
        for opponent in opponents_of(rows):
            mine = [r for r in rows if r["players"] == n and r["opponent"] == opponent]
            for seed in sorted({r["seed"] for r in mine}):
                series = sorted((r for r in mine if r["seed"] == seed), key=lambda r: r["timesteps"])
                first, last = series[0], series[-1]
                lines.append(
                    f"{n}p vs {opponent}, seed {seed}: {first['win_rate']:.1%} at the start, {last['win_rate']:.1%} "
                    f"[{last['low']:.1%}, {last['high']:.1%}] at {last['timesteps']:,} timesteps"
                )
    for folder in folders:
        values = [value for _, value in read_progress(folder / "progress.csv").get("grad_cosine", [])]
        lines.append(f"{folder.name}: {describe_agreement(values)}")
    return lines


def report(folders: Sequence[Path], out: Path) -> list[str]:
    """Gather and draw the runs' curves; the summary's lines, the files' line last."""
    rows = gather_curves(folders)
    charts = write_curves(rows, out, folders)
    return [*summarize(rows, folders), f"curves: {out / CURVES_CSV}  charts: {', '.join(str(c) for c in charts)}"]


SEEDS_OUT = "runs/seeds"
"""Where the runs go without ``--out``: one folder, so that running the command again finishes them."""


def build_parser() -> argparse.ArgumentParser:
    """Python train.py's command line, with ``--seeds`` and ``--jobs``."""
    parser = build_training_parser(
        PROG,
        "Train one config on several seeds, each a run of its own in OUT/seed-<seed> with the budget in all (run the "
        "command again to finish), side by side in --jobs processes, and draw their curves together. Every other "
        "flag is python train.py's.",
        [flag for flag in RETIRED_FLAGS if flag not in ("--seeds", "--jobs")],
    )
    parser.add_argument("--seeds", type=training_seed, nargs="+", required=True, help="one run per seed")
    add_jobs_argument(parser)
    return parser


def parse(argv: list[str] | None = None) -> tuple[TrainingConfig, list[int], Path, bool, bool, int | None]:
    """The command line: the runs' config, the seeds, the folder, progress, verbosity and the processes."""
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if hasattr(args, "resume") or hasattr(args, "seed"):
        parser.error("--seeds names the runs' seeds and resumes them itself: leave out --seed and --resume")
    seeds, jobs = list(args.seeds), args.jobs
    del args.seeds, args.jobs
    out = Path(getattr(args, "out", SEEDS_OUT))
    try:
        config = config_from_args(args)
    except ConfigError as error:
        parser.error(str(error))
    if (jobs or 1) > 1 and config.backend == "rllib":
        parser.error("rllib trains the seeds one after another (each run starts a Ray of its own): leave out --jobs")
    return config, seeds, out, not getattr(args, "no_progress", False), getattr(args, "verbose", False), jobs


def main(argv: list[str] | None = None) -> int:
    """Train the seeds' runs, then gather and draw their curves.

    Returns:
        0 when done; 1 and one line when a run side by side stopped before its end. A bad command line or a run
        that cannot start exits with status 2 and one line.
    """
    config, seeds, out, progress, verbose, jobs = parse(argv)
    try:
        folders = train_seeds(config, seeds, out, progress, verbose, jobs)
    except SeedRunError as error:
        return failure(PROG, error)
    except (ConfigError, RunSetupError) as error:
        build_parser().error(str(error))
    print("\n".join(report(folders, out)))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
