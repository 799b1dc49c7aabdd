"""gubs_env: an exact Gubs rules engine and reinforcement-learning environments built on it.

The engine (:mod:`gubs_env.engine`) and the encoding (``ActionCodec``, ``NUM_ACTIONS``, ``OBS_SIZE``) need only
numpy; ``gubs_env.env()``, ``gubs_env.raw_env`` and ``gubs_env.parallel_env()`` (PettingZoo),
:mod:`gubs_env.envs.selfplay` and :mod:`gubs_env.envs.vector` (Gymnasium), one game by action ids on either engine
(``open_table``, ``IdTable``) and the compiled engine's ``FastGame`` (numba) are imported on first use.
"""

from typing import TYPE_CHECKING, Any

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
from gubs_env.support.moved import MOVED as _MOVED
from gubs_env.support.moved import install as _install_moved

if TYPE_CHECKING:
    from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
    from gubs_env.encoding.observation import OBS_SIZE

register_when_gymnasium_loads()  # Gubs-v0 for gymnasium.make and make_vec, without importing gymnasium here
_install_moved(_MOVED)  # an old module path names its new one

__version__ = "0.2.0"

__all__ = [
    "CARDS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "Action",
    "ActionCodec",
    "FastGame",
    "Game",
    "GubsVectorEnv",
    "IdTable",
    "IllegalActionError",
    "InvalidStateError",
    "Kind",
    "RuleOptions",
    "SelfPlayEnv",
    "env",
    "open_table",
    "parallel_env",
    "raw_env",
]

_LAZY = {
    "NUM_ACTIONS": "gubs_env.encoding.action_table",
    "ActionCodec": "gubs_env.encoding.action_table",
    "OBS_SIZE": "gubs_env.encoding.observation",
    "env": "gubs_env.envs",
    "raw_env": "gubs_env.envs",
    "parallel_env": "gubs_env.envs",
    "SelfPlayEnv": "gubs_env.envs",
    "GubsVectorEnv": "gubs_env.envs",
    "IdTable": "gubs_env.envs",
    "open_table": "gubs_env.envs",
    "FastGame": "gubs_env.fast",
}
"""Names imported on first use, and where from: the environments need gymnasium and pettingzoo, the compiled
engine numba, so that the engine alone works without those packages and ``import gubs_env`` stays quick. The
encoding waits too, so that ``python -m gubs_env.encoding.observation`` (and ``.action_table``) runs its module
once, as ``__main__``, and not also as an import of the package."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'gubs_env' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
