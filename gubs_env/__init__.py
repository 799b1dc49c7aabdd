"""gubs_env: an exact Gubs rules engine and reinforcement-learning environments built on it.

The engine (:mod:`gubs_env.engine`) needs only numpy.
"""

from gubs_env.engine import (
    CARDS,
    Action,
    Game,
    IllegalActionError,
    InvalidStateError,
    Kind,
    RuleOptions,
)

__version__ = "0.1.0"

__all__ = ["CARDS", "Action", "Game", "IllegalActionError", "InvalidStateError", "Kind", "RuleOptions"]
