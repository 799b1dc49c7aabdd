"""Where a run's wall time went, phase by phase, measured: the run summary of every backend.

Each phase is timed where it runs (:meth:`Phases.timed`, or :meth:`Phases.add` for time measured elsewhere, such
as the environments' own clock). The phases never overlap, so their shares of the run's wall time are each within
0-100%, and the time no phase claimed is "the rest" (imports, building the environments, saving): together 100%.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from gubs_env.support.compiling import compiled_here

BUILDING = "building the learner and its games"
WARM_START_GAMES = "warm start: games"
WARM_START_FIT = "warm start: fit"
ENVIRONMENTS = "environments"
LEARNER = "learner"
TRAINING = "training iterations"
"""RLlib's phase: its iterations sample and update in one call, so the environments and the learner are one phase."""
EVALUATIONS = "evaluations"
CHECKPOINTS = "checkpoints and snapshots"
SAVING = "saving the model and the curve"


class Phases:
    """The seconds of each phase of a run (one invocation), from ``started`` on.

    Args:
        started: when the invocation began (``time.perf_counter``); the wall time is counted from there.
    """

    def __init__(self, started: float) -> None:
        self.started = started
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        """Count ``seconds`` (at least 0) more for phase ``name``."""
        self.seconds[name] = self.seconds.get(name, 0.0) + max(0.0, seconds)

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Count the wall time of the ``with`` block for phase ``name``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def shares(self, now: float | None = None) -> dict[str, float]:
        """Each phase's share of the wall time up to ``now``, then ``"the rest"``: each in [0, 1], summing to 1.

        Measured phases never overlap; should rounding still make them exceed the wall time, they are scaled down.
        """
        wall = max((now if now is not None else time.perf_counter()) - self.started, 1e-9)
        measured = sum(self.seconds.values())
        scale = wall / measured if measured > wall else 1.0
        shares = {name: seconds * scale / wall for name, seconds in self.seconds.items() if seconds > 0}
        shares["the rest"] = max(0.0, 1.0 - sum(shares.values()))
        return shares

    def describe(self, trained: int, unit: str = "timesteps", now: float | None = None) -> str:
        """The summary line: what was trained, in what wall time, and where that time went.

        Compiling is named only when this process compiled something (:func:`compiled_here`).
        """
        end = now if now is not None else time.perf_counter()
        wall = end - self.started
        parts = ", ".join(f"{name} {share:.0%}" for name, share in self.shares(end).items())
        compiled = compiled_here()
        note = f"; it compiled {' and '.join(compiled)} once (cached for later runs)" if compiled else ""
        return f"trained {trained:,} {unit} in {wall / 60:.1f} min; the time went to: {parts}{note}"
