"""RLlib callbacks of the self-play run: snapshots, evaluation with Wilson intervals, snapshots after restarts.

Snapshots go into the pool every few iterations; env runners started again after a failure get the pool's
snapshots pushed again.

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
from agents.rllib.module import actor_layers
from agents.rllib.selfplay import ACTIVE_SNAPSHOTS, MAIN, PoolSettings, push_snapshots, take_snapshot
from agents.training.runs import append_csv, evaluation_rows

EVAL_KEY = "gubs_eval"
"""Where a training result holds the evaluation rows (absent in iterations without one)."""


def learner_steps(result: dict[str, Any]) -> int:
    """Decisions taken by ``main`` so far, as a training result counts them (train.py's timesteps)."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(MAIN, 0)) if isinstance(sampled, dict) else 0


def main_agent(algorithm: Any, module: Any) -> PPOAgent:
    """The learner's current actor as a greedy agent, read out into numpy.

    ``module`` is a local :class:`~agents.rllib.module.MaskedPPOModule` built from ``main``'s spec; it is loaded
    with the learner's weights first.
    """
    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    layers, activation = actor_layers(module)
    return PPOAgent(PolicyWeights(tuple(layers), activation), deterministic=True, name="learner")


def describe(rows: list[dict], steps: int) -> str:
    """One line, as train.py prints it: ``eval at 1,000 steps: 2p vs random 80% [74%, 85%]; ...``."""
    parts = [f"{r['players']}p vs {r['opponent']} {r['win_rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}]" for r in rows]
    return f"eval at {steps:,} steps: " + "; ".join(parts)


class SelfPlayCallback:
    """``on_train_result``: a snapshot every ``snapshot_every`` iterations, an evaluation every ``eval_every``.

    Args:
        pool: the opponent pool's settings (its size bounds the snapshot slots).
        module_spec: ``main``'s RLModuleSpec, to build the evaluation's copy of the module.
        player_counts: table sizes evaluated.
        snapshot_every: iterations between snapshots.
        eval_every: iterations between evaluations (0: none during training).
        eval_games: games per evaluation, table size and opponent.
        out: folder of eval.csv (None: no file).
        seconds_before: wall time of earlier invocations of a resumed run (for eval.csv's ``seconds``).
        echo: print each evaluation's line.
    """

    def __init__(
        self,
        pool: PoolSettings,
        module_spec: Any,
        player_counts: list[int],
        snapshot_every: int,
        eval_every: int,
        eval_games: int,
        out: Path | None = None,
        seconds_before: float = 0.0,
        echo: bool = True,
    ) -> None:
        self.pool, self.module_spec = pool, module_spec
        self.player_counts = player_counts
        self.snapshot_every, self.eval_every, self.eval_games = snapshot_every, eval_every, eval_games
        self.out, self.seconds_before, self.echo = out, seconds_before, echo
        self.start = time.perf_counter()
        self._module: Any = None

    def __call__(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        """After each training iteration (RLlib's ``on_train_result``)."""
        iteration = int(result.get("training_iteration", algorithm.iteration))
        if iteration % self.snapshot_every == 0:
            take_snapshot(algorithm, self.pool)
        result["gubs_snapshots"] = list(ACTIVE_SNAPSHOTS)
        if self.eval_every and iteration % self.eval_every == 0:
            result[EVAL_KEY] = self.evaluate(algorithm, learner_steps(result))

    def evaluate(self, algorithm: Any, steps: int) -> list[dict]:
        """Evaluate the learner now (see :func:`run_evaluation`)."""
        if self._module is None:
            self._module = self.module_spec.build()
        seconds = self.seconds_before + time.perf_counter() - self.start
        return run_evaluation(
            algorithm, self._module, self.player_counts, self.eval_games, steps, seconds, self.out, self.echo
        )


def run_evaluation(
    algorithm: Any,
    module: Any,
    player_counts: list[int],
    games: int,
    steps: int,
    seconds: float,
    out: Path | None,
    echo: bool,
) -> list[dict]:
    """Evaluate the learner now: rows appended to ``out``/eval.csv (when ``out`` is set), printed, returned.

    Each row also carries ``eval_seconds``, the wall time this evaluation took (not written to eval.csv).
    """
    started = time.perf_counter()
    rows = evaluation_rows(main_agent(algorithm, module), player_counts, games, steps, seconds)
    if out is not None:
        append_csv(out / "eval.csv", rows)
    if echo:
        print(describe(rows, steps), flush=True)
    elapsed = time.perf_counter() - started
    return [{**row, "eval_seconds": round(elapsed, 2)} for row in rows]


def restore_snapshots(*, algorithm: Any, env_runner_group: Any, env_runner_indices: list[int], **kwargs: Any) -> None:
    """``on_env_runners_recreated``: a restarted env runner gets the active snapshots again (it starts empty)."""
    if kwargs.get("is_evaluation") or not ACTIVE_SNAPSHOTS:
        return
    push_snapshots(algorithm, list(ACTIVE_SNAPSHOTS), env_runner_ids=env_runner_indices)
