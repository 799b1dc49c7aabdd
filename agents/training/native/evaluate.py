"""Seat-rotated matches on the compiled engine, for a run's learning curve: thousands of games in seconds.

The same deals every time (so the points of a curve compare), each dealt once with the policy at every seat and
the opponent at the others, as :func:`agents.evaluate.matches.match` deals them: game ``g`` is deal
``seed + g // players`` with the policy at seat ``g % players``. The policy plays greedily, as a network bot plays
in tournaments; the heuristic is the compiled one (the same decisions as ``HeuristicAgent``).
"""

from __future__ import annotations

import numpy as np

from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MatchResult
from agents.training.native.rollout import HEURISTIC, POLICY, RANDOM, Decide, SelfPlayGames
from gubs_env.engine.cards import MAX_PLAYERS

OPPONENT_KINDS = {"heuristic": HEURISTIC, "random": RANDOM}
"""The opponents a run's curve is measured against, by name."""


def seat_rotated_match(
    decide: Decide, opponent: str, players: int, games: int, seed: int, adjust_luck: LuckSettings | None = None
) -> MatchResult:
    """``decide`` at one seat, ``opponent`` (a name of :data:`OPPONENT_KINDS`) at the others, every deal at every seat.

    ``games`` is rounded up to a multiple of ``players``. A shared win counts as a win; a game cut at the turn limit
    (every seat's reward 0) as a truncated one. ``adjust_luck`` also gives the luck-adjusted win rate and the mean
    luck (:mod:`agents.evaluate.luck`): the same deals, each game's luck measured from its actions.
    """
    deals = -(-games // players)
    total = deals * players
    slots = np.arange(total)
    seats = slots % players
    table = SelfPlayGames(total, players, record=False)
    kinds = np.full((total, MAX_PLAYERS), OPPONENT_KINDS[opponent], dtype=np.int8)
    kinds[slots, seats] = POLICY
    deal_seeds = seed + slots // players
    history: list[list[int]] | None = [[] for _ in range(total)] if adjust_luck is not None else None
    batch = table.play(deal_seeds.astype(np.uint64), kinds, decide, history=history)
    won = batch.seat_rewards[slots, seats] > 0
    truncated = int((batch.seat_rewards == 0).all(axis=1).sum())
    result = MatchResult("policy", total, int(won.sum()), truncated)
    result.measure_deals(won.astype(float).tolist(), deal_seeds.tolist())
    if adjust_luck is not None and history is not None and total > 1:
        estimator = LuckEstimator(adjust_luck)
        luck = [
            float(estimator.game(players, int(d), ids).luck[s])
            for d, ids, s in zip(deal_seeds, history, seats, strict=True)
        ]
        result.measure_luck(won.astype(float).tolist(), luck, [int(d) for d in deal_seeds])
    return result
