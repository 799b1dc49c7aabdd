"""The RLlib backend behind the loop: each iteration is one ``algorithm.train()``, on a laptop or a cluster.

``python train.py --backend rllib`` trains on a local Ray with one env runner; ``--address auto`` (or
``HOST:PORT``) joins a running Ray cluster and ships this project's code to its workers. Every agent of the games
maps to the one module trained, ``main``; the env runners play their games on the compiled engine
(:class:`~agents.training.rllib.runner.FastEnvRunner`), seated by the league, whose snapshots travel to them through
Ray (:meth:`RllibBackend.set_league`) and are kept on the algorithm, so that an env runner started again after a
failure gets them too (:func:`restore_league`). The checkpoint is RLlib's own folder, loaded only once its files
match run.json's digest.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.bots.model_file import PolicyWeights
from agents.training.core.backend import Iteration, Network
from agents.training.core.config import CLIP_RANGE, MAX_GRAD_NORM, VALUE_COEF, TrainingConfig, learner_device
from agents.training.core.league import GameEnd
from agents.training.rllib.module import MAIN

LEAGUE_ATTRIBUTE = "gubs_league"
"""Where the algorithm keeps the league's snapshots and drawing weights (for env runners started again)."""
PROGRESS_KEYS = {
    "grad_cosine": "grad_cosine",
    "entropy": "entropy",
    "mean_kl_loss": "approx_kl",
    "vf_explained_var": "explained_variance",
    "policy_loss": "policy_loss",
    "vf_loss": "value_loss",
    "curr_entropy_coeff": "entropy_coef",
    "default_optimizer_learning_rate": "learning_rate",
}
"""``main``'s learner results, under progress.csv's names (RLlib's PPO counts no clip fraction)."""


def make(config: TrainingConfig, verbose: bool = False) -> RllibBackend:
    """The RLlib backend for ``config`` (resolved): a Ray of its own unless one is running, and the algorithm."""
    return RllibBackend(config, verbose)


