"""Self-play training of a Gubs bot with sb3-contrib's MaskablePPO: what ``python train.py`` runs.

Usage: ``python train.py`` trains for about 10 minutes on 2-player tables and writes everything under
``runs/gubs`` (or the next free ``runs/gubs-N``); ``python train.py --players 2 4 --minutes 60 --out runs/mix``
scales it up; ``python train.py --resume --out runs/gubs`` continues a stopped run from its last checkpoint.

A new run first imitates the tuned heuristic (``--teacher``; policy and critic fitted to its games,
agents/training/imitation.py), or the search's labelled decisions (``--labels``, expert iteration:
agents/training/expert.py); ``--init MODEL`` starts the policy from a network's weights before that.
The learner then plays from a random seat against opponents drawn per seat and per episode from a pool: the
random and heuristic agents and frozen snapshots of the learner itself, in several vector environments; by
default the heuristic plays every opponent seat (the default recipe: docs/training.md).
Output: ``model.zip`` (the final policy), ``checkpoint-<timesteps>.zip`` and ``run.json`` (for ``--resume``:
run.json names the checkpoint and its SHA-256 digest, and is the commit point), ``snapshots/``, ``eval.csv``
(win rates with 95% Wilson intervals), ``logs/`` (CSV and TensorBoard), ``learning_curve.png``. A run killed at
any moment resumes from its last commit; what it wrote after that is discarded and done again.
"""

from __future__ import annotations

import argparse
import io
import math
import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.bots.names import TUNED
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.support.cli import (
    CommandParser,
    non_negative_float,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
    probability,
    training_seed,
    unwritable_folder,
    usage_error,
)
from gubs_env.support.files import first_free_folder, latest_folder

PROG = "python train.py"
DEFAULT_OUT = Path("runs/gubs")
"""The default output folder; new runs number the next free one (runs/gubs-2, ...)."""
DEFAULT_LEARNING_RATE = 1e-4
DEFAULT_ENT_COEF = 0.0
"""A new run's step size and entropy bonus: small steps and no bonus, so that PPO improves on the imitated heuristic
instead of drifting away from it (docs/training.md, "Strength after 10 minutes")."""
DEFAULT_IMITATE_GAMES = 1500
"""The teacher's games a new run imitates before PPO (``--imitate-games``): a start at the teacher's level."""
INIT_IMITATE_LR = 3e-4
"""The warm start's step size from a trained policy (``--init``): smaller, so it is corrected rather than redrawn."""
INIT_SHAPES = [(256, 512), (256, 256), (356, 256)]
"""The learner's actor layers (``net_arch`` 256x256 over the observation, then the action logits): ``--init``'s."""
TEACHERS = ("heuristic", TUNED)
"""Whose games a new run may imitate (``--teacher``)."""
DEFAULT_TEACHER = TUNED
"""The tuned weights: a warm start a few points above the heuristic at 2 players and far above it from 3 up."""


ENGINE_PRESETS: dict[str, dict[str, Any]] = {
    "fast": {
        "envs": 64,
        "n_steps": 64,
        "batch_size": 1024,
        "epochs": 5,
        "threads": 2,
        "lean_policy": True,
        "eval_every": 250_000,
        "snapshot_every": 150_000,
        "checkpoint_every": 100_000,
    },
    "reference": {
        "envs": 8,
        "n_steps": 256,
        "batch_size": 256,
        "epochs": 5,
        "threads": 1,
        "lean_policy": False,
        "eval_every": 50_000,
        "snapshot_every": 50_000,
        "checkpoint_every": 25_000,
    },
}
"""Per ``--engine``, the defaults of the flags that go with it (docs/training.md). On the compiled engine: many
games per batch, so the policy's forward passes and the opponents' batches are wide; large minibatches; the
cheaper masked distribution (agents/training/masked_policy.py); evaluations, snapshots and checkpoints spaced out in
timesteps as the timesteps come faster. On the reference engine: the earlier path, as it was."""

