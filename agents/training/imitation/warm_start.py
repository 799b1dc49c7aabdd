"""Where a new run's policy starts, the same on every backend: a network's weights, then what it imitates.

The weights are ``init``'s (a shipped network or a model file); what it imitates before PPO, search-labelled
decisions or a teacher's games. Each backend's learner is fitted to the imitated decisions by
:func:`agents.training.imitation.demonstrations.fit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.training.core.backend import Network
from agents.training.core.config import TrainingConfig
from agents.training.core.phases import WARM_START_FIT, WARM_START_GAMES, Phases
from agents.training.imitation.demonstrations import Demonstrations, Fitted, collect, fit
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE

if TYPE_CHECKING:
    import torch

    from agents.bots.threads import LearnerThreads
    from agents.training.core.runs import Run

Layers = list[tuple[np.ndarray, np.ndarray]]
"""An actor's linear layers, input to output: ``(weight (out, in), bias (out,))``."""


def read_labels(config: TrainingConfig) -> Any:
    """The run's labels files, joined, each checked before anything is built (None: the run names none).

    Raises:
        agents.training.core.runs.RunSetupError: a labels file that cannot be read or trusted.
    """
    if not config.labels:
        return None
    from agents.training.core.runs import RunSetupError
    from agents.training.imitation.labels_file import LabelsFileError, join_labels, load_labels

    try:
        return join_labels([load_labels(path) for path in config.labels])
    except LabelsFileError as error:
        raise RunSetupError(f"labels: {error}") from None


def read_start(run: Run) -> tuple[Layers | None, Any]:
    """What a new run starts from, read and checked before anything is written: ``init``'s layers and the labels.

    Both are None for a resumed run, which goes on from its checkpoint (and its files may be gone).

    Raises:
        agents.training.core.runs.RunSetupError: see :func:`read_init` and :func:`read_labels`.
    """
    if run.state is not None:
        return None, None
    return read_init(run.config), read_labels(run.config)


def actor_shapes(config: TrainingConfig) -> list[tuple[int, int]]:
    """The learner's actor layers ``(out, in)``: the observation, then ``hidden`` (tanh), then the action logits."""
    widths = [OBS_SIZE, *config.hidden, NUM_ACTIONS]
    return list(zip(widths[1:], widths[:-1], strict=True))


def read_init(config: TrainingConfig) -> Layers | None:
    """The actor layers of the run's ``init`` network, shaped as the learner's actor (None: a fresh network).

    Raises:
        agents.training.core.runs.RunSetupError: not a network, a file that cannot be read or trusted, or an actor
            of another shape or activation.
    """
    init = config.init_network
    if init is None:
        return None
    from agents.bots.model_file import ModelFileError, load_policy
    from agents.training.core.runs import RunSetupError

    if init.model_file is None:
        raise RunSetupError(f"init: {init} is not a network (a shipped name or a .zip or .npz model file)")
    try:
        weights = load_policy(init.model_file)
    except ModelFileError as error:
        raise RunSetupError(f"init: {error}") from None
    shapes = [w.shape for w, _ in weights.layers]
    expected = actor_shapes(config)
    if weights.activation != "tanh" or weights.rule_facts or shapes != expected:
        raise RunSetupError(
            f"init: {init} has {weights.activation} layers shaped {shapes}; the learner's are tanh {expected}"
        )
    return list(weights.layers)


def load_actor(linears: list[torch.nn.Linear], layers: Layers) -> None:
    """Copy ``layers`` into the learner's actor, given as its linear layers from input to output."""
    import torch

    assert [tuple(m.weight.shape) for m in linears] == [w.shape for w, _ in layers], "read_init checks the shapes"
    with torch.no_grad():
        for module, (weight, bias) in zip(linears, layers, strict=True):
            module.weight.copy_(torch.from_numpy(np.array(weight)))  # a copy: the loaded arrays are read-only
            module.bias.copy_(torch.from_numpy(np.array(bias)))


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
        from agents.training.imitation.labels_file import summary

        return labels, summary(labels)
    if not config.imitate_games:
        return None, ""
    from agents.bots.registry import make_agent

    assert config.teacher is not None, "resolve it"
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


def warm_start(
    run: Run, init: Layers | None, labels: Any, phases: Phases, threads: LearnerThreads, network: Network
) -> None:
    """The warm start of every backend: the actor from ``init``, then fitted to the labels or the teacher's games.

    ``init`` and ``labels`` are what :func:`read_init` and :func:`read_labels` read before anything was written.
    The games and the fit stay within the run's budget (:class:`WarmStartDeadlines`), each timed as a phase of the
    run; the fit follows the machine's load (``threads``). Prints where the policy starts, what was imitated and
    what the budget cut; the network's ``sync`` is called when its weights changed.
    """
    if init is not None:
        load_actor(network.actor, init)
        print(f"policy starts from {run.config.init_network}", flush=True)
    if imitate(run, labels, phases, threads, network) or init is not None:
        network.sync()


def imitate(run: Run, labels: Any, phases: Phases, threads: LearnerThreads, network: Network) -> bool:
    """The labels or the teacher's games, then ``network`` fitted to them; returns whether anything was fitted."""
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
            network.parameters,
            network.heads,
            data,
            seed=config.seed,
            progress=run.progress,
            learning_rate=config.imitate_lr,
            deadline=deadlines.fit,
            between=threads.adapt,
        )
    print(describe_warm_start(config, data, what, fitted), flush=True)
    return True
