"""Baseline agents for gubs_env and the tools to evaluate them.

Every agent maps ``(observation, action_mask)`` to an action id (:class:`~agents.base.Agent`).
"""

from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "MatchResult", "RandomAgent", "match", "play_game", "wilson_interval"]

_FROM_EVALUATE = ("MatchResult", "match", "play_game", "wilson_interval")


def __getattr__(name: str) -> Any:
    """The evaluation tools, imported on first use.

    Importing ``agents.evaluate`` here eagerly would load it before ``python -m agents.evaluate`` runs it,
    which makes runpy warn, once in the command and again in every tournament worker process.
    """
    if name in _FROM_EVALUATE:
        from agents import evaluate

        return getattr(evaluate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
