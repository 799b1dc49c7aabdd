"""A verdict in the fewest games: play deals in rounds and stop once a stated question is answered.

An agent that costs a model call a decision can't play 2,000 games for every measurement. The sequential mode
(``run_tournament(until=StopRule(...))``, ``python -m agents.evaluate --until ...``) plays the deals in rounds of
``round_deals`` and, after each round, asks its question of an interval that stays valid however often it is looked
at (a *confidence sequence*); it stops as soon as the answer is clear, and reports the deals it used:

- ``width``: every pairing's win rate is known to ``half_width`` (its 95% sequence is at most that wide on each side);
- ``better``: agent A is better than B, or B than A: the sequence of their difference of win rates against the same
  fields on the same deals excludes 0 (with one field and no other agents: A's rate against a field of B excludes
  its share at the table, 1/players).

**The method.** The unit is the deal: each deal gives one value, the mean result of the agent's games on it (or of
the difference's), so the games of a deal, which share its cards, count once. After ``t`` deals with mean ``m`` and
standard deviation ``s``, the sequence is ``m ± s sqrt(2 (t rho² + 1) / (t² rho²) log(sqrt(t rho² + 1) / a))``:
Robbins' normal-mixture boundary, which a Gaussian walk crosses at some ``t`` with chance at most ``a`` (Ville's
inequality on the mixture martingale), with the variance estimated: the asymptotic confidence sequence of
Waudby-Smith, Arnold, Wu, Howard and Ramdas ("Time-uniform central limit theory and asymptotic confidence
sequences", Annals of Statistics, 2024), valid as the deals grow for any values of finite variance. ``rho`` makes
the boundary tightest at ``horizon`` deals (``rho² = (-2 log a + log(1 - 2 log a)) / horizon``).

With ``a`` = 0.05 the sequence holds at every deal at once; the mode looks only after each round, up to its most
deals, where a walk crosses it with chance 1.8% (every 20 deals up to 1,000), and the sequence is wider than the
question needs. So the mode sets ``a`` for its own schedule of looks (:func:`calibrated_level`): the level at which a
Gaussian walk crosses the boundary at one of its looks with chance ``alpha`` (0.05), found once per schedule by
simulating 40,000 walks with a fixed seed: a repeated-significance design (Armitage, McPherson and Rowe, 1969) on
Robbins' boundary, 0.125 for looks every 20 deals to 1,000. Its coverage holds however the answer stops it, at any of
its looks; it does not hold for looks between them (the mode makes none). Near its horizon the sequence is then
about 1.4 times as wide as a fixed-count 95% interval. Early on, when a few deals may happen to agree, the variance is
shrunk toward the largest a win rate can have: ``s² = (v0 + sum (x - m)²) / (t + 1)`` with ``v0`` 1/4 (1 for a
difference). ``tests/agents/test_sequential.py`` checks the boundary and the level, and ``python
benchmarks/sequential_coverage.py`` measures the coverage and the deals used on bots whose rates a large run fixed
(docs/evaluation.md, "Sequential evaluation").

**With the luck adjustment** each game's result less its scaled luck is the value (:mod:`agents.evaluate.luck`);
the scale a round uses is fitted on the rounds before it (1 in the first), so it never depends on the value it
scales and every adjusted value keeps the plain result's expectation, round by round.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from agents.evaluate.tournament_report import TournamentReport

WIDTH, BETTER = "width", "better"
_SHRINK = {WIDTH: 0.25, BETTER: 1.0}
"""The variance a deal's value is shrunk toward (the largest it can have: a rate's, a difference's)."""


