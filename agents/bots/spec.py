"""Agent specs: the text that names a bot, parsed once into an :class:`AgentSpec`.

Every command, run file and worker process names its bots by a spec; this module is the one place that reads
one. A spec (surrounding whitespace ignored) is one of:

=====================================  ============  ===================================================================
spec                                   kind          the agent
=====================================  ============  ===================================================================
``random``, ``heuristic``              BUILTIN       the baseline agents
``heuristic-tuned``                    BUILTIN       the heuristic with the weights its tuning found
                                                     (:mod:`agents.recipes.tune_heuristic`)
``path/to/weights.json``               WEIGHT_SET    the heuristic with that weight set
                                                     (:mod:`agents.bots.heuristic.weights_file`, read as data)
``gubs-net``, ``ppo-2p``, ``ppo-4p``   NETWORK       a shipped network (gubs-net: one for every table size from 2 to 6;
``selfplay-2p``, ``selfplay-4p``                     the others each trained at one size, the selfplay ones by pure
                                                     self-play from scratch); ``NAME:sample`` samples from the policy
                                                     instead of taking its most likely action
``runs/x/model.zip``, ``policy.npz``   MODEL_FILE    a ``MaskablePPO.save`` archive or a weights-only file, read by
                                                     :func:`agents.bots.model_file.load_policy` (which runs nothing the
                                                     file holds); ``PATH:sample`` samples
``search``, ``search:worlds=64,...``   SEARCHER      the search bot with its settings
                                                     (:class:`~agents.bots.search.SearchSettings`)
``search-all-seeing[:...]``            SEARCHER      the same search on the true position: built only where the
                                                     caller allows it (measurements, never play against people)
``ismcts``, ``ismcts:iterations=2000`` SEARCHER      information-set MCTS (:class:`~agents.bots.search.ISMCTSSettings`)
``llm:model=NAME,base_url=URL,...``    LANGUAGE_     a chat model behind an OpenAI-compatible server, with the prompt's
                                       MODEL         settings (:class:`~agents.bots.llm.LLMSettings`; docs/llm.md)
``package.module:ClassName``           CODE          any importable :class:`~agents.bots.base.Agent` subclass, called
                                                     with ``seed=`` when it accepts one
=====================================  ============  ===================================================================

A spec whose text before its first colon is a search name (or ``llm``) is a search (or language-model) spec,
whatever follows; any other is a path only when it ends in ``.json``, or in ``.zip`` or ``.npz`` (before any
``:sample``, which is refused after anything but a network), and ``module:Class`` when it holds a colon and is none
of the above (the module dotted Python names, the class one). A spec holds printable characters only, at most
:data:`MAX_SPEC_LENGTH` of them.

From Python an agent may also be given as itself: :meth:`AgentSpec.of` takes an :class:`~agents.bots.base.Agent`
subclass or instance (:meth:`AgentSpec.for_python`); such a spec's text is the agent's name, and it is never
read from a file.

A training run's folder stands for its final model: text that matches none of the forms above and names a folder
holding ``policy.npz`` (``python train.py``'s run) or ``model.zip`` (an earlier version's sb3 run) parses as that
file's spec, so ``runs/gubs`` means ``runs/gubs/policy.npz``.

Parsing checks the form only (a run folder's test of which file it holds aside): a search's settings are validated
here (once), but no file is opened and no module imported. :func:`agents.bots.registry.make_agent` builds the agent,
and is where a missing file, a module that does not import or a class that is not an agent is reported. A spec read
from a file (a run's ``run.json``) is data: check :attr:`AgentSpec.names_code` before building it, since building a
``module:Class`` spec imports the module.

Canonical form and equality: ``str(spec)`` is the spec's canonical text and ``AgentSpec.parse(str(spec)) == spec``.
A search's settings are kept as the values that differ from the defaults, in the settings' own field order, so two
specs are equal exactly when they build the same agent: ``search:top=4,worlds=64`` equals ``search:worlds=64,top=4``
(canonically ``search:worlds=64,top=4``), ``search:worlds=512`` equals ``search`` and ``search:z=2.50`` equals
``search``. Paths are compared as written (``./a.zip`` and ``a.zip`` differ): resolving them would read the disk.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.bots.names import (
    ALL_SEEING,
    BUILTIN,
    CATALOGUE,
    CEILINGS,
    ISMCTS,
    LLM,
    NETWORKS,
    SEARCH,
    SEARCHES,
    SELFPLAY_SEARCH,
    TUNED,
    WITH_SETTINGS,
)

if TYPE_CHECKING:
    from agents.bots.llm.settings import LLMSettings
    from agents.bots.settings import Settings

SAMPLE_SUFFIX = ":sample"
"""After a network's spec: sample from its policy instead of taking its most likely action."""
WEIGHT_SET_SUFFIX = ".json"
"""Specs ending so are paths of heuristic weight sets."""
POLICY_FILE_SUFFIX = ".npz"
"""The extension of :mod:`agents.bots.model_file`'s weights-only format (files are told apart by their contents)."""
MODEL_FILE_SUFFIXES = (".zip", POLICY_FILE_SUFFIX)
"""Specs ending so (before any ``:sample``) are model file paths."""
BUILTIN_NAMES = ("random", "heuristic", TUNED)
"""The built-in agents that are neither networks nor searches."""
MAX_SPEC_LENGTH = 4096
"""Longest spec read: room for any path (Linux's PATH_MAX), far below what would make a message unwieldy."""
_QUOTED = 60
"""Characters of a spec that an error message repeats."""


