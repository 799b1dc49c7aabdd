"""Baseline agents for gubs_env and the tools to evaluate them.

Every agent maps ``(observation, action_mask)`` to an action id (:class:`~agents.bots.base.Agent`).
"""

from importlib import import_module
from typing import Any

from agents.bots.base import Agent
from agents.bots.random_agent import RandomAgent
from agents.moved import MOVED as _MOVED
from gubs_env.support.moved import install as _install_moved

_install_moved(_MOVED)  # an old module path names its new one

_LAZY = {
    "AgentSpec": "agents.bots.spec",
    "HeuristicAgent": "agents.bots.heuristic",
    "MatchResult": "agents.evaluate.matches",
    "PPOAgent": "agents.bots.ppo",
    "make_agent": "agents.bots.registry",
    "match": "agents.evaluate.matches",
    "play_game": "agents.evaluate.matches",
    "run_tournament": "agents.evaluate.tournament",
    "wilson_interval": "agents.evaluate.matches",
}
"""The names imported on first use, by module: they load the engines, numba and the models, which
``import agents`` (an agent of one's own needs only :class:`Agent`) should not pay for."""

__all__ = [
    "Agent",
    "AgentSpec",
    "HeuristicAgent",
    "MatchResult",
    "PPOAgent",
    "RandomAgent",
    "make_agent",
    "match",
    "play_game",
    "run_tournament",
    "wilson_interval",
]


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported from its module on first use."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazy ones included (``dir(agents)`` and completion list them)."""
    return sorted({*globals(), *__all__})
