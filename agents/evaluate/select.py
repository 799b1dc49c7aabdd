"""Picking a training run's best checkpoint: every candidate against the same opponents on the same deals.

A run's evaluations (``eval.csv``) use a few hundred games each, too few to tell apart checkpoints a point
or two apart. ``python -m agents.evaluate.select RUN_DIR`` plays each chosen snapshot (``snapshots/step_*.zip``)
and the final ``model.zip`` seat-rotated against one opponent kind, on validation deals that start at
``--seed`` (1,000,000 by default: apart from the deals the README's tournaments use, so that the chosen
checkpoint's reported figure is not the one it was chosen by), prints each win rate with its 95% Wilson
interval, and can export the best one (``--export``: its actor only, in the weights-only format of
agents/bots/model_file.py). Every checkpoint is read through :func:`agents.bots.model_file.load_policy`, which runs
nothing a file holds; one that cannot be read safely is a command-line error before any game is played.

    python -m agents.evaluate.select runs/ship_2p --players 2 --from 12000000 --every 250000 --games 2000

With several table sizes (``--players 2 3 4 5 6``, for a run that trains on all of them) every candidate plays at
each, and they are ranked by their mean win rate relative to chance (win rate times the number of seats), so that
each size counts alike.
"""

from __future__ import annotations

import argparse
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.bots.registry import make_agent
from agents.bots.spec import RUN_MODELS, AgentSpec, AgentSpecError
from agents.bots.threads import set_torch_threads
from agents.evaluate.matches import MatchResult, match, wants_progress
from agents.evaluate.processes import exit_with_parent, worker_count
from gubs_env.engine.players import TableSizes

PROG = "python -m agents.evaluate.select"
VALIDATION_SEED = 1_000_000
_SNAPSHOT = re.compile(r"step_(\d+)\.(npz|zip)")


@dataclass(frozen=True)
class Candidate:
    """A checkpoint of a run: its path and the learner timesteps it was saved at (None: unknown)."""

    path: Path
    timesteps: int | None
    label: str


def candidates(run_dir: str | Path, first: int = 0, every: int = 1, final: bool = True) -> list[Candidate]:
    """The run's snapshots at ``first`` timesteps or later and on a multiple of ``every``, then its final model.

    The snapshots are ``snapshots/step_<timesteps>.npz`` (``.zip`` in an earlier version's sb3 run); the final model
    is ``policy.npz`` (``model.zip``).

    Raises:
        FileNotFoundError: ``run_dir`` is not a folder.
        ValueError: ``every`` is below 1, or no checkpoint qualifies.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"no run folder at {run_dir}")
    if every < 1:
        raise ValueError(f"every must be at least 1, not {every}")
    found = []
    for path in (run_dir / "snapshots").glob("step_*"):
        matched = _SNAPSHOT.fullmatch(path.name)
        if matched and int(matched[1]) >= first and int(matched[1]) % every == 0:
            found.append(Candidate(path, int(matched[1]), f"step {int(matched[1]):,}"))
    found.sort(key=lambda c: c.timesteps or 0)  # snapshots only here: each has its timesteps
    last = next((run_dir / name for name in RUN_MODELS if (run_dir / name).is_file()), None)
    if final and last is not None:
        found.append(Candidate(last, None, f"final {last.name}"))
    if not found:
        raise ValueError(f"no checkpoint in {run_dir} from {first:,} timesteps on every {every:,}")
    return found


def evaluate_candidates(
    found: list[Candidate],
    num_players: int,
    opponent: AgentSpec | str = "heuristic",
    games: int = 2000,
    seed: int = VALIDATION_SEED,
    jobs: int = 1,
    progress: bool | None = None,
) -> list[MatchResult]:
    """Each candidate's match against ``opponent`` at every other seat (same deals for all), in order.

    ``progress``: a bar over each match's games, or with workers over the candidates (None: when stderr is a
    terminal).
    """
    from gubs_env.support.progress import progress_bar

    model_specs = [AgentSpec.for_model_file(c.path) for c in found]
    opponent = AgentSpec.of(opponent)
    tasks = [(spec, c.label, opponent, num_players, games, seed) for spec, c in zip(model_specs, found, strict=True)]
    if jobs > 1 and len(tasks) > 1:
        jobs = worker_count(jobs, "evaluate_candidates")
    if jobs <= 1 or len(tasks) <= 1:
        return [_evaluate(*task, progress=progress) for task in tasks]
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # see agents.evaluate.tournament: forking torch can deadlock
    with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=context, initializer=exit_with_parent) as pool:
        results = pool.map(_evaluate_in_worker, *zip(*tasks, strict=True))
        hidden = not wants_progress(progress)
        bar = progress_bar(results, total=len(tasks), desc=f"{num_players}p checkpoints", unit="ckpt", disable=hidden)
        return list(bar)


def relative_to_chance(results: dict[int, MatchResult]) -> float:
    """The mean over table sizes (the keys) of a candidate's win rate times the seats (1.0: as often as chance)."""
    return sum(result.win_rate * n for n, result in results.items()) / len(results)


