"""RL environments over the engine: PettingZoo AEC (``env``, ``raw_env``) and the encodings they use.

The names are imported on first use, so that ``python -m gubs_env.envs.action_table`` (and ``observation``)
run their module once, as the program, rather than after the package imported it already.
"""

from __future__ import annotations

import importlib
from typing import Any

_SOURCES = {
    "NUM_ACTIONS": "action_table",
    "decode": "action_table",
    "encode": "action_table",
    "env": "gubs_aec",
    "raw_env": "gubs_aec",
    "LAYOUT": "observation",
    "OBS_SIZE": "observation",
}

__all__ = ["LAYOUT", "NUM_ACTIONS", "OBS_SIZE", "decode", "encode", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'gubs_env.envs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"gubs_env.envs.{_SOURCES[name]}"), name)
