"""The league of a self-play run: who sits at each opponent seat, and how the learner fares against each snapshot.

**Who sits where.** At every new game the learner takes a seat drawn uniformly (by the self-play core,
:class:`gubs_env.fast.SelfPlayTables`), and each other seat draws its player from one uniform number
(:func:`seat_player`, the rule :meth:`PoolConfig.kind <agents.training.core.config.PoolConfig.kind>`): the random
agent, the heuristic, the learner's current policy, or one of its snapshots chosen by the rest of the same number and
the league's weights. Every backend seats its games through :class:`~agents.training.core.seating.Seating`, which
applies this rule.

**What it learns from the games.** Every backend reports each finished game to the loop as a :class:`GameEnd`: what
played each opponent seat (a *label*: ``"self"``, ``"random"``, ``"heuristic"``, a fixed opponent's spec, or
``"snapshot:<name>"``) and who won. From them the league keeps

* the count of opponent seats each kind played, reported as the run's ``opponent_seat_shares``, and
* per snapshot, the learner's recent score against it, paired seat by seat: 1 when the learner won and the
  snapshot's seat did not, 0 the other way round, 1/2 when both or neither won. Older games fade (each new game
  of a snapshot multiplies its earlier ones by ``1 - 1/MEMORY``), so the score follows the learner as it changes.

The snapshot seats are then drawn by **prioritized fictitious self-play**: snapshot ``s`` weighs
``(1 - x_s) ** power``, where ``x_s = (points + 1) / (games + 2)`` is the learner's estimated score against it (a
new snapshot starts at 1/2). A snapshot the learner has learnt to beat is drawn less and less, yet now and then
(``x`` stays below 1); ``power`` 0 draws them uniformly (docs/training.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from agents.training.core.config import SNAPSHOTS, PoolConfig

SNAPSHOT_LABEL = "snapshot:"
"""A snapshot seat's label is this prefix and the snapshot's name (its file in the run folder, or its RLlib slot)."""
MEMORY = 2000
"""Games over which a snapshot's record fades (its record is an exponential average over about this many games)."""


class SeatPlayer(NamedTuple):
    """Who plays an opponent seat: a kind of :meth:`PoolConfig.shares`, and for a snapshot its index (else -1)."""

    kind: str
    snapshot: int = -1


def seat_player(pool: PoolConfig, u: float, weights: Sequence[float]) -> SeatPlayer:
    """The player of one opponent seat, for a uniform draw ``u`` in [0, 1).

    Args:
        pool: the league's shares.
        u: the seat's one number: its kind, and (through :meth:`PoolConfig.rest`) which snapshot.
        weights: the drawing weight of each snapshot in the pool, oldest first (empty: no snapshot yet).
    """
    kind = pool.kind(u, len(weights) > 0)
    if kind != SNAPSHOTS:
        return SeatPlayer(kind)
    return SeatPlayer(kind, weighted_index(pool.rest(u), weights))


def weighted_index(v: float, weights: Sequence[float]) -> int:
    """The index a uniform draw ``v`` in [0, 1) picks when item ``i`` weighs ``weights[i]`` (all 0: uniformly)."""
    cdf = np.cumsum(np.asarray(weights, dtype=float))
    if not len(cdf):
        raise ValueError("no weights to draw from")
    if cdf[-1] <= 0:
        return min(int(v * len(cdf)), len(cdf) - 1)
    return min(int(np.searchsorted(cdf / cdf[-1], v, side="right")), len(cdf) - 1)


class GameEnd(NamedTuple):
    """A finished game of the learner, as a backend reports it: who sat where, and who won.

    ``labels[j]`` played seat ``seats[j]``; ``learner`` is the learner's seat; ``winners`` the winning seats.
    """

    labels: tuple[str, ...]
    seats: tuple[int, ...]
    winners: tuple[int, ...]
    learner: int


def snapshot_label(name: str) -> str:
    """The seat label of snapshot ``name``."""
    return SNAPSHOT_LABEL + name


def seat_kind(label: str) -> str:
    """The kind a seat label counts under: its snapshot's kind, or the label itself."""
    return SNAPSHOTS if label.startswith(SNAPSHOT_LABEL) else label


def pair_score(learner_won: bool, seat_won: bool) -> float:
    """The learner's score against one opponent seat of a finished game: 1, 1/2 or 0."""
    if learner_won == seat_won:
        return 0.5
    return 1.0 if learner_won else 0.0


