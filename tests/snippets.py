"""Run the code blocks of a Markdown file as a reader would, with a small test budget.

A reader copies README's and docs' blocks as they are, so :mod:`tests.test_docs` runs them as they are, with one
documented change: the **test budget**, :data:`BUDGET`, a list of literal substitutions that shrink the big numbers
(``games=2000`` becomes ``games=4``, ``.learn(50_000)`` becomes ``.learn(256)``, ``python train.py`` gets a few
hundred steps), so that every block runs in seconds.

- A ``python`` block runs in a fresh interpreter, after the earlier python blocks of the same file in the same
  namespace (a document's blocks build on each other, like cells of a notebook).
- A ``bash`` block runs command by command (a line ending in ``\\`` continues on the next one); every command must
  be ``python -m ...`` or ``python train.py ...``, and all of a file's bash blocks share one working folder, so a
  ``--resume`` finds the run of an earlier command.
- A block right after a line ``<!-- no-run: why -->`` is not run: the shipped models' recipes (hours), installs,
  servers that wait for a browser, commands that rewrite files of the repository. The reason is required.

Everything runs in a scratch folder with the repository on ``PYTHONPATH``, so files the blocks write (``runs/``,
``results/``, ``game.json``) never land in the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NO_RUN = re.compile(r"^<!--\s*no-run:\s*\S.*-->\s*$")
"""The marker line before a block that is not run; it must say why."""

TRAIN_BUDGET = "--steps 256 --envs 4 --batch-size 256 --eval-every 256 --eval-games 2 --final-games 4 --no-progress"
"""What ``python train.py`` commands get appended: an iteration or two instead of 10 minutes, curve points and a
final figure of a few games."""

BUDGET: list[tuple[str, str]] = [
    ("games=2000", "games=4"),
    ("deals=1000", "deals=2"),
    (".learn(50_000)", ".learn(256)"),
    ("seed=0, verbose=1)", "seed=0, verbose=1, n_steps=128)"),  # MaskablePPO: one rollout of 128 steps, not 2,048
    ("--games 2000", "--games 4"),
    ("--delay 0.5", "--delay 0"),
    ("--delay 0.2", "--delay 0"),
    ("--delay 0.3", "--delay 0"),
    ("--svg docs/images/table.svg", "--svg table.svg"),
    ("--from 500000 --every 100000", "--from 0 --every 1"),
    ("cleanrl_ppo --total-timesteps 200000", "cleanrl_ppo --total-timesteps 256 --num-envs 4 --num-steps 64"),
    ("ladder --players 2 4 --out", "ladder --players 2 --games 2 --bots random heuristic search:worlds=2,top=2 --out"),
    (
        "--games 80 --fields heuristic --bots random heuristic search ",
        "--games 2 --fields heuristic --bots random heuristic search:worlds=2,top=2 ",
    ),
    ("heuristic-tuned --fields heuristic --games 1000", "heuristic-tuned --fields heuristic --games 4"),
    ("deals=500, adjust_luck=True", "deals=2, adjust_luck=True"),  # docs/evaluation.md's paired comparison
    ("max_simulations=50", "max_simulations=2"),  # docs/openspiel.md's ISMCTS: 42 CPU s as written, 2 with these
    ("n_rollouts=2", "n_rollouts=1"),
]
"""The test budget: literal substitutions applied to every block before it runs (see the module docstring)."""

COMMAND_TIMEOUT = 300
"""Seconds one command (or one file's python blocks) may take."""


@dataclass(frozen=True)
class Block:
    """A fenced code block of a Markdown file."""

    path: Path
    line: int
    """The line of the opening fence (1-based)."""
    language: str
    code: str
    skip_reason: str | None
    """Why the block is not run (its ``<!-- no-run: ... -->`` marker), or None."""

    @property
    def where(self) -> str:
        """``file:line`` of the block, relative to the repository when it lies in it."""
        try:
            shown = self.path.relative_to(ROOT)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def blocks(path: Path, languages: tuple[str, ...] = ("python", "bash")) -> list[Block]:
    """The fenced blocks of ``path`` in ``languages``, with their no-run markers."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    i = 0
    while i < len(lines):
        match = re.match(r"^```(\w*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if match.group(1) in languages:
            before = lines[i - 1].strip() if i else ""
            marker = NO_RUN.match(before)
            reason = before.split(":", 1)[1].removesuffix("-->").strip() if marker else None
            found.append(Block(path, i + 1, match.group(1), "\n".join(lines[i + 1 : end]) + "\n", reason))
        i = end + 1
    return found


def with_budget(code: str) -> str:
    """``code`` with the test budget's substitutions applied."""
    for old, new in BUDGET:
        code = code.replace(old, new)
    return code


def commands(code: str) -> list[str]:
    """The commands of a bash block: comments dropped, continued lines joined."""
    joined = re.sub(r"\\\n\s*", " ", code)
    result = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            result.append(shlex.join(words))
    return result


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["MPLBACKEND"] = "Agg"
    env["GUBS_QUIET_COMPILE"] = "1"
    return env


_PYTHON_RUNNER = """
import json, sys, traceback
if __name__ == "__main__":  # the guard a reader's script needs too (worker processes re-import the main module)
    namespace = {"__name__": "__snippets__"}
    for where, code in json.load(sys.stdin):
        try:
            exec(compile(code, where, "exec"), namespace)
        except BaseException:
            print(f"snippet {where} failed:", file=sys.stderr)
            traceback.print_exc()
            sys.exit(1)
"""


def run_python(file_blocks: list[Block], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the python blocks (with the budget), in order, in one fresh interpreter whose working folder is ``cwd``."""
    payload = json.dumps([(b.where, with_budget(b.code)) for b in file_blocks if b.language == "python"])
    return subprocess.run(
        [sys.executable, "-c", _PYTHON_RUNNER],
        input=payload,
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )


def check_command(command: str) -> str:
    """The command to run for a documented one (with the budget), or ``ValueError`` if a test cannot run it."""
    words = shlex.split(command)
    if words[:2] == ["python", "-m"] and len(words) > 2:
        return shlex.join([sys.executable, *words[1:]])
    if words[:2] == ["python", "train.py"]:
        extra = [] if "--help" in words else shlex.split(TRAIN_BUDGET)
        return shlex.join([sys.executable, str(ROOT / "train.py"), *words[2:], *extra])
    raise ValueError(
        f"{command!r} is neither 'python -m ...' nor 'python train.py ...': mark its block <!-- no-run: why -->"
    )


def run_bash(block: Block, cwd: Path) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    """Run a bash block's commands in ``cwd`` until one fails; each with its result.

    Standard input is "q": a command that asks the player (terminal play) gets the answer that quits.

    Raises:
        ValueError: a command that is not a python command (see :func:`check_command`); nothing is run then.
    """
    runnable = [check_command(c) for c in commands(with_budget(block.code))]
    results = []
    for command in runnable:
        result = subprocess.run(
            command,
            shell=True,
            input="q\n",
            cwd=cwd,
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
        )
        results.append((command, result))
        if result.returncode != 0:
            break
    return results
