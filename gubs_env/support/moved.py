"""Modules that moved: importing one by its old path fails with a message naming the new one, not a bare error.

Each package lists its own moves (``gubs_env`` here, ``agents`` in :mod:`agents.moved`) and installs a finder at
the end of the import system's list: it is asked only after every real finder found nothing, so a module that
exists is never touched. CHANGELOG.md lists every move with its release.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any

MOVED = {
    "gubs_env.cli": "gubs_env.support.cli",
    "gubs_env.files": "gubs_env.support.files",
    "gubs_env.record": "gubs_env.records.record",
    "gubs_env.transcript": "gubs_env.records.transcript",
    "gubs_env.wrappers": "gubs_env.envs.selfplay",
    "gubs_env.envs.action_table": "gubs_env.encoding.action_table",
    "gubs_env.envs.observation": "gubs_env.encoding.observation",
    "gubs_env.engine.effects": "gubs_env.engine.cards.effects",
    "gubs_env.engine.events": "gubs_env.engine.cards.events",
    "gubs_env.engine.serialize": "gubs_env.engine.positions.serialize",
    "gubs_env.play": "agents.play.terminal",
    "gubs_env.web": "agents.play.web",
    "gubs_env.bench": "benchmarks.engine_speed (a script of the repository: python benchmarks/engine_speed.py)",
}
"""``gubs_env``'s old module paths and where each went: in 0.1.0 (docs/architecture.md's rooms), and since 0.2.0 the
engine benchmark to the repository's benchmarks/ folder."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers an import of a moved module with a ``ModuleNotFoundError`` that names its new path."""

    def __init__(self, moves: Mapping[str, str]) -> None:
        self.moves = dict(moves)

    def find_spec(self, name: str, path: Any, target: ModuleType | None = None) -> None:
        """Nothing for any other name; for a moved one, the error.

        Raises:
            ModuleNotFoundError: ``name`` moved.
        """
        new = self.moves.get(name)
        if new is not None:
            raise ModuleNotFoundError(f"{name} moved to {new}: import it from there (CHANGELOG.md)", name=name)


def install(moves: Mapping[str, str]) -> None:
    """Add a finder for ``moves`` at the end of ``sys.meta_path`` (once per set of moves)."""
    for finder in sys.meta_path:
        if isinstance(finder, MovedModuleFinder) and finder.moves == dict(moves):
            return
    sys.meta_path.append(MovedModuleFinder(moves))
