"""``Gubs-v0`` in Gymnasium's registry, without importing gymnasium before its user does.

``import gubs_env`` must not pull in gymnasium (the engine stands alone), yet ``gymnasium.make("Gubs-v0")`` and
``gymnasium.make_vec("Gubs-v0", num_envs=..., vectorization_mode="vector_entry_point")`` should work after it. So
the id is registered at once when gymnasium is already imported, and otherwise right after gymnasium's own import
finishes, by a finder that waits for that one module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

ENV_ID = "Gubs-v0"


def register() -> None:
    """Register ``Gubs-v0``: ``SelfPlayEnv`` for ``make``, ``GubsVectorEnv`` for ``make_vec`` (once)."""
    from gymnasium.envs.registration import register as gym_register
    from gymnasium.envs.registration import registry

    if ENV_ID not in registry:
        gym_register(
            id=ENV_ID,
            entry_point="gubs_env.envs.selfplay:SelfPlayEnv",
            vector_entry_point="gubs_env.envs.vector:GubsVectorEnv",
        )


class _AfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of ``gymnasium`` so that :func:`register` runs once it is loaded."""

    def find_spec(
        self, name: str, path: Any, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)  # once is enough; the search below must not find this finder again
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run_module = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            run_module(module)
            register()

        loader.exec_module = exec_then_register  # type: ignore[method-assign]
        return spec


def register_when_gymnasium_loads() -> None:
    """Register now if gymnasium is imported, else as soon as it is (nothing if it is not installed)."""
    if "gymnasium" in sys.modules:
        register()
    elif not any(isinstance(finder, _AfterGymnasium) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterGymnasium())
