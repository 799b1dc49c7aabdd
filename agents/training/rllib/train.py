"""The RLlib backend: PPO on Ray RLlib, the same run on a laptop and on a cluster.

``python train.py --backend rllib`` trains on a local Ray with one env runner;
``--address auto`` (or ``HOST:PORT``) joins a running Ray cluster and ships this project's code to its workers.
The config, the opponent pool, the run folder and its commit protocol are the sb3 backend's
(:mod:`agents.training`): run.json, ``checkpoint-<timesteps>/`` (RLlib's checkpoint folder, with its digest in
run.json), ``eval.csv``, and ``policy.npz``, the final actor in the weights-only format
(``python -m agents.evaluate runs/rllib/policy.npz random`` plays it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.bots.spec import FINAL_POLICY
from agents.bots.threads import LearnerThreads
from agents.training.core import budget, reports, runs
from agents.training.core.config import CLIP_RANGE, MAX_GRAD_NORM, VALUE_COEF, TrainingConfig, learner_device
from agents.training.core.curves import plot_learning_curve, read_progress
from agents.training.core.league import League
from agents.training.core.phases import (
    BUILDING,
    CHECKPOINTS,
    EVALUATIONS,
    SAVING,
    TRAINING,
    Phases,
)
from agents.training.core.runs import Run, RunFileError, RunSetupError, RunState, TrainingResult
from agents.training.imitation.warm_start import Layers, Network, read_start, warm_start


def build_config(config: TrainingConfig, callback: Any = None) -> Any:
    """RLlib's PPO config for ``config`` (resolved): the env, the modules, the seat mapping, fault tolerance.

    An iteration samples ``envs * n_steps`` environment steps per env runner (the local one when there are none).
    """
    from gymnasium import spaces
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.training.rllib.callbacks import restore_snapshots
    from agents.training.rllib.env import GubsMultiAgentEnv, observation_space
    from agents.training.rllib.learner import DiagnosedPPOLearner
    from agents.training.rllib.module import FixedAgentModule
    from agents.training.rllib.runner import FastEnvRunner
    from agents.training.rllib.seats import env_config
    from agents.training.rllib.selfplay import HEURISTIC, MAIN, RANDOM, SeatMapping, slots, tally_episode
    from gubs_env.encoding.action_table import NUM_ACTIONS

    obs_space = observation_space()
    act_space: spaces.Discrete = spaces.Discrete(NUM_ACTIONS)
    specs = {name: main_spec(config.hidden, config.rule_facts) for name in [MAIN, *slots(config.seats)]}
    for name in (RANDOM, HEURISTIC):
        specs[name] = RLModuleSpec(
            module_class=FixedAgentModule,
            observation_space=obs_space,
            action_space=act_space,
            model_config={"agent": name, "seed": config.seed},
        )
    ppo = (
        PPOConfig()
        .environment(GubsMultiAgentEnv, env_config=env_config(config.players, bool(config.skip_forced)))
        .framework("torch")
        .env_runners(
            num_env_runners=config.rllib.env_runners,
            num_envs_per_env_runner=config.envs,
            num_cpus_per_env_runner=1,
            env_runner_cls=FastEnvRunner,
        )
        .learners(
            num_learners=0,
            num_gpus_per_learner=int(learner_device(config.device) == "cuda"),
            learner_class=DiagnosedPPOLearner,
        )
        .training(
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            entropy_coeff=config.ent_coef,
            train_batch_size_per_learner=config.iteration_steps,
            minibatch_size=config.batch_size,
            num_epochs=config.epochs,
            grad_clip=MAX_GRAD_NORM,
            clip_param=CLIP_RANGE,
            vf_loss_coeff=VALUE_COEF,
            use_kl_loss=False,  # sb3's update has no KL penalty
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=SeatMapping(config.seats),  # type: ignore[arg-type]  # a callable object, not a function
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=config.seed, log_level="ERROR")
    )
    ppo.callbacks(on_env_runners_recreated=restore_snapshots, on_episode_end=tally_episode)
    if callback is not None:
        ppo.callbacks(on_train_result=callback)
    return ppo


def main_spec(hidden: Sequence[int], rule_facts: bool = False) -> Any:
    """The RLModuleSpec of ``main`` (and of every snapshot slot): the masked PPO module, separate actor MLP."""
    from gymnasium import spaces
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.training.rllib.env import observation_space
    from agents.training.rllib.module import RULE_FACTS, MaskedPPOModule
    from gubs_env.encoding.action_table import NUM_ACTIONS

    model_config: dict[str, Any] = {"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh", "vf_share_layers": False}
    if rule_facts:
        model_config[RULE_FACTS] = True
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space(),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config=model_config,
    )


def start_ray(config: TrainingConfig, verbose: bool = False) -> None:
    """Join the cluster at ``--address`` (shipping this checkout's packages unless installed), or start a local Ray.

    A local Ray is always a new one, even where another Ray runs on the machine.

    The local Ray gets one logical CPU per env runner plus one for the driver's learner, whatever the machine
    has, so ``--env-runners 2`` runs on two cores too.
    """
    import ray

    # Ray and RLlib log pages of INFO lines while starting (the node, the env runners, the config) before the first
    # progress line; a user asks for them with --verbose
    level = logging.INFO if verbose else logging.WARNING
    logging.getLogger("ray").setLevel(level)
    if config.rllib.address is not None:
        runtime_env = {} if config.rllib.code_installed else {"py_modules": _project_packages()}
        ray.init(address=config.rllib.address, runtime_env=runtime_env, log_to_driver=False, logging_level=level)
    else:
        # "local": a Ray of its own even where another runs on this machine (ray.init() alone would join that one,
        # and refuse the CPU count); a cluster is joined only when --address names it
        ray.init(
            address="local",
            num_cpus=config.rllib.env_runners + 1,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=level,
        )


def _project_packages() -> list[str]:
    """The folders of this project's packages, for Ray's ``py_modules`` (uploaded to the cluster's workers)."""
    import agents
    import gubs_env

    return [str(Path(gubs_env.__file__).parent), str(Path(agents.__file__).parent)]


def export_policy(algorithm: Any, module: Any, path: Path) -> Path:
    """Write ``main``'s actor in the weights-only format of :mod:`agents.bots.model_file`."""
    from agents.bots.model_file import save_policy
    from agents.training.rllib.module import actor_layers
    from agents.training.rllib.selfplay import MAIN

    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    layers, activation = actor_layers(module)
    return save_policy(path, layers, activation, rule_facts=module.rule_facts)


def train_rllib(run: Run) -> TrainingResult:
    """Run (or continue) ``run`` on RLlib; see :func:`agents.training.train`."""
    import ray

    from agents.training.rllib.callbacks import SelfPlayCallback
    from agents.training.rllib.selfplay import push_snapshots

    config = run.config
    folder = _verified_resume(run) if run.state is not None else None
    init, labels = read_start(run)
    # the learner runs in this process, never beside sampling (PPO's iterations sample, then update): a thread a core
    # that other processes leave free, up to config.threads, measured before Ray starts (its env runners, once
    # running, would count as other processes)
    threads = LearnerThreads(config.threads or 1)
    threads.start()
    phases = Phases(run.started)
    run.out.mkdir(parents=True, exist_ok=True)
    state = run.state or RunState(backend="rllib")
    state.config = config.to_json()
    league = League.from_json(state.league, config.seats.prioritize)
    callback = SelfPlayCallback(
        config, main_spec(config.hidden, config.rule_facts), run.out, state.seconds, state.timesteps
    )
    own_ray = not ray.is_initialized()  # a caller's Ray (a test's cluster) is used as it is, and left running
    if own_ray:
        start_ray(config, run.verbose)
    algorithm = None
    try:
        with phases.timed(BUILDING):
            algorithm = build_config(config, callback).build_algo()
            if folder is not None:
                algorithm.restore_from_path(str(folder.resolve()))
        if folder is not None:
            runs.discard_uncommitted(run.out, state)
            print(f"resuming at iteration {state.iterations} ({state.timesteps:,} learner steps)")
        else:
            _warm_start(algorithm, run, init, labels, phases, threads)
        # none for a new run (this process may have run another)
        push_snapshots(algorithm, state.snapshots, draw_weights=league.weights(state.snapshots))
        return _train_loop(algorithm, run, state, league, phases, threads)
    finally:
        if algorithm is not None:
            algorithm.stop()
        if own_ray:
            ray.shutdown()


def _warm_start(
    algorithm: Any, run: Run, init: Layers | None, labels: Any, phases: Phases, threads: LearnerThreads
) -> None:
    """Before PPO: ``main`` from ``init``, then fitted to the labels or the teacher's games; then sent out."""
    from agents.training.rllib.module import actor_linears, imitation_heads
    from agents.training.rllib.selfplay import MAIN

    config = run.config
    module = main_spec(config.hidden, config.rule_facts).build()
    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    network = Network(module.parameters(), imitation_heads(module), actor_linears(module)[0])
    if warm_start(run, init, labels, phases, threads, network):
        algorithm.learner_group.set_weights({MAIN: module.get_state()})
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=algorithm.learner_group, inference_only=True
        )


def _verified_resume(run: Run) -> Path:
    assert run.state is not None
    try:
        return runs.verified_checkpoint_folder(run.out, run.state)
    except RunFileError as error:
        raise RunSetupError(str(error)) from None


def _train_loop(
    algorithm: Any, run: Run, state: RunState, league: League, phases: Phases, threads: LearnerThreads
) -> TrainingResult:
    """Train until the budget is spent, checkpointing on the way; then evaluate, checkpoint and export."""
    from agents.training.rllib.callbacks import EVAL_KEY, NEW_SNAPSHOT_KEY, learner_steps, run_evaluation
    from agents.training.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN, update_league

    config = run.config
    bar = budget.BudgetBar(config.seconds, config.steps, state.timesteps, run.started, run.progress)
    last_save = time.perf_counter()
    training = 0.0
    env_steps = main_steps = 0
    checkpoints = budget.Cadence(config.checkpoint_every, state.timesteps)
    while True:
        before = time.perf_counter()
        result = algorithm.train()
        spent = time.perf_counter() - before
        spent_evaluating = max((row["eval_seconds"] for row in result.get(EVAL_KEY, [])), default=0.0)
        training += spent - spent_evaluating
        phases.add(TRAINING, spent - spent_evaluating)
        phases.add(EVALUATIONS, spent_evaluating)
        sampled = result.get("env_runners", {})
        env_steps += int(sampled.get("num_env_steps_sampled", 0))
        main_steps += int(sampled.get("num_module_steps_sampled", {}).get(MAIN, 0))
        state.iterations += 1
        state.timesteps = max(state.timesteps, learner_steps(result))
        reports.append_csv(run.out / runs.PROGRESS_CSV, [progress_row(result, state.timesteps)])
        update_league(algorithm, league, [result[NEW_SNAPSHOT_KEY]] if NEW_SNAPSHOT_KEY in result else [])
        if EVAL_KEY in result:
            reports.append_csv(run.out / runs.LEAGUE_CSV, league.rows(list(ACTIVE_SNAPSHOTS), state.timesteps))
        bar.update(state.timesteps)
        if not run.progress:  # no bar: a line per iteration, so that a log shows the run moving
            print(f"iteration {state.iterations}: {state.timesteps:,} learner steps", flush=True)
        done = bar.over(state.timesteps) or (config.iterations is not None and state.iterations >= config.iterations)
        if checkpoints.due(state.timesteps) or done:
            now = time.perf_counter()
            state.seconds, last_save = state.seconds + now - last_save, now
            state.snapshots = list(ACTIVE_SNAPSHOTS)
            state.league, state.opponent_seat_shares = league.to_json(), league.shares()
            with phases.timed(CHECKPOINTS):
                committed = runs.commit_checkpoint(
                    run.out, state, lambda path: algorithm.save_to_path(str(path.resolve()))
                )
            state.checkpoint, state.checkpoint_sha256 = committed.checkpoint, committed.checkpoint_sha256
        if done:
            break
    bar.close()
    training = max(training, 1e-9)
    print(
        f"{main_steps / training:,.0f} learner steps/s and {env_steps / training:,.0f} env steps/s while training "
        f"({env_steps:,} env steps)",
        flush=True,
    )
    module = main_spec(config.hidden, config.rule_facts).build()
    rows = result.get(EVAL_KEY)
    if not rows:  # the last iteration's own evaluation, if it had one, is the final one
        with phases.timed(EVALUATIONS):
            rows = run_evaluation(algorithm, module, config, state.timesteps, state.seconds, run.out)
    with phases.timed(SAVING):
        policy = export_policy(algorithm, module, run.out / FINAL_POLICY)
        diagnostics = read_progress(run.out / runs.PROGRESS_CSV)
        plot_learning_curve(run.out / "eval.csv", run.out / "learning_curve.png", diagnostics)
    print(phases.describe(main_steps, "learner steps"))
    if line := threads.describe():
        print(line)
    print(reports.describe_agreement([value for _, value in diagnostics["grad_cosine"]]))
    print(league.describe())
    print(f"policy: {policy}  curve: {run.out / 'learning_curve.png'}  log: {run.out / 'eval.csv'}")
    return TrainingResult(run.out, policy, state.timesteps, [_plain(row) for row in rows], config, league.shares())


PROGRESS_COLUMNS = {
    "grad_cosine": "grad_cosine",
    "entropy": "entropy",
    "approx_kl": "mean_kl_loss",
    "explained_variance": "vf_explained_var",
    "policy_loss": "policy_loss",
    "value_loss": "vf_loss",
}
"""progress.csv's columns, and the keys of ``main``'s learner results they are read from (RLlib's PPO does not
count a clip fraction)."""


def progress_row(result: dict[str, Any], timesteps: int) -> dict[str, Any]:
    """One iteration's row of progress.csv: ``main``'s diagnostics, empty where RLlib gave none."""
    from agents.training.rllib.selfplay import MAIN

    learned = result.get("learners", {}).get(MAIN, {})
    row: dict[str, Any] = {"timesteps": timesteps}
    for column, key in PROGRESS_COLUMNS.items():
        value = learned.get(key) if isinstance(learned, dict) else None
        row[column] = round(float(value), 6) if isinstance(value, (int, float)) else ""
    return row


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """An evaluation row as eval.csv holds it (without the evaluation's own timing)."""
    return {name: value for name, value in row.items() if name != "eval_seconds"}
