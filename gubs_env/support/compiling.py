"""One line on stderr before numba compiles something that takes a while, so that a first run is never silent.

The compiled engine (:mod:`gubs_env.fast`) and the compiled heuristic (:mod:`agents.bots.heuristic`) are compiled
by numba on first use and cached on disk (``__pycache__/*.nbi`` index files beside the sources, or numba's
user-wide cache where those folders are read-only). From the cache a kernel loads in about a second; without it
the first call compiles for a minute or more with nothing on the screen. :func:`announce_compiling` is called just
before such a call: it asks numba's own cache whether the kernels it is given are there, which reads one small
index file per kernel and compiles nothing, and says so once per process when they are not. :func:`compiling`
wraps the compile itself and reports its progress every few seconds.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_announced: dict[str, None] = {}
"""What this process has already announced: a command that builds two batches still prints one line."""


def is_cold(dispatcher: Any) -> bool:
    """Whether calling ``dispatcher`` now will compile it: nothing loaded in this process and nothing in the cache.

    Args:
        dispatcher: a numba dispatcher made with ``cache=True``. Anything else (a plain function, as under
            ``NUMBA_DISABLE_JIT=1``) never compiles, and is not cold.
    """
    if not hasattr(dispatcher, "signatures") or dispatcher.signatures:
        return False  # not compiled code, or already compiled or loaded in this process
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    try:
        # numba's index: the source file's stamp and the compiled overloads; empty when missing or stale
        return not cache_file._load_index()  # type: ignore[union-attr]
    except Exception:
        # a numba without these internals: the index file's name is the only thing left to look at
        index = getattr(cache_file, "_index_path", None)
        return not (isinstance(index, str) and os.path.exists(index))


def announce_compiling(dispatchers: Iterable[Any], what: str, seconds: int) -> bool:
    """Print "compiling <what> once (about <seconds> s; cached afterwards)…" to stderr if any dispatcher is cold.

    At most once per ``what`` and process. Set ``GUBS_QUIET_COMPILE=1`` to keep it quiet. :func:`compiling` also
    shows the progress of the compile that follows.

    Args:
        dispatchers: the numba dispatchers that the coming call compiles when they are not cached.
        what: what is compiled, as the user knows it ("the game engine").
        seconds: about how long compiling them takes on 2 cores (measured; see docs/fast.md).

    Returns:
        Whether the line was printed.
    """
    if what in _announced or os.environ.get("GUBS_QUIET_COMPILE") == "1":
        return False
    if not any(is_cold(d) for d in dispatchers):
        return False
    _announced[what] = None
    print(f"compiling {what} once (about {seconds} s; cached afterwards)…", file=sys.stderr, flush=True)
    return True


PROGRESS_SECONDS = 3.0
"""How often :func:`compiling` says how far a compile has come."""


@contextmanager
def compiling(dispatchers: Sequence[Any], what: str, seconds: int) -> Iterator[None]:
    """Announce a cold compile (:func:`announce_compiling`), then report its progress until the block ends.

    Every :data:`PROGRESS_SECONDS` a line on stderr gives the seconds so far and how many of ``dispatchers`` are
    compiled, and a last line the total. On a terminal the progress rewrites one line (a carriage return);
    elsewhere (a pipe, a file, a CI log) each report is a plain line, so no cursor codes end up in logs. Nothing
    is printed when no dispatcher is cold, or with ``GUBS_QUIET_COMPILE=1``.

    Args:
        dispatchers: the numba dispatchers the block compiles when they are not cached.
        what: what is compiled, as the user knows it.
        seconds: about how long compiling them takes on 2 cores.
    """
    if not announce_compiling(dispatchers, what, seconds):
        yield
        return
    progress = _Progress(dispatchers, what)
    progress.start()
    try:
        yield
    finally:
        progress.finish()


class _Progress(threading.Thread):
    """A daemon thread that reports a compile's progress until :meth:`finish`.

    Numba's compiler is Python code and LLVM's passes run outside the interpreter lock, so this thread gets its turn
    every few milliseconds while the main thread compiles.
    """

    def __init__(self, dispatchers: Sequence[Any], what: str) -> None:
        super().__init__(name="compile progress", daemon=True)
        self._dispatchers, self._what = list(dispatchers), what
        self._done = threading.Event()
        self._began = time.perf_counter()
        self._terminal = sys.stderr.isatty()

    def run(self) -> None:
        while not self._done.wait(PROGRESS_SECONDS):
            self._say(f"compiling {self._what}: {self._compiled()} compiled, {self._elapsed():.0f} s so far")

    def finish(self) -> None:
        """Stop reporting and say how long it took."""
        self._done.set()
        self.join()
        self._say(f"compiled {self._what} in {self._elapsed():.0f} s", last=True)

    def _compiled(self) -> str:
        ready = sum(1 for d in self._dispatchers if not hasattr(d, "signatures") or d.signatures)
        return f"{ready} of {len(self._dispatchers)} parts"

    def _elapsed(self) -> float:
        return time.perf_counter() - self._began

    def _say(self, line: str, last: bool = False) -> None:
        if self._terminal:  # one line, rewritten in place; padded to cover a longer line before it
            print(f"\r{line:<72}", end="\n" if last else "", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)


def compiled_here() -> tuple[str, ...]:
    """What this process announced compiling (:func:`announce_compiling`), in order: empty when all was cached."""
    return tuple(_announced)