RUN_SETTINGS = {"players": [2], "p_random": 0.0, "p_heuristic": 1.0, "shaping": 0.0, "opponent": None}
"""What a run trains on, kept in its run.json: ``--resume`` goes on with them unless a flag sets them anew."""


def _stored_run(out: Path, parser: argparse.ArgumentParser) -> tuple[Any, bytes]:
    """The run state of ``out`` and its checkpoint's bytes, verified against its digest; its snapshots checked.

    Anything wrong is a command-line error (status 2, one line): a run folder is never half trusted.
    """
    from agents.bots.model_file import ModelFileError, load_policy
    from agents.training.runs import RUN_FILE, RunFileError, RunState, read_checkpoint, snapshot_file

    try:
        state = RunState.load(out / RUN_FILE)
        _check_settings(state.settings, out / RUN_FILE)
        for entry in state.snapshots:
            load_policy(snapshot_file(out, entry))
        checkpoint = read_checkpoint(out, state)
    except (RunFileError, ModelFileError) as error:
        parser.error(f"--resume: {error}")
    return state, checkpoint


def _check_settings(settings: dict[str, Any], path: Path) -> None:
    """Raise a RunFileError unless ``settings`` holds only known settings, each of its kind."""
    from agents.bots.registry import names_code
    from agents.training.runs import RunFileError

    def number(value: Any) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

    unknown = sorted(str(name) for name in settings if name not in RUN_SETTINGS)
    if unknown:
        raise RunFileError(f"{path}: unknown setting {', '.join(map(repr, unknown))[:120]}")
    players = settings.get("players", RUN_SETTINGS["players"])
    if not (
        isinstance(players, list)
        and players
        and all(isinstance(n, int) and not isinstance(n, bool) and MIN_PLAYERS <= n <= MAX_PLAYERS for n in players)
    ):
        raise RunFileError(f"{path}: players must list table sizes from {MIN_PLAYERS} to {MAX_PLAYERS}")
    for name in ("p_random", "p_heuristic"):
        value = settings.get(name, 0.0)
        if not number(value) or not 0 <= value <= 1:
            raise RunFileError(f"{path}: {name} must be a probability, not {value!r:.40}")
    shaping = settings.get("shaping", 0.0)
    if not number(shaping) or shaping < 0:
        raise RunFileError(f"{path}: shaping must be a number of at least 0, not {shaping!r:.40}")
    opponent = settings.get("opponent")
    if opponent is not None and not (isinstance(opponent, str) and 0 < len(opponent) <= 300):
        raise RunFileError(f"{path}: opponent must be an agent spec (a short string) or null, not {opponent!r:.40}")
    if isinstance(opponent, str) and names_code(opponent):
        raise RunFileError(
            f"{path}: opponent {opponent[:60]!r} names code to import, which a run file may not; "
            "give it again with --opponent"
        )