class AgentSpecError(ValueError):
    """A spec that names no agent (the message, one line, says why)."""


class SpecKind(enum.Enum):
    """What a spec names (see the module docstring's table)."""

    BUILTIN = "built-in"
    WEIGHT_SET = "weight set"
    NETWORK = "network"
    MODEL_FILE = "model file"
    SEARCHER = "searcher"
    LANGUAGE_MODEL = "language model"
    CODE = "code"
    OBJECT = "python object"
    """An :class:`~agents.bots.base.Agent` instance, or a subclass no other process can import, given in Python."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec (see the module docstring); build one with :meth:`parse` or :meth:`of`.

    Attributes:
        kind: what the spec names.
        name: the built-in, network, search or ``llm`` name; the path as written for a weight set or model file; the
            whole ``module:Class`` for code.
        sample: sample from a network's policy (``:sample``); False for every other kind.
        settings: a search's or language model's settings that differ from their defaults, as ``(name, value text)``
            pairs in the settings' field order (empty for every other kind).
    """

    kind: SpecKind
    name: str
    sample: bool = False
    settings: tuple[tuple[str, str], ...] = ()
    python: Any = field(default=None, compare=False, repr=False)
    """The agent or class an :attr:`SpecKind.OBJECT` spec stands for (None for every other kind)."""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """The spec ``text`` names, surrounding whitespace ignored.

        Raises:
            AgentSpecError: ``text`` is not a non-empty string of printable characters within
                :data:`MAX_SPEC_LENGTH`, or names nothing the grammar knows (a one-line message says why).
        """
        text = _checked_text(text)
        if text in BUILTIN_NAMES:
            return cls(SpecKind.BUILTIN, text)
        head, colon, rest = text.partition(":")
        if head in SEARCHES:
            return cls(SpecKind.SEARCHER, head, settings=_canonical_settings(head, rest, text) if colon else ())
        if head == LLM:
            return cls(SpecKind.LANGUAGE_MODEL, head, settings=_canonical_settings(head, rest, text))
        if text.endswith(WEIGHT_SET_SUFFIX):
            return cls(SpecKind.WEIGHT_SET, text)
        base = text.removesuffix(SAMPLE_SUFFIX)
        network = _network(base)
        if network is not None:
            return cls(network, base, sample=base != text)
        if base != text:
            raise AgentSpecError(
                f"{_quoted(text)}: only a network samples ({SAMPLE_SUFFIX} follows a shipped network or a .zip or "
                ".npz model file)"
            )
        if colon:
            return cls(SpecKind.CODE, _checked_code(head, rest, text))
        final = _final_model(text)
        if final is not None:
            return cls(SpecKind.MODEL_FILE, str(final))
        raise AgentSpecError(
            f"unknown agent {_quoted(text)}: use {', '.join(BUILTIN)}, a path to a .zip or .npz model or a "
            ".json heuristic weight set, a training run's folder, or an importable module:Class"
        )

    @classmethod
    def of(cls, value: AgentSpec | str | Any) -> AgentSpec:
        """``value`` as a spec: itself if parsed, an agent or agent class by :meth:`for_python`, text by :meth:`parse`.

        Raises:
            AgentSpecError: as :meth:`parse`.
        """
        if isinstance(value, AgentSpec):
            return value
        if not isinstance(value, str) and _is_agent(value):
            return cls.for_python(value)
        return cls.parse(value)

    @classmethod
    def for_python(cls, value: Any) -> AgentSpec:
        """The spec of an :class:`~agents.bots.base.Agent` subclass or instance given in Python (a notebook's).

        A class that another process can import (its module is not ``__main__`` and names it) becomes its
        ``module:Class`` spec, so tournaments play it in parallel; any other class, and every instance, is an
        :attr:`SpecKind.OBJECT` spec named by the agent's ``name`` (else its class), which plays in this process
        (an instance is copied for every seat).

        Raises:
            AgentSpecError: ``value`` is neither.
        """
        if not _is_agent(value):
            raise AgentSpecError(f"not an agent: {_quoted(repr(value))} ({NOT_AN_AGENT})")
        if isinstance(value, type):
            module, qualname = value.__module__, value.__qualname__
            if module != "__main__" and getattr(sys.modules.get(module), qualname, None) is value:
                return cls.parse(f"{module}:{qualname}")
            return cls(SpecKind.OBJECT, _own_name(value, qualname), python=value)
        return cls(SpecKind.OBJECT, _own_name(value, type(value).__qualname__), python=value)

    @classmethod
    def for_model_file(cls, path: str | Path, sample: bool = False) -> AgentSpec:
        """The spec of the model file at ``path`` (a ``.zip`` or ``.npz``; nothing is read here).

        Raises:
            AgentSpecError: ``path`` is not a model file's name, or not a path a spec can hold.
        """
        spec = cls.parse(str(path) + (SAMPLE_SUFFIX if sample else ""))
        if spec.kind is not SpecKind.MODEL_FILE:
            raise AgentSpecError(f"{_quoted(str(path))} is not a model file (a .zip or .npz)")
        return spec

    def __str__(self) -> str:
        """The canonical spec text: :meth:`parse` of it gives back an equal spec (an object's spec: its name)."""
        if self.settings:
            return f"{self.name}:{','.join(f'{key}={value}' for key, value in self.settings)}"
        return self.name + (SAMPLE_SUFFIX if self.sample else "")

    @property
    def names_code(self) -> bool:
        """Whether building this spec imports a module (``package.module:ClassName``): never for a spec from a file."""
        return self.kind is SpecKind.CODE

    @property
    def is_search(self) -> bool:
        """Whether this is the search bot (``search`` or one of its ceilings), not ``ismcts``.

        The search bot corrects a base policy and gives the base's choice beside its own
        (:meth:`~agents.bots.search.SearchAgent.decide`); any searcher is ``kind is SpecKind.SEARCHER``.
        """
        return self.kind is SpecKind.SEARCHER and self.name in (SEARCH, SELFPLAY_SEARCH, *CEILINGS)

    @property
    def is_ceiling(self) -> bool:
        """Whether this is a search that reads hidden cards (``search-hands-seeing``, ``search-all-seeing``).

        Such a search measures a ceiling; it is built only where the caller allows it (measurements).
        """
        return self.kind is SpecKind.SEARCHER and self.name in CEILINGS

    @property
    def reads_the_deck(self) -> bool:
        """Whether this agent decides from cards of the deck no player has seen (``search-all-seeing``).

        Its luck cannot be measured: its choices depend on the chance outcomes the luck adjustment averages over.
        """
        return self.kind is SpecKind.SEARCHER and self.name == ALL_SEEING

    @property
    def path(self) -> Path | None:
        """The file a weight-set or model-file spec names, as written; None for other kinds."""
        return Path(self.name) if self.kind in (SpecKind.WEIGHT_SET, SpecKind.MODEL_FILE) else None

    @property
    def model_file(self) -> Path | None:
        """The network's file: a shipped network's in ``agents/bots/models``, or a model-file spec's path.

        None for the kinds that play no network of their own (a search's base network is a setting).
        """
        if self.kind is SpecKind.NETWORK:
            return CATALOGUE[self.name].path
        return self.path if self.kind is SpecKind.MODEL_FILE else None

    @property
    def code(self) -> tuple[str, str] | None:
        """The module and the class name of a ``module:Class`` spec; None for other kinds."""
        if self.kind is not SpecKind.CODE:
            return None
        module, _, attribute = self.name.partition(":")
        return module, attribute

    @property
    def search_settings(self) -> Settings | None:
        """A searcher's settings (defaults where the spec gives none); None for other kinds."""
        if self.kind is not SpecKind.SEARCHER:
            return None
        settings_class = _settings_class(self.name)
        given = ",".join(f"{key}={value}" for key, value in self.settings)
        return settings_class.parse(given) if given else settings_class()

    @property
    def llm_settings(self) -> LLMSettings | None:
        """A language model's settings (:class:`~agents.bots.llm.LLMSettings`); None for other kinds."""
        if self.kind is not SpecKind.LANGUAGE_MODEL:
            return None
        from agents.bots.llm.settings import LLMSettings

        return LLMSettings.parse(",".join(f"{key}={value}" for key, value in self.settings))

    @property
    def short_name(self) -> str:
        """A label for crowded places (a plot's axis).

        The class of a ``module:Class`` spec, the file name of a path (with ``:sample``), ``llm:`` and the model of a
        language model, else the canonical text.
        """
        if self.code is not None:
            return self.code[1]
        if self.kind is SpecKind.LANGUAGE_MODEL:
            return f"{LLM}:{dict(self.settings).get('model', '')}"
        if self.path is not None:
            return self.path.name + (SAMPLE_SUFFIX if self.sample else "")
        return str(self)


