"""What a new run imitates before PPO, the same on every backend: search-labelled decisions, or a teacher's games.

The sb3 learner and RLlib's ``main`` module are fitted to it by :func:`agents.training.imitation.demonstrations.fit`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.training.core.config import TrainingConfig
from agents.training.core.phases import WARM_START_FIT, WARM_START_GAMES, Phases
from agents.training.imitation.demonstrations import Demonstrations, Fitted, collect, fit

if TYPE_CHECKING:
    from agents.bots.threads import LearnerThreads
    from agents.training.core.runs import Run


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


GAMES_SHARE = 0.25
"""The share of a run's time budget after which the warm start plays no new teacher game."""
WARM_START_SHARE = 0.5
"""The share of a run's time budget after which the warm start's fit stops: PPO keeps at least the other half."""


@dataclass(frozen=True)
class WarmStartDeadlines:
    """When (``time.perf_counter`` values) the warm start stops playing the teacher's games, and stops fitting.

    Set-up counts against the budget: on a slow or busy machine the compile, the teacher's games and the fit could
    spend all of it, and a run would end having trained nothing. None: no time budget.
    """

    games: float | None
    fit: float | None

    @classmethod
    def of(cls, config: TrainingConfig, started: float) -> WarmStartDeadlines:
        """The deadlines of a run whose budget began at ``started``."""
        if config.seconds is None:
            return cls(None, None)
        return cls(started + GAMES_SHARE * config.seconds, started + WARM_START_SHARE * config.seconds)


def warm_start_data(
    config: TrainingConfig, labels: Any, progress: bool, gamma: float, deadline: float | None = None
) -> tuple[Any, str]:
    """What a new run imitates, with a description: the labels when given, else the teacher's games (every backend).

    The teacher's games stop at ``deadline`` (:attr:`WarmStartDeadlines.games`). Returns ``(None, "")`` when the
    run imitates nothing.
    """
    if labels is not None:
        from agents.training.expert.labels import summary

        return labels, summary(labels)
    if not config.imitate_games:
        return None, ""
    from agents.bots.registry import make_agent

    teacher = make_agent(config.teacher)
    data = collect(teacher, config.players.distinct, config.imitate_games, config.seed, progress, gamma, deadline)
    return data, f"{len(data):,} {config.teacher} decisions from {data.games:,} games"


def describe_warm_start(config: TrainingConfig, data: Demonstrations, what: str, fitted: Fitted) -> str:
    """The warm start's line: what was imitated, the loss, and (in one more sentence) what the budget cut."""
    line = f"imitated {what} (cross-entropy {fitted.losses[0]:.3f} -> {fitted.losses[-1]:.3f})"
    cut = []
    if data.games and config.imitate_games and data.games < config.imitate_games:
        cut.append(f"{data.games:,} of {config.imitate_games:,} teacher games (they stop at {GAMES_SHARE:.0%})")
    if fitted.cut:
        cut.append(f"{fitted.epochs:.2g} of {fitted.planned} epochs (the fit stops at {WARM_START_SHARE:.0%})")
    if cut:
        line += (
            f"; cut to the {config.minutes:g}-minute budget: {' and '.join(cut)}. More --minutes, or fewer "
            "--imitate-games, gives it all"
        )
    return line


def imitate(
    run: Run,
    labels: Any,
    phases: Phases,
    threads: LearnerThreads,
    parameters: Iterable[Any],
    heads: Callable[[Any], tuple[Any, Any]],
) -> bool:
    """The warm start of every backend: the labels or the teacher's games, then the network fitted to them.

    Both stay within the run's budget (:class:`WarmStartDeadlines`), each timed as a phase of the run; the fit
    follows the machine's load (``threads``). ``parameters`` and ``heads`` are the backend's network, as
    :func:`~agents.training.imitation.demonstrations.fit` takes it. Prints what was imitated and what the budget cut.
    Returns whether anything was fitted.
    """
    config = run.config
    assert config.gamma is not None and config.imitate_lr is not None, "resolve it"
    if labels is None and not config.imitate_games:
        return False
    deadlines = WarmStartDeadlines.of(config, run.started)
    with phases.timed(WARM_START_GAMES):
        data, what = warm_start_data(config, labels, run.progress, config.gamma, deadlines.games)
    if data is None:
        return False
    with phases.timed(WARM_START_FIT):
        fitted = fit(
            parameters,
            heads,
            data,
            seed=config.seed,
            progress=run.progress,
            learning_rate=config.imitate_lr,
            deadline=deadlines.fit,
            between=threads.adapt,
        )
    print(describe_warm_start(config, data, what, fitted), flush=True)
    return True