class League:
    """The run's seat counts and per-snapshot records (see the module's description); stored in run.json.

    Args:
        power: the prioritization's exponent (:attr:`agents.training.core.config.PoolConfig.prioritize`).
    """

    def __init__(self, power: float = 1.0) -> None:
        self.power = power
        self.seats: dict[str, int] = {}
        """Opponent seats played so far, by kind (:func:`seat_kind`)."""
        self.records: dict[str, list[float]] = {}
        """Per snapshot name, its faded ``[games, learner points]``."""

    def record(self, games: Iterable[GameEnd]) -> None:
        """Finished games of the learner into the seat counts and the snapshots' records."""
        for game in games:
            self.record_game(game.labels, game.seats, game.winners, game.learner)

    def record_game(self, labels: Sequence[str], seats: Sequence[int], winners: Iterable[int], learner: int) -> None:
        """One finished game: ``labels[j]`` played seat ``seats[j]``; ``winners`` are the winning seats."""
        won = set(winners)
        for label, seat in zip(labels, seats, strict=True):
            kind = seat_kind(label)
            self.seats[kind] = self.seats.get(kind, 0) + 1
            if kind == SNAPSHOTS:
                self._score(label[len(SNAPSHOT_LABEL) :], pair_score(learner in won, seat in won))

    def _score(self, name: str, points: float) -> None:
        record = self.records.setdefault(name, [0.0, 0.0])
        keep = 1.0 - 1.0 / MEMORY
        record[0] = record[0] * keep + 1.0
        record[1] = record[1] * keep + points

    def forget(self, name: str) -> None:
        """Drop snapshot ``name``'s record (its slot now holds another snapshot, or it left the pool)."""
        self.records.pop(name, None)

    def learner_score(self, name: str) -> float:
        """The learner's estimated score against snapshot ``name``: 1/2 before any game."""
        games, points = self.records.get(name, (0.0, 0.0))
        return (points + 1.0) / (games + 2.0)

    def weights(self, names: Sequence[str]) -> list[float]:
        """The drawing weight of each snapshot: ``(1 - learner score) ** power``."""
        return [(1.0 - self.learner_score(name)) ** self.power for name in names]

    def shares(self) -> dict[str, float]:
        """The share of opponent seats each kind played so far (summing to 1; empty before any game)."""
        total = sum(self.seats.values())
        return {kind: count / total for kind, count in sorted(self.seats.items())} if total else {}

    def describe(self) -> str:
        """The seat shares on one line, for the run's summary."""
        shares = self.shares()
        if not shares:
            return "opponent seats: none played yet"
        return "opponent seats: " + ", ".join(f"{kind} {share:.1%}" for kind, share in shares.items())

    def rows(self, names: Sequence[str], timesteps: int) -> list[dict[str, Any]]:
        """league.csv's rows for the snapshots in the pool: games, the learner's score and the drawing share."""
        weights = self.weights(names)
        total = sum(weights) or 1.0
        return [
            {
                "timesteps": timesteps,
                "snapshot": name,
                "games": round(self.records.get(name, (0.0, 0.0))[0], 1),
                "learner_score": round(self.learner_score(name), 4),
                "snapshot_score": round(1.0 - self.learner_score(name), 4),
                "draw_share": round(weight / total, 4),
            }
            for name, weight in zip(names, weights, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        """What run.json keeps of the league, so that a resumed run goes on with it."""
        return {"seats": dict(self.seats), "records": {name: list(r) for name, r in self.records.items()}}

    @classmethod
    def from_json(cls, data: Any, power: float) -> League:
        """The league run.json kept (``{}`` or None: a new one).

        Raises:
            ValueError: counts or records of the wrong kind (see :func:`checked`).
        """
        league = cls(power)
        league.seats, league.records = checked(data)
        return league


def checked(data: Any) -> tuple[dict[str, int], dict[str, list[float]]]:
    """A league's seat counts and snapshot records as run.json holds them, checked (``{}`` or None: empty).

    Raises:
        ValueError: counts or records of the wrong kind.
    """
    if not data:
        return {}, {}
    if not isinstance(data, dict) or set(data) - {"seats", "records"}:
        raise ValueError("league must be an object with seats and records")
    seats, records = data.get("seats", {}), data.get("records", {})
    if not isinstance(seats, dict) or not isinstance(records, dict):
        raise ValueError("league seats and records must be objects")
    for kind, count in seats.items():
        if not isinstance(kind, str) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError("league seats must be counts of at least 0 by kind")
    for name, record in records.items():
        if (
            not (isinstance(name, str) and isinstance(record, list) and len(record) == 2)
            or not all(_is_count(v) for v in record)
            or record[1] > record[0] + 1e-9
        ):
            raise ValueError("a league record must be [games, points] with 0 <= points <= games")
    return dict(seats), {name: [float(r[0]), float(r[1])] for name, r in records.items()}


def _is_count(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
