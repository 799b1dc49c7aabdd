"""``python train.py``: the flags of both backends, turned into one :class:`TrainingConfig` and trained.

A flag left out takes the backend's default (``TrainingConfig``, docs/training.md); with ``--resume`` it takes the
run's own setting, and the flags given replace those. Every problem is one line and exit status 2, before
anything slow starts.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from agents.training.config import (
    BACKENDS,
    ENGINES,
    TEACHERS,
    VEC_ENVS,
    ConfigError,
    PoolConfig,
    TrainingConfig,
)
from gubs_env.support.cli import (
    CommandParser,
    non_negative_float,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
    probability,
    run_command,
    training_seed,
)

PROG = "python train.py"
POOL_FLAGS = ("p_random", "p_heuristic", "pool_size", "self_share", "prioritize")
"""The flags that set the opponent pool (:class:`PoolConfig`)."""
INVOCATION_FLAGS = ("out", "resume", "no_progress", "verbose")
"""The flags of one invocation, not of the run's config."""
DESCRIPTION = """Self-play training of a Gubs bot with PPO: on stable-baselines3 in this process (--backend sb3,
the default) or on Ray RLlib (--backend rllib, a local Ray or a cluster). By default a new run imitates the tuned
heuristic, then plays a league for 10 minutes on 2-player tables: the learner sits at a random seat and the other
seats are its own (65%: its current policy or one of its last 5 snapshots, those it does not yet beat drawn more
often) or the heuristic's (35%, an anchor). --p-heuristic 1 trains against the heuristic alone."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of both backends: a flag means the same on either.

    A flag the chosen backend cannot honour is refused when the config is built, with one line.
    """
    parser = CommandParser(prog=PROG, description=DESCRIPTION, argument_default=argparse.SUPPRESS)
    parser.add_argument("--backend", choices=BACKENDS, help="the trainer: sb3 (default) or rllib (docs/rllib.md)")
    budget = parser.add_argument_group("budget (training stops at whichever comes first; default: 10 minutes)")
    budget.add_argument("--minutes", type=positive_float, help="wall-clock minutes of this invocation, set-up included")
    budget.add_argument("--steps", type=positive_int, help="total learner timesteps, counted across --resume")
    budget.add_argument("--iterations", type=positive_int, help="total training iterations (rllib)")
    run = parser.add_argument_group("the run")
    run.add_argument("--players", type=player_count, nargs="+", help="table sizes, mixed across the envs (default: 2)")
    run.add_argument("--seed", type=training_seed, help="random seed (default: 0)")
    run.add_argument(
        "--out",
        type=Path,
        help="the run folder; one that holds a run is refused without --resume (default: runs/gubs or runs/rllib, "
        "or the first free of -2, -3, ...; with --resume: the run there saved last)",
    )
    run.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    run.add_argument(
        "--engine",
        choices=ENGINES,
        help="who plays the training games: fast (default: the compiled engine, many games per call) or reference",
    )
    run.add_argument("--envs", "--envs-per-runner", type=positive_int, help="parallel games (rllib: per env runner)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    pool = parser.add_argument_group("opponents")
    pool.add_argument("--p-random", type=probability, help="share of opponent seats of the random agent (default: 0)")
    pool.add_argument(
        "--p-heuristic", type=probability, help="share of the heuristic (default: 0.35); the rest are the learner's"
    )
    pool.add_argument(
        "--self-share",
        type=probability,
        help="of the learner's seats, the share its current policy plays; the rest its snapshots (default: 0.4)",
    )
    pool.add_argument("--pool-size", type=positive_int, help="snapshots of the learner kept in the pool (default: 5)")
    pool.add_argument(
        "--prioritize",
        type=non_negative_float,
        help="snapshots are drawn with weight (1 - the learner's score against them) ** this (default: 1; 0: evenly)",
    )
    pool.add_argument(
        "--opponent",
        metavar="SPEC",
        help="play every opponent seat with this agent instead of the pool, and evaluate against it too "
        "(sb3, fast engine: the exploiter check, docs/training.md)",
    )
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument("--n-steps", type=positive_int, help="rollout length per env before each update")
    ppo.add_argument("--batch-size", "--minibatch-size", type=positive_int, help="PPO minibatch")
    ppo.add_argument("--epochs", type=positive_int, help="PPO epochs per update (default: 5)")
    ppo.add_argument("--learning-rate", type=positive_float, help="Adam step size (default: 1e-4)")
    ppo.add_argument("--ent-coef", type=non_negative_float, help="entropy bonus (default: 0)")
    ppo.add_argument("--threads", type=positive_int, help="torch threads of the learner (default: 2 fast, else 1)")
    ppo.add_argument("--shaping", type=non_negative_float, help="score-margin reward shaping weight (sb3; default 0)")
    cadence = parser.add_argument_group("cadence (in learner timesteps, on both backends)")
    cadence.add_argument("--eval-every", type=positive_int, help="timesteps between evaluations")
    cadence.add_argument("--eval-games", type=positive_int, help="games per evaluation and opponent (default: 200)")
    cadence.add_argument(
        "--eval-opponents",
        nargs="+",
        metavar="SPEC",
        help="agents every evaluation also plays, besides random and the heuristic (default: none; e.g. gubs-net)",
    )
    cadence.add_argument("--snapshot-every", type=positive_int, help="timesteps between snapshots into the pool")
    cadence.add_argument("--checkpoint-every", type=positive_int, help="timesteps between checkpoints")
    warm = parser.add_argument_group("warm start of a new run (both backends; --init: sb3)")
    warm.add_argument("--imitate-games", type=non_negative_int, help="teacher games imitated first (default 1,500)")
    warm.add_argument("--teacher", choices=TEACHERS, help="whose games are imitated (default: heuristic-tuned)")
    warm.add_argument(
        "--labels", type=Path, nargs="+", metavar="FILE", help="imitate these search-labelled decisions instead"
    )
    warm.add_argument(
        "--init", metavar="MODEL", help="start the policy from this network (a shipped name or a file; sb3)"
    )
    warm.add_argument("--imitate-lr", type=positive_float, help="the warm start's step size (default 1e-3; 3e-4 init)")
    local = parser.add_argument_group("sb3 on the reference engine")
    local.add_argument("--vec-env", choices=VEC_ENVS, help="envs in this process (dummy) or in worker processes")
    local.add_argument("--workers", type=positive_int, help="worker processes of --vec-env subproc")
    ray = parser.add_argument_group("rllib")
    ray.add_argument("--address", help="join this Ray cluster ('auto' or HOST:PORT; default: a local Ray)")
    ray.add_argument("--env-runners", type=non_negative_int, help="env runner actors (default: 1)")
    ray.add_argument("--code-installed", action="store_true", help="with --address: do not ship this checkout's code")
    ray.add_argument("--hidden", type=positive_int, nargs="+", help="actor and critic widths (default: 256 256)")
    ray.add_argument("--verbose", action="store_true", help="show Ray's start-up logging")
    return parser


def config_from_args(args: argparse.Namespace, stored: TrainingConfig | None = None) -> TrainingConfig:
    """The config the flags give: on top of ``stored`` (a resumed run's own config), or of the defaults.

    Raises:
        ConfigError: a combination of settings the config refuses.
    """
    given = {name: value for name, value in vars(args).items() if name not in INVOCATION_FLAGS}
    pool = {name: given.pop(name) for name in POOL_FLAGS if name in given}
    if stored is None:
        return TrainingConfig(**given, pool=PoolConfig(**pool))
    from agents.training.trainer import resumed_config

    if given.get("backend", stored.backend) != stored.backend:
        raise ConfigError(f"the run is a {stored.backend} run: it resumes on the {stored.backend} backend only")
    return resumed_config(stored, {**given, "pool": replace(stored.pool, **pool)})


@dataclass(frozen=True)
class Invocation:
    """What one command line asks for: the run's config and how this invocation runs it."""

    config: TrainingConfig
    out: Path | None
    resume: bool
    progress: bool
    verbose: bool


def parse(argv: list[str] | None = None, backend: str | None = None) -> Invocation:
    """The command line as an :class:`Invocation`; a resumed run's own config is read (and checked) here.

    ``backend`` is the default of ``--backend``. A bad command line, a run that cannot be resumed or a setting the
    config refuses exits with status 2 and one line.
    """
    from agents.training.trainer import RunSetupError, choose_out, load_state, stored_config

    parser = build_parser()
    if backend is not None:
        parser.set_defaults(backend=backend)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    resume = getattr(args, "resume", False)
    out = getattr(args, "out", None)
    try:
        stored = None
        if resume:
            out, _ = choose_out(out, True, getattr(args, "backend", None))
            stored = stored_config(load_state(out), out)
        config = config_from_args(args, stored)
    except (ConfigError, RunSetupError) as error:
        parser.error(str(error))
    return Invocation(config, out, resume, not getattr(args, "no_progress", False), getattr(args, "verbose", False))


def main(argv: list[str] | None = None, backend: str | None = None) -> int:
    """Parse the flags into a config, train, report (``backend``: the default of ``--backend``).

    Returns:
        0 when done. A bad command line or a run that cannot start exits with status 2 and one line.
    """
    from agents.training.trainer import RunSetupError, train

    invocation = parse(argv, backend)
    try:
        train(
            invocation.config,
            out=invocation.out,
            resume=invocation.resume,
            progress=invocation.progress,
            verbose=invocation.verbose,
        )
    except (ConfigError, RunSetupError) as error:
        build_parser().error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