@dataclass(frozen=True)
class Sequence95:
    """A mean over deals and its confidence sequence at the deals played (``signed``: a difference, shown ``+x%``)."""

    deals: int
    mean: float
    low: float
    high: float
    signed: bool = False

    @property
    def half_width(self) -> float:
        """Half the sequence's width."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        form = "{:+.1%}" if self.signed else "{:.1%}"
        return f"{form.format(self.mean)} [{form.format(self.low)}, {form.format(self.high)}]"


def boundary(deals: int, spread: float, alpha: float = 0.05, horizon: int = 250) -> float:
    """The half-width of the confidence sequence after ``deals`` deals of values with standard deviation ``spread``.

    See the module docstring; ``horizon`` is the deals it is tightest at.
    """
    if deals < 1:
        return math.inf
    rho2 = (-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / horizon
    grown = deals * rho2 + 1
    return spread * math.sqrt(2 * grown / (deals * deals * rho2) * math.log(math.sqrt(grown) / alpha))


WALKS = 40_000
"""Gaussian walks simulated to set a schedule's level (:func:`calibrated_level`)."""
_WALK_SEED = 20_240_601
"""The walks' seed: one schedule has one level, in every run and process."""


@functools.lru_cache(maxsize=64)
def calibrated_level(round_deals: int, most: int, alpha: float = 0.05, horizon: int = 250) -> float:
    """The level ``a`` of the boundary that a Gaussian walk crosses at one of the looks with chance ``alpha``.

    The looks are after every ``round_deals`` deals up to ``most`` (and at ``most``); see the module docstring.
    """
    looks = np.unique(np.append(np.arange(round_deals, most + 1, round_deals), most)).astype(np.float64)
    walks = max(2_000, min(WALKS, 40_000_000 // len(looks)))
    steps = np.random.default_rng(_WALK_SEED).standard_normal((walks, len(looks)))
    paths = np.abs(np.cumsum(steps * np.sqrt(np.diff(looks, prepend=0.0)), axis=1))

    def crossing(level: float) -> float:
        edge = np.array([boundary(int(t), 1.0, level, horizon) * t for t in looks])
        return float(np.mean((paths > edge).any(axis=1)))

    low, high = alpha, 0.999
    if crossing(low) >= alpha:
        return low
    for _ in range(40):  # bisection: crossing grows with the level
        middle = (low + high) / 2
        low, high = (middle, high) if crossing(middle) < alpha else (low, middle)
    return low


def confidence_sequence(
    values: Sequence[float], alpha: float = 0.05, horizon: int = 250, shrink: float = 0.25
) -> Sequence95:
    """The mean of per-deal ``values`` and its confidence sequence (the variance shrunk toward ``shrink``)."""
    x = np.asarray(values, dtype=np.float64)
    t = len(x)
    if t == 0:
        return Sequence95(0, 0.0, -math.inf, math.inf)
    mean = float(x.mean())
    variance = (shrink + float(((x - mean) ** 2).sum())) / (t + 1)
    half = boundary(t, math.sqrt(variance), alpha, horizon)
    return Sequence95(t, mean, mean - half, mean + half)


@dataclass(frozen=True)
class StopRule:
    """The question the sequential mode asks after each round, and how (see the module docstring).

    Attributes:
        question: ``width`` (every pairing's rate to ``half_width``) or ``better`` (A against B).
        half_width: ``width``: the half-width to reach, as a share (0.05 for 5 points).
        round_deals: deals played between two looks.
        alpha: one less the confidence (0.05: 95%): the chance the sequence misses at one of the looks.
        horizon: the deals at which the sequence is tightest.
        most: the most deals the tournament may play (its last look); :func:`run_tournament
            <agents.evaluate.tournament.run_tournament>` sets it to its ``deals``.
    """

    question: str = WIDTH
    half_width: float = 0.05
    round_deals: int = 20
    alpha: float = 0.05
    horizon: int = 250
    most: int = 1000

    def __post_init__(self) -> None:
        if self.question not in (WIDTH, BETTER):
            raise ValueError(f"the question is {WIDTH} or {BETTER}, not {self.question!r}")
        checks = [
            (0 < self.half_width <= 0.5, "half_width must be above 0 and at most 0.5"),
            (isinstance(self.round_deals, int) and self.round_deals >= 1, "round_deals must be a whole number >= 1"),
            (0 < self.alpha < 1, "alpha must be between 0 and 1"),
            (isinstance(self.horizon, int) and self.horizon >= 1, "horizon must be a whole number >= 1"),
            (isinstance(self.most, int) and self.most >= 1, "most must be a whole number >= 1"),
        ]
        wrong = [message for ok, message in checks if not ok]
        if wrong:
            raise ValueError(wrong[0])

    @classmethod
    def parse(cls, text: str, round_deals: int = 20) -> StopRule:
        """A rule from the command line's ``--until``: ``better``, or ``width=POINTS`` (``width=5``: 5 points).

        Raises:
            ValueError: anything else (the message says what is allowed).
        """
        word, equals, value = text.strip().partition("=")
        if word == BETTER and not equals:
            return cls(BETTER, round_deals=round_deals)
        if word == WIDTH and equals:
            try:
                points = float(value)
            except ValueError:
                points = math.nan
            if 0 < points <= 50:
                return cls(WIDTH, half_width=points / 100, round_deals=round_deals)
        raise ValueError(f"--until is 'better' or 'width=POINTS' (0 < POINTS <= 50), not {text[:40]!r}")

    def describe(self) -> dict[str, Any]:
        """The rule as data (for a journal and a report)."""
        return {
            "question": self.question,
            "half_width": self.half_width,
            "round_deals": self.round_deals,
            "alpha": self.alpha,
            "horizon": self.horizon,
            "most": self.most,
            "level": self.level(),
        }

    def level(self) -> float:
        """The boundary's level for this rule's looks (:func:`calibrated_level`)."""
        return calibrated_level(self.round_deals, self.most, self.alpha, self.horizon)

    def sequence(self, values: Sequence[float], shrink: float) -> Sequence95:
        """The confidence sequence of per-deal ``values`` at this rule's level."""
        return confidence_sequence(values, self.level(), self.horizon, shrink)

    def check(self, agents: Sequence[str], num_players: int, has_fields: bool) -> None:
        """Whether the tournament can answer the question (before any game).

        ``better`` compares the first two agents: against the fields both play (``has_fields``, or a third agent), or
        head to head when there are only the two.

        Raises:
            ValueError: ``better`` with more than two agents and fields that leave no common one.
        """
        if self.question == BETTER and len(agents) < 2:
            raise ValueError("--until better compares the first two agents: give two")

    def report(self, result: TournamentReport) -> SequentialReport:
        """The question asked of the games played so far (every deal of ``result`` played at every seat)."""
        luck = all(g.luck for g in result.games)
        if self.question == WIDTH:
            sequences = {
                f"{p.agent} against {p.opponent}": self._rate(result, p.agent, p.opponent, luck)
                for p in result.pairings
                if result.pairing_of(p.agent, p.opponent) is not None
            }
            answered = all(s.half_width <= self.half_width for s in sequences.values())
            answer = f"every rate known to ±{100 * self.half_width:.1f} points" if answered else ""
            return SequentialReport(self, result.deals, answered, answer, sequences, luck)
        first, second = result.agents[:2]
        fields = result.shared_fields(first, second)
        if fields:
            sequence = replace(self._difference(result, first, second, fields, luck), signed=True)
            label = f"{first} less {second} against {', '.join(fields)}"
        else:  # the two alone at the table: A's rate against a field of B, less A's share at the table
            shift = 1 / result.num_players
            rate = self._rate(result, first, second, luck)
            sequence = Sequence95(rate.deals, rate.mean - shift, rate.low - shift, rate.high - shift, signed=True)
            label = f"{first} against {second}, less its share at the table ({shift:.1%})"
        zero = 0.0
        answered = sequence.low > zero or sequence.high < zero
        better, worse = (first, second) if sequence.low > zero else (second, first)
        answer = f"{better} is better than {worse}" if answered else ""
        return SequentialReport(self, result.deals, answered, answer, {label: sequence}, luck)

    def _rate(self, result: TournamentReport, agent: str, field_name: str, luck: bool) -> Sequence95:
        games = result.seat_games(agent, [field_name])
        values = _deal_means(games, result.deals, luck, self.round_deals)
        return self.sequence(values, _SHRINK[WIDTH])

    def _difference(
        self, result: TournamentReport, first: str, second: str, fields: list[str], luck: bool
    ) -> Sequence95:
        a, b = result.seat_games(first, fields), result.seat_games(second, fields)
        values = np.subtract(
            _deal_means(a, result.deals, luck, self.round_deals), _deal_means(b, result.deals, luck, self.round_deals)
        )
        return self.sequence(values.tolist(), _SHRINK[BETTER])


@dataclass(frozen=True)
class SequentialReport:
    """What the sequential mode asked, and its answer after the deals played.

    Attributes:
        rule: the question and how it was asked.
        deals: the deals played (each at every seat of every pairing).
        answered: whether the question was answered (else the tournament reached its most deals first).
        answer: the answer in words (empty when not answered).
        sequences: each sequence the question looked at, by what it measures.
        adjusted: whether the values were luck-adjusted.
    """

    rule: StopRule
    deals: int
    answered: bool
    answer: str
    sequences: dict[str, Sequence95] = field(default_factory=dict)
    adjusted: bool = False

    def summary(self) -> str:
        """Lines for the command's output."""
        kind = "luck-adjusted " if self.adjusted else ""
        head = (
            f"Sequential mode ({self.rule.question}, 95% {kind}confidence sequences over deals, a look every "
            f"{self.rule.round_deals} deals to {self.rule.most}): "
            + (f"{self.answer} after {self.deals} deals" if self.answered else f"not answered in {self.deals} deals")
        )
        return "\n".join([head, *(f"  {label}: {sequence}" for label, sequence in self.sequences.items())])

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "rule": self.rule.describe(),
            "deals": self.deals,
            "answered": self.answered,
            "answer": self.answer,
            "adjusted": self.adjusted,
            "sequences": {label: {"mean": s.mean, "low": s.low, "high": s.high} for label, s in self.sequences.items()},
        }


def _deal_means(
    per_field: list[list[tuple[Any, int]]], deals: int, luck: bool, round_deals: int
) -> list[float]:
    """Each deal's mean value over every field and seat: the result, or its predictably adjusted result."""
    sums: dict[int, list[float]] = defaultdict(list)
    for games in per_field:
        values = predictable_adjusted(games, round_deals) if luck else [float(s in g.winners) for g, s in games]
        for (game, _), value in zip(games, values, strict=True):
            sums[game.deal].append(value)
    return [math.fsum(sums[d]) / len(sums[d]) for d in range(deals) if sums[d]]


def predictable_adjusted(games: list[tuple[Any, int]], round_deals: int) -> list[float]:
    """Each game's result less its luck times a scale fitted on the earlier rounds' games only (1 in the first).

    The scale is the regression slope of the result on the luck, clipped to [0, 2], as
    :func:`~agents.evaluate.luck.luck_scales` fits it; fitted on what came before, it never depends on the game it
    scales, so each adjusted result keeps the plain result's expectation.
    """
    results = np.array([float(s in g.winners) for g, s in games])
    luck = np.array([g.luck[s] for g, s in games])
    rounds = np.array([g.deal // round_deals for g, _ in games])
    scales = np.ones(len(games))
    for k in np.unique(rounds):
        before = rounds < k
        if before.sum() > 1 and float(np.var(luck[before])) > 1e-12:
            x, y = luck[before], results[before]
            slope = float(np.mean((x - x.mean()) * (y - y.mean())) / np.var(x))
            scales[rounds == k] = min(2.0, max(0.0, slope))
    return (results - scales * luck).tolist()
