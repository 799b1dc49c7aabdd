"""Agents by name, so commands and worker processes can build them from plain strings.

A spec is one of:

- ``random`` or ``heuristic``: the baseline agents; ``heuristic-tuned``: the heuristic with the weights its
  tuning found (:mod:`agents.training.tune_heuristic`); a path to a ``.json`` weight set: the heuristic with those
  weights (:mod:`agents.bots.heuristic.weights_file`, read as data);
- ``gubs-net`` (one network for every table size from 2 to 6), ``ppo-2p`` or ``ppo-4p`` (each trained at one
  size): the shipped models (``gubs-net:sample`` samples from the policy instead of taking its most likely action);
- a path to a model file: a ``MaskablePPO.save`` archive (``runs/gubs/model.zip``) or a weights-only ``.npz``
  (``:sample`` allowed too), read by :func:`agents.bots.model_file.load_policy`, which runs nothing the file holds;
- ``search`` or ``search:worlds=64,top=4,z=1,base=gubs-net``: the search bot with its settings
  (:class:`~agents.bots.search.SearchSettings`); ``search-all-seeing:...`` is the same search on the true position,
  built only where the caller allows it (measurements, never play against people);
- ``ismcts`` or ``ismcts:iterations=2000,c=0.5``: information-set Monte Carlo tree search
  (:class:`~agents.bots.search.ISMCTSSettings`);
- ``package.module:ClassName``: any importable :class:`~agents.bots.base.Agent` subclass, called with
  ``seed=`` when it accepts one. Anything else the name finds (a function such as ``sys:exit``, a module, a
  class of another kind) is refused before it is called.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from agents.bots.base import Agent
from agents.bots.names import ALL_SEEING, BUILTIN, ISMCTS, SEARCHES, TUNED

SAMPLE_SUFFIX = ":sample"
MODEL_SUFFIXES = (".zip", ".npz")
"""Specs ending so are model file paths."""
WEIGHTS_SUFFIX = ".json"
"""Specs ending so are paths of heuristic weight sets."""


class AgentSpecError(ValueError):
    """A spec that names no agent."""


def make_agent(spec: str, seed: int = 0, *, allow_all_seeing: bool = False) -> Agent:
    """Build the agent ``spec`` names (see the module docstring), seeded with ``seed``.

    ``allow_all_seeing`` admits the all-seeing search, which reads every hidden card: only measurements set it.

    Raises:
        AgentSpecError: the spec names nothing that can be built (with the reason).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec is a non-empty string, not {spec!r}")
    spec = spec.strip()
    if spec == "random":
        from agents.bots.random_agent import RandomAgent

        return RandomAgent(seed)
    if spec == "heuristic":
        from agents.bots.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if spec == TUNED or spec.endswith(WEIGHTS_SUFFIX):
        return _weighted_heuristic(spec, seed)
    name, _, settings = spec.partition(":")
    if name in SEARCHES:
        return _search(name, settings, seed, allow_all_seeing, spec)
    sample = spec.endswith(SAMPLE_SUFFIX)
    base = spec.removesuffix(SAMPLE_SUFFIX)
    if _names_model(base):
        return _ppo(base, sample, seed, spec)
    if names_code(spec):
        return _imported(spec, seed)
    raise AgentSpecError(
        f"unknown agent {spec!r}: use {', '.join(BUILTIN)}, a path to a .zip or .npz model or a .json heuristic "
        "weight set, or an importable module:Class"
    )


def names_code(spec: str) -> bool:
    """Whether :func:`make_agent` would import a module for ``spec`` (the ``package.module:ClassName`` form).

    What a file says is data: a spec read from a file (a run's ``run.json``) must not be one of these.
    """
    spec = spec.strip()
    name = spec.partition(":")[0]
    base = spec.removesuffix(SAMPLE_SUFFIX)
    return ":" in spec and name not in SEARCHES and not _names_model(base) and not spec.endswith(WEIGHTS_SUFFIX)


def _names_model(base: str) -> bool:
    """Whether a spec without ``:sample`` names a shipped model (or a misspelt ``ppo-`` one) or a model file."""
    from agents.bots.ppo import SHIPPED_SPECS

    return base in SHIPPED_SPECS or base.startswith("ppo-") or base.endswith(MODEL_SUFFIXES)


def _search(name: str, settings: str, seed: int, allow_all_seeing: bool, spec: str) -> Agent:
    from agents.bots.search import AllSeeingSearchAgent, ISMCTSAgent, ISMCTSSettings, SearchAgent, SearchSettings

    if name == ALL_SEEING and not allow_all_seeing:
        raise AgentSpecError(
            f"{ALL_SEEING} reads every hidden card: it is for measurements (python -m agents.evaluate.ladder), "
            "not for play"
        )
    try:
        if name == ISMCTS:
            agent: Agent = ISMCTSAgent(seed, ISMCTSSettings.parse(settings) if settings else None)
        else:
            searcher = AllSeeingSearchAgent if name == ALL_SEEING else SearchAgent
            agent = searcher(seed, SearchSettings.parse(settings) if settings else None)
    except ValueError as err:  # a setting the spec gets wrong
        raise AgentSpecError(f"{spec[:60]!r}: {err}") from None
    agent.name = spec
    return agent


def _weighted_heuristic(spec: str, seed: int) -> Agent:
    """The heuristic with the shipped tuned weights (``heuristic-tuned``) or a weight set file's."""
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.heuristic.weights_file import SHIPPED, WeightsFileError, load_weights

    path = SHIPPED if spec == TUNED else Path(spec)
    if spec != TUNED and not path.exists():
        raise AgentSpecError(f"no heuristic weight set at {spec}")
    try:
        tables = load_weights(path)
    except WeightsFileError as err:
        raise AgentSpecError(str(err)) from None
    agent = HeuristicAgent(seed, tables)
    agent.name = spec
    return agent


def _ppo(base: str, sample: bool, seed: int, spec: str) -> Agent:
    from agents.bots.model_file import ModelFileError
    from agents.bots.ppo import SHIPPED_SPECS, PPOAgent

    if not base.endswith(MODEL_SUFFIXES):
        if base not in SHIPPED_SPECS:
            raise AgentSpecError(f"unknown shipped model {base!r}; shipped: {', '.join(SHIPPED_SPECS)}")
        agent = PPOAgent.pretrained(SHIPPED_SPECS[base], deterministic=not sample)
    else:
        if not Path(base).exists():
            raise AgentSpecError(f"no model file at {base}")
        try:
            agent = PPOAgent.load(base, deterministic=not sample, name=Path(base).stem)
        except (ModelFileError, OSError) as err:  # a file that cannot be read safely is a spec naming no agent
            raise AgentSpecError(str(err)) from None
    agent.name = spec
    agent.reset(seed)
    return agent


def _imported(spec: str, seed: int) -> Agent:
    module_name, _, attr = spec.partition(":")
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
    # only an Agent subclass is called: calling whatever the name finds could do anything (sys:exit ends the
    # command with status 0, os:abort kills it)
    if not (inspect.isclass(factory) and issubclass(factory, Agent)):
        raise AgentSpecError(f"{spec!r} is not a subclass of agents.bots.base.Agent")
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
    if not isinstance(agent, Agent):  # a __new__ that returns something else
        raise AgentSpecError(f"{spec!r} made a {type(agent).__name__}, not an agents.bots.base.Agent")
    if agent.name == Agent.name:
        agent.name = attr
    return agent


def _first_line(err: BaseException, limit: int = 200) -> str:
    """An exception's message on one bounded line, for a command's one-line error."""
    text = str(err).strip().splitlines()
    return text[0][:limit] if text else ""
