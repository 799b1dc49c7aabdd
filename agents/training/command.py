"""``python train.py``: the flags of every backend, turned into one :class:`TrainingConfig` and trained.

A flag left out takes the backend's default (``TrainingConfig``, docs/training.md); with ``--resume`` it takes the
run's own setting, and the flags given replace those. ``--from-scratch`` is the preset of pure self-play
(:meth:`TrainingConfig.from_scratch`), and ``--seeds`` trains one run per seed and draws their curves together
(:mod:`agents.training.seeds`). Every problem is one line and exit status 2, before anything slow starts.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from agents.training.core.config import (
    BACKENDS,
    DEFAULT_MINUTES,
    DEFAULTS,
    FRESH_ENTROPY_START,
    INIT_LEARNING_RATE,
    INIT_WARM_START_LEARNING_RATE,
    LUCK_VALUES,
    PURE_SELF_PLAY,
    TEACHERS,
    WARM_START_LEARNING_RATE,
    ConfigError,
    NativeSettings,
    RllibSettings,
    TrainingConfig,
)
from gubs_env.support.cli import (
    CommandParser,
    add_jobs_argument,
    add_progress_argument,
    failure,
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
RLLIB_FLAGS = ("env_runners", "address", "code_installed")
"""The flags that set the RLlib section (:class:`RllibSettings`)."""
INVOCATION_FLAGS = ("out", "resume", "no_progress", "verbose", "seeds", "jobs", "from_scratch")
"""The flags of one invocation, not of the run's config."""
DESCRIPTION = """Self-play training of a Gubs bot with PPO: on stable-baselines3 in this process (--backend sb3,
the default), on Ray RLlib (--backend rllib, a local Ray or a cluster) or on the project's own learner over batches
of whole games (--backend native). By default a new run starts from the strongest shipped network for its table
(--init none: a fresh network, which imitates the tuned heuristic first), then plays a league for 10 minutes on
2-player tables: the learner sits at a random seat and the other seats are its own (65%: its current
policy or one of its last 5 snapshots, those it does not yet beat drawn more often) or the heuristic's (35%, an
anchor). --p-heuristic 1 trains against the heuristic alone; --from-scratch is pure self-play, with no hand-written
bot at any seat and nothing imitated."""
REFERENCE_ENGINE_GONE = "every backend trains on the compiled engine's self-play core, which plays the same games"
RETIRED_FLAGS = {
    "--engine": REFERENCE_ENGINE_GONE,
    "--vec-env": REFERENCE_ENGINE_GONE,
    "--workers": REFERENCE_ENGINE_GONE,
    "--shaping": "score-margin shaping gained nothing, measured twice",
}
"""Removed flags, each refused with a line saying why it went (CHANGELOG.md)."""
SEEDS_OUT = "runs/seeds-{backend}"
"""Where ``--seeds`` puts its runs without ``--out``: one folder, so that running the command again finishes them."""


def backend_default(name: str) -> str:
    """``default: ...`` for a :data:`DEFAULTS` field, as ``--help`` shows it: one value, or each where it applies.

    The most common value comes last, as ``else``: ``default: 4,096 on native, else 1,024``.
    """
    values = {key: value[name] for key, value in DEFAULTS.items() if name in value}
    counts: dict[object, int] = {}
    for value in values.values():
        counts[value] = counts.get(value, 0) + 1
    if len(counts) == 1:
        return f"default: {_shown(next(iter(counts)))}"
    common = max(counts, key=lambda value: counts[value])
    parts = []
    for value in counts:
        if value != common:
            backends = [backend for backend in BACKENDS if values.get(backend) == value]
            parts.append(f"{_shown(value)} on {' and '.join(backends)}")
    return f"default: {', '.join(parts)}, else {_shown(common)}"


def _shown(value: object) -> str:
    """A default as ``--help`` shows it: ``1e-4``, ``0``, ``1,500``."""
    if isinstance(value, float) and 0 < value < 0.01:
        return f"{value:.0e}".replace("e-0", "e-")
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


