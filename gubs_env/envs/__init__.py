"""RL environments: PettingZoo AEC (``env``, ``raw_env``), Gymnasium self-play (``SelfPlayEnv``, ``GubsVectorEnv``).

The names are imported on first use, so that the engine alone works without gymnasium and pettingzoo.
"""

from __future__ import annotations

import importlib
from typing import Any

_SOURCES = {"env": "gubs_aec", "raw_env": "gubs_aec", "SelfPlayEnv": "selfplay", "GubsVectorEnv": "vector"}

__all__ = ["GubsVectorEnv", "SelfPlayEnv", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'gubs_env.envs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"gubs_env.envs.{_SOURCES[name]}"), name)
