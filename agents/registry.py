"""Agents by name, so commands and worker processes can build them from plain strings.

A spec is one of:

- ``random`` or ``heuristic``: the baseline agents;
- ``ppo-2p`` or ``ppo-4p``: the shipped models (``ppo-2p:sample`` samples from the policy instead of
  taking its most likely action);
- a path to a model saved by ``MaskablePPO.save`` (``runs/gubs/model.zip``, ``:sample`` allowed too);
- ``package.module:ClassName``: any importable :class:`~agents.base.Agent` subclass (or factory), called
  with ``seed=`` when it accepts one.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from agents.base import Agent

BUILTIN = ("random", "heuristic", "ppo-2p", "ppo-4p")
SAMPLE_SUFFIX = ":sample"


class AgentSpecError(ValueError):
    """A spec that names no agent."""


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build the agent ``spec`` names (see the module docstring), seeded with ``seed``.

    Raises:
        AgentSpecError: the spec names nothing that can be built (with the reason).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec is a non-empty string, not {spec!r}")
    spec = spec.strip()
    if spec == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if spec == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    sample = spec.endswith(SAMPLE_SUFFIX)
    base = spec.removesuffix(SAMPLE_SUFFIX)
    if base.startswith("ppo-") or base.endswith(".zip"):
        return _ppo(base, sample, seed, spec)
    if ":" in spec:
        return _imported(spec, seed)
    raise AgentSpecError(
        f"unknown agent {spec!r}: use {', '.join(BUILTIN)}, a path to a .zip model or an importable module:Class"
    )


def _ppo(base: str, sample: bool, seed: int, spec: str) -> Agent:
    from agents.ppo import PRETRAINED, PPOAgent

    if base.startswith("ppo-") and not base.endswith(".zip"):
        name = base.removeprefix("ppo-")
        if name not in PRETRAINED:
            shipped = ", ".join(f"ppo-{n}" for n in PRETRAINED)
            raise AgentSpecError(f"unknown shipped model {base!r}; shipped: {shipped}")
        agent = PPOAgent.pretrained(name, deterministic=not sample)
    else:
        if not Path(base).is_file():
            raise AgentSpecError(f"no model file at {base}")
        agent = PPOAgent.load(base, deterministic=not sample, name=Path(base).stem)
    agent.name = spec
    agent.reset(seed)
    return agent


def _imported(spec: str, seed: int) -> Agent:
    module_name, _, attr = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except ImportError as err:
        raise AgentSpecError(f"cannot import {module_name!r} for agent {spec!r}: {err}") from None
    except AttributeError:
        raise AgentSpecError(f"module {module_name!r} has no {attr!r} (agent {spec!r})") from None
    if not callable(factory):
        raise AgentSpecError(f"{spec!r} is not a class or factory")
    try:
        accepts_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        accepts_seed = False
    agent = factory(seed=seed) if accepts_seed else factory()
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"{spec!r} made a {type(agent).__name__}, not an agents.base.Agent")
    if agent.name == Agent.name:
        agent.name = attr
    return agent
