"""RL environments: PettingZoo AEC (``env``, ``raw_env``), Gymnasium self-play (``SelfPlayEnv``, ``GubsVectorEnv``).

Beneath them, one game by action ids on either engine: :func:`open_table` (the engine chosen by name, one of
:data:`ENGINES` or ``"auto"``) gives an :class:`IdTable`.

The names are imported on first use, so that the engine alone works without gymnasium and pettingzoo.
"""

from __future__ import annotations

import importlib
from typing import Any

_SOURCES = {
    "env": "gubs_aec",
    "raw_env": "gubs_aec",
    "SelfPlayEnv": "selfplay",
    "GubsVectorEnv": "vector",
    "ENGINES": "engines",
    "Engine": "engines",
    "IdTable": "engines",
    "open_table": "engines",
}

__all__ = ["ENGINES", "Engine", "GubsVectorEnv", "IdTable", "SelfPlayEnv", "env", "open_table", "raw_env"]


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'gubs_env.envs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"gubs_env.envs.{_SOURCES[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
