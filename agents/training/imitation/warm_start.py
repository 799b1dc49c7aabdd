"""What a new run imitates before PPO, the same on both backends: search-labelled decisions, or a teacher's games.

The sb3 learner and RLlib's ``main`` module are fitted to it by :func:`agents.training.imitation.demonstrations.fit`.
"""

from __future__ import annotations

from typing import Any

from agents.training.core.config import TrainingConfig
from agents.training.imitation.demonstrations import collect


def read_labels(config: TrainingConfig) -> Any:
    """The run's labels files, joined, each checked before anything is built (None: the run names none).

    Raises:
        agents.training.core.runs.RunSetupError: a labels file that cannot be read or trusted.
    """
    if not config.labels:
        return None
    from agents.training.core.runs import RunSetupError
    from agents.training.expert.labels import LabelsFileError, join_labels, load_labels

    try:
        return join_labels([load_labels(path) for path in config.labels])
    except LabelsFileError as error:
        raise RunSetupError(f"labels: {error}") from None


WARM_START_SHARE = 0.5
"""The share of a run's time budget after which the warm start plays no new teacher game."""


def warm_start_deadline(config: TrainingConfig, started: float) -> float | None:
    """When the teacher's games stop for a run whose budget began at ``started`` (None: no time budget).

    Set-up counts against the budget: on a slow or busy machine the compile and the teacher's games could spend
    all of it, and a run would end having trained nothing.
    """
    return None if config.seconds is None else started + WARM_START_SHARE * config.seconds


def warm_start_data(
    config: TrainingConfig, labels: Any, progress: bool, gamma: float, deadline: float | None = None
) -> tuple[Any, str]:
    """What a new run imitates, with a description: the labels when given, else the teacher's games (both backends).

    The teacher's games stop at ``deadline`` (:func:`warm_start_deadline`); the description says when fewer than
    ``imitate_games`` were played. Returns ``(None, "")`` when the run imitates nothing.
    """
    if labels is not None:
        from agents.training.expert.labels import summary

        return labels, summary(labels)
    if not config.imitate_games:
        return None, ""
    from agents.bots.registry import make_agent

    teacher = make_agent(config.teacher)
    data = collect(teacher, config.players.distinct, config.imitate_games, config.seed, progress, gamma, deadline)
    what = f"{len(data):,} {config.teacher} decisions from {data.games:,} games"
    if data.games < config.imitate_games:
        share = f"{WARM_START_SHARE:.0%} of the {config.minutes:g}-minute budget"
        what += f" (of {config.imitate_games:,}: the teacher's games stop at {share}; --imitate-games sets how many)"
    return data, what
