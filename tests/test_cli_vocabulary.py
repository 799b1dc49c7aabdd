"""One command-line vocabulary across every command (docs/cli.md): names, meanings and defaults.

Every command's parser is built here (nothing is played or trained) and checked against the rules of
docs/cli.md: each option's ``--help`` shows its default, no help text carries reST markup, a concept has one flag
in every command (and its synonyms none), ``--jobs`` and ``--no-progress`` read alike everywhere, ``--out`` is a
folder; the console scripts resolve; a command asked for nothing exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from gubs_env.support import cli

ROOT = Path(__file__).resolve().parents[1]

COMMANDS: dict[str, tuple[str, str]] = {
    "python train.py": ("agents.training.command", "build_parser"),
    "python -m agents.evaluate": ("agents.evaluate.command", "build_parser"),
    "python -m agents.evaluate.audit": ("agents.evaluate.audit", "build_parser"),
    "python -m agents.evaluate.ladder": ("agents.evaluate.ladder", "build_parser"),
    "python -m agents.evaluate.luck": ("agents.evaluate.luck.__main__", "build_parser"),
    "python -m agents.evaluate.search_gap": ("agents.evaluate.search_gap", "build_parser"),
    "python -m agents.evaluate.select": ("agents.evaluate.select", "build_parser"),
    "python -m agents.play": ("agents.play.table", "build_parser"),
    "python -m agents.recipes.expert": ("agents.recipes.expert.labels", "build_parser"),
    "python -m agents.recipes.search_nets": ("agents.recipes.search_nets.fitting", "build_parser"),
    "python -m agents.recipes.search_nets.playout": ("agents.recipes.search_nets.playout", "build_parser"),
    "python -m agents.recipes.tune_heuristic": ("agents.recipes.tune_heuristic.tuning", "build_parser"),
    "python -m agents.recipes.seeds": ("agents.recipes.seeds", "build_parser"),
    "python -m gubs_env.demo": ("gubs_env.demo", "build_parser"),
    "python -m gubs_env.encoding.action_table": ("gubs_env.encoding.action_table", "build_parser"),
    "python -m gubs_env.encoding.observation": ("gubs_env.encoding.observation", "build_parser"),
    "python -m gubs_env.replay": ("gubs_env.replay", "build_parser"),
    "python -m gubs_env.viz": ("gubs_env.viz.svg", "build_parser"),
    "python -m examples.cleanrl_ppo": ("examples.cleanrl_ppo", "build_parser"),
    "python benchmarks/engine_speed.py": ("benchmarks.engine_speed", "build_parser"),
    "python benchmarks/heuristic_speed.py": ("benchmarks.heuristic_speed", "build_parser"),
    "python benchmarks/hold_ratio.py": ("benchmarks.hold_ratio", "build_parser"),
    "python benchmarks/tail_average.py": ("benchmarks.tail_average", "build_parser"),
    "python benchmarks/screen_curves.py": ("benchmarks.screen_curves", "build_parser"),
    "python benchmarks/luck_cost.py": ("benchmarks.luck_cost", "build_parser"),
    "python benchmarks/luck_coverage.py": ("benchmarks.luck_coverage", "build_parser"),
    "python benchmarks/luck_history.py": ("benchmarks.luck_history", "build_parser"),
    "python benchmarks/sequential_coverage.py": ("benchmarks.sequential_coverage", "build_parser"),
    "python benchmarks/rllib_throughput.py": ("benchmarks.rllib_throughput", "build_parser"),
    "python benchmarks/sb3_throughput.py": ("benchmarks.sb3_throughput", "build_parser"),
    "python benchmarks/selfplay_levers.py": ("benchmarks.selfplay_levers", "build_parser"),
    "python benchmarks/world_sampler.py": ("benchmarks.world_sampler", "build_parser"),
}
"""Every command: its name (as its usage line shows it) and where its parser is built."""

ENTRY_FILES: dict[str, str | None] = {
    "train.py": "python train.py",
    "agents/training/command.py": "python train.py",
    "agents/evaluate/__main__.py": "python -m agents.evaluate",
    "agents/evaluate/audit.py": "python -m agents.evaluate.audit",
    "agents/evaluate/ladder.py": "python -m agents.evaluate.ladder",
    "agents/evaluate/luck/__main__.py": "python -m agents.evaluate.luck",
    "agents/evaluate/search_gap.py": "python -m agents.evaluate.search_gap",
    "agents/evaluate/select.py": "python -m agents.evaluate.select",
    "agents/play/__main__.py": "python -m agents.play",
    "agents/recipes/expert/__main__.py": "python -m agents.recipes.expert",
    "agents/recipes/search_nets/__main__.py": "python -m agents.recipes.search_nets",
    "agents/recipes/search_nets/playout.py": "python -m agents.recipes.search_nets.playout",
    "agents/recipes/tune_heuristic/__main__.py": "python -m agents.recipes.tune_heuristic",
    "agents/recipes/seeds.py": "python -m agents.recipes.seeds",
    "gubs_env/demo.py": "python -m gubs_env.demo",
    "gubs_env/encoding/action_table.py": "python -m gubs_env.encoding.action_table",
    "gubs_env/encoding/observation.py": "python -m gubs_env.encoding.observation",
    "gubs_env/replay.py": "python -m gubs_env.replay",
    "gubs_env/viz/__main__.py": "python -m gubs_env.viz",
    "examples/cleanrl_ppo.py": "python -m examples.cleanrl_ppo",
    # modules that hold a command's code but are no command: run, they point to it and exit with status 2
    "agents/evaluate/command.py": None,
    "agents/play/terminal.py": None,
    "gubs_env/viz/svg.py": None,
}
"""Every file that does something when run, and the command it is (None: a pointer to the real one)."""

SYNONYMS: dict[str, str] = {
    "--deals": "--games",
    "--num-games": "--games",
    "--n-games": "--games",
    "--episodes": "--games",
    "--agents": "--bots",
    "--bot": "--bots",
    "--specs": "--bots",
    "--against": "--opponent",
    "--opponents": "--opponent",
    "--vs": "--opponent",
    "--view": "--seat",
    "--viewer": "--seat",
    "--num-players": "--players",
    "--n-players": "--players",
    "--table-size": "--players",
    "--output": "--out",
    "--outdir": "--out",
    "--out-dir": "--out",
    "--output-dir": "--out",
    "--processes": "--jobs",
    "--procs": "--jobs",
    "--cpus": "--jobs",
    "-j": "--jobs",
    "--progress": "--no-progress",
    "--no-bar": "--no-progress",
    "--quiet-progress": "--no-progress",
    "--random-seed": "--seed",
    "--search": "--expert",  # expert's old alias; search_gap's --search (search settings) is another concept
}
"""Names a concept of docs/cli.md's vocabulary must not go by, with the one it has (a few exceptions below)."""
SYNONYM_EXCEPTIONS = {("python -m agents.evaluate.search_gap", "--search")}