class RllibBackend:
    """RLlib's PPO algorithm (see the module's description)."""

    def __init__(self, config: TrainingConfig, verbose: bool = False) -> None:
        import ray

        self.config = config
        self.own_ray = not ray.is_initialized()  # a caller's Ray (a test's cluster) is used as it is, and left running
        if self.own_ray:
            start_ray(config, verbose)
        self.algorithm = build_config(config).build_algo()
        self.module = main_spec(config.hidden).build()
        self.sent: list[str] = []
        """The snapshots' names the env runners hold."""

    def network(self) -> Network:
        """``main``'s actor and critic, for the warm start; its weights go to the learner and the runners after."""
        from agents.training.rllib.module import actor_linears, imitation_heads

        module = self._main()
        return Network(module.parameters(), imitation_heads(module), actor_linears(module)[0], self._send_main)

    def _main(self) -> Any:
        """The local copy of ``main``, with the learner's weights."""
        self.module.set_state(self.algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
        return self.module

    def _send_main(self) -> None:
        algorithm = self.algorithm
        algorithm.learner_group.set_weights({MAIN: self.module.get_state()})
        group = algorithm.env_runner_group
        group.sync_weights(from_worker_or_learner_group=algorithm.learner_group, inference_only=True)

    def iterate(self) -> Iteration:
        """One training iteration: the env runners sample, the learner updates."""
        result = self.algorithm.train()
        sampled = result.get("env_runners", {})
        steps = sampled.get("num_module_steps_sampled", {}).get(MAIN, 0)
        steps = int(steps) if math.isfinite(steps) else 0  # NaN when every runner was lost this iteration
        learned = result.get("learners", {}).get(MAIN, {})
        diagnostics = {
            name: float(learned[key])
            for key, name in PROGRESS_KEYS.items()
            if isinstance(learned, dict) and isinstance(learned.get(key), (int, float))
        }
        return Iteration(steps, diagnostics, self._take_games())

    def _take_games(self) -> list[GameEnd]:
        group = self.algorithm.env_runner_group
        return [game for games in group.foreach_env_runner(_take_games, local_env_runner=True) for game in games]

    def policy(self) -> PolicyWeights:
        """``main``'s actor, in numpy."""
        from agents.training.rllib.module import actor_layers

        layers, activation = actor_layers(self._main())
        return PolicyWeights(tuple(layers), activation)

    def set_league(self, snapshots: Sequence[tuple[str, PolicyWeights]], draw_weights: Sequence[float]) -> None:
        """Send the env runners the league: the snapshots' weights when they changed, their drawing weights always."""
        names = [name for name, _ in snapshots]
        league = (list(snapshots), list(draw_weights))
        setattr(self.algorithm, LEAGUE_ATTRIBUTE, league)
        if names == self.sent:
            send = functools.partial(_set_draw_weights, draw_weights=league[1])
        else:
            send = functools.partial(_set_league, snapshots=league[0], draw_weights=league[1])
            self.sent = names
        self.algorithm.env_runner_group.foreach_env_runner(send, local_env_runner=True)

    def save(self, path: Path) -> None:
        """RLlib's checkpoint folder."""
        self.algorithm.save_to_path(str(path.resolve()))

    def load(self, checkpoint: bytes | Path) -> None:
        """The verified checkpoint folder, restored."""
        assert isinstance(checkpoint, Path), "RLlib's checkpoint is a folder"
        self.algorithm.restore_from_path(str(checkpoint.resolve()))

    def close(self) -> None:
        """Stop the algorithm, and the Ray this backend started."""
        import ray

        self.algorithm.stop()
        if self.own_ray:
            ray.shutdown()


def _take_games(env_runner: Any) -> list[GameEnd]:
    """In an env runner: its finished games since the last call."""
    return env_runner.take_games()


def _set_league(env_runner: Any, snapshots: list[tuple[str, PolicyWeights]], draw_weights: list[float]) -> None:
    """In an env runner: the league's snapshots and drawing weights."""
    env_runner.set_league(snapshots, draw_weights)


def _set_draw_weights(env_runner: Any, draw_weights: list[float]) -> None:
    """In an env runner: new drawing weights for the snapshots it holds."""
    env_runner.set_draw_weights(draw_weights)


def restore_league(*, algorithm: Any, env_runner_group: Any, env_runner_indices: list[int], **kwargs: Any) -> None:
    """RLlib's ``on_env_runners_recreated``: a restarted env runner gets the league the algorithm keeps."""
    league = getattr(algorithm, LEAGUE_ATTRIBUTE, None)
    if kwargs.get("is_evaluation") or league is None:
        return
    send = functools.partial(_set_league, snapshots=league[0], draw_weights=league[1])
    env_runner_group.foreach_env_runner(send, local_env_runner=False, remote_worker_ids=list(env_runner_indices))


def build_config(config: TrainingConfig) -> Any:
    """RLlib's PPO config for ``config`` (resolved): the env, the module, the league's seats, fault tolerance.

    An iteration samples ``envs * n_steps`` environment steps per env runner (the local one when there are none).
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from agents.training.rllib.learner import DiagnosedPPOLearner
    from agents.training.rllib.runner import LEAGUE_KEY, FastEnvRunner, league_config
    from gubs_env.envs.rllib_env import GubsMultiAgentEnv
    from gubs_env.envs.rllib_seats import env_config

    opponent = None if config.opponent is None else str(config.opponent)
    environment = env_config(config.players, bool(config.skip_forced))
    environment[LEAGUE_KEY] = league_config(config.pool, config.seed, opponent)
    ppo = (
        PPOConfig()
        .environment(GubsMultiAgentEnv, env_config=environment)
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
            entropy_coeff=entropy_schedule(config),
            train_batch_size_per_learner=config.iteration_steps,
            minibatch_size=config.batch_size,
            num_epochs=config.epochs,
            grad_clip=MAX_GRAD_NORM,
            clip_param=CLIP_RANGE,
            vf_loss_coeff=VALUE_COEF,
            use_kl_loss=False,  # sb3's update has no KL penalty
        )
        .multi_agent(policies={MAIN}, policy_mapping_fn=_to_main, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: main_spec(config.hidden)}))
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=config.seed, log_level="ERROR")
    )
    ppo.callbacks(on_env_runners_recreated=restore_league)
    return ppo


def _to_main(agent: Any, episode: Any, **kwargs: Any) -> str:
    """Every agent of the games is the learner's policy: the league's other players sit inside the games."""
    return MAIN


def entropy_schedule(config: TrainingConfig) -> Any:
    """The entropy bonus as RLlib takes it: a constant, or its own schedule over the environment steps sampled."""
    start, end = config.entropy_at(0), config.entropy_at(config.ent_decay)
    return start if start == end else [[0, start], [config.ent_decay, end]]


def main_spec(hidden: Sequence[int]) -> Any:
    """The RLModuleSpec of ``main``: the masked PPO module, with an actor MLP of its own."""
    from gymnasium import spaces
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.training.rllib.module import MaskedPPOModule
    from gubs_env.encoding.action_table import NUM_ACTIONS
    from gubs_env.envs.rllib_env import observation_space

    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space(),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh", "vf_share_layers": False},
    )


def start_ray(config: TrainingConfig, verbose: bool = False) -> None:
    """Join the cluster at ``address`` (shipping this checkout's packages unless installed), or start a local Ray.

    A local Ray is always a new one, even where another Ray runs on the machine, with one logical CPU per env
    runner plus one for the driver's learner, whatever the machine has.
    """
    import ray

    # Ray and RLlib log pages of INFO lines while starting; a user asks for them with --verbose
    level = logging.INFO if verbose else logging.WARNING
    logging.getLogger("ray").setLevel(level)
    if config.rllib.address is not None:
        runtime_env = {} if config.rllib.code_installed else {"py_modules": _project_packages()}
        ray.init(address=config.rllib.address, runtime_env=runtime_env, log_to_driver=False, logging_level=level)
    else:
        # "local": a Ray of its own (ray.init() alone would join another running on this machine)
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
