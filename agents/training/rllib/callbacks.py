"""RLlib callbacks of the self-play run: snapshots, evaluation with Wilson intervals, snapshots after restarts.

Snapshots go into the pool and evaluations are played every so many learner timesteps (the config's cadences);
env runners started again after a failure get the pool's snapshots pushed again.

Summed episode returns say little in a zero-sum game; the evaluation plays the learner's greedy policy
against the random and heuristic agents on the engine directly (seat-rotated deals, :func:`agents.evaluate.match`)
and reports win rates with 95% Wilson intervals, in ``eval.csv`` with the columns train.py writes and in each
training result under ``gubs_eval``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agents.bots.model_file import PolicyWeights
from agents.bots.ppo import PPOAgent
from agents.training.core.budget import BudgetBar, Cadence
from agents.training.core.config import TrainingConfig
from agents.training.core.reports import append_csv, describe_evaluation, evaluation_rows
from agents.training.rllib.module import actor_layers
from agents.training.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN, SNAPSHOT_WEIGHTS, push_snapshots, take_snapshot

EVAL_KEY = "gubs_eval"
"""Where a training result holds the evaluation rows (absent in iterations without one)."""
NEW_SNAPSHOT_KEY = "gubs_new_snapshot"
"""Where a training result names the slot that took a snapshot (absent in iterations without one)."""


def learner_steps(result: dict[str, Any]) -> int:
    """Decisions taken by ``main`` so far, as a training result counts them (train.py's timesteps)."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(MAIN, 0)) if isinstance(sampled, dict) else 0


def main_agent(algorithm: Any, module: Any) -> PPOAgent:
    """The learner's current actor as a greedy agent, read out into numpy.

    ``module`` is a local :class:`~agents.training.rllib.module.MaskedPPOModule` built from ``main``'s spec; it is
    loaded with the learner's weights first.
    """
    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    layers, activation = actor_layers(module)
    weights = PolicyWeights(tuple(layers), activation, rule_facts=module.rule_facts)
    return PPOAgent(weights, deterministic=True, name="learner")


class SelfPlayCallback:
    """``on_train_result``: snapshots and evaluations on the config's cadences, in learner timesteps.

    Args:
        config: the run's config (resolved): its pool, table sizes, cadences and evaluation games.
        module_spec: ``main``'s RLModuleSpec, to build the evaluation's copy of the module.
        out: folder of eval.csv (None: no file).
        seconds_before: wall time of earlier invocations of a resumed run (for eval.csv's ``seconds``).
        timesteps_before: the learner timesteps a resumed run starts from (cadences count on from there).
    """

    def __init__(
        self,
        config: TrainingConfig,
        module_spec: Any,
        out: Path | None = None,
        seconds_before: float = 0.0,
        timesteps_before: int = 0,
    ) -> None:
        self.config, self.module_spec, self.out = config, module_spec, out
        self.seconds_before = seconds_before
        self.start = time.perf_counter()
        self._module: Any = None
        self._snapshots = Cadence(config.snapshot_every, timesteps_before)
        self._evaluations = Cadence(config.eval_every, timesteps_before)

    def __call__(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        """After each training iteration (RLlib's ``on_train_result``)."""
        steps = learner_steps(result)
        if self._snapshots.due(steps):
            result[NEW_SNAPSHOT_KEY] = take_snapshot(algorithm, self.config.seats)
        result["gubs_snapshots"] = list(ACTIVE_SNAPSHOTS)
        if self._evaluations.due(steps):
            result[EVAL_KEY] = self.evaluate(algorithm, steps)

    def evaluate(self, algorithm: Any, steps: int) -> list[dict]:
        """Evaluate the learner now (see :func:`run_evaluation`)."""
        if self._module is None:
            self._module = self.module_spec.build()
        seconds = self.seconds_before + time.perf_counter() - self.start
        return run_evaluation(algorithm, self._module, self.config, steps, seconds, self.out)


def run_evaluation(
    algorithm: Any,
    module: Any,
    config: TrainingConfig,
    steps: int,
    seconds: float,
    out: Path | None,
) -> list[dict]:
    """Evaluate the learner now: rows appended to ``out``/eval.csv (when ``out`` is set), printed, returned.

    Each row also carries ``eval_seconds``, the wall time this evaluation took (not written to eval.csv).
    """
    started = time.perf_counter()
    learner = main_agent(algorithm, module)
    games, sizes, others = config.eval_games or 1, config.players.distinct, config.evaluated_against
    rows = evaluation_rows(learner, sizes, games, steps, seconds, opponents=others, adjust_luck=config.eval_adjust_luck)
    if out is not None:
        append_csv(out / "eval.csv", rows)
    BudgetBar.write(describe_evaluation(rows, steps))
    elapsed = time.perf_counter() - started
    return [{**row, "eval_seconds": round(elapsed, 2)} for row in rows]


def restore_snapshots(*, algorithm: Any, env_runner_group: Any, env_runner_indices: list[int], **kwargs: Any) -> None:
    """``on_env_runners_recreated``: a restarted env runner gets the active snapshots again (it starts empty)."""
    if kwargs.get("is_evaluation") or not ACTIVE_SNAPSHOTS:
        return
    push_snapshots(algorithm, list(ACTIVE_SNAPSHOTS), env_runner_indices, list(SNAPSHOT_WEIGHTS))