def parse_distinct(values: Iterable[AgentSpec | str], what: str = "agent") -> list[AgentSpec]:
    """Every spec of ``values`` parsed, in order, when none is given twice (compared as parsed values).

    Args:
        values: specs as text or parsed.
        what: the word for one of them in the message (``agent``, ``bot``).

    Raises:
        AgentSpecError: a spec names no agent, or two name the same one (``search`` and ``search:worlds=512``).
    """
    specs = [AgentSpec.of(value) for value in values]
    repeated = sorted({str(spec) for spec in specs if specs.count(spec) > 1})
    if repeated:
        raise AgentSpecError(f"each {what} may be given once; repeated: {', '.join(repeated)}")
    return specs


def index_of(value: AgentSpec | str, specs: Sequence[AgentSpec]) -> int | None:
    """Where the spec ``value`` is among ``specs``, compared parsed; None when absent or naming no agent at all."""
    try:
        spec = AgentSpec.of(value)
    except AgentSpecError:
        return None
    return specs.index(spec) if spec in specs else None


def parse_list(text: str) -> list[AgentSpec]:
    """The specs of a comma-separated list (``heuristic,search:worlds=64,top=4,gubs-net``), see :func:`split_list`.

    Raises:
        AgentSpecError: the list or one of its specs names no agent (an empty part included).
    """
    return [AgentSpec.parse(part) for part in split_list(text)]


