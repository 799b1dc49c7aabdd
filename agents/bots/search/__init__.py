"""The search bot.

Determinized playouts that correct a base policy, a shipped network or the heuristic
(:mod:`~agents.bots.search.agent`), played out in compiled code (:mod:`~agents.bots.search.rollout`) by the
heuristic or by a network's playout policy (:mod:`~agents.bots.search.playout_net`); and information-set MCTS
over the same worlds and playouts
(:mod:`~agents.bots.search.ismcts`).
"""

from agents.bots.search.agent import (
    AllSeeingSearchAgent,
    HandsSeeingSearchAgent,
    SearchAgent,
    SearchSettings,
    SelfPlaySearchSettings,
)
from agents.bots.search.ismcts import ISMCTSAgent, ISMCTSSettings

__all__ = [
    "AllSeeingSearchAgent",
    "HandsSeeingSearchAgent",
    "ISMCTSAgent",
    "ISMCTSSettings",
    "SearchAgent",
    "SearchSettings",
    "SelfPlaySearchSettings",
]
