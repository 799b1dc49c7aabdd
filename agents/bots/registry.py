"""Agents by spec, so commands and worker processes can build them from plain strings.

The grammar of a spec, and its parsed form :class:`~agents.bots.spec.AgentSpec`, are in :mod:`agents.bots.spec`;
this module builds the agent a parsed spec names: one builder per :class:`~agents.bots.spec.SpecKind`. A new
built-in bot is a name in :data:`agents.bots.spec.BUILTIN_NAMES` and a line in :data:`_BUILTINS` here.
"""

from __future__ import annotations

import copy
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path

from agents.bots.base import Agent, PlainAgent, plays_like_an_agent
from agents.bots.names import ALL_SEEING, CATALOGUE, HANDS_SEEING, TUNED
from agents.bots.spec import NOT_AN_AGENT, AgentSpec, AgentSpecError, SpecKind

__all__ = ["AgentSpec", "AgentSpecError", "make_agent", "names_code"]


def make_agent(spec: AgentSpec | str, seed: int = 0, *, allow_all_seeing: bool = False) -> Agent:
    """Build the agent ``spec`` names (see :mod:`agents.bots.spec`), seeded with ``seed``.

    Args:
        spec: the spec, parsed or as text (parsed here, once).
        seed: the agent's seed.
        allow_all_seeing: admit the searches that read hidden cards (``search-hands-seeing``, ``search-all-seeing``):
            only measurements set it.

    Raises:
        AgentSpecError: the spec names nothing that can be built (with the reason, on one line).
    """
    parsed = AgentSpec.of(spec)
    return _BUILDERS[parsed.kind](parsed, seed, allow_all_seeing)


def names_code(spec: str) -> bool:
    """Whether :func:`make_agent` would import a module for ``spec`` (see :attr:`AgentSpec.names_code`).

    Raises:
        AgentSpecError: ``spec`` names no agent.
    """
    return AgentSpec.parse(spec).names_code