def split_list(text: str) -> list[str]:
    """The spec texts of a comma-separated list, each stripped, none parsed yet.

    A search's (or language model's) settings are themselves separated by commas, so a part shaped ``name=value``
    continues the spec before it (``search:worlds=64,top=4``); any other part starts a new spec (an empty one
    included).

    Raises:
        AgentSpecError: ``text`` is not a string a spec list can be (see :meth:`AgentSpec.parse`).
    """
    parts: list[str] = []
    for part in _checked_text(text).split(","):
        if parts and _continues_search(parts[-1], part):
            parts[-1] += "," + part.strip()
        else:
            parts.append(part.strip())
    return parts


def _continues_search(previous: str, part: str) -> bool:
    """Whether ``part`` of a list is one more setting of the spec before it (``top=4`` after ``search:z=1``)."""
    name, equals, _ = part.partition("=")
    head, colon, _ = previous.strip().partition(":")
    return bool(equals and colon) and head in WITH_SETTINGS and name.strip().isidentifier()


def spec_forms() -> str:
    """Every form a spec takes, in a few words: what each command's help lists after its own text."""
    networks = ", ".join(NETWORKS)
    return (
        f"{', '.join(BUILTIN_NAMES)}; a shipped network ({networks}; add {SAMPLE_SUFFIX} to sample its policy); "
        f"{', '.join(SEARCHES[:2])} or {ISMCTS} (settings after a colon: search:worlds=64,top=4); "
        f"{LLM}:model=NAME,base_url=URL,... (a chat model behind an OpenAI-compatible server, docs/llm.md); a .zip or "
        ".npz model file or a training run's folder; a .json heuristic weight set; or package.module:Class"
    )


