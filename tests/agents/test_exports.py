"""The names ``agents`` exports: each one imports, ``dir`` lists them, and ``import agents`` stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agents


@pytest.mark.parametrize("name", agents.__all__)
def test_every_exported_name_imports(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from agents import {name}", namespace)
    assert namespace[name] is getattr(agents, name)
    assert getattr(namespace[name], "__name__", name) == name  # the object itself, not a module of that name


def test_dir_lists_every_export_and_an_unknown_name_is_an_attribute_error() -> None:
    assert set(agents.__all__) <= set(dir(agents))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        agents.nothing_here  # noqa: B018


def test_importing_agents_loads_neither_the_engines_nor_the_evaluation_tools() -> None:
    code = (
        "import sys, agents\n"
        "heavy = [m for m in sys.modules if m.startswith(('agents.evaluate', 'agents.bots.ppo', 'numba', 'torch'))]\n"
        "print(heavy)\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
