"""The search bot.

Determinized playouts that correct a base policy, a shipped network or the heuristic
(:mod:`~agents.bots.search.agent`), played out by the heuristic in compiled code
(:mod:`~agents.bots.search.rollout`); and information-set MCTS over the same worlds and playouts
(:mod:`~agents.bots.search.ismcts`).
"""

from agents.bots.search.agent import AllSeeingSearchAgent, HandsSeeingSearchAgent, SearchAgent, SearchSettings
from agents.bots.search.ismcts import ISMCTSAgent, ISMCTSSettings

__all__ = [
    "AllSeeingSearchAgent",
    "HandsSeeingSearchAgent",
    "ISMCTSAgent",
    "ISMCTSSettings",
    "SearchAgent",
    "SearchSettings",
]
