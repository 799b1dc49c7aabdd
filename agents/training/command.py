"""``python train.py``: flags generated from :class:`TrainingConfig`'s fields, turned into one config and trained.

Every field of the config, and of its sections (``pool``, ``native``, ``rllib``), is a flag of the same name
(``learning_rate`` is ``--learning-rate``, ``pool.p_heuristic`` is ``--p-heuristic``), typed by the field's type and
documented by the field's own docstring (read by ``docstring_parser``), so a setting and its flag cannot drift apart.
A flag left out takes the config's default (``--help`` shows each backend's where they differ); with ``--resume`` it
takes the run's own setting, and the flags given replace those. Every problem is one line and exit status 2,
before anything slow starts.
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

import docstring_parser

from agents.bots.spec import AgentSpec
from agents.training.core.config import (
    BACKENDS,
    BUDGET_FIELDS,
    DEFAULT_MINUTES,
    DEFAULTS,
    ConfigError,
    NativeSettings,
    PoolConfig,
    RllibSettings,
    TrainingConfig,
)
from agents.training.core.runs import RunSetupError
from gubs_env.engine.players import TableSizes
from gubs_env.support.cli import (
    CommandParser,
    add_progress_argument,
    non_negative_int,
    player_count,
    run_command,
)

PROG = "python train.py"
DESCRIPTION = """Train a Gubs bot with PPO: self-play from a fresh network (every seat its own current policy, no
hand-written bot, nothing imitated) for 10 minutes on 2-player tables, on the project's own learner (--backend native),
on stable-baselines3 (--backend sb3) or on Ray RLlib (--backend rllib, a local Ray or a cluster). The run ends with its
final figure against the heuristic, on deals no choice of the run used, and its gain over the policy it started from.
--init MODEL goes on from a trained network and keeps the end only if it beats the start."""
SECTIONS = {"pool": PoolConfig, "native": NativeSettings, "rllib": RllibSettings}
"""The config's sections, whose fields are flags too."""
SECTION_TITLES = {
    "": "the run",
    "pool": "the league: who plays the opponent seats",
    "native": "the native backend",
    "rllib": "the rllib backend",
}
RETIRED_FLAGS = {
    "--engine": "every backend trains on the compiled engine's self-play core",
    "--vec-env": "every backend trains on the compiled engine's self-play core",
    "--workers": "every backend trains on the compiled engine's self-play core",
    "--shaping": "score-margin shaping gained nothing, measured twice",
    "--rule-facts": "the rule facts were measured level with the plain observation and no shipped model reads them",
    "--average-from": "a run's tail is averaged by benchmarks/tail_average.py, which made the shipped means",
    "--from-scratch": "pure self-play from a fresh network is the default",
    "--seeds": "several seeds side by side are python -m agents.recipes.seeds --seeds ...",
    "--jobs": "several seeds side by side are python -m agents.recipes.seeds --seeds ... --jobs N",
    "--envs-per-runner": "it is --envs",
    "--minibatch-size": "it is --batch-size",
    "--magnet": "the average magnet measured level or lost against the recipe; the uniform one is --ent-coef",
}
"""Removed flags, each refused with a line saying why it went (CHANGELOG.md)."""


def flag_of(name: str) -> str:
    """The flag of a field: ``learning_rate`` is ``--learning-rate``."""
    return "--" + name.replace("_", "-")


