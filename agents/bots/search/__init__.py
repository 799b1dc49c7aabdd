"""The search bot.

Determinized playouts that correct a base policy, a shipped network or the heuristic
(:mod:`~agents.bots.search.agent`), played out by the heuristic in compiled code
(:mod:`~agents.bots.search.rollout`).
"""

from agents.bots.search.agent import AllSeeingSearchAgent, SearchAgent, SearchSettings

__all__ = ["AllSeeingSearchAgent", "SearchAgent", "SearchSettings"]
