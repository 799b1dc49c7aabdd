"""What the project's command-line tools share: exit statuses, a parser with one-line errors, argument types.

Every command (``python -m agents.play``, ``gubs_env.replay``, ``gubs_env.demo``, ``benchmarks/*.py``,
``agents.evaluate``, ``agents.evaluate.select``, ``train.py``, the table printers in ``gubs_env.envs``) follows
one convention, documented in docs/security.md:

====  =====================================================================================================
code  meaning
====  =====================================================================================================
0     done (for the terminal game: it ended, or the player typed ``q``)
1     a failure while running: a record that cannot be read or does not replay, an output that cannot be
      written after all, the input of the terminal game ending (end of file) before the game
2     a bad command line or an unusable input file (a model file that cannot be loaded), always before any
      work is done; one ``PROG: error: ...`` line on stderr
130   interrupted (Ctrl-C)
141   standard output was closed early (``... | head``): the command stops quietly
====  =====================================================================================================

None of them prints a traceback for bad input, and the same concept has one flag in every command (docs/cli.md):
``--games``, ``--seed``, ``--jobs`` (:func:`add_jobs_argument`), ``--out DIR`` (always a folder), ``--players``,
``--bots``/``--opponent``, ``--seat``, ``--no-progress`` (:func:`add_progress_argument`). A command started with no
arguments at all that needs some prints its usage, then the error line.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.engine.options import MAX_TURNS_LIMIT
from gubs_env.engine.players import check_player_count

EXIT_OK = 0
"""The command did what was asked."""
EXIT_FAILURE = 1
"""A failure while running (a bad record, an output that could not be written, the input ending early)."""
EXIT_USAGE = 2
"""A bad command line or unusable input file, reported before any work is done."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as a shell reports it)."""
EXIT_CLOSED_STDOUT = 141
"""Standard output was closed by its reader (128 + SIGPIPE, as a shell reports a command killed by it)."""
EXIT_CODES = (EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_CLOSED_STDOUT)
"""Every status a command of the project exits with."""

MAX_WHOLE_NUMBER = 2**63 - 1
"""The largest count or seed a command accepts: what numpy's int64 and a length hold, so a count or a seed plus
a count of games stays within the engines' 64-bit seeds."""
MAX_TRAINING_SEED = 2**32 // 1000 - 1
"""The largest seed of a training run: numpy seeds (below 2**32) are drawn as ``seed * 1000 + env``."""
MAX_PAUSE_SECONDS = 60.0
"""The longest pause between moves that ``--delay`` accepts."""
SHOWN_TOKEN_CHARS = 40
"""An error message echoes at most this many characters of a token of the command line."""
LONG_WORD_CHARS = 160
"""A word of an error message longer than this is cut as a token is (a path is rarely so long)."""


SCRIPTS: dict[str, str] = {
    "gubs-train": "python train.py",
    "gubs-eval": "python -m agents.evaluate",
    "gubs-select": "python -m agents.evaluate.select",
    "gubs-ladder": "python -m agents.evaluate.ladder",
    "gubs-play": "python -m agents.play",
    "gubs-replay": "python -m gubs_env.replay",
    "gubs-demo": "python -m gubs_env.demo",
}
"""The console scripts (pyproject.toml's ``[project.scripts]``), each with the command it runs."""
JOBS_HELP = "worker processes (default: one per core)"
"""The help of ``--jobs``, the same in every command that has it."""
PROGRESS_HELP = "no progress bar"
"""The help of ``--no-progress``, the same in every command that has it."""


def command_name(prog: str) -> str:
    """``prog`` (``python -m agents.evaluate``), or the console script's name when started as one (``gubs-eval``)."""
    started = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    started = started.removesuffix(".exe").removesuffix("-script.py")
    return started if SCRIPTS.get(started) == prog else prog


def cpu_count() -> int:
    """The cores this process may use: one worker process per core is every command's ``--jobs`` default."""
    counter = getattr(os, "process_cpu_count", os.cpu_count)  # Python 3.13+ respects CPU affinity
    return counter() or 1


def jobs_or_cores(jobs: int | None) -> int:
    """``--jobs`` as a count: the number given, or one per core when it was left out (None)."""
    return cpu_count() if jobs is None else jobs


def add_jobs_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--jobs N``: worker processes, one per core by default (None; see :func:`jobs_or_cores`)."""
    parser.add_argument("--jobs", type=positive_int, default=None, help=JOBS_HELP)


def add_progress_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--no-progress``: no progress bar on stderr."""
    parser.add_argument("--no-progress", action="store_true", help=PROGRESS_HELP)


def not_a_command(module: str, command: str) -> int:
    """Say that ``python -m module`` runs nothing and which command to run instead; returns 2.

    For a module that holds a command's code but is not itself the command (``agents.play.terminal``).
    """
    print(f"python -m {module}: error: not a command; run {command} (see its --help)", file=sys.stderr)
    return EXIT_USAGE


