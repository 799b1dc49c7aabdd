"""The one evaluation of every run: seat-rotated matches on the compiled engine, over the policy a backend exports.

Every backend exports its acting policy as the shipped weights-only actor (:class:`~agents.bots.model_file.
PolicyWeights`), and every figure a run reports plays that actor greedily, as network bots play in tournaments: each
deal once with the policy at every seat and the opponent at the others (:func:`match`), thousands of games in
seconds on the compiled engine. Three deal sets keep the figures honest (:data:`CURVE`, :data:`GATE`,
:data:`FINAL`): the learning curve's points share one set, so they compare; the promotion gate of a run from a
trained network chooses between its start and its end on a second; the final figure is measured on a third, which
no choice of the run used. None of them is a deal the run trained on: training deals come from each slot's stream
of the self-play core, whose deal seeds are drawn from the whole 64-bit range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.bots.model_file import PolicyWeights
from agents.bots.ppo import policy_logits
from agents.bots.spec import AgentSpec
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MatchResult
from agents.evaluate.paired import DealDifference, deal_differences
from agents.training.core.config import HEURISTIC, RANDOM, PoolConfig
from agents.training.core.games import SelfPlayGames
from agents.training.core.seating import Seating

MASKED = -np.inf


@dataclass(frozen=True)
class DealSet:
    """Deals of their own: game ``g`` at ``n`` players is deal ``first + g // n`` with the policy at seat ``g % n``."""

    name: str
    first: int

    def seeds(self, games: int, players: int) -> np.ndarray:
        """The deal of each of ``games`` games (rounded up to whole deals of ``players`` games)."""
        total = -(-games // players) * players
        return (self.first + np.arange(total) // players).astype(np.uint64)


CURVE = DealSet("curve", 700_000_000)
"""The learning curve's deals: every point of every run on the same ones, so that points compare."""
GATE = DealSet("gate", 800_000_000)
"""The promotion gate's deals: where a run from a trained network chooses between its start and its end."""
FINAL = DealSet("final", 900_000_000)
"""The final figure's deals: used for nothing else, so the figure carries no selection."""
DEAL_SETS = (CURVE, GATE, FINAL)


def greedy(weights: PolicyWeights) -> Any:
    """A ``decide`` for :meth:`SelfPlayGames.play`: the actor's most likely legal id for each row."""
    first_t = np.ascontiguousarray(weights.layers[0][0].T)

    def decide(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        logits = policy_logits(weights, observations, None, first_t)
        ids = np.argmax(np.where(masks != 0, logits, MASKED), axis=1)
        zeros = np.zeros(len(ids), dtype=np.float32)
        return ids, zeros, zeros

    return decide


@dataclass
class Match:
    """A seat-rotated match's result, with each game's outcome and deal (what a paired comparison needs)."""

    result: MatchResult
    won: np.ndarray
    """1.0 for each game the policy won (a shared win counts), else 0.0."""
    deals: np.ndarray


def match(
    weights: PolicyWeights,
    opponent: str | AgentSpec,
    players: int,
    games: int,
    deals: DealSet,
    adjust_luck: LuckSettings | None = None,
) -> Match:
    """``weights`` greedy at one seat, ``opponent`` at the others, every deal of ``deals`` at every seat.

    ``opponent`` is ``"heuristic"``, ``"random"`` or any agent spec. ``games`` is rounded up to whole deals. A game
    cut at the turn limit (every seat's reward 0) counts as truncated. ``adjust_luck`` also gives the luck-adjusted
    win rate (:mod:`agents.evaluate.luck`): the same deals, each game's luck measured from its actions.
    """
    seeds = deals.seeds(games, players)
    total = len(seeds)
    seats = np.arange(total) % players
    table = SelfPlayGames(_seating(opponent, total), players, record=False)
    table.deal(seeds, seats)
    history: list[list[int]] | None = [[] for _ in range(total)] if adjust_luck is not None else None
    batch = table.play(greedy(weights), history=history)
    won = (batch.seat_rewards[np.arange(total), seats] > 0).astype(float)
    truncated = int((batch.seat_rewards == 0).all(axis=1).sum())
    result = MatchResult("policy", total, int(won.sum()), truncated)
    result.measure_deals(won.tolist(), seeds.tolist())
    if adjust_luck is not None and history is not None and total > 1:
        estimator = LuckEstimator(adjust_luck)
        luck = [
            float(estimator.game(players, int(d), ids).luck[s]) for d, ids, s in zip(seeds, history, seats, strict=True)
        ]
        result.measure_luck(won.tolist(), luck, [int(d) for d in seeds])
    return Match(result, won, seeds)


def _seating(opponent: str | AgentSpec, slots: int) -> Seating:
    """Every seat but the policy's played by ``opponent``."""
    if opponent == HEURISTIC:
        return Seating(slots, PoolConfig(p_heuristic=1.0), seed=0)
    if opponent == RANDOM:
        return Seating(slots, PoolConfig(p_random=1.0), seed=0)
    from agents.bots.registry import make_agent

    return Seating(slots, PoolConfig(), seed=0, opponent=make_agent(opponent, 0))


def paired_difference(first: Match, second: Match) -> DealDifference:
    """``first``'s win rate less ``second``'s on the same deals, with its 95% interval over deals."""
    by_deal_first, by_deal_second = _by_deal(first), _by_deal(second)
    if by_deal_first.keys() != by_deal_second.keys():
        raise ValueError("a paired difference needs both matches on the same deals")
    order = sorted(by_deal_first)
    return DealDifference.of(deal_differences([by_deal_first[d] for d in order], [by_deal_second[d] for d in order]))


def _by_deal(played: Match) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for deal, won in zip(played.deals.tolist(), played.won.tolist(), strict=True):
        out.setdefault(deal, []).append(won)
    return out


def joined(matches: Sequence[Match]) -> Match:
    """Matches at several table sizes as one (their deals apart), for one figure over every size of a run."""
    if len(matches) == 1:
        return matches[0]
    offset = [np.full(len(m.deals), k, dtype=np.uint64) << np.uint64(48) for k, m in enumerate(matches)]
    deals = np.concatenate([m.deals + o for m, o in zip(matches, offset, strict=True)])
    won = np.concatenate([m.won for m in matches])
    result = MatchResult("policy", len(won), int(won.sum()), sum(m.result.truncated for m in matches))
    result.measure_deals(won.tolist(), deals.tolist())
    return Match(result, won, deals)