def _holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run: a run.json (or the checkpoint.zip of an older train.py)."""
    return (folder / "run.json").exists() or (folder / "checkpoint.zip").exists()


def _choose_out(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """Set ``args.out`` when it was not given, check that it can be written; returns how it was chosen.

    Without ``--out`` a new run takes the first free folder of ``runs/gubs``, ``runs/gubs-2``, ...; ``--resume``
    takes the run under ``runs/`` whose run.json was written last. Checked here, before anything slow, so that
    an output that cannot be written fails at once rather than after the set-up.
    """
    note = "as given"
    if args.out is None and args.resume:
        latest = latest_folder(DEFAULT_OUT, lambda folder: folder / "run.json")
        if latest is None:
            parser.error(
                f"--resume: no run to continue under {DEFAULT_OUT.parent}/ (no {DEFAULT_OUT}* folder holds a "
                "run.json): pass --out DIR, the folder of the run"
            )
        args.out, note = latest, f"the run under {DEFAULT_OUT.parent}/ saved last"
    elif args.out is None:
        args.out, note = first_free_folder(DEFAULT_OUT, _holds_run), "the first free default folder"
    problem = unwritable_folder(args.out)
    if problem:
        parser.error(f"--out: {problem}")
    return note


def _fresh_log_dir(logs: Path, timesteps: int) -> Path:
    """``logs/from_<timesteps>``, or ``-2``, ``-3``, ... when an earlier invocation resumed from there too."""
    base = logs / f"from_{timesteps:09d}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    budget = parser.add_argument_group("budget (training stops at whichever comes first)")
    budget.add_argument(
        "--minutes",
        type=positive_float,
        default=None,
        help="wall-clock minutes for this invocation (default: 10 unless --steps is given)",
    )
    budget.add_argument(
        "--steps", type=positive_int, default=None, help="total learner timesteps, counted across --resume"
    )
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=None,
        help="table sizes to train on; several mix them across the parallel envs (default: 2)",
    )
    parser.add_argument(
        "--engine",
        choices=tuple(ENGINE_PRESETS),
        default="fast",
        help="game engine of the environments, and the defaults that go with it: fast (the default: the compiled "
        "engine, every env in one batch, agents/training/fast_vec_env.py) or reference (the earlier path: one Python "
        "SelfPlayEnv per env, sb3-contrib's own policy class; docs/training.md)",
    )
    parser.add_argument(
        "--envs", type=positive_int, default=None, help="parallel environments (default: 64 fast, 8 reference)"
    )
    parser.add_argument(
        "--vec-env",
        choices=("dummy", "subproc"),
        default="dummy",
        help="run the environments in this process (dummy, the default: on 2 cores the fastest) or in "
        "worker processes (subproc, for machines with more cores)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="worker processes for --vec-env subproc, each stepping a share of the envs "
        "(default: one per CPU core, at most --envs)",
    )
    parser.add_argument("--seed", type=training_seed, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output directory; one that holds a run is refused without --resume (default: runs/gubs, or the "
        "first free of runs/gubs-2, -3, ...; with --resume: the run under runs/ that was saved last)",
    )
    parser.add_argument("--resume", action="store_true", help="continue from --out's last checkpoint")
    parser.add_argument(
        "--eval-every",
        type=positive_int,
        default=None,
        help="timesteps between evaluations (default: 250,000 fast, 50,000 reference)",
    )
    parser.add_argument(
        "--eval-games", type=positive_int, default=200, help="games per evaluation and opponent (seat-rotated)"
    )
    parser.add_argument(
        "--snapshot-every",
        type=positive_int,
        default=None,
        help="timesteps between snapshots added to the opponent pool (default: 150,000 fast, 50,000 reference)",
    )
    parser.add_argument("--pool-size", type=positive_int, default=5, help="snapshots kept in the pool")
    parser.add_argument(
        "--shaping",
        type=non_negative_float,
        default=None,
        help="weight of the potential-based score-margin reward shaping (default: 0, none)",
    )
    parser.add_argument(
        "--p-random",
        type=probability,
        default=None,
        help="share of opponent seats played by the random agent (default: 0)",
    )
    parser.add_argument(
        "--p-heuristic",
        type=probability,
        default=None,
        help="share played by the heuristic agent (default: 1, every seat); snapshots play the rest",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=None,
        help="timesteps between checkpoints (default: 100,000 fast, 25,000 reference)",
    )
    parser.add_argument(
        "--n-steps", type=positive_int, default=None, help="rollout length per env (default: 64 fast, 256 reference)"
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=None, help="PPO minibatch (default: 1024 fast, 256 reference)"
    )
    parser.add_argument("--epochs", type=positive_int, default=None, help="PPO epochs per rollout (default: 5)")
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="threads of the learner's torch (default: 2 fast, at most one per core; 1 reference)",
    )
    parser.add_argument(
        "--learning-rate",
        type=positive_float,
        default=None,
        help="Adam step size (default: 1e-4; with --resume, the run's own unless given)",
    )
    parser.add_argument(
        "--ent-coef",
        type=non_negative_float,
        default=None,
        help="entropy bonus of the PPO loss (default: 0, none; with --resume, the run's own unless given)",
    )
    parser.add_argument(
        "--imitate-games",
        type=non_negative_int,
        default=DEFAULT_IMITATE_GAMES,
        help=f"before self-play, imitate the teacher over this many games (default: {DEFAULT_IMITATE_GAMES:,}; "
        "0: none; a new run only)",
    )
    parser.add_argument(
        "--teacher",
        choices=TEACHERS,
        default=DEFAULT_TEACHER,
        help=f"whose games a new run imitates: the heuristic or its tuned weights (default: {DEFAULT_TEACHER})",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        nargs="+",
        default=None,
        metavar="FILE",
        help="imitate these search-labelled decisions (python -m agents.training.expert; several files are "
        "joined) instead of the teacher's games: expert iteration (docs/training.md; a new run only)",
    )
    parser.add_argument(
        "--init",
        default=None,
        metavar="MODEL",
        help="start the policy from this network's weights (a shipped name such as gubs-net, or a .npz or .zip "
        "model file with 256x256 tanh layers) before the warm start; a new run only",
    )
    parser.add_argument(
        "--imitate-lr",
        type=positive_float,
        default=None,
        help="Adam step size of the warm start (default: 1e-3, or 3e-4 with --init, which starts from a trained "
        "policy)",
    )
    parser.add_argument(
        "--opponent",
        default=None,
        metavar="SPEC",
        help="play every opponent seat with this agent (any agents.evaluate spec, e.g. ppo-2p or a model file) "
        "instead of the pool, and evaluate against it too: the exploiter check (docs/training.md)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.minutes is None and args.steps is None:
        args.minutes = 10.0
    args.out_note = _choose_out(parser, args)
    for name, value in ENGINE_PRESETS[args.engine].items():
        if getattr(args, name, None) is None:
            setattr(args, name, min(value, os.cpu_count() or 1) if name == "threads" else value)
    if args.workers is None:
        args.workers = min(os.cpu_count() or 1, args.envs)
    if args.workers > args.envs:
        parser.error(f"--workers ({args.workers}) cannot exceed --envs ({args.envs})")
    if args.engine == "fast" and args.vec_env == "subproc":
        parser.error("--vec-env subproc needs --engine reference: the fast engine steps every env in this process")
    if args.resume and not _holds_run(args.out):
        parser.error(f"--resume: no checkpoint in {args.out} (expected {args.out / 'run.json'})")
    args.run_state, args.checkpoint_data = _stored_run(args.out, parser) if args.resume else (None, b"")
    stored = args.run_state.settings if args.resume else {}
    for name, default in RUN_SETTINGS.items():
        if getattr(args, name) is None:
            setattr(args, name, stored.get(name, default))
    if args.p_random + args.p_heuristic > 1:
        parser.error("--p-random and --p-heuristic add up to more than 1")
    if args.opponent is not None:
        if args.engine != "fast":
            parser.error("--opponent needs --engine fast (the reference path draws its opponents from the pool)")
        _check_opponent(parser, args.opponent)
    if not args.resume and _holds_run(args.out):
        parser.error(f"{args.out} already holds a run: pass --resume to continue it, or choose another --out")
    if args.resume and (args.labels or args.init):
        parser.error("--labels and --init start a new run; a resumed run goes on from its checkpoint")
    args.labels_data = _read_labels(parser, args.labels) if args.labels else None
    args.init_layers = _read_init(parser, args.init) if args.init else None
    if args.imitate_lr is None:
        from agents.training.imitation import LEARNING_RATE

        args.imitate_lr = INIT_IMITATE_LR if args.init else LEARNING_RATE
    return args


def _read_labels(parser: argparse.ArgumentParser, paths: list[Path]) -> Any:
    """The labels files, joined, each checked before anything is built (status 2 and one line otherwise)."""
    from agents.training.expert import LabelsFileError, join_labels, load_labels

    try:
        return join_labels([load_labels(path) for path in paths])
    except LabelsFileError as error:
        parser.error(f"--labels: {error}")


def _read_init(parser: argparse.ArgumentParser, spec: str) -> Any:
    """The actor layers of ``--init`` (a shipped network's name or a model file), as the learner's shapes need."""
    from agents.bots.model_file import ModelFileError, load_policy
    from agents.bots.ppo import MODELS_DIR, PRETRAINED, SHIPPED_SPECS

    path = MODELS_DIR / PRETRAINED[SHIPPED_SPECS[spec]] if spec in SHIPPED_SPECS else Path(spec)
    try:
        weights = load_policy(path)
    except ModelFileError as error:
        parser.error(f"--init: {error}")
    shapes = [w.shape for w, _ in weights.layers]
    if weights.activation != "tanh" or shapes != INIT_SHAPES:
        parser.error(
            f"--init: {spec} has {weights.activation} layers shaped {shapes}; the learner's are tanh {INIT_SHAPES}"
        )
    return weights.layers


def _check_opponent(parser: argparse.ArgumentParser, spec: str) -> None:
    """Refuse an ``--opponent`` spec that names no agent, before anything is built."""
    from agents.bots.registry import AgentSpecError, make_agent

    try:
        make_agent(spec)
    except AgentSpecError as error:
        parser.error(f"--opponent: {error}")


def make_envs(args: argparse.Namespace):
    """The parallel training environments: table sizes cycle through ``--players``."""
    if args.engine == "fast":
        return _fast_envs(args)
    from stable_baselines3.common.monitor import Monitor

    from agents.training.pool import PoolConfig, PoolSelfPlayEnv, TimedVecEnv
    from agents.training.vec_env import LeanDummyVecEnv, ShardedVecEnv

    def factory(i: int):
        def make():
            pool = PoolConfig(p_random=args.p_random, p_heuristic=args.p_heuristic)
            env = PoolSelfPlayEnv(
                args.players[i % len(args.players)], pool, seed=args.seed * 1000 + i, shaping=args.shaping
            )
            return Monitor(env)

        return make

    factories = [factory(i) for i in range(args.envs)]
    parallel = args.vec_env == "subproc" and args.workers > 1
    # fork starts the workers in a moment; where there is none (Windows) the default method is used
    start_method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    venv = ShardedVecEnv(factories, args.workers, start_method) if parallel else LeanDummyVecEnv(factories)
    venv.seed(args.seed)
    return TimedVecEnv(venv)


def _fast_envs(args: argparse.Namespace):
    """The environments on the compiled engine: one batch, seeded as the reference path seeds its envs."""
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.bots.registry import make_agent
    from agents.training.fast_vec_env import FastSelfPlayVecEnv
    from agents.training.pool import PoolConfig, TimedVecEnv

    pool = PoolConfig(p_random=args.p_random, p_heuristic=args.p_heuristic)
    opponent = None if args.opponent is None else make_agent(args.opponent, args.seed)
    venv = FastSelfPlayVecEnv(args.envs, args.players, pool, seed=args.seed, shaping=args.shaping, opponent=opponent)
    venv.seed(args.seed)
    return TimedVecEnv(VecMonitor(venv))


def new_model(args: argparse.Namespace, envs):
    """A fresh MaskablePPO learner on ``envs`` with the command line's settings."""
    from sb3_contrib import MaskablePPO

    from agents.training.masked_policy import LeanMaskablePolicy

    return MaskablePPO(
        LeanMaskablePolicy if args.lean_policy else "MlpPolicy",
        envs,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        learning_rate=DEFAULT_LEARNING_RATE if args.learning_rate is None else args.learning_rate,
        n_epochs=args.epochs,
        gamma=0.995,
        gae_lambda=0.95,
        ent_coef=DEFAULT_ENT_COEF if args.ent_coef is None else args.ent_coef,
        seed=args.seed,
        device="cpu",
        policy_kwargs={"net_arch": [256, 256]},
    )


def _imitate_heuristic(model, args: argparse.Namespace) -> None:
    """Warm-start the policy on the teacher's choices (``--teacher``) and the critic on their outcomes."""
    from agents.bots.registry import make_agent
    from agents.training.imitation import collect, pretrain

    players = sorted(set(args.players))
    teacher = make_agent(args.teacher)
    data = collect(teacher, players, args.imitate_games, args.seed, not args.no_progress, model.gamma)
    losses = pretrain(model, data, seed=args.seed, progress=not args.no_progress, learning_rate=args.imitate_lr)
    print(
        f"imitated {len(data):,} {args.teacher} decisions from {args.imitate_games} games "
        f"(cross-entropy {losses[0]:.3f} -> {losses[-1]:.3f})"
    )


def _imitate_labels(model, args: argparse.Namespace) -> None:
    """Warm-start the policy on the search's labels (``--labels``) and the critic on their returns."""
    from agents.training.expert import summary
    from agents.training.imitation import pretrain

    data = args.labels_data
    losses = pretrain(model, data, seed=args.seed, progress=not args.no_progress, learning_rate=args.imitate_lr)
    print(f"imitated {summary(data)} (cross-entropy {losses[0]:.3f} -> {losses[-1]:.3f})")


def _load_actor(model, layers: list[tuple[Any, Any]]) -> None:
    """Copy ``layers`` (weight ``(out, in)``, bias) into the learner's actor: hidden layers, then the action head."""
    import numpy as np
    import torch

    from agents.bots.model_file import actor_modules

    modules, _ = actor_modules(model.policy)
    with torch.no_grad():
        for module, (weight, bias) in zip(modules, layers, strict=True):
            module.weight.copy_(torch.from_numpy(np.array(weight)))  # a copy: the loaded arrays are read-only
            module.bias.copy_(torch.from_numpy(np.array(bias)))


def train(args: argparse.Namespace) -> Path:
    """Run (or continue) training; returns the path of the final model.

    ``--minutes`` counts from here: importing torch, building the environments and compiling the engine on a first
    run (a minute or two) come out of the budget, so ``python train.py`` ends about 10 minutes after it starts.
    """
    started = time.perf_counter()
    with learner_threads(args.threads):
        return _train(args, started)


@contextmanager
def learner_threads(threads: int) -> Iterator[None]:
    """Let torch use ``threads`` threads and numpy's BLAS one, inside the block.

    numpy's BLAS only serves the snapshot opponents' small forward passes, and would otherwise start a thread
    per core for each: on a busy machine those threads wait on each other, and a 16-row pass took 5 ms instead
    of 0.5 (docs/training.md).
    """
    # the compiled engine's threads sleep between calls (gubs_env.fast sets this too, but only torch's import,
    # which comes first here, reads it): a waiting thread would otherwise spin on the core the learner needs
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(before)


def _train(args: argparse.Namespace, started: float) -> Path:
    """:func:`train` within its thread limits; ``started`` is when the time budget began (``perf_counter``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from agents.training.runs import (
        RunState,
        TrainingCallback,
        commit_checkpoint,
        discard_uncommitted,
        plot_learning_curve,
    )
    from gubs_env.support.files import write_atomically

    args.out.mkdir(parents=True, exist_ok=True)
    envs = make_envs(args)
    settings = {name: getattr(args, name) for name in RUN_SETTINGS}
    last_eval = -1
    if args.resume:
        run = args.run_state
        overrides = {"learning_rate": args.learning_rate, "ent_coef": args.ent_coef}
        overrides = {name: value for name, value in overrides.items() if value is not None}
        # the checkpoint's bytes matched run.json's digest in parse_args: they, not the file again, are loaded;
        # loaded before anything in the folder is discarded, so a checkpoint that fails leaves the run as it was
        try:
            model = MaskablePPO.load(io.BytesIO(args.checkpoint_data), env=envs, device="cpu", **overrides)
        except Exception as error:  # a library's loader fails in many ways (zip, pickle, torch, spaces)
            envs.close()
            raise CheckpointLoadError(
                f"--resume: the checkpoint {args.out / run.checkpoint} matches its digest but cannot be loaded: "
                f"{type(error).__name__}: {_first_line(error)}"
            ) from None
        last_eval = discard_uncommitted(args.out, run)  # what a killed invocation wrote after its last commit
        run.settings = settings
        print(f"resuming at {model.num_timesteps:,} timesteps")
    else:
        model = new_model(args, envs)
        if args.init_layers is not None:
            _load_actor(model, args.init_layers)
            print(f"policy starts from {args.init}")
        if args.labels_data is not None:
            _imitate_labels(model, args)
        elif args.imitate_games:
            _imitate_heuristic(model, args)
        # committed at once: from here on the folder is a run that --resume can continue
        run = commit_checkpoint(args.out, model, RunState(settings=settings))
    # one log folder per invocation: the CSV logger rewrites its file, and a resumed run must keep the earlier log
    log_dir = _fresh_log_dir(args.out / "logs", model.num_timesteps)
    model.set_logger(configure(str(log_dir), ["csv", "tensorboard"]))
    callback = TrainingCallback(
        args.out,
        run,
        sorted(set(args.players)),
        None if args.minutes is None else args.minutes * 60,
        args.steps,
        args.snapshot_every,
        args.pool_size,
        args.eval_every,
        args.eval_games,
        args.checkpoint_every,
        progress=not args.no_progress,
        last_eval=last_eval,
        opponent=args.opponent,
        budget_start=started,
    )
    start, steps_before = time.perf_counter(), model.num_timesteps
    model.learn(total_timesteps=10**12, callback=callback, reset_num_timesteps=not args.resume)
    wall = time.perf_counter() - start
    training = wall - callback.eval_seconds  # the environments' time plus the learner's
    callback.checkpoint()
    callback.evaluate()
    final = args.out / "model.zip"
    buffer = io.BytesIO()
    model.save(buffer)
    write_atomically(final, buffer.getvalue())
    plot_learning_curve(args.out / "eval.csv", args.out / "learning_curve.png")
    envs.close()
    steps = model.num_timesteps - steps_before
    print(
        f"trained {steps:,} timesteps in {wall / 60:.1f} min ({steps / wall:,.0f} steps/s); "
        f"evaluations took {callback.eval_seconds / wall:.1%} of the wall time, the environments "
        f"{envs.env_seconds / training:.1%} of the rest (the learner {1 - envs.env_seconds / training:.1%})"
    )
    print(f"model: {final}  curve: {args.out / 'learning_curve.png'}  log: {args.out / 'eval.csv'}")
    return final


class CheckpointLoadError(ValueError):
    """A run's checkpoint that passed every check of the command line but that the learner cannot load."""


def _first_line(error: BaseException, limit: int = 200) -> str:
    """An exception's message on one bounded line, for a one-line error."""
    lines = str(error).strip().splitlines()
    return lines[0][:limit] if lines else ""


def main(argv: list[str] | None = None) -> int:
    """Parse, say which folder the run uses, train with the sb3 backend, report.

    Returns:
        0 when done; 2 (one line on stderr) when the checkpoint to resume cannot be loaded, with the run folder
        left as it was.
    """
    args = parse_args(argv)
    if args.resume:
        print(f"resuming the run in {args.out} ({args.out_note})", flush=True)
    else:
        print(f"new run in {args.out} ({args.out_note})", flush=True)
    try:
        train(args)
    except CheckpointLoadError as error:
        return usage_error(PROG, error, argv)
    return 0