def _evaluate(
    model: AgentSpec,
    label: str,
    opponent: AgentSpec,
    num_players: int,
    games: int,
    seed: int,
    progress: bool | None = False,
) -> MatchResult:
    agent = make_agent(model)
    agent.name = label
    others = [make_agent(opponent, seed=seed + seat) for seat in range(num_players - 1)]
    return match(agent, others, num_players, games, seed, progress)


def _evaluate_in_worker(*task: Any) -> MatchResult:
    set_torch_threads(1)  # the workers already use every core
    return _evaluate(*task)  # no bar per worker: the parent shows one over the candidates


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from gubs_env.support.cli import (
        CommandParser,
        add_jobs_argument,
        add_progress_argument,
        non_negative_int,
        player_count,
        positive_int,
    )

    parser = CommandParser(
        prog=PROG,
        description="Pick a training run's best checkpoint: every candidate against the same opponents on the same "
        "seat-rotated deals.",
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a train.py output folder")
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2],
        help="table sizes, 2 to 6 (default: 2); with several, the best has the highest mean win rate relative to "
        "chance",
    )
    parser.add_argument(
        "--opponent", default="heuristic", metavar="SPEC", help="the agent at every other seat (default: heuristic)"
    )
    parser.add_argument(
        "--from",
        dest="first",
        type=non_negative_int,
        default=0,
        metavar="TIMESTEPS",
        help="only snapshots from this many timesteps on (default: 0)",
    )
    parser.add_argument(
        "--every", type=positive_int, default=1, help="only snapshots on multiples of this (default: 1, every one)"
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        default=2000,
        help="games per checkpoint and table size, seat-rotated (default: 2000)",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        default=VALIDATION_SEED,
        help=f"the first deal's seed (default: {VALIDATION_SEED}, apart from the tournaments' deals)",
    )
    add_jobs_argument(parser)
    parser.add_argument(
        "--export",
        type=Path,
        metavar="FILE",
        help="save the best checkpoint's actor to this .npz file (weights only; default: none)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluate.select RUN_DIR``: the run's checkpoints against one opponent; the best is marked."""
    from gubs_env.support.cli import jobs_or_cores, unwritable_file

    parser = build_parser()
    args = parser.parse_args(argv)
    problem = args.export is not None and unwritable_file(args.export)
    if problem:
        parser.error(f"--export: {problem}")  # now, rather than after every checkpoint was played
    try:
        found = candidates(args.run_dir, args.first, args.every)
        args.opponent = AgentSpec.parse(args.opponent)
        make_agent(args.opponent)
        for candidate in found:  # every file read safely before any game is played
            make_agent(AgentSpec.for_model_file(candidate.path))
    except (OSError, ValueError, AgentSpecError) as err:
        parser.error(str(err))
    sizes = TableSizes.of(args.players).distinct
    progress = not args.no_progress
    try:
        results = {
            n: evaluate_candidates(found, n, args.opponent, args.games, args.seed, jobs_or_cores(args.jobs), progress)
            for n in sizes
        }
    except AgentSpecError as err:  # a checkpoint that cannot be loaded: an unusable input file
        parser.error(str(err))
    scores = [relative_to_chance({n: results[n][i] for n in sizes}) for i in range(len(found))]
    best = max(range(len(found)), key=lambda i: scores[i])
    for i in range(len(found)):
        lines = [(f"{n}p " if len(sizes) > 1 else "") + str(results[n][i]) for n in sizes]
        if len(sizes) > 1:
            lines.append(f"{found[i].label}: {scores[i]:.3f} times chance on average")
        print("\n".join(("* " if i == best else "  ") + line for line in lines))
    print(f"best: {found[best].path}")
    if args.export is not None:
        from agents.bots.ppo import PPOAgent

        print(f"exported to {PPOAgent.export(found[best].path, args.export)}")
    return 0


def script() -> int:
    """The console script ``gubs-select``."""
    from gubs_env.support.cli import run_command

    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
