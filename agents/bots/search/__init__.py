"""The search bot.

Determinized playouts over the heuristic (:mod:`~agents.bots.search.agent`), played in compiled code
(:mod:`~agents.bots.search.rollout`).
"""

from agents.bots.search.agent import AllSeeingSearchAgent, SearchAgent, SearchSettings

__all__ = ["AllSeeingSearchAgent", "SearchAgent", "SearchSettings"]
