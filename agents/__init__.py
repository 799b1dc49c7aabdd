"""Baseline agents for gubs_env and the tools to evaluate them.

Every agent maps ``(observation, action_mask)`` to an action id (:class:`~agents.bots.base.Agent`).
"""

from typing import Any

from agents.bots.base import Agent
from agents.bots.random_agent import RandomAgent

__all__ = ["Agent", "MatchResult", "RandomAgent", "match", "play_game", "wilson_interval"]

_FROM_EVALUATE = ("MatchResult", "match", "play_game", "wilson_interval")


def __getattr__(name: str) -> Any:
    """The evaluation tools, imported on first use (they load the engines; the bots alone do not need them)."""
    if name in _FROM_EVALUATE:
        from agents.evaluate import matches

        return getattr(matches, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
