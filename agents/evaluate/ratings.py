"""OpenSkill ratings over a tournament's games, and ranks that never contradict the results between two agents.

Every seat of a game is its own one-player team, ranked by the game's result (:func:`game_ranks`); the ratings are
updated game by game in the order given (:func:`rate`). A rank is shared where a head-to-head result runs against
the ratings' order (:func:`agreeing_ranks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

RATING_MODEL = "openskill.models.PlackettLuce (defaults: mu 25, sigma 25/3, tau 25/300)"

WinRates = dict[tuple[str, str], float]
"""``rates[(a, b)]``: a's win rate against a field of b."""


@dataclass(frozen=True)
class AgentRating:
    """An agent's OpenSkill rating after every game of the tournament, and its rank.

    Agents share a rank where a result between them runs against their ratings' order (:func:`agreeing_ranks`).
    """

    agent: str
    mu: float
    sigma: float
    rank: int = 0
    """1 for the best; agents whose order the results do not support share the rank of the highest of them."""

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 * sigma`` that ranks the agents."""
        return self.mu - 3 * self.sigma


def rate(agents: Sequence[str], games: Iterable[tuple[list[str], list[int]]], rates: WinRates) -> list[AgentRating]:
    """OpenSkill Plackett-Luce ratings over ``games`` in order, best first (highest ordinal), with agreeing ranks.

    Args:
        agents: every agent rated (each starts from the model's default rating).
        games: each game's agent at every seat and the seats' ranks (0 best, :func:`game_ranks`). When one agent
            fills several seats, each copy is rated from the agent's current rating and the agent's new mu and
            sigma are the averages over its copies.
        rates: the win rates between agents that may share a rank (:func:`agreeing_ranks`).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {agent: (model.rating().mu, model.rating().sigma) for agent in agents}
    for table, ranks in games:
        # a fresh rating object per seat: openskill conflates the same object given at two seats
        teams = [[model.rating(mu=current[a][0], sigma=current[a][1], name=a)] for a in table]
        updated = model.rate(teams, ranks=[float(rank) for rank in ranks])  # openskill types ranks as floats
        for agent in set(table):
            copies = [team[0] for team, a in zip(updated, table, strict=True) if a == agent]
            current[agent] = (_mean(c.mu for c in copies), _mean(c.sigma for c in copies))
    ratings = sorted((AgentRating(a, mu, sigma) for a, (mu, sigma) in current.items()), key=lambda r: -r.ordinal)
    ranks = agreeing_ranks([r.agent for r in ratings], rates)
    return [replace(r, rank=rank) for r, rank in zip(ratings, ranks, strict=True)]


def game_ranks(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Each seat's dense rank, 0 best: winners first, then by score; equal results share a rank.

    A truncated game has no winners, so only its scores count.
    """
    keys = [(seat not in winners, -score) for seat, score in enumerate(scores)]
    order = sorted(set(keys))
    return [order.index(key) for key in keys]


def beats(rates: WinRates, a: str, b: str) -> bool:
    """Whether ``a`` did better against a field of ``b`` than ``b`` against a field of ``a``."""
    return (a, b) in rates and (b, a) in rates and rates[a, b] > rates[b, a]


def agreeing_ranks(order: list[str], rates: WinRates) -> list[int]:
    """Rank numbers for agents listed best first, such that no rank contradicts a result between two agents.

    Sequential ratings (OpenSkill's updates game by game) can order two agents against their own head-to-head
    results: an agent that won 49% against random play can be rated above it. Wherever an agent below did better
    against one above it than the other way round (``rates[(a, b)]``: a's win rate against a field of b), both,
    and every agent between them, share the rank of the highest of them. The order is kept; the ranks only say
    where it is settled.
    """
    reach = list(range(len(order)))  # the lowest position each agent's results tie it to
    for i, above in enumerate(order):
        for j in range(i + 1, len(order)):
            if beats(rates, order[j], above):
                reach[i] = j
    ranks, rank, end = [], 1, -1
    for k in range(len(order)):
        if k > end:  # a new group starts here
            rank = k + 1
        end = max(end, reach[k])
        ranks.append(rank)
    return ranks


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values)