def build_parser(
    prog: str = PROG, description: str | None = None, refused: Sequence[str] | None = None
) -> argparse.ArgumentParser:
    """The command line: the invocation's own flags, then one flag per field of the config and its sections.

    ``description`` defaults to train.py's; ``refused`` are the retired flags it answers with a line saying why they
    went (default: all of them; a command built on this one, as the recipes', may give some a meaning again).
    """
    description = DESCRIPTION if description is None else description
    parser = CommandParser(prog=prog, description=description, argument_default=argparse.SUPPRESS)
    invocation = parser.add_argument_group("this invocation")
    invocation.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the run folder; one that holds a run is refused without --resume (default: runs/gubs, or the first "
        "free of runs/gubs-2, -3, ...; with --resume: the run under runs/ saved last)",
    )
    invocation.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_argument(invocation)
    invocation.add_argument("--verbose", action="store_true", help="show Ray's start-up logging (rllib)")
    groups: dict[str, Any] = {}
    for setting in settings():
        if setting.section not in groups:
            groups[setting.section] = parser.add_argument_group(SECTION_TITLES[setting.section])
        options = {"metavar": setting.name.upper(), **argument_options(setting.hint)}
        if options.get("action") or options.get("choices"):
            options.pop("metavar")
        help_text = setting.documentation + ("" if "default:" in setting.documentation else f" ({setting.default})")
        groups[setting.section].add_argument(
            flag_of(setting.name), dest=setting.dest, help=help_text.replace("%", "%%"), **options
        )
    for retired in RETIRED_FLAGS if refused is None else refused:
        parser.add_argument(retired, nargs="*", action=_Retired, help=argparse.SUPPRESS)
    return parser


@dataclass(frozen=True)
class Setting:
    """One field of the config or of a section, as a flag and a row of docs/training.md's table."""

    section: str
    name: str
    hint: Any
    documentation: str
    default: str

    @property
    def dest(self) -> str:
        """The field as the parsed flags name it: ``learning_rate``, ``pool.p_heuristic``."""
        return f"{self.section}.{self.name}" if self.section else self.name


def settings() -> list[Setting]:
    """Every field of :class:`TrainingConfig` and of its sections, with its type, docstring and default text."""
    found = []
    for section, kind in [("", TrainingConfig), *SECTIONS.items()]:
        documented = {p.arg_name: p.description or "" for p in docstring_parser.parse_from_object(kind).params}
        hints = typing.get_type_hints(kind)
        for item in fields(kind):
            if item.name not in SECTIONS:
                text = " ".join(documented.get(item.name, "").split())
                found.append(Setting(section, item.name, hints[item.name], text, default_text(kind, item.name)))
    return found


def settings_table() -> str:
    """The settings as docs/training.md shows them: a Markdown table row per flag."""
    rows = ["| flag | field | what it sets |", "|---|---|---|"]
    for setting in settings():
        text = setting.documentation.replace("|", "\\|")
        if "default:" not in text:
            text += f" ({setting.default})"
        rows.append(f"| `{flag_of(setting.name)}` | `{setting.dest}` | {text} |")
    return "\n".join(rows) + "\n"


def argument_options(hint: Any) -> dict[str, Any]:
    """How argparse reads a field of this type: its converter, how many values, its choices."""
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return argument_options(AgentSpec if AgentSpec in args else args[0])
    if typing.get_origin(hint) is Literal:
        return {"choices": list(args)}
    if hint is TableSizes:
        return {"type": player_count, "nargs": "+", "metavar": "N"}
    if typing.get_origin(hint) is tuple:
        element = argument_options(args[0])
        return {**element, "nargs": "+"}
    if hint is bool:
        return {"action": argparse.BooleanOptionalAction}
    readers: dict[Any, dict[str, Any]] = {
        int: {"type": non_negative_int},
        float: {"type": float},
        str: {"type": str},
        Path: {"type": Path, "metavar": "FILE"},
        AgentSpec: {"type": str, "metavar": "SPEC"},
    }
    return readers[hint]


def default_text(kind: type, name: str) -> str:
    """``default: ...`` as ``--help`` shows it: the field's default, or each backend's where it leaves it to them.

    Where the backends differ, the value most of them take comes last: ``default: 4,096 on native, else 2,048``.
    """
    default = getattr(kind(), name)
    if name == "minutes":
        return f"default: {DEFAULT_MINUTES:g} when no budget is given"
    if kind is not TrainingConfig or default is not None:
        return f"default: {_shown(default)}"
    values = {backend: DEFAULTS[backend][name] for backend in BACKENDS if name in DEFAULTS[backend]}
    if not values:
        return "default: none"
    counts: dict[object, int] = {}
    for value in values.values():
        counts[value] = counts.get(value, 0) + 1
    common = max(counts, key=lambda value: counts[value])
    if len(counts) == 1:
        return f"default: {_shown(common)}"
    others = [f"{_shown(value)} on {backend}" for backend, value in values.items() if value != common]
    return f"default: {', '.join(others)}, else {_shown(common)}"