class _Retired(argparse.Action):
    """A retired flag: one line saying why it went (:data:`RETIRED_FLAGS`)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        flag = self.option_strings[0]
        parser.error(f"{flag} was removed: {RETIRED_FLAGS[flag]} (CHANGELOG.md); leave it out")


def build_parser() -> argparse.ArgumentParser:
    """The command line of every backend: a flag means the same on each.

    A flag the chosen backend cannot honour is refused when the config is built, with one line.
    """
    parser = CommandParser(prog=PROG, description=DESCRIPTION, argument_default=argparse.SUPPRESS)
    parser.add_argument(
        "--backend", choices=BACKENDS, help="the trainer: sb3, rllib (docs/rllib.md) or native (default: sb3)"
    )
    parser.add_argument(
        "--from-scratch",
        action="store_true",
        help="pure self-play: the native backend, every seat the learner's current policy, nothing imitated",
    )
    budget = parser.add_argument_group(
        f"budget (training stops at whichever comes first; default: {DEFAULT_MINUTES:g} minutes)"
    )
    budget.add_argument(
        "--minutes",
        type=positive_float,
        help=f"wall-clock minutes of this invocation, set-up included (default: {DEFAULT_MINUTES:g} when no other "
        "budget is given)",
    )
    budget.add_argument(
        "--steps", type=positive_int, help="total learner timesteps, counted across --resume (default: no limit)"
    )
    budget.add_argument("--iterations", type=positive_int, help="total training iterations, rllib (default: no limit)")
    run = parser.add_argument_group("the run")
    run.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        help="table sizes, 2 to 6, mixed across the envs (default: 2)",
    )
    run.add_argument("--seed", type=training_seed, help="the run's seed (default: 0)")
    run.add_argument(
        "--seeds",
        type=training_seed,
        nargs="+",
        help="train one run per seed, each in OUT/seed-<seed> with the budget in all (run again to finish), side by "
        "side in --jobs processes (rllib: one after another), each line led by its seed, and draw their curves "
        f"together (default --out: {SEEDS_OUT.format(backend='<backend>')})",
    )
    add_jobs_argument(run)
    run.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the run folder; one that holds a run is refused without --resume (default: runs/gubs, runs/rllib or "
        "runs/native, or the first free of -2, -3, ...; with --resume: the run there saved last)",
    )
    run.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    run.add_argument(
        "--envs",
        "--envs-per-runner",
        type=positive_int,
        help=f"parallel games, rllib: per env runner ({backend_default('envs')})",
    )
    add_progress_argument(run)
    pool = parser.add_argument_group("opponents")
    pool.add_argument("--p-random", type=probability, help="share of opponent seats of the random agent (default: 0)")
    pool.add_argument(
        "--p-heuristic",
        type=probability,
        help="share of the heuristic (default: 0.35, 0 on native); the rest are the learner's",
    )
    pool.add_argument(
        "--self-share",
        type=probability,
        help="of the learner's seats, the share its current policy plays; the rest its snapshots (default: 0.4, "
        "1 on native, which keeps no snapshots)",
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
        "(sb3: the exploiter check, docs/training.md; default: none, the pool)",
    )
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument(
        "--n-steps",
        type=positive_int,
        help=f"rollout length per env before each update ({backend_default('n_steps')})",
    )
    ppo.add_argument(
        "--batch-size", "--minibatch-size", type=positive_int, help=f"PPO minibatch ({backend_default('batch_size')})"
    )
    ppo.add_argument("--epochs", type=positive_int, help=f"PPO epochs per update ({backend_default('epochs')})")
    ppo.add_argument(
        "--learning-rate",
        type=positive_float,
        help=f"Adam step size ({backend_default('learning_rate')}; {_shown(INIT_LEARNING_RATE)} from --init's network)",
    )
    ppo.add_argument(
        "--ent-coef",
        type=non_negative_float,
        help=f"entropy bonus, sb3 and rllib ({backend_default('ent_coef')}; native's falls from "
        f"{FRESH_ENTROPY_START:g} to {NativeSettings.entropy_end:g}, and stays there from --init's network)",
    )
    ppo.add_argument("--gamma", type=probability, help=f"discount of the returns, above 0 ({backend_default('gamma')})")
    ppo.add_argument("--gae-lambda", type=probability, help=f"GAE's lambda ({backend_default('gae_lambda')})")
    ppo.add_argument(
        "--threads",
        type=positive_int,
        help=f"torch threads of the learner, at most one per core ({backend_default('threads')})",
    )
    ppo.add_argument(
        "--device",
        metavar="DEVICE",
        help="where the learner computes: auto (a CUDA GPU when torch sees one), cpu, cuda or cuda:N (default: auto)",
    )
    levers = parser.add_argument_group("levers (a backend that cannot apply one refuses it)")
    levers.add_argument(
        "--rule-facts",
        action="store_true",
        help="both networks also read the rule facts worked out from the observation (docs/observation.md)",
    )
    levers.add_argument(
        "--every-seat",
        action=argparse.BooleanOptionalAction,
        help="learn from every seat the learner's policy plays, not only its own (native; default there: on)",
    )
    levers.add_argument(
        "--skip-forced",
        action=argparse.BooleanOptionalAction,
        help="play decisions with one legal id without learning from them (default on; sb3: always)",
    )
    levers.add_argument(
        "--luck-returns",
        action="store_true",
        help="each decision learns from its outcome less the luck of the draws after it (native; docs/training.md)",
    )
    levers.add_argument(
        "--luck-worlds", type=positive_int,
        help=f"re-dealt decks per chance step of --luck-returns (default: {TrainingConfig.luck_worlds}, what the "
        "lever was measured with; evaluations' --luck-worlds has its own default)",
    )  # fmt: skip
    levers.add_argument(
        "--luck-value",
        choices=LUCK_VALUES,
        help="who judges the luck of --luck-returns: the shipped luck network or the run's own critic, which keeps "
        "the run self-play alone (default: shipped)",
    )
    levers.add_argument(
        "--average-from", type=non_negative_int, metavar="TIMESTEPS",
        help="from this many timesteps on, evaluate and write the mean of the actor's weights since, not the last "
        "weights (native; default: off)",
    )  # fmt: skip
    cadence = parser.add_argument_group("cadence (in learner timesteps, on every backend)")
    cadence.add_argument(
        "--eval-every", type=positive_int, help=f"timesteps between evaluations ({backend_default('eval_every')})"
    )
    cadence.add_argument(
        "--eval-games", type=positive_int, help=f"games per evaluation and opponent ({backend_default('eval_games')})"
    )
    cadence.add_argument(
        "--eval-opponents",
        nargs="+",
        metavar="SPEC",
        help="agents every evaluation also plays, besides random and the heuristic (default: none; e.g. gubs-net)",
    )
    cadence.add_argument(
        "--eval-adjust-luck",
        action="store_true",
        help="evaluations also give the luck-adjusted win rates: points that vary less (docs/luck.md; slower)",
    )
    cadence.add_argument(
        "--snapshot-every",
        type=positive_int,
        help=f"timesteps between snapshots into the pool ({backend_default('snapshot_every')})",
    )
    cadence.add_argument(
        "--checkpoint-every",
        type=positive_int,
        help=f"timesteps between checkpoints ({backend_default('checkpoint_every')})",
    )
    warm = parser.add_argument_group("warm start of a new run (every backend)")
    warm.add_argument(
        "--imitate-games",
        type=non_negative_int,
        help=f"teacher games imitated first ({backend_default('imitate_games')}; 0 from --init's network)",
    )
    warm.add_argument(
        "--teacher", choices=TEACHERS, help="whose games --imitate-games imitates (default: heuristic-tuned)"
    )
    warm.add_argument(
        "--labels",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="imitate these search-labelled decisions instead (default: none, the teacher's games)",
    )
    warm.add_argument(
        "--init",
        metavar="MODEL",
        help="start the policy from this network, a shipped name or a file, or none: a fresh network (default on sb3 "
        "and RLlib when nothing is imitated: ppo-2p at 2 players, gubs-net at any other table; else none)",
    )
    warm.add_argument(
        "--imitate-lr",
        type=positive_float,
        help=f"the warm start's step size (default: {_shown(WARM_START_LEARNING_RATE)}; "
        f"{_shown(INIT_WARM_START_LEARNING_RATE)} with --init)",
    )
    for flag in RETIRED_FLAGS:
        parser.add_argument(flag, nargs="?", action=_Retired, help=argparse.SUPPRESS)
    ray = parser.add_argument_group("rllib")
    ray.add_argument(
        "--address", metavar="ADDRESS", help="join this Ray cluster, 'auto' or HOST:PORT (default: a local Ray)"
    )
    ray.add_argument("--env-runners", type=non_negative_int, help="env runner actors (default: 1)")
    ray.add_argument("--code-installed", action="store_true", help="with --address: do not ship this checkout's code")
    ray.add_argument("--hidden", type=positive_int, nargs="+", help="actor and critic widths (default: 256 256)")
    ray.add_argument("--verbose", action="store_true", help="show Ray's start-up logging")
    return parser


def config_from_args(args: argparse.Namespace, stored: TrainingConfig | None = None) -> TrainingConfig:
    """The config the flags give: on top of ``stored`` (a resumed run's own config), or of the defaults.

    The pool's flags change the chosen backend's default pool (or the resumed run's own).

    Raises:
        ConfigError: a combination of settings the config refuses.
    """
    given = {name: value for name, value in vars(args).items() if name not in INVOCATION_FLAGS}
    pool = {name: given.pop(name) for name in POOL_FLAGS if name in given}
    cluster = {name: given.pop(name) for name in RLLIB_FLAGS if name in given}
    if cluster:
        given["rllib"] = replace(stored.rllib if stored else RllibSettings(), **cluster)
    if stored is None:
        if getattr(args, "from_scratch", False):  # the preset refuses a pool of its own, so it is given the flags
            return TrainingConfig.from_scratch(**given, **({"pool": replace(PURE_SELF_PLAY, **pool)} if pool else {}))
        config = TrainingConfig(**given)
        return replace(config, pool=replace(config.seats, **pool)) if pool else config
    from agents.training.trainer import resumed_config

    if getattr(args, "from_scratch", False):
        raise ConfigError("--from-scratch starts a new run; a resumed run goes on with its own settings")
    if given.get("backend", stored.backend) != stored.backend:
        raise ConfigError(f"the run is a {stored.backend} run: it resumes on the {stored.backend} backend only")
    if pool:
        given["pool"] = replace(stored.seats, **pool)
    return resumed_config(stored, given)


@dataclass(frozen=True)
class Invocation:
    """What one command line asks for: the run's config and how this invocation runs it."""

    config: TrainingConfig
    out: Path | None
    resume: bool
    progress: bool
    verbose: bool
    seeds: tuple[int, ...] = ()
    """With several seeds: one run each (:mod:`agents.training.seeds`)."""
    jobs: int | None = None
    """The seeds' runs trained side by side (None: one per core)."""


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
    seeds = tuple(getattr(args, "seeds", ()))
    if seeds and (resume or hasattr(args, "seed")):
        parser.error("--seeds names the runs' seeds and resumes them itself: leave out --seed and --resume")
    jobs = getattr(args, "jobs", None)
    if jobs is not None and not seeds:
        parser.error("--jobs trains the runs of --seeds side by side: give --seeds, or leave out --jobs")
    try:
        stored = None
        if resume:
            out, _ = choose_out(out, True, getattr(args, "backend", None))
            stored = stored_config(load_state(out), out)
        config = config_from_args(args, stored)
    except (ConfigError, RunSetupError) as error:
        parser.error(str(error))
    if (jobs or 1) > 1 and config.backend == "rllib":
        parser.error("rllib trains --seeds one after another (each run starts a Ray of its own): leave out --jobs")
    if seeds and out is None:
        out = Path(SEEDS_OUT.format(backend=config.backend))
    progress, verbose = not getattr(args, "no_progress", False), getattr(args, "verbose", False)
    return Invocation(config, out, resume, progress, verbose, seeds, jobs)


def main(argv: list[str] | None = None, backend: str | None = None) -> int:
    """Parse the flags into a config, train, report (``backend``: the default of ``--backend``).

    Returns:
        0 when done; 1 and one line when a run of ``--seeds`` trained side by side stopped before its end. A bad
        command line or a run that cannot start exits with status 2 and one line.
    """
    from agents.training.trainer import RunSetupError, train

    invocation = parse(argv, backend)
    try:
        if invocation.seeds:
            from agents.training.seeds import SeedRunError, report, train_seeds

            assert invocation.out is not None
            try:
                folders = train_seeds(
                    invocation.config,
                    invocation.seeds,
                    invocation.out,
                    invocation.progress,
                    invocation.verbose,
                    invocation.jobs,
                )
            except SeedRunError as error:
                return failure(PROG, error)
            print("\n".join(report(folders, invocation.out)))
            return 0
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


def script() -> int:
    """The console script ``gubs-train`` (and ``python train.py``)."""
    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