def shown(token: str) -> str:
    """``token`` as an error message echoes it: at most :data:`SHOWN_TOKEN_CHARS` characters, its start and end.

    The one rule for echoing what a user typed: a 1,000-digit number or a pasted file must not come back whole.
    The end is kept as well as the start, because the end of a long path (the file's name) says most.
    """
    if len(token) <= SHOWN_TOKEN_CHARS:
        return token
    half = SHOWN_TOKEN_CHARS // 2
    return token[:half] + "…" + token[-half:]


def error_line(prog: str, message: object, tokens: Iterable[str] = (), *, usage: bool = True) -> str:
    """The one line (no newline) that reports ``message`` for command ``prog``.

    Args:
        prog: the command, as its parser names it (``python -m agents.play``).
        message: what is wrong; an OSError or a library's message may span lines, and is joined into one.
        tokens: the command line's tokens; each long one that the message echoes (as typed, or quoted as
            argparse quotes it) is cut short with :func:`shown`.
        usage: end with a pointer to ``--help`` (a bad command line), or not (a failure while running).
    """
    prog = command_name(prog)
    text = str(message)
    candidates = set()
    for token in tokens:
        candidates.add(token)
        if token.startswith("-") and "=" in token:  # --out=VALUE: the value is echoed on its own
            candidates.add(token.partition("=")[2])
    for token in sorted((t for t in candidates if len(t) > SHOWN_TOKEN_CHARS), key=len, reverse=True):
        text = text.replace(repr(token), repr(shown(token))).replace(token, shown(token))
    # a part of a token echoed on its own (the module of a module:Class spec) is no token: any word this long
    # is cut too, long enough that the paths a message names come through whole
    words = [word if len(word) <= LONG_WORD_CHARS else shown(word) for word in text.split()]
    return f"{prog}: error: {' '.join(words)}" + (" (see --help)" if usage else "")


def usage_error(prog: str, message: object, tokens: Iterable[str] | None = None) -> int:
    """Report a bad input found after parsing (an unloadable checkpoint) as a parser would; returns 2.

    Args:
        prog: the command.
        message: what is wrong.
        tokens: the command line (default: ``sys.argv[1:]``), for cutting long echoed tokens short.
    """
    print(error_line(prog, message, sys.argv[1:] if tokens is None else tokens), file=sys.stderr)
    return EXIT_USAGE


def failure(prog: str, message: object, tokens: Iterable[str] | None = None) -> int:
    """Report a failure while running (a record that does not replay) in one line; returns 1.

    Args:
        prog: the command.
        message: what went wrong.
        tokens: the command line (default: ``sys.argv[1:]``), for cutting long echoed tokens short.
    """
    line = error_line(prog, message, sys.argv[1:] if tokens is None else tokens, usage=False)
    print(line, file=sys.stderr)
    return EXIT_FAILURE


class CommandParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are a single ``PROG: error: ...`` line and status 2.

    Every parser of the project is one of these (train.py's ``--backend`` pre-parser included), so every
    command's errors have the same form, and echo long tokens cut short (:func:`error_line`). Its ``prog`` is the
    console script's name when the command was started as one (:func:`command_name`). Started with no arguments at
    all, a command that needs some prints its usage before the error line.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if isinstance(kwargs.get("prog"), str):
            kwargs["prog"] = command_name(kwargs["prog"])
        super().__init__(*args, **kwargs)
        self._tokens: list[str] = []

    def parse_known_args(  # type: ignore[override]  # one signature for typeshed's overloads
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's, keeping the tokens so that :meth:`error` can cut the long ones it echoes."""
        self._tokens = [str(token) for token in (sys.argv[1:] if args is None else args)]
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line on stderr (with a pointer to ``--help``) and exit with status 2.

        With no arguments at all, where some are required, the usage comes first: the command was asked for
        nothing, and the usage says what it takes.
        """
        if not self._tokens and message.startswith("the following arguments are required"):
            self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, error_line(self.prog, message, self._tokens) + "\n")


def add_deal_arguments(parser: argparse.ArgumentParser, games: int, per: str) -> None:
    """The ``--players``, ``--games`` and ``--seed`` flags of the commands that play seat-rotated deals.

    Args:
        parser: the command's parser.
        games: the default of ``--games``.
        per: what the games are counted per, for the help ("pairing", "bot").
    """
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument(
        "--games",
        type=positive_int,
        default=games,
        help=f"games per {per}, rounded up to whole deals of PLAYERS games (default: {games})",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal's seed (default: 0)")


def run_command(main: Callable[[], int]) -> int:
    """Run a command's ``main`` and return its exit status, turning Ctrl-C and a closed stdout into statuses.

    ``SystemExit`` (from the parser) passes through. A reader that closes standard output early (``| head``)
    gets no traceback: the rest of the output is discarded and the status is :data:`EXIT_CLOSED_STDOUT`. A
    character that the output's encoding cannot show (``PYTHONIOENCODING=ascii``) is written as an escape.
    """
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")  # the game's texts use arrows and dashes
    try:
        code = main()
        sys.stdout.flush()  # inside the try: a closed pipe must be met here, not while the interpreter exits
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_CLOSED_STDOUT
    return code


def _discard_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout (a test's capture): nothing to flush
        pass


def refuse_unwritable_out(parser: argparse.ArgumentParser, folder: Path) -> None:
    """End the command with the parser's one-line error (``--out: why``) where ``folder`` cannot be written."""
    problem = unwritable_folder(folder)
    if problem:
        parser.error(f"--out: {problem}")


def unwritable_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot be created or written to, or None; nothing is left behind by the check.

    The check writes a nameless temporary file into the folder, or into its nearest existing parent, rather
    than trusting permission bits (which say nothing for root, or on a read-only file system).
    """
    existing = folder
    try:
        if b"\0" in os.fsencode(folder):  # exists() says False for such a name, and mkdir would then fail
            return f"{shown(str(folder))!r} is not a usable path: it holds a NUL character"
        if folder.exists() and not folder.is_dir():
            return f"{folder} exists and is not a folder"
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            return f"cannot create {folder}: {existing} is not a folder"
        with tempfile.TemporaryFile(dir=existing):
            pass
    except ValueError as err:  # a NUL byte or an unencodable character in the path
        return f"{folder!s:.200} is not a usable path: {err}"
    except OSError as err:
        where = "" if existing == folder else f"cannot create {folder}: "
        return f"{where}cannot write to {existing}: {err.strerror or err}"
    return None


def unwritable_file(path: Path) -> str | None:
    """Why a file cannot be written at ``path`` (its folders created as needed), or None; nothing is written."""
    try:
        if path.is_dir():
            return f"{path} is a folder"
        if path.exists() and not os.access(path, os.W_OK):
            return f"cannot write to {path}"
    except ValueError as err:
        return f"{path!s:.200} is not a usable path: {err}"
    except OSError as err:  # a name too long, a loop of links: is_dir and exists raise those
        return f"{path} is not a usable path: {err.strerror or err}"
    return unwritable_folder(path.parent)


# --- argument types --------------------------------------------------------------------------------


def _number(convert: Callable[[str], float], what: str, text: str) -> float:
    try:
        value = convert(text)
    except ValueError:  # int() also refuses a number of more than 4,300 digits with a ValueError
        raise argparse.ArgumentTypeError(f"{shown(text)!r} is not {what}") from None
    if isinstance(value, float) and not math.isfinite(value):  # nan fails every comparison, inf passes any floor
        raise argparse.ArgumentTypeError(f"{shown(text)!r} is not a finite number")
    return value


def positive_int(text: str) -> int:
    """A whole number from 1 to :data:`MAX_WHOLE_NUMBER`."""
    value = int(_number(int, "a whole number", text))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {shown(text)}")
    return _at_most_max(value, text)


def non_negative_int(text: str) -> int:
    """A whole number from 0 to :data:`MAX_WHOLE_NUMBER` (seeds)."""
    value = int(_number(int, "a whole number", text))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {shown(text)}")
    return _at_most_max(value, text)


def _at_most_max(value: int, text: str) -> int:
    if value > MAX_WHOLE_NUMBER:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_WHOLE_NUMBER}, not {shown(text)}")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0."""
    value = _number(float, "a number", text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, not {shown(text)}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of at least 0."""
    value = _number(float, "a number", text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {shown(text)}")
    return value


def pause_seconds(text: str) -> float:
    """A pause in seconds, from 0 to :data:`MAX_PAUSE_SECONDS`."""
    value = _number(float, "a number of seconds", text)
    if not 0 <= value <= MAX_PAUSE_SECONDS:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_PAUSE_SECONDS:g} seconds, not {shown(text)}")
    return value


def probability(text: str) -> float:
    """A number from 0 to 1."""
    value = _number(float, "a number", text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, not {shown(text)}")
    return value


def player_count(text: str) -> int:
    """A table size the game allows."""
    try:
        return check_player_count(int(_number(int, "a whole number", text)), "a player count")
    except ValueError:  # argparse shows an ArgumentTypeError's own words: say it the command line's way
        raise argparse.ArgumentTypeError(
            f"player counts go from {MIN_PLAYERS} to {MAX_PLAYERS}, not {shown(text)}"
        ) from None


def turn_limit(text: str) -> int:
    """A turn limit the engines accept: a whole number from 1 to the engine's bound (R23)."""
    value = int(_number(int, "a whole number", text))
    if not 1 <= value <= MAX_TURNS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_TURNS_LIMIT}, not {shown(text)}")
    return value


def training_seed(text: str) -> int:
    """A training run's seed: a whole number from 0 to :data:`MAX_TRAINING_SEED`."""
    value = int(_number(int, "a whole number", text))
    if not 0 <= value <= MAX_TRAINING_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_TRAINING_SEED}, not {shown(text)}")
    return value