NOT_AN_AGENT = (
    "an agent is a spec (text such as 'heuristic' or 'my_module:MyAgent'), or an object or class with "
    "act(observation, action_mask, game=None) returning a legal action id"
)
"""What a value given as an agent must be, as the one-line errors say it."""


def _checked_text(text: object) -> str:
    """``text`` stripped, once it is a string a spec can be: non-empty, bounded, printable."""
    if not isinstance(text, str):
        raise AgentSpecError(f"not an agent: {_quoted(repr(text))} ({NOT_AN_AGENT})")
    text = text.strip()
    if not text:
        raise AgentSpecError("an agent spec is a non-empty string, not ''")
    if len(text) > MAX_SPEC_LENGTH:
        raise AgentSpecError(f"an agent spec is at most {MAX_SPEC_LENGTH:,} characters, not {len(text):,}")
    if not text.isprintable():  # control characters, NUL, line breaks: nothing a name or path should hold
        raise AgentSpecError(f"an agent spec holds printable characters only, not {_quoted(text)}")
    return text


def _own_name(value: Any, fallback: str) -> str:
    """An agent's (or agent class's) own ``name`` as a spec's text, else ``fallback`` (its class's name)."""
    from agents.bots.base import Agent

    name = getattr(value, "name", None)
    return _checked_text(name if isinstance(name, str) and name.strip() not in ("", Agent.name) else fallback)


def _is_agent(value: Any) -> bool:
    """Whether ``value`` is an agent or an agent class.

    That is an :class:`~agents.bots.base.Agent`, or any object or class with ``act(observation, action_mask,
    game=None)`` (:func:`~agents.bots.base.plays_like_an_agent`).
    """
    from agents.bots.base import plays_like_an_agent

    return plays_like_an_agent(value)


