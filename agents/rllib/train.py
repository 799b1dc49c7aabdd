"""Self-play training of a Gubs bot on Ray RLlib: the same command on a laptop and on a cluster.

Usage: ``python -m agents.rllib.train`` (or ``python train.py --backend rllib``) trains for about 10 minutes on
2-player tables with one env runner on a local Ray and writes everything under ``runs/rllib`` (or the next free
``runs/rllib-N``); ``--address auto`` (or ``--address HOST:PORT``) joins a running Ray cluster instead and ships
this project's code to its workers; ``--resume --out runs/rllib`` continues a stopped run from its checkpoint.

Output: ``policy.npz`` (the final actor in the weights-only format: ``python -m agents.evaluate runs/rllib/policy.npz
random`` plays it), ``checkpoint/`` (RLlib's checkpoint with ``run.json``, for ``--resume``), ``eval.csv`` (win rates
with 95% Wilson intervals, as train.py writes them).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.rllib.seats import ENGINES
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
)
from gubs_env.support.files import first_free_folder, latest_folder

DEFAULT_OUT = Path("runs/rllib")
"""The default output folder; new runs number the next free one (runs/rllib-2, ...)."""
CHECKPOINT = "checkpoint"
RUN_FILE = "run.json"
POLICY_FILE = "policy.npz"
RUN_FILE_LIMIT = 2**20
"""Largest run.json read (a real one is well under a kilobyte)."""
ENVS_PER_RUNNER = {"fast": 64, "reference": 8}
"""``--envs-per-runner`` by engine: the compiled engine's batch pays off with many games per call."""
SETTINGS = {"players": [2], "p_random": 0.1, "p_heuristic": 0.4, "pool_size": 5, "hidden": [256, 256]}
"""What a run trains on and its network's shape, kept in run.json: ``--resume`` goes on with them."""


