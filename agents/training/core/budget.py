"""A run's budget, the same for every backend: the training bar that counts it down, and the work done on a cadence.

A run ends when its time budget (``minutes``) or its step budget (``steps``) is spent, whichever comes first
(:class:`BudgetBar`); snapshots, evaluations and checkpoints come every so many learner timesteps
(:class:`Cadence`), however many a step or an iteration adds.
"""

from __future__ import annotations

import time
from typing import Any


class Cadence:
    """Work done every ``every`` learner timesteps (snapshots, evaluations, checkpoints) on either backend.

    It is due once each time the timesteps cross a multiple of ``every``, counted from ``timesteps`` (a resumed run's
    start), however many timesteps a step or an iteration adds.
    """

    def __init__(self, every: int | None, timesteps: int) -> None:
        self.every = every or 1
        self.mark = timesteps // self.every

    def due(self, timesteps: int) -> bool:
        """Whether ``timesteps`` crossed the next multiple (then it is not due again until the one after)."""
        mark = timesteps // self.every
        if mark > self.mark:
            self.mark = mark
            return True
        return False


LINE_SECONDS = 10.0
"""How often a run without a bar prints a line of progress."""


class BudgetBar:
    """The training bar of either backend, with a total and an ETA whichever budget ends the run.

    A step budget counts timesteps. A time budget alone (the default 10 minutes) counts seconds of the budget, so
    the bar's ETA is the time left, and shows the timesteps and their rate beside it: a bar over timesteps would
    have no total to reach.

    Args:
        seconds: the time budget (None: none).
        total_steps: the step budget (None: none).
        timesteps: the run's timesteps when this invocation starts (a resumed run starts part of the way).
        budget_start: when the time budget began (``perf_counter``).
        enabled: show the bar (off: a plain line every :data:`LINE_SECONDS` instead, so a log shows the run moving).
    """

    def __init__(
        self, seconds: float | None, total_steps: int | None, timesteps: int, budget_start: float, enabled: bool
    ) -> None:
        from gubs_env.support.progress import progress_bar

        self.seconds, self.total_steps, self.budget_start = seconds, total_steps, budget_start
        self.start, self.steps_at_start = time.perf_counter(), timesteps
        self.last_line = self.start
        common: dict[str, Any] = {"desc": "training", "disable": not enabled, "dynamic_ncols": True}
        if total_steps is not None or seconds is None:
            self.bar = progress_bar(total=total_steps, initial=timesteps, unit="step", **common)
        else:
            self.bar = progress_bar(
                total=round(seconds),
                initial=min(round(seconds), int(self.used())),
                unit="s",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}",
                **common,
            )

    def used(self) -> float:
        """Seconds of the time budget used so far."""
        return time.perf_counter() - self.budget_start

    def over(self, timesteps: int, reserve: float = 0.0) -> bool:
        """Whether either budget is spent, keeping ``reserve`` seconds of the time budget for what follows."""
        over_time = self.seconds is not None and self.used() + reserve >= self.seconds
        return over_time or (self.total_steps is not None and timesteps >= self.total_steps)

    def update(self, timesteps: int) -> None:
        """Move the bar to ``timesteps`` (step budget) or to the elapsed seconds (time budget)."""
        bar = self.bar
        if bar.disable:
            if time.perf_counter() - self.last_line >= LINE_SECONDS:
                self.last_line = time.perf_counter()
                print(f"training: {timesteps:,} timesteps after {self.used() / 60:.1f} minutes", flush=True)
            return
        if bar.unit == "step":
            bar.update(timesteps - bar.n)
            return
        elapsed = min(bar.total, int(self.used()))
        if elapsed > bar.n:
            rate = (timesteps - self.steps_at_start) / max(time.perf_counter() - self.start, 1e-9)
            bar.set_postfix_str(f"{timesteps:,} steps, {rate:,.0f} steps/s", refresh=False)
            bar.update(elapsed - bar.n)

    @staticmethod
    def write(line: str) -> None:
        """Print a line above any bar (printed with the bar off too: evaluations are always reported)."""
        from tqdm import tqdm

        tqdm.write(line)

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()
