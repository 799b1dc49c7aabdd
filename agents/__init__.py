"""Baseline agents for gubs_env and the tools to evaluate them.

Every agent maps ``(observation, action_mask)`` to an action id (:class:`~agents.base.Agent`).
"""

from agents.base import Agent
from agents.evaluate import MatchResult, match, play_game, wilson_interval
from agents.random_agent import RandomAgent

__all__ = ["Agent", "MatchResult", "RandomAgent", "match", "play_game", "wilson_interval"]