def _builtin(spec: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    return _BUILTINS[spec.name](seed)


def _random(seed: int) -> Agent:
    from agents.bots.random_agent import RandomAgent

    return RandomAgent(seed)


def _heuristic(seed: int) -> Agent:
    from agents.bots.heuristic import HeuristicAgent

    return HeuristicAgent(seed)


def _tuned(seed: int) -> Agent:
    return _weighted_heuristic(TUNED, CATALOGUE[TUNED].path, seed)


_BUILTINS: dict[str, Callable[[int], Agent]] = {"random": _random, "heuristic": _heuristic, TUNED: _tuned}
"""The builder of each of :data:`agents.bots.spec.BUILTIN_NAMES`, given the seed."""


def _weight_set(spec: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    """The heuristic with a weight set file's weights."""
    assert spec.path is not None  # a weight-set spec always names its file
    if not spec.path.exists():
        raise AgentSpecError(f"no heuristic weight set at {spec.name}")
    return _weighted_heuristic(str(spec), spec.path, seed)


def _weighted_heuristic(name: str, path: Path, seed: int) -> Agent:
    """The heuristic with the weights of the file at ``path``, named ``name``."""
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.heuristic.weights_file import WeightsFileError, load_weights

    try:
        tables = load_weights(path)
    except WeightsFileError as err:
        raise AgentSpecError(str(err)) from None
    agent = HeuristicAgent(seed, tables)
    agent.name = name
    return agent


def _network(spec: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    """A shipped network, or the network of a model file (read safely, see :mod:`agents.bots.model_file`)."""
    from agents.bots.model_file import ModelFileError
    from agents.bots.ppo import PPOAgent

    path = spec.model_file
    assert path is not None  # a network or model-file spec always names its file
    if spec.kind is SpecKind.MODEL_FILE and not path.exists():
        raise AgentSpecError(f"no model file at {spec.name}")
    try:
        agent = PPOAgent.load(path, deterministic=not spec.sample, name=path.stem)
    except (ModelFileError, OSError) as err:  # a file that cannot be read safely is a spec naming no agent
        raise AgentSpecError(str(err)) from None
    agent.name = str(spec)
    agent.reset(seed)
    return agent


def _searcher(spec: AgentSpec, seed: int, allow_all_seeing: bool) -> Agent:
    """A search bot with the spec's settings (validated when the spec was parsed)."""
    from agents.bots.search import (
        AllSeeingSearchAgent,
        HandsSeeingSearchAgent,
        ISMCTSAgent,
        ISMCTSSettings,
        SearchAgent,
        SearchSettings,
    )

    if spec.is_ceiling and not allow_all_seeing:
        raise AgentSpecError(
            f"{spec.name} reads hidden cards: it is for measurements (python -m agents.evaluate.ladder), not for play"
        )
    settings = spec.search_settings
    if isinstance(settings, ISMCTSSettings):
        agent: Agent = ISMCTSAgent(seed, settings)
    else:
        assert isinstance(settings, SearchSettings)
        kind = {ALL_SEEING: AllSeeingSearchAgent, HANDS_SEEING: HandsSeeingSearchAgent}.get(spec.name, SearchAgent)
        agent = kind(seed, settings)
    agent.name = str(spec)
    return agent


def _language_model(spec: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    """The language-model agent with the spec's settings (validated when the spec was parsed); no call is made yet."""
    try:
        import openai  # noqa: F401  # the agent speaks through it: missing, it is a spec naming no agent here
    except ImportError:
        raise AgentSpecError(
            f'{spec.name} needs the openai package: pip install -e ".[llm]" (or pip install openai)'
        ) from None
    from agents.bots.llm import LLMAgent

    settings = spec.llm_settings
    assert settings is not None  # a language-model spec always has its settings
    agent = LLMAgent(seed, settings)
    agent.name = str(spec)
    return agent


def _imported(parsed: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    """An instance of the :class:`Agent` subclass a ``module:Class`` spec names, once its module is imported."""
    assert parsed.code is not None  # a code spec always names its module and class
    module_name, attr = parsed.code
    spec = parsed.name
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise AgentSpecError(f"cannot import {module_name!r} for agent {spec!r}: {_first_line(err)}") from None
    except (Exception, SystemExit) as err:  # an empty or relative name, or a module failing as it is imported
        raise AgentSpecError(
            f"cannot import {module_name!r} for agent {spec!r}: {type(err).__name__}: {_first_line(err)}"
        ) from None
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise AgentSpecError(f"module {module_name!r} has no {attr!r} (agent {spec!r})") from None
    # only a class with act() is called: calling whatever the name finds could do anything (sys:exit ends the
    # command with status 0, os:abort kills it)
    if not (inspect.isclass(factory) and plays_like_an_agent(factory)):
        raise AgentSpecError(f"{spec!r} is not an agent class ({NOT_AN_AGENT})")
    return _construct(factory, spec, attr, seed)


def _python_object(parsed: AgentSpec, seed: int, _allow_all_seeing: bool) -> Agent:
    """A copy of an agent given in Python (each seat its own), or a new instance of a class given so."""
    given = parsed.python
    if isinstance(given, type):
        return _construct(given, parsed.name, given.__qualname__, seed)
    try:
        copied = copy.deepcopy(given)
    except Exception as err:  # the user's own object: report it in one line, whatever it raised
        raise AgentSpecError(
            f"{parsed.name!r} cannot be copied for each seat: {type(err).__name__}: {_first_line(err)}; "
            "give its class instead"
        ) from None
    agent = copied if isinstance(copied, Agent) else PlainAgent(copied, parsed.name)
    agent.reset(seed)
    return agent


def _construct(factory: type, spec: str, attr: str, seed: int) -> Agent:
    """An instance of the agent class ``factory``, called with ``seed=`` when it accepts one.

    A class that is not an :class:`Agent` but has ``act`` is wrapped in a :class:`PlainAgent`.
    """
    if inspect.isabstract(factory):
        raise AgentSpecError(f"{spec!r} is an abstract class: it does not define act()")
    try:
        accepts_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        accepts_seed = False
    try:
        agent = factory(seed=seed) if accepts_seed else factory()
    except (Exception, SystemExit) as err:  # the user's own code: report it in one line, whatever it raised
        raise AgentSpecError(f"{spec!r} could not be built: {type(err).__name__}: {_first_line(err)}") from None
    if not isinstance(agent, Agent):
        if not plays_like_an_agent(agent):  # a __new__ that returns something else
            raise AgentSpecError(f"{spec!r} made a {type(agent).__name__}, not an agent ({NOT_AN_AGENT})")
        return PlainAgent(agent, getattr(agent, "name", None) or attr)
    if agent.name == Agent.name:
        agent.name = attr
    return agent


def _first_line(err: BaseException, limit: int = 200) -> str:
    """An exception's message on one bounded line, for a command's one-line error."""
    text = str(err).strip().splitlines()
    return text[0][:limit] if text else ""


_BUILDERS: dict[SpecKind, Callable[[AgentSpec, int, bool], Agent]] = {
    SpecKind.BUILTIN: _builtin,
    SpecKind.WEIGHT_SET: _weight_set,
    SpecKind.NETWORK: _network,
    SpecKind.MODEL_FILE: _network,
    SpecKind.SEARCHER: _searcher,
    SpecKind.LANGUAGE_MODEL: _language_model,
    SpecKind.CODE: _imported,
    SpecKind.OBJECT: _python_object,
}
"""The builder of each kind of spec, given the parsed spec, the seed and whether the all-seeing search is allowed."""
