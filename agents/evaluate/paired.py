"""Paired comparisons: is agent A better than agent B against the same field, on the same deals?

A tournament plays every pairing on the same seeded deals, each deal once with the agent at every seat. Two agents
measured against one field therefore met the same cards: the difference of their win rates, taken deal by deal,
cancels most of the deal's luck, and its interval is far narrower than the two rates' own intervals suggest.

The games of one deal are not independent (a deal that favours seat 0 does so for both agents and at every
rotation), so the unit of the interval is the deal: each deal gives one difference, A's mean result over its games
on that deal less B's, and the interval is the mean of those differences ± 1.96 standard errors over deals, clipped
to [-1, 1]. With ``adjust_luck`` each game's result is first replaced by its luck-adjusted one
(:mod:`agents.evaluate.luck`, scaled per pairing exactly as the pairing's own adjusted rate), and the adjusted
difference is clustered by deal the same way.

>>> comparison = compare_agents("heuristic-tuned", "random", fields=["heuristic"], deals=3, jobs=1, progress=False)
>>> comparison.deals, comparison.games
(3, 6)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.evaluate.matches import AgentLike, wilson_interval

if TYPE_CHECKING:
    from agents.bots.spec import AgentSpec
    from agents.evaluate.luck import LuckSettings
    from agents.evaluate.tournament import GameOutcome, TournamentResult

Z_95 = 1.96
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class DealDifference:
    """A mean of per-deal differences with its standard error over deals and 95% interval, within [-1, 1].

    Attributes:
        deals: how many deals (the clusters) the mean is over.
        mean: the mean per-deal difference (A's share of wins less B's), clipped to [-1, 1].
        standard_error: the sample standard deviation of the per-deal differences over the square root of
            ``deals``; infinite for a single deal, whose spread cannot be measured.
        low: ``mean - 1.96 standard errors``, at least -1.
        high: ``mean + 1.96 standard errors``, at most 1.

    Where every deal gives the same difference the standard error is 0, and a normal interval would claim
    certainty from a handful of deals; the interval is then Wilson's for ``(mean + 1) / 2`` over ``deals`` trials,
    mapped back to [-1, 1] (five deals that A won and B lost every game of give [+13.1, +100.0] points).
    """

    deals: int
    mean: float
    standard_error: float
    low: float
    high: float

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    @classmethod
    def of(cls, differences: Sequence[float], z: float = Z_95) -> DealDifference:
        """The mean of ``differences`` (one per deal) with its interval.

        Raises:
            ValueError: no deal.
        """
        if not differences:
            raise ValueError("a paired difference needs at least one deal")
        n = len(differences)
        mean = math.fsum(differences) / n
        spread = math.sqrt(math.fsum((d - mean) ** 2 for d in differences) / (n - 1)) if n > 1 else math.inf
        error = spread / math.sqrt(n)
        clipped = min(1.0, max(-1.0, mean))
        if error == 0:  # every deal alike (A won every game, B lost every one): no spread to measure
            low, high = wilson_interval((clipped + 1) / 2 * n, n, z)
            return cls(n, clipped, error, 2 * low - 1, 2 * high - 1)
        return cls(n, clipped, error, max(-1.0, mean - z * error), min(1.0, mean + z * error))

    def __str__(self) -> str:
        """``+3.2 pts [+0.4, +6.0]``: percentage points."""
        return points(self.mean, self.low, self.high)


def points(mean: float, low: float, high: float) -> str:
    """A difference of shares and its interval in percentage points: ``+3.2 pts [+0.4, +6.0]``."""
    return f"{100 * mean:+.1f} pts [{100 * low:+.1f}, {100 * high:+.1f}]"


def deal_differences(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]) -> list[float]:
    """Each deal's mean outcome of the first agent less the second's: ``first[d]`` holds the first's outcomes on deal d.

    Raises:
        ValueError: not as many deals for both, or a deal without games.
    """
    if len(first) != len(second):
        raise ValueError(f"both agents need the same deals, got {len(first)} and {len(second)}")
    if not all(first) or not all(second):
        raise ValueError("every deal needs games of both agents")
    return [math.fsum(a) / len(a) - math.fsum(b) / len(b) for a, b in zip(first, second, strict=True)]


@dataclass(frozen=True)
class PairedComparison:
    """Agent A's win rate less agent B's against the same field, on the same seat-rotated deals.

    Attributes:
        agent: A.
        other: B.
        fields: the agents that filled every other seat (the difference pools their games, each field equally).
        players: seats per game.
        games: games each of A and B played: ``deals * players * len(fields)``.
        rate: A's win rate (a shared win counts).
        other_rate: B's win rate.
        difference: ``rate - other_rate`` with its 95% interval over deals (:class:`DealDifference`).
        adjusted: the luck-adjusted difference, clustered by deal the same way (None when luck was not measured).
    """

    agent: str
    other: str
    fields: tuple[str, ...]
    players: int
    games: int
    rate: float
    other_rate: float
    difference: DealDifference
    adjusted: DealDifference | None = None

    @property
    def deals(self) -> int:
        """The deals both agents played, every one at each seat against each field."""
        return self.difference.deals

    def summary(self) -> str:
        """One line: the two rates, their difference with its interval and, when measured, the adjusted one."""
        line = (
            f"{self.agent} {self.rate:.1%} less {self.other} {self.other_rate:.1%} = {self.difference} over "
            f"{self.deals} deals ({self.games} games each)"
        )
        if self.adjusted is not None:
            ratio = self.adjusted.width / self.difference.width if self.difference.width > 0 else None
            line += f"; luck-adjusted {self.adjusted}" + ("" if ratio is None else f" ({ratio:.2f}× as wide)")
        return line


def paired_comparison(
    result: TournamentResult, agent: str, other: str, fields: Sequence[str] | None = None
) -> PairedComparison:
    """``agent``'s win rate less ``other``'s against ``fields`` in a tournament's games, clustered by deal.

    Args:
        result: a tournament that played both agents against every one of the fields.
        agent: A, by its name in ``result.agents``.
        other: B, by its name.
        fields: the fields to pool, by name (None: every agent that both A and B played against, neither of them).

    Raises:
        ValueError: A is B, an unknown name, no field, a field that one of them did not play against or that is
            one of them.
    """
    _check_names(result, agent, other, fields)
    fields = result.shared_fields(agent, other) if fields is None else list(fields)
    if not fields:
        raise ValueError(f"{agent} and {other} played against no common field")
    first = result.seat_games(agent, fields)
    second = result.seat_games(other, fields)
    return PairedComparison(
        agent=agent,
        other=other,
        fields=tuple(fields),
        players=result.num_players,
        games=sum(len(games) for games in first),
        rate=_mean_result(first),
        other_rate=_mean_result(second),
        difference=DealDifference.of(deal_differences(*(_by_deal(g, result.deals) for g in (first, second)))),
        adjusted=_adjusted_difference(first, second, result.deals),
    )


def compare_agents(
    agent: AgentSpec | AgentLike,
    other: AgentSpec | AgentLike,
    fields: Sequence[AgentSpec | str],
    num_players: int = 2,
    deals: int = 1000,
    seed: int = 0,
    jobs: int | None = None,
    progress: bool | None = None,
    adjust_luck: bool | LuckSettings = False,
    **rule_options: Any,
) -> PairedComparison:
    """Play ``agent`` and ``other`` against ``fields`` on the same deals and compare them (see the module docstring).

    Each of the two plays ``deals`` deals against each field, once at every seat: a tournament
    (:func:`~agents.evaluate.tournament.run_tournament`, whose arguments these are) restricted to those fields.

    Raises:
        ValueError: the two agents are one, no field, a field that is one of the two agents, or a bad count.
        agents.bots.spec.AgentSpecError: a spec that names no agent (a ValueError).
    """
    from agents.bots.spec import AgentSpec
    from agents.evaluate.tournament import name_agents, run_tournament

    named = name_agents([agent, other])
    compared = list(named.values())
    if any(AgentSpec.of(field) in compared for field in _field_list(fields)):
        raise ValueError("a field must be neither of the two agents compared")
    result = run_tournament(
        named, num_players, deals, seed, jobs, progress, fields=fields, adjust_luck=adjust_luck, **rule_options
    )
    agent_name, other_name = named
    return paired_comparison(result, agent_name, other_name, result.agents[2:])


def _field_list(fields: Sequence[AgentSpec | str]) -> Sequence[AgentSpec | str]:
    """``fields``, refused when empty or one string (whose characters would be read as specs)."""
    if isinstance(fields, str) or not fields:
        raise ValueError("give the fields as a list of one or more specs")
    return fields


def _check_names(result: TournamentResult, agent: str, other: str, fields: Sequence[str] | None) -> None:
    """A ValueError for A equal to B, a name not in the tournament, or a field that is A or B."""
    if agent == other:
        raise ValueError(f"compare two different agents, not {agent} with itself")
    unknown = [name for name in (agent, other, *(fields or ())) if name not in result.agents]
    if unknown:
        raise ValueError(f"not in the tournament: {', '.join(unknown)} (its agents: {', '.join(result.agents)})")
    if fields is not None and {agent, other} & set(fields):
        raise ValueError("a field must be neither of the two agents compared")


def _results(games: list[tuple[GameOutcome, int]]) -> list[float]:
    """1 for each game the seat won (a shared win too), else 0."""
    return [float(seat in g.winners) for g, seat in games]


def _mean_result(per_field: list[list[tuple[GameOutcome, int]]]) -> float:
    """The share of all these games won."""
    results = [r for games in per_field for r in _results(games)]
    return math.fsum(results) / len(results)


def _by_deal(per_field: list[list[tuple[GameOutcome, int]]], deals: int, adjusted: bool = False) -> list[list[float]]:
    """Each deal's outcomes over every field and seat: the plain results, or with ``adjusted`` the adjusted ones."""
    outcomes: dict[int, list[float]] = defaultdict(list)
    for games in per_field:
        values = _adjusted(games) if adjusted else _results(games)
        for (game, _), value in zip(games, values, strict=True):
            outcomes[game.deal].append(value)
    return [outcomes[deal] for deal in range(deals)]


def _adjusted(games: list[tuple[GameOutcome, int]]) -> list[float]:
    """Each game's luck-adjusted result, the luck scaled over the pairing's games as its own adjusted rate does."""
    from agents.evaluate.luck import adjusted_results  # numba and the value network: only when luck was measured

    luck = [g.luck[seat] for g, seat in games]
    return adjusted_results(_results(games), luck, [g.deal % 2 for g, _ in games])


def _adjusted_difference(
    first: list[list[tuple[GameOutcome, int]]], second: list[list[tuple[GameOutcome, int]]], deals: int
) -> DealDifference | None:
    """The luck-adjusted difference over deals; None when some game's luck was not measured."""
    games = [g for per_field in (first, second) for pairing in per_field for g, _ in pairing]
    if not all(g.luck for g in games):
        return None
    return DealDifference.of(deal_differences(_by_deal(first, deals, True), _by_deal(second, deals, True)))
