"""RL environments: PettingZoo, Gymnasium and RLlib.

PettingZoo: ``env``, ``raw_env``, ``parallel_env``; Gymnasium: ``SelfPlayEnv``, ``GubsVectorEnv``; RLlib (with the
``rllib`` extra): ``GubsMultiAgentEnv``.

The PettingZoo envs are the AEC env (``env``, ``raw_env``) and its parallel view (``parallel_env``,
``GubsParallelEnv``); the Gymnasium envs play self-play, one learner against opponents.

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
    "parallel_env": "parallel",
    "GubsParallelEnv": "parallel",
    "SelfPlayEnv": "selfplay",
    "GubsVectorEnv": "vector",
    "ENGINES": "engines",
    "Engine": "engines",
    "IdTable": "engines",
    "open_table": "engines",
    "GubsMultiAgentEnv": "rllib_env",
}

__all__ = [
    "ENGINES",
    "Engine",
    "GubsMultiAgentEnv",
    "GubsParallelEnv",
    "GubsVectorEnv",
    "IdTable",
    "SelfPlayEnv",
    "env",
    "open_table",
    "parallel_env",
    "raw_env",
]


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'gubs_env.envs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"gubs_env.envs.{_SOURCES[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
