"""gubs_env: an exact Gubs rules engine and reinforcement-learning environments built on it.

The engine (:mod:`gubs_env.engine`) needs only numpy; ``gubs_env.env()`` and ``gubs_env.raw_env`` (PettingZoo)
and :mod:`gubs_env.envs.selfplay` and :mod:`gubs_env.envs.vector` (Gymnasium) are imported on first use.
"""

from gubs_env import viz as _viz  # noqa: F401  (registers the table pictures every Game shows)
from gubs_env.engine import (
    CARDS,
    Action,
    Game,
    IllegalActionError,
    InvalidStateError,
    Kind,
    RuleOptions,
)
from gubs_env.envs.registration import register_when_gymnasium_loads

register_when_gymnasium_loads()  # Gubs-v0 for gymnasium.make and make_vec, without importing gymnasium here

__version__ = "0.1.0"

__all__ = [
    "CARDS",
    "Action",
    "Game",
    "GubsVectorEnv",
    "IllegalActionError",
    "InvalidStateError",
    "Kind",
    "RuleOptions",
    "SelfPlayEnv",
    "env",
    "raw_env",
]


def __getattr__(name: str):
    # The RL environments need gymnasium and pettingzoo: import them only when asked for, so that the
    # engine alone works without those packages.
    if name in ("env", "raw_env", "SelfPlayEnv", "GubsVectorEnv"):
        from gubs_env import envs

        return getattr(envs, name)
    raise AttributeError(f"module 'gubs_env' has no attribute {name!r}")