def _quoted(text: str) -> str:
    """``text`` quoted for a message, cut short when long."""
    return repr(text[:_QUOTED]) + ("..." if len(text) > _QUOTED else "")


FINAL_POLICY = "policy.npz"
"""The file of a training run's final actor (weights only), in its run folder."""
FINAL_MODEL = "model.zip"
"""The file of an earlier version's sb3 run's final model, in its run folder."""
RUN_MODELS = (FINAL_POLICY, FINAL_MODEL)
"""A run folder's final model, by the file name a trainer gave it (today's first)."""


def _final_model(text: str) -> Path | None:
    """The final model in the run folder ``text`` names; None when it names no folder.

    Raises:
        AgentSpecError: a folder that holds no final model (a run that has not ended, or no run).
    """
    folder = Path(text)
    try:
        if not folder.is_dir():
            return None
        found = [folder / name for name in RUN_MODELS if (folder / name).is_file()]
    except OSError:  # a name the system refuses (too long, a loop): no folder
        return None
    if not found:
        raise AgentSpecError(
            f"{_quoted(text)} is a folder without a final model ({' or '.join(RUN_MODELS)}): a run writes it when it "
            "ends; name one of its snapshots (snapshots/step_<timesteps>.zip) instead"
        )
    return found[0]


def _network(base: str) -> SpecKind | None:
    """NETWORK or MODEL_FILE when ``base`` (the spec without ``:sample``) names a network; None otherwise.

    Raises:
        AgentSpecError: ``base`` looks like a shipped network's name (``ppo-...``) but is none of them.
    """
    if base.endswith(MODEL_FILE_SUFFIXES):
        return SpecKind.MODEL_FILE
    if base in NETWORKS:
        return SpecKind.NETWORK
    if base.startswith("ppo-"):
        raise AgentSpecError(f"unknown shipped model {_quoted(base)}; shipped: {', '.join(NETWORKS)}")
    return None


def _settings_class(name: str) -> type[Settings]:
    """The settings class of the searcher (or the language model) ``name``."""
    if name == LLM:
        from agents.bots.llm.settings import LLMSettings

        return LLMSettings
    from agents.bots.search import ISMCTSSettings, SearchSettings, SelfPlaySearchSettings

    return {ISMCTS: ISMCTSSettings, SELFPLAY_SEARCH: SelfPlaySearchSettings}.get(name, SearchSettings)


def _canonical_settings(name: str, text: str, spec: str) -> tuple[tuple[str, str], ...]:
    """The canonical settings of ``name`` (a searcher, or ``llm``) from ``text`` (``worlds=64,top=4``).

    Empty ``text`` gives the defaults, which a language model does not have: it needs its model.

    Raises:
        AgentSpecError: a setting is unknown, given twice, missing, or out of its bounds (the settings class says
            which).
    """
    settings_class = _settings_class(name)
    try:
        settings = settings_class.parse(text) if text.strip() else settings_class()
    except ValueError as err:
        raise AgentSpecError(f"{_quoted(spec)}: {err}") from None
    return tuple(
        (f.name, _setting_text(getattr(settings, f.name)))
        for f in fields(settings)
        if getattr(settings, f.name) != f.default
    )


def _setting_text(value: float | int | str) -> str:
    """A setting's value as canonical text that parses back to the same value (whole floats without ``.0``)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _checked_code(module: str, attribute: str, spec: str) -> str:
    """``module:attribute``, once both are names Python could import (nothing is imported here).

    Raises:
        AgentSpecError: the module is empty, relative or not dotted identifiers, or the attribute is no identifier.
    """
    if not all(part.isidentifier() for part in module.split(".")):
        raise AgentSpecError(f"cannot import {_quoted(module)} for agent {_quoted(spec)}: not an absolute module name")
    if not attribute.isidentifier():
        raise AgentSpecError(f"{_quoted(spec)}: {_quoted(attribute)} is not a class name")
    return f"{module}:{attribute}"