def _shown(value: object) -> str:
    """A default as ``--help`` shows it: ``3e-4``, ``0``, ``1,500``, ``256 256``."""
    if isinstance(value, float) and 0 < value < 0.01:
        return f"{value:.0e}".replace("e-0", "e-")
    if isinstance(value, bool) or value is None:
        return {True: "on", False: "off", None: "none"}[value]
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, tuple):
        return " ".join(_shown(v) for v in value) or "none"
    return str(value)


class _Retired(argparse.Action):
    """A retired flag: one line saying why it went (:data:`RETIRED_FLAGS`)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        flag = self.option_strings[0]
        parser.error(f"{flag} was removed: {RETIRED_FLAGS[flag]} (CHANGELOG.md); leave it out")


INVOCATION_FLAGS = ("out", "resume", "no_progress", "verbose")
"""The flags of one invocation, not of the run's config."""


def config_from_args(args: argparse.Namespace, stored: TrainingConfig | None = None) -> TrainingConfig:
    """The config the flags give: on top of ``stored`` (a resumed run's own config, its budget new), or the defaults.

    Raises:
        ConfigError: a combination of settings the config refuses.
    """
    given = {name: value for name, value in vars(args).items() if name not in INVOCATION_FLAGS}
    fresh_budget: dict[str, Any] = dict.fromkeys(BUDGET_FIELDS)
    base = TrainingConfig() if stored is None else replace(stored, **fresh_budget)
    if stored is not None and given.get("backend", stored.backend) != stored.backend:
        raise ConfigError(f"the run is a {stored.backend} run: it resumes on the {stored.backend} backend only")
    changes: dict[str, Any] = {name: value for name, value in given.items() if "." not in name}
    for section in SECTIONS:
        prefix = section + "."
        values = {name.removeprefix(prefix): value for name, value in given.items() if name.startswith(prefix)}
        if values:
            changes[section] = replace(getattr(base, section), **values)
    return replace(base, **changes)


@dataclass(frozen=True)
class Invocation:
    """What one command line asks for: the run's config and how this invocation runs it."""

    config: TrainingConfig
    out: Path | None
    resume: bool
    progress: bool
    verbose: bool


def parse(argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None) -> Invocation:
    """The command line as an :class:`Invocation`; a resumed run's own config is read (and checked) here.

    A bad command line, a run that cannot be resumed or a setting the config refuses exits with status 2 and one
    line. ``parser``: :func:`build_parser`'s, or one with more flags (the recipes' commands add theirs).
    """
    from agents.training.loop import choose_out, load_state, stored_config

    parser = parser or build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    resume, out = getattr(args, "resume", False), getattr(args, "out", None)
    try:
        stored = None
        if resume:
            out, _ = choose_out(out, True)
            stored = stored_config(load_state(out), out)
        config = config_from_args(args, stored)
    except (ConfigError, RunSetupError) as error:
        parser.error(str(error))
    progress, verbose = not getattr(args, "no_progress", False), getattr(args, "verbose", False)
    return Invocation(config, out, resume, progress, verbose)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags into a config, train, report; a bad command line or a run that cannot start exits 2."""
    from agents.training.loop import train

    invocation = parse(argv)
    try:
        train(
            invocation.config,
            out=invocation.out,
            resume=invocation.resume,
            progress=invocation.progress,
            verbose=invocation.verbose,
        )
    except (ConfigError, RunSetupError) as error:
        build_parser().error(str(error))
    return 0


def script() -> int:
    """The console script ``gubs-train`` (and ``python train.py``)."""
    return run_command(main)


if __name__ == "__main__":
    sys.exit(script())
