"""Luck-adjusted returns: each decision is judged by its seat's outcome less the luck of the draws that followed it.

A Gubs outcome is mostly the draw, and that luck is in every sample's advantage: it is why a batch's two halves
hardly agree on the policy gradient (docs/training.md). The luck-adjusted evaluation (:mod:`agents.evaluate.luck`)
measures, at each chance step of a game, how much better the real draw left each seat than the same step played
from re-dealt decks would on average: its *correction*. Given everything the table had seen, the real draw is one
of the re-dealt ones, so a correction has mean 0 whatever the value network behind it, and whatever the decisions
before it were. Subtracting the corrections that come after a decision from that decision's return therefore keeps
the policy gradient's expectation, and removes the part of its noise the network can see.

Here each sample gets the reward ``-scale * (its seat's corrections from this decision up to the seat's next one)``
(:func:`luck_rewards`), so that GAE's return from a decision is the outcome less ``scale *`` the luck after it.
The ``scale`` is how much of the luck to take off: the regression slope of a seat's final reward on its luck, which
removes the most variance. It is fitted on earlier batches only (:class:`LuckReturns`), so that no sample's reward
depends on its own batch's luck, and the gradient keeps its expectation. The first batch takes none off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.evaluate.luck import GameLuck, LuckEstimator, LuckSettings, SeatValues
from agents.training.core.games import Batch

MAX_SCALE = 4.0
"""The largest share of the luck taken off. A correction is in chances of winning, a reward from -1 to 1, so a value
network that judged the draws exactly would give a slope of 2 at 2 players."""


def luck_after(batch: Batch, lucks: Sequence[GameLuck]) -> np.ndarray:
    """float64 ``(S,)``: each sample's seat's corrections summed over the chance steps from its decision to the end.

    ``lucks[g]`` is the luck of slot ``g``'s game, measured from the game's action ids; a chance step is the action
    at its index in them (the deal before the first), and a sample's decision is the action at ``batch.moves``.
    """
    out = np.zeros(len(batch), dtype=np.float64)
    game = batch.game
    order = np.argsort(game, kind="stable")
    bounds = np.searchsorted(game[order], np.arange(batch.games + 1))
    for slot, luck in enumerate(lucks):
        rows = order[bounds[slot] : bounds[slot + 1]]
        if not rows.size or not luck.steps:
            continue
        steps = np.asarray(luck.steps, dtype=np.int64)  # increasing
        # suffix[k]: the corrections of the chance steps k, k + 1, ... (the last row: none)
        suffix = np.zeros((steps.size + 1, luck.corrections.shape[1]), dtype=np.float64)
        suffix[:-1] = np.cumsum(luck.corrections[::-1], axis=0)[::-1]
        first_after = np.searchsorted(steps, batch.moves[rows], side="left")
        out[rows] = suffix[first_after, batch.seat[rows]]
    return out


def luck_rewards(batch: Batch, after: np.ndarray, scale: float) -> np.ndarray:
    """float32 ``(S,)``: ``-scale *`` the luck between each sample's decision and its seat's next sample.

    Summed from a sample to its trajectory's end they give ``-scale * after``: the return from a decision is the
    outcome less the scaled luck that followed it.
    """
    order = np.argsort(batch.trajectory, kind="stable")
    following = np.zeros(len(batch), dtype=np.float64)
    same = batch.trajectory[order[1:]] == batch.trajectory[order[:-1]]
    following[order[:-1][same]] = after[order[1:][same]]
    return (-scale * (after - following)).astype(np.float32)


def luck_slope(batch: Batch, after: np.ndarray) -> float:
    """The slope of each seat's final reward on its luck from its first sample on, over the batch's trajectories.

    The share of the luck whose removal leaves the least variance; 0 where the luck does not vary, clipped to
    ``[0, MAX_SCALE]``.
    """
    _, first = np.unique(batch.trajectory, return_index=True)
    x, y = after[first], batch.returns[first].astype(np.float64)
    spread = float(np.var(x)) if x.size > 1 else 0.0
    if spread <= 1e-12:
        return 0.0
    return float(np.clip(np.mean((x - x.mean()) * (y - y.mean())) / spread, 0.0, MAX_SCALE))


class LuckReturns:
    """Measures each batch's luck and sets its samples' rewards, with a scale fitted on the batches before.

    Args:
        worlds: re-dealt decks per chance step (:class:`~agents.evaluate.luck.LuckSettings`).
        state: the running slope's statistics from :meth:`state` (a resumed run), or None for a new run.
        beta: how fast older batches' slopes fade.
        value: the luck's judge ``V`` (default: the shipped judge of each table size; a run's own critic through
            :class:`~agents.evaluate.luck.ObservationValue` keeps the run self-play alone).
    """

    def __init__(
        self,
        worlds: int = 16,
        state: Sequence[float] | None = None,
        beta: float = 0.9,
        value: SeatValues | None = None,
    ) -> None:
        self.estimator = LuckEstimator(LuckSettings(worlds=worlds), value)
        self.beta = beta
        self.slope_sum, self.weight = _checked_state(state) if state is not None else (0.0, 0.0)

    @property
    def scale(self) -> float:
        """The share of the luck the next batch takes off: the debiased running mean of the slopes, 0 before any."""
        return self.slope_sum / self.weight if self.weight > 0 else 0.0

    def apply(self, batch: Batch, players: np.ndarray, seeds: np.ndarray, history: Sequence[Sequence[int]]) -> float:
        """Set ``batch.rewards`` from the luck of its games; returns the scale they were given.

        Slot ``g``'s game has ``players[g]`` seats, was dealt from ``seeds[g]`` and played as ``history[g]``. The
        batch's own slope then joins the running mean for the next batches.
        """
        lucks = [
            self.estimator.game(int(n), int(seed), ids) for n, seed, ids in zip(players, seeds, history, strict=True)
        ]
        after = luck_after(batch, lucks)
        scale = self.scale
        batch.rewards = luck_rewards(batch, after, scale)
        self.slope_sum = self.beta * self.slope_sum + (1 - self.beta) * luck_slope(batch, after)
        self.weight = self.beta * self.weight + (1 - self.beta)
        return scale

    def state(self) -> list[float]:
        """The running slope's statistics, kept in the run's checkpoint."""
        return [self.slope_sum, self.weight]


def _checked_state(state: Sequence[float]) -> tuple[float, float]:
    """A saved running slope, read as data: ``ValueError`` (one line) for anything but two finite numbers."""
    values = list(state)
    if len(values) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise ValueError(f"the luck scale's state must be two numbers, not {values!r:.60}")
    slope_sum, weight = float(values[0]), float(values[1])
    if not (np.isfinite(slope_sum) and np.isfinite(weight) and 0 <= weight <= 1):
        raise ValueError(f"the luck scale's state is out of range: {values!r:.60}")
    return slope_sum, weight
