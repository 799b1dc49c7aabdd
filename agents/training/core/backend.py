"""What the loop asks of a backend: build from the config, iterate, export the policy, save and load its own state.

A backend is a small adapter over one trainer (:mod:`agents.training.native`, :mod:`agents.training.sb3`,
:mod:`agents.training.rllib`). Everything else a run does (its folder and resume, the budget, the league and its
snapshots, the evaluations, the checkpoints' commits, the threads, the report and the curve) is the loop's
(:mod:`agents.training.loop`), the same for every backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agents.bots.model_file import PolicyWeights
from agents.training.core.config import Backend as BackendName
from agents.training.core.config import TrainingConfig
from agents.training.core.league import GameEnd


@dataclass
class Iteration:
    """What one iteration (collect, then update) did.

    Attributes:
        timesteps: the learner's decisions it added (the run's timesteps: every ``*_every`` cadence counts them).
        diagnostics: the update's measurements, under progress.csv's names
            (:data:`~agents.training.core.reports.PROGRESS_COLUMNS`).
        games: the learner's games that ended, for the league.
        seconds: where the iteration's time went, by phase (the rest counts as training).
    """

    timesteps: int
    diagnostics: dict[str, float] = field(default_factory=dict)
    games: list[GameEnd] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Network:
    """A backend's network as the warm start sees it.

    Attributes:
        parameters: what the fit updates.
        heads: the policy's logits and the values for a batch of observations, with gradients.
        actor: the actor's linear layers, input to output (where an ``init`` network's weights go).
        sync: called once the warm start changed the weights (RLlib sends them to its env runners).
    """

    parameters: Iterable[Any]
    heads: Callable[[Any], tuple[Any, Any]]
    actor: list[Any]
    sync: Callable[[], None] = lambda: None


class Backend(Protocol):
    """One trainer behind the loop (see the module's description)."""

    def network(self) -> Network:
        """The network, for the warm start of a new run."""

    def iterate(self) -> Iteration:
        """Collect a batch of games and update on it."""

    def policy(self) -> PolicyWeights:
        """The acting policy, exported: what the evaluations play, the snapshots hold and the run writes."""

    def set_league(self, snapshots: Sequence[tuple[str, PolicyWeights]], draw_weights: Sequence[float]) -> None:
        """The league's snapshots (name and actor, oldest first) and their drawing weights, for the next games."""

    def save(self, path: Path) -> None:
        """Write the backend's whole state (network, optimizer, streams) at ``path``: a file, or a folder."""

    def load(self, checkpoint: bytes | Path) -> None:
        """Go on from a verified checkpoint: a file's bytes, or a folder.

        Raises:
            agents.training.core.runs.RunSetupError: a checkpoint that does not fit this run.
        """

    def close(self) -> None:
        """Release what the backend holds (RLlib's algorithm and its Ray)."""


def make_backend(config: TrainingConfig, verbose: bool = False) -> Backend:
    """The backend ``config`` names, built from it (``config`` resolved)."""
    name: BackendName = config.backend
    module = importlib.import_module(f"agents.training.{name}.backend")
    made: Backend = module.make(config, verbose)
    return made
