"""What ``help()`` and ``dir()`` show a reader: short signatures, and every exported name, the lazy ones included."""

from __future__ import annotations

import importlib
import json
import os
import pydoc
import subprocess
import sys

import pytest

from tests.snippets import ROOT

_LONG_DEFAULTS = """
import importlib, inspect, json, pkgutil
import agents, gubs_env
found = []
for package in (agents, gubs_env):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError as error:  # an optional package missing here (open_spiel before Python 3.11)
            if (error.name or "").split(".")[0] in ("agents", "gubs_env"):
                raise
            continue
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            members = [obj]
            if isinstance(obj, type):
                members += [v for k, v in vars(obj).items() if callable(v) and not k.startswith("_")]
            for member in members:
                try:
                    parameters = inspect.signature(member).parameters.values()
                except (TypeError, ValueError):
                    continue
                for p in parameters:
                    if p.default is not p.empty and len(repr(p.default)) > 80:
                        found.append(f"{info.name}.{name}: {p.name}={repr(p.default)[:60]}...")
print(json.dumps(found))
"""


def test_no_public_signature_prints_a_long_default() -> None:
    """A default whose repr is long (an array of weights) would fill ``help()`` and every IDE tooltip."""
    result = subprocess.run([sys.executable, "-c", _LONG_DEFAULTS], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == []


def test_help_of_the_heuristic_bot_and_its_decision_is_short() -> None:
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.heuristic.decide import heuristic_actions

    assert len(pydoc.render_doc(HeuristicAgent, renderer=pydoc.plaintext).splitlines()) < 150
    assert len(pydoc.render_doc(heuristic_actions, renderer=pydoc.plaintext).splitlines()) < 60


@pytest.mark.parametrize("name", ["gubs_env", "gubs_env.envs", "gubs_env.fast", "agents", "agents.training"])
def test_dir_lists_every_exported_name(name: str) -> None:
    module = importlib.import_module(name)
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("module", ["agents.play", "agents.evaluate"])
def test_every_command_that_takes_specs_lists_every_built_in_name_in_its_help(module: str) -> None:
    from agents.bots.names import BUILTIN

    wide = {**os.environ, "COLUMNS": "100000"}  # argparse wraps help at hyphens too: one long line each
    shown = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=ROOT, env=wide)
    assert shown.returncode == 0, shown.stderr[-2000:]
    text = shown.stdout
    missing = [name for name in BUILTIN if name not in text]
    assert missing == [], f"{module} --help leaves out {missing}"