REST_MARKUP = re.compile(r"``|:(class|func|mod|meth|data|attr|exc|obj|ref|doc|py:\w+):`")
"""reST (Sphinx) markup, which belongs in docstrings, not in ``--help``."""
PLAIN_ACTIONS = (argparse._HelpAction, argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._VersionAction)
"""Options that take no value: their help needs no default."""


def build(command: str) -> argparse.ArgumentParser:
    module, builder = COMMANDS[command]
    parser: argparse.ArgumentParser = getattr(importlib.import_module(module), builder)()
    return parser


@pytest.fixture(scope="module")
def parsers() -> dict[str, argparse.ArgumentParser]:
    return {command: build(command) for command in COMMANDS}


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options a user is shown: a hidden one is a retired flag, kept only to refuse it with a message."""
    return [action for action in parser._actions if action.option_strings and action.help != argparse.SUPPRESS]


def flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: action for action in options(parser) for flag in action.option_strings}


# --- the registry is complete ------------------------------------------------------------------------------------


def test_every_runnable_file_is_a_registered_command_or_a_pointer() -> None:
    guard = re.compile(r'^if __name__ == "__main__":', re.MULTILINE)
    sources = [ROOT / "train.py", *(p for d in ("agents", "gubs_env", "examples") for p in (ROOT / d).rglob("*.py"))]
    runnable = {str(p.relative_to(ROOT)) for p in sources if guard.search(p.read_text(encoding="utf-8"))}
    assert runnable == set(ENTRY_FILES), "register a new command in COMMANDS and ENTRY_FILES (and docs/cli.md)"
    for path, command in ENTRY_FILES.items():
        text = (ROOT / path).read_text(encoding="utf-8")
        assert ("not_a_command(" in text) == (command is None), path
        assert command is None or command in COMMANDS, path


@pytest.mark.parametrize("command", COMMANDS)
def test_each_parser_names_its_command(command: str, parsers) -> None:
    assert isinstance(parsers[command], cli.CommandParser)
    assert parsers[command].prog == command


# --- (1) defaults shown, (2) no reST markup ------------------------------------------------------------------


def _shown_forms(value: object) -> set[str]:
    """The ways a help text may write a default value."""
    if isinstance(value, list | tuple):
        return {" ".join(str(v) for v in value)}
    forms = {str(value)}
    if isinstance(value, int) and not isinstance(value, bool):
        forms.add(f"{value:,}")
    if isinstance(value, float):
        forms |= {f"{value:g}", f"{value:.0e}".replace("e-0", "e-"), f"{value:.1e}".replace("e-0", "e-")}
    return forms


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_shows_its_default(command: str, parsers) -> None:
    missing = []
    for action in options(parsers[command]):
        if isinstance(action, PLAIN_ACTIONS) or action.required:
            continue
        help_text = (action.help or "").replace("%(default)s", str(action.default))  # as argparse expands it
        if "default" not in help_text.lower():
            missing.append(f"{action.option_strings[0]}: no default in {help_text!r}")
        elif action.default not in (None, argparse.SUPPRESS) and not any(
            form in help_text for form in _shown_forms(action.default)
        ):
            missing.append(f"{action.option_strings[0]}: default {action.default!r} not shown in {help_text!r}")
    assert missing == [], f"{command}: " + "; ".join(missing)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_rest_markup(command: str, parsers) -> None:
    text = parsers[command].format_help()  # formatting it also catches a stray % in a help string
    assert not REST_MARKUP.search(text), f"{command} --help: {REST_MARKUP.search(text)!r}"
    assert "%%" not in text, f"{command} --help shows a doubled %"


def test_the_checks_catch_a_regression() -> None:
    """The rules above fail a parser that breaks them: a hidden default, markup, a synonym, a lone --jobs."""
    parser = cli.CommandParser(prog="x", description="See :mod:`gubs_env` and ``--out``.")
    parser.add_argument("--deals", type=int, default=50, help="deals per pairing")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--out", default="results", help="folder (default: results)")
    with pytest.raises(AssertionError, match="--deals: no default"):
        test_every_option_shows_its_default("x", {"x": parser})
    with pytest.raises(AssertionError, match=":mod:"):
        test_help_has_no_rest_markup("x", {"x": parser})
    with pytest.raises(AssertionError, match="--deals"):
        test_no_command_uses_a_synonym({"x": parser})
    with pytest.raises(AssertionError, match="--jobs"):
        test_jobs_and_progress_read_alike_everywhere({"x": parser})
    with pytest.raises(AssertionError, match="--out is always a folder"):
        test_one_concept_one_flag_one_meaning({"x": parser})
    shown = cli.CommandParser(prog="x")
    shown.add_argument("--games", type=int, default=2000, help="games (default: 200)")  # shown, but not its value
    with pytest.raises(AssertionError, match="default 2000 not shown"):
        test_every_option_shows_its_default("x", {"x": shown})


# --- (3) one name, one meaning ---------------------------------------------------------------------------------


def test_no_command_uses_a_synonym(parsers) -> None:
    found = [
        f"{command}: {flag} (say {SYNONYMS[flag]})"
        for command, parser in parsers.items()
        for flag in flags(parser)
        if flag in SYNONYMS and (command, flag) not in SYNONYM_EXCEPTIONS
    ]
    assert found == [], found


def test_jobs_and_progress_read_alike_everywhere(parsers) -> None:
    for command, parser in parsers.items():
        jobs = flags(parser).get("--jobs")
        same = jobs is None or (jobs.default, jobs.help, jobs.type) == (None, cli.JOBS_HELP, cli.positive_int)
        assert same, f"{command}: --jobs must be cli.add_jobs_argument's (one per core by default)"
        progress = flags(parser).get("--no-progress")
        assert progress is None or progress.help == cli.PROGRESS_HELP, f"{command}: --no-progress"


SPEC_FLAGS = ("--bots", "--fields", "--opponent", "--eval-opponents", "--expert")
"""Flags that take agent specs: their metavar is SPEC, and a list of them is separated by spaces."""


def test_one_concept_one_flag_one_meaning(parsers) -> None:
    wrong = []
    for command, parser in parsers.items():
        for flag, action in flags(parser).items():
            if flag == "--out" and action.metavar != "DIR":
                wrong.append(f"{command}: --out is always a folder (metavar DIR), not {action.metavar}")
            if flag == "--players" and action.type is not cli.player_count:
                wrong.append(f"{command}: --players takes table sizes (cli.player_count)")
            if flag == "--players" and not re.match(r"table sizes?, 2 to 6\b", action.help or ""):
                wrong.append(f"{command}: --players's help says 'table size(s), 2 to 6' first")
            if flag == "--games" and action.type is not cli.positive_int:
                wrong.append(f"{command}: --games is a count of games (cli.positive_int)")
            if flag == "--seed" and action.type not in (cli.non_negative_int, cli.training_seed):
                wrong.append(f"{command}: --seed is a seed (cli.non_negative_int)")
            if flag == "--seat" and action.nargs is not None:
                wrong.append(f"{command}: --seat is one seat")
            if flag in SPEC_FLAGS and action.metavar != "SPEC":
                wrong.append(f"{command}: {flag} takes agent specs (metavar SPEC)")
            if flag in ("--bots", "--fields", "--eval-opponents") and action.nargs != "+":
                wrong.append(f"{command}: {flag} takes specs separated by spaces (nargs='+')")
    assert wrong == [], wrong


def test_docs_cli_lists_every_command_with_its_flags(parsers) -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `python ")]
    for command, parser in parsers.items():
        row = next((r for r in rows if r.startswith((f"| `{command}`", f"| `{command} "))), None)
        assert row is not None, f"docs/cli.md has no row for {command}"
        absent = [f for f in flags(parser) if f.startswith("--") and f != "--help" and f"`{f}" not in row]
        assert absent == [], f"docs/cli.md's row of {command} lacks {absent}"
    for script, command in cli.SCRIPTS.items():
        assert any(f"`{script}`" in r and r.startswith((f"| `{command}`", f"| `{command} ")) for r in rows), script


# --- (4) console scripts ------------------------------------------------------------------------------------------


def test_the_console_scripts_are_the_documented_ones_and_resolve() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert set(declared) == set(cli.SCRIPTS)
    installed = {ep.name: ep for ep in entry_points(group="console_scripts") if ep.name in declared}
    assert set(installed) == set(declared), "reinstall (pip install -e . --no-deps) to get the console scripts"
    for name, ep in installed.items():
        assert ep.value == declared[name], f"{name}: installed as {ep.value}; reinstall"
        target: Callable[[], int] = ep.load()
        assert callable(target), name
        module = importlib.import_module(ep.module)
        parser = module.build_parser() if hasattr(module, "build_parser") else None
        assert parser is None or parser.prog == cli.SCRIPTS[name], name


def test_gubs_eval_with_no_arguments_prints_its_usage_and_exits_2() -> None:
    script = Path(sysconfig.get_path("scripts")) / "gubs-eval"
    if not script.exists():
        pytest.fail(f"{script} is missing: reinstall (pip install -e . --no-deps)")
    done = subprocess.run([str(script)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == cli.EXIT_USAGE
    assert done.stdout == ""
    assert done.stderr.startswith("usage: gubs-eval ")  # the program as invoked, not python -m agents.evaluate
    assert done.stderr.splitlines()[-1].startswith("gubs-eval: error: the following arguments are required")
    assert "Traceback" not in done.stderr


def test_a_console_script_names_itself(monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/usr/bin/gubs-replay"])
    assert cli.command_name("python -m gubs_env.replay") == "gubs-replay"
    assert cli.command_name("python -m gubs_env.demo") == "python -m gubs_env.demo"  # another command's name
    assert build("python -m gubs_env.replay").prog == "gubs-replay"


# --- (5) a command asked for nothing -----------------------------------------------------------------------------

NEEDS_ARGUMENTS = {
    "python -m agents.evaluate": "agents.evaluate.command",
    "python -m agents.evaluate.audit": "agents.evaluate.audit",
    "python -m agents.evaluate.luck": "agents.evaluate.luck.__main__",
    "python -m agents.evaluate.select": "agents.evaluate.select",
    "python -m agents.recipes.expert": "agents.recipes.expert.labels",
    "python -m agents.recipes.search_nets": "agents.recipes.search_nets.fitting",
    "python -m agents.recipes.search_nets.playout": "agents.recipes.search_nets.playout",
    "python -m agents.recipes.seeds": "agents.recipes.seeds",
    "python benchmarks/tail_average.py": "benchmarks.tail_average",
    "python benchmarks/screen_curves.py": "benchmarks.screen_curves",
    "python -m gubs_env.replay": "gubs_env.replay",
    "python -m gubs_env.viz": "gubs_env.viz.svg",
}


@pytest.mark.parametrize("command", NEEDS_ARGUMENTS)
def test_a_command_given_nothing_prints_its_usage_and_exits_2(command: str, capsys) -> None:
    main = importlib.import_module(NEEDS_ARGUMENTS[command]).main
    with pytest.raises(SystemExit) as stop:
        main([])
    assert stop.value.code == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"usage: {command} ")
    assert captured.err.splitlines()[-1].startswith(f"{command}: error: the following arguments are required")


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - set(NEEDS_ARGUMENTS)))
def test_the_other_commands_need_no_argument(command: str, parsers) -> None:
    """Their runs with no argument do the default work (so a missing NEEDS_ARGUMENTS entry shows here)."""
    assert not any(action.required for action in parsers[command]._actions), command


@pytest.mark.parametrize(
    ("module", "command"),
    [
        ("agents.play.terminal", "python -m agents.play"),
        ("agents.evaluate.command", "python -m agents.evaluate"),
        ("gubs_env.viz.svg", "python -m gubs_env.viz"),
    ],
)
def test_a_module_that_is_no_command_points_to_the_command_and_exits_2(module: str, command: str) -> None:
    done = subprocess.run([sys.executable, "-m", module], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == cli.EXIT_USAGE
    assert done.stdout == ""
    last = done.stderr.splitlines()[-1]  # a RuntimeWarning of runpy may come first, for a module its package imports
    assert last == f"python -m {module}: error: not a command; run {command} (see its --help)"


def test_the_moved_training_module_is_not_runnable() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agents.training.main"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode != 0 and "agents.training.command" in done.stderr
