"""Seat-rotated matches on the compiled engine, for a run's learning curve: thousands of games in seconds.

The same deals every time (so the points of a curve compare), each dealt once with the policy at every seat and
the opponent at the others, as :func:`agents.evaluate.matches.match` deals them: game ``g`` is deal
``seed + g // players`` with the policy at seat ``g % players``. The policy plays greedily, as a network bot plays
in tournaments; the heuristic is the compiled one (the same decisions as ``HeuristicAgent``).
"""

from __future__ import annotations

import numpy as np

from agents.evaluate.matches import MatchResult
from agents.training.selfplay.rollout import HEURISTIC, POLICY, RANDOM, Decide, SelfPlayGames
from gubs_env.engine.cards import MAX_PLAYERS

OPPONENT_KINDS = {"heuristic": HEURISTIC, "random": RANDOM}
"""The opponents a run's curve is measured against, by name."""


def seat_rotated_match(decide: Decide, opponent: str, players: int, games: int, seed: int) -> MatchResult:
    """``decide`` at one seat, ``opponent`` (a name of :data:`OPPONENT_KINDS`) at the others, every deal at every seat.

    ``games`` is rounded up to a multiple of ``players``. A shared win counts as a win; a game cut at the turn limit
    (every seat's reward 0) as a truncated one.
    """
    deals = -(-games // players)
    total = deals * players
    slots = np.arange(total)
    seats = slots % players
    table = SelfPlayGames(total, players, record=False)
    kinds = np.full((total, MAX_PLAYERS), OPPONENT_KINDS[opponent], dtype=np.int8)
    kinds[slots, seats] = POLICY
    batch = table.play((seed + slots // players).astype(np.uint64), kinds, decide)
    wins = int((batch.seat_rewards[slots, seats] > 0).sum())
    truncated = int((batch.seat_rewards == 0).all(axis=1).sum())
    return MatchResult("policy", total, wins, truncated)