@dataclass
class RunState:
    """What a checkpoint records besides RLlib's own state."""

    iterations: int = 0
    learner_steps: int = 0
    seconds: float = 0.0
    """Wall time of all earlier invocations."""
    snapshots: list[str] = field(default_factory=list)
    """Snapshot slots holding weights, oldest first."""
    settings: dict[str, Any] = field(default_factory=dict)
    checkpoint_sha256: str = ""
    """Digest of the checkpoint folder's other files (:func:`checkpoint_digest`): RLlib's checkpoints hold
    pickles, so ``--resume`` loads only the files this run.json committed."""

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read a run.json written by :meth:`write`.

        Raises:
            ValueError: the file is missing, not JSON, or not a run state.
        """
        from gubs_env.support.files import read_bounded

        if not path.is_file():  # not a device or a pipe, which could block the read
            raise ValueError(f"no run state at {path} (not a regular file)")
        try:
            data = json.loads(read_bounded(path, RUN_FILE_LIMIT).decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
            raise ValueError(f"cannot read {path}: {error}") from None
        names = {f for f in cls.__dataclass_fields__}
        if not isinstance(data, dict) or set(data) != names:
            raise ValueError(f"{path} is not a run state (expected the keys {sorted(names)})")
        state = cls(**data)
        counts = (state.iterations, state.learner_steps)
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            raise ValueError(f"{path}: iterations and learner_steps must be whole numbers >= 0")
        if isinstance(state.seconds, bool) or not isinstance(state.seconds, (int, float)) or not state.seconds >= 0:
            raise ValueError(f"{path}: seconds must be a number >= 0")
        if not isinstance(state.snapshots, list) or not all(isinstance(s, str) for s in state.snapshots):
            raise ValueError(f"{path}: snapshots must be a list of module ids")
        if not isinstance(state.settings, dict):
            raise ValueError(f"{path}: settings must be an object")
        if not isinstance(state.checkpoint_sha256, str):
            raise ValueError(f"{path}: checkpoint_sha256 must be a string")
        return state

    def write(self, path: Path) -> None:
        """Write as JSON, atomically."""
        from gubs_env.support.files import write_atomically

        write_atomically(path, json.dumps(asdict(self), indent=1).encode())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; errors are one line and exit status 2 (:class:`CommandParser`), never a traceback."""
    parser = CommandParser(prog="python -m agents.rllib.train", description=__doc__.split("\n")[0])
    budget = parser.add_argument_group("budget (training stops at whichever comes first)")
    budget.add_argument("--minutes", type=positive_float, default=None, help="wall-clock minutes (default: 10)")
    budget.add_argument("--iterations", type=positive_int, default=None, help="total training iterations")
    cluster = parser.add_argument_group("Ray")
    cluster.add_argument(
        "--address", default=None, help="join this Ray cluster ('auto': the one this node belongs to); default: local"
    )
    cluster.add_argument("--env-runners", type=non_negative_int, default=1, help="env runner actors (default: 1)")
    cluster.add_argument(
        "--engine",
        choices=ENGINES,  # fast: FastEnvRunner; reference: RLlib's runner over the env on the readable engine
        default="fast",
        help="who plays the env runners' games: fast (the default: the compiled engine, all of a runner's games in "
        "one batch, agents/rllib/runner.py) or reference (RLlib's own runner over the readable engine; docs/rllib.md)",
    )
    cluster.add_argument(
        "--envs-per-runner",
        type=positive_int,
        default=None,
        help="games each env runner steps together, one batched forward pass for all (default: 64 fast, 8 reference)",
    )
    cluster.add_argument(
        "--code-installed",
        action="store_true",
        help="with --address: the cluster's nodes have gubs_env installed; do not ship this checkout's code",
    )
    parser.add_argument("--players", type=player_count, nargs="+", default=None, help="table sizes (default: 2)")
    parser.add_argument("--seed", type=training_seed, default=0, help="random seed (default: 0)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: runs/rllib, -2, -3, ...)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    parser.add_argument("--batch-size", type=positive_int, default=4000, help="env steps per iteration")
    parser.add_argument("--minibatch-size", type=positive_int, default=256, help="PPO minibatch (default: 256)")
    parser.add_argument("--epochs", type=positive_int, default=5, help="PPO epochs per iteration (default: 5)")
    parser.add_argument("--learning-rate", type=positive_float, default=3e-4)
    parser.add_argument("--ent-coef", type=non_negative_float, default=0.01)
    parser.add_argument("--hidden", type=positive_int, nargs="+", default=None, help="actor and critic widths")
    parser.add_argument("--p-random", type=probability, default=None, help="opponent seats of the random agent")
    parser.add_argument("--p-heuristic", type=probability, default=None, help="opponent seats of the heuristic")
    parser.add_argument("--pool-size", type=positive_int, default=None, help="snapshots kept (default: 5)")
    parser.add_argument("--snapshot-every", type=positive_int, default=10, help="iterations between snapshots")
    parser.add_argument("--eval-every", type=non_negative_int, default=10, help="iterations between evaluations")
    parser.add_argument("--eval-games", type=positive_int, default=200, help="games per evaluation and opponent")
    parser.add_argument("--checkpoint-every", type=positive_int, default=5, help="iterations between checkpoints")
    parser.add_argument(
        "--verbose", action="store_true", help="show Ray's start-up and RLlib's info logging (default: warnings only)"
    )
    args = parser.parse_args(argv)
    if args.envs_per_runner is None:
        args.envs_per_runner = ENVS_PER_RUNNER[args.engine]
    if args.minutes is None and args.iterations is None:
        args.minutes = 10.0
    if args.address is not None and not args.address.strip():
        parser.error("--address is 'auto' or HOST:PORT, not empty")
    if args.out is None and args.resume:
        # the run saved last: its checkpoint's run.json (a kill mid-swap leaves only checkpoint.old's)
        latest = latest_folder(DEFAULT_OUT, lambda folder: _checkpoint_dir_or_current(folder) / RUN_FILE)
        if latest is None:
            parser.error(
                f"--resume: no run to continue under {DEFAULT_OUT.parent}/ (no {DEFAULT_OUT}* folder holds a "
                "checkpoint): pass --out DIR, the folder of the run"
            )
        args.out = latest
    elif args.out is None:
        args.out = first_free_folder(DEFAULT_OUT, _holds_run)
    problem = unwritable_folder(args.out)  # before Ray starts, not after a minute of set-up
    if problem:
        parser.error(f"--out: {problem}")
    stored: dict[str, Any] = {}
    if args.resume:
        try:
            folder = _checkpoint_dir(args.out)
            run_state = RunState.load(folder / RUN_FILE)
            verify_checkpoint(folder, run_state)
            stored = run_state.settings
        except (ValueError, FileNotFoundError) as error:
            parser.error(f"--resume: {error}")
    elif _holds_run(args.out):
        parser.error(f"{args.out} already holds a run: pass --resume to continue it, or choose another --out")
    for name, default in SETTINGS.items():
        if getattr(args, name) is None:
            setattr(args, name, stored.get(name, default))
    problem = _settings_problem(args)
    if problem:
        parser.error(f"--resume: {args.out} holds unusable settings: {problem}")
    if args.p_random + args.p_heuristic > 1:
        parser.error("--p-random and --p-heuristic add up to more than 1")
    if args.minibatch_size > args.batch_size:
        parser.error("--minibatch-size cannot exceed --batch-size")
    return args


def _settings_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the settings a run.json gave (the command line's own were checked by argparse)."""
    from agents.rllib.env import table_sizes
    from agents.rllib.selfplay import PoolSettings

    try:
        table_sizes({"players": args.players})
        PoolSettings(args.p_random, args.p_heuristic, args.pool_size)
    except ValueError as error:
        return str(error)
    hidden = args.hidden
    if not isinstance(hidden, list) or not hidden or not all(_positive_int(width) for width in hidden):
        return f"hidden must be a list of positive widths, not {hidden!r}"
    if not isinstance(args.players, list):
        return f"players must be a list, not {args.players!r}"
    return None


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _holds_run(out: Path) -> bool:
    """Whether ``out`` holds a run's checkpoint (the current one or, after a kill mid-swap, the previous one)."""
    return (out / CHECKPOINT).exists() or (out / f"{CHECKPOINT}.old").exists()


def _checkpoint_dir_or_current(out: Path) -> Path:
    """:func:`_checkpoint_dir`, or the current checkpoint's path when there is none (for looking only)."""
    try:
        return _checkpoint_dir(out)
    except FileNotFoundError:
        return out / CHECKPOINT


def _checkpoint_dir(out: Path) -> Path:
    """The run's checkpoint: ``checkpoint/``, or the previous one when a kill came between the two renames."""
    current, previous = out / CHECKPOINT, out / f"{CHECKPOINT}.old"
    if not current.is_dir() and previous.is_dir():
        return previous
    if not current.is_dir():
        raise FileNotFoundError(f"no checkpoint in {out} (expected {current})")
    return current


def build_config(args: argparse.Namespace, callback: Any = None) -> Any:
    """The PPO config: the env, the modules, self-play mapping, fault tolerance and callbacks."""
    from gymnasium import spaces
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib.callbacks import restore_snapshots
    from agents.rllib.env import GubsMultiAgentEnv, observation_space
    from agents.rllib.module import FixedAgentModule
    from agents.rllib.selfplay import HEURISTIC, MAIN, RANDOM, PoolSettings, SeatMapping
    from gubs_env.encoding.action_table import NUM_ACTIONS

    pool = PoolSettings(args.p_random, args.p_heuristic, args.pool_size)
    obs_space = observation_space()
    act_space: spaces.Discrete = spaces.Discrete(NUM_ACTIONS)
    specs = {name: main_spec(args.hidden) for name in [MAIN, *pool.slots()]}
    for name in (RANDOM, HEURISTIC):
        specs[name] = RLModuleSpec(
            module_class=FixedAgentModule,
            observation_space=obs_space,
            action_space=act_space,
            model_config={"agent": name, "seed": args.seed},
        )
    runner: dict[str, Any] = {}
    if args.engine == "fast":
        from agents.rllib.runner import FastEnvRunner

        runner["env_runner_cls"] = FastEnvRunner
    config = (
        PPOConfig()
        .environment(GubsMultiAgentEnv, env_config={"players": list(args.players)})
        .framework("torch")
        .env_runners(
            num_env_runners=args.env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=1,
            **runner,
        )
        .learners(num_learners=0)
        .training(
            lr=args.learning_rate,
            gamma=0.995,
            lambda_=0.95,
            entropy_coeff=args.ent_coef,
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.epochs,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=SeatMapping(pool),  # type: ignore[arg-type]  # a callable object, not a function
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    config.callbacks(on_env_runners_recreated=restore_snapshots)
    if callback is not None:
        config.callbacks(on_train_result=callback)
    return config


def main_spec(hidden: list[int]) -> Any:
    """The RLModuleSpec of ``main`` (and of every snapshot slot): the masked PPO module, separate actor MLP."""
    from gymnasium import spaces
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib.env import observation_space
    from agents.rllib.module import MaskedPPOModule
    from gubs_env.encoding.action_table import NUM_ACTIONS

    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space(),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh", "vf_share_layers": False},
    )


def start_ray(args: argparse.Namespace) -> None:
    """Join the cluster at ``--address`` (shipping this checkout's packages unless installed), or start a local Ray.

    The local Ray gets one logical CPU per env runner plus one for the driver's learner, whatever the machine
    has, so ``--env-runners 2`` runs on two cores too.
    """
    import ray

    # Ray and RLlib log pages of INFO lines while starting (the node, the env runners, the config) before the first
    # progress line; a user asks for them with --verbose
    level = logging.INFO if getattr(args, "verbose", False) else logging.WARNING
    logging.getLogger("ray").setLevel(level)
    if args.address is not None:
        runtime_env = {} if args.code_installed else {"py_modules": _project_packages()}
        ray.init(address=args.address, runtime_env=runtime_env, log_to_driver=False, logging_level=level)
    else:
        ray.init(num_cpus=args.env_runners + 1, include_dashboard=False, log_to_driver=False, logging_level=level)


def _project_packages() -> list[str]:
    """The folders of this project's packages, for Ray's ``py_modules`` (uploaded to the cluster's workers)."""
    import agents
    import gubs_env

    return [str(Path(gubs_env.__file__).parent), str(Path(agents.__file__).parent)]


def checkpoint_digest(folder: Path) -> str:
    """SHA-256 over the names and contents of every file in a checkpoint folder but its run.json.

    Raises:
        ValueError: the folder holds a link or anything but plain files and folders (never followed).
    """
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise ValueError(f"{folder}: {relative} is a link or a special file, which a checkpoint never holds")
        if path.is_file() and relative != RUN_FILE:
            digest.update(f"{relative}\0{path.stat().st_size}\0".encode())
            with path.open("rb") as file:
                while block := file.read(2**20):
                    digest.update(block)
    return digest.hexdigest()


def verify_checkpoint(folder: Path, state: RunState) -> None:
    """Raise ``ValueError`` unless the folder holds exactly the checkpoint its run.json committed.

    The digest keeps a swapped or altered checkpoint (RLlib unpickles parts of it) from being loaded; it cannot
    vouch for a run.json written by someone else, so resume only runs you trust as you would trust code.
    """
    import hmac

    if not state.checkpoint_sha256:
        raise ValueError(f"{folder / RUN_FILE} names no checkpoint digest: the checkpoint is not loaded")
    if not hmac.compare_digest(checkpoint_digest(folder), state.checkpoint_sha256):
        raise ValueError(f"{folder} is not the checkpoint its run.json committed (digest mismatch): not loaded")


def save_checkpoint(algorithm: Any, out: Path, state: RunState) -> Path:
    """Write RLlib's checkpoint with run.json inside, then swap it in for the previous one.

    A kill at any point leaves one whole checkpoint: the new one is written beside the old, which is renamed
    away only once the new one is complete.
    """
    tmp, current, previous = out / f"{CHECKPOINT}.tmp", out / CHECKPOINT, out / f"{CHECKPOINT}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algorithm.save_to_path(str(tmp.resolve()))
    state.checkpoint_sha256 = checkpoint_digest(tmp)
    state.write(tmp / RUN_FILE)
    if current.exists():
        shutil.rmtree(previous, ignore_errors=True)
        os.replace(current, previous)
    os.replace(tmp, current)
    shutil.rmtree(previous, ignore_errors=True)
    return current


def export_policy(algorithm: Any, module: Any, path: Path) -> Path:
    """Write ``main``'s actor in the weights-only format of :mod:`agents.bots.model_file`."""
    from agents.bots.model_file import save_policy
    from agents.rllib.module import actor_layers
    from agents.rllib.selfplay import MAIN

    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    layers, activation = actor_layers(module)
    return save_policy(path, layers, activation)


def train(args: argparse.Namespace) -> Path:
    """Run (or continue) training; returns the path of the exported policy."""
    import ray
    import torch

    from agents.rllib.callbacks import SelfPlayCallback
    from agents.rllib.selfplay import PoolSettings, push_snapshots

    torch.set_num_threads(1)  # the learner runs in this process: one thread is 5-10x faster on small machines
    args.out.mkdir(parents=True, exist_ok=True)
    state = RunState.load(_checkpoint_dir(args.out) / RUN_FILE) if args.resume else RunState()
    state.settings = {name: getattr(args, name) for name in SETTINGS}
    pool = PoolSettings(args.p_random, args.p_heuristic, args.pool_size)
    player_counts = sorted(set(args.players))
    callback = SelfPlayCallback(
        pool, main_spec(args.hidden), player_counts, args.snapshot_every, args.eval_every, args.eval_games, args.out
    )
    callback.seconds_before = state.seconds
    own_ray = not ray.is_initialized()  # a caller's Ray (a test's cluster) is used as it is, and left running
    if own_ray:
        start_ray(args)
    algorithm = None
    try:
        algorithm = build_config(args, callback).build_algo()
        if args.resume:
            algorithm.restore_from_path(str(_checkpoint_dir(args.out).resolve()))
        push_snapshots(algorithm, state.snapshots)  # none for a new run (this process may have run another)
        if args.resume:
            print(f"resuming {args.out} at iteration {state.iterations} ({state.learner_steps:,} learner steps)")
        return _train_loop(algorithm, args, state)
    finally:
        if algorithm is not None:
            algorithm.stop()
        if own_ray:
            ray.shutdown()


def _train_loop(algorithm: Any, args: argparse.Namespace, state: RunState) -> Path:
    """Train until the budget is spent, checkpointing on the way; then evaluate, checkpoint and export."""
    from agents.rllib.callbacks import EVAL_KEY, learner_steps, run_evaluation
    from agents.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN

    start = last_save = time.perf_counter()
    training = evaluating = 0.0
    env_steps = main_steps = 0
    while True:
        before = time.perf_counter()
        result = algorithm.train()
        spent = time.perf_counter() - before
        spent_evaluating = max((row["eval_seconds"] for row in result.get(EVAL_KEY, [])), default=0.0)
        training, evaluating = training + spent - spent_evaluating, evaluating + spent_evaluating
        sampled = result.get("env_runners", {})
        env_steps += int(sampled.get("num_env_steps_sampled", 0))
        main_steps += int(sampled.get("num_module_steps_sampled", {}).get(MAIN, 0))
        state.iterations += 1
        state.learner_steps = max(state.learner_steps, learner_steps(result))
        elapsed = time.perf_counter() - start
        print(
            f"iteration {state.iterations}: {state.learner_steps:,} learner steps, {elapsed / 60:.1f} min, "
            f"{env_steps / training:,.0f} env steps/s, {main_steps / training:,.0f} learner steps/s",
            flush=True,
        )
        done = (args.minutes is not None and elapsed >= args.minutes * 60) or (
            args.iterations is not None and state.iterations >= args.iterations
        )
        if done or state.iterations % args.checkpoint_every == 0:
            now = time.perf_counter()
            state.seconds, last_save = state.seconds + now - last_save, now
            state.snapshots = list(ACTIVE_SNAPSHOTS)
            save_checkpoint(algorithm, args.out, state)
        if done:
            break
    print(
        f"trained {main_steps:,} learner steps ({env_steps:,} env steps) in {training:.1f} s of training: "
        f"{main_steps / training:,.0f} learner steps/s, {env_steps / training:,.0f} env steps/s "
        f"(evaluations took {evaluating:.1f} s more)",
        flush=True,
    )
    module = main_spec(args.hidden).build()
    if EVAL_KEY not in result:  # the last iteration's own evaluation, if it had one, is the final one
        players = sorted(set(args.players))
        run_evaluation(algorithm, module, players, args.eval_games, state.learner_steps, state.seconds, args.out, True)
    policy = export_policy(algorithm, module, args.out / POLICY_FILE)
    print(f"policy: {policy}  log: {args.out / 'eval.csv'}")
    return policy


def main(argv: list[str] | None = None) -> int:
    """Parse, say which folder the run uses, train, report."""
    args = parse_args(argv)
    print(f"{'resuming the run in' if args.resume else 'new run in'} {args.out}", flush=True)
    train(args)
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    sys.exit(run_command(main))
