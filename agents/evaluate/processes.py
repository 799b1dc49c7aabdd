"""Worker processes that also work from a plain script without ``if __name__ == "__main__":``.

Tournaments and checkpoint selection start their workers with ``spawn`` (forking a process whose torch threads
run can deadlock the children). A spawned worker first re-imports the main module to find what the parent
defined; a script that calls :func:`~agents.evaluate.tournament.run_tournament` at its top level, outside the
guard, would then call it again in every worker, and Python stops each one with a long traceback about
"bootstrapping". A script read from standard input (``python - <<EOF``, ``python < script.py``) cannot be read
again at all, and every worker dies at its start. :func:`worker_count` spots both cases before any worker starts,
says so in one line, and plays in this process instead. A notebook, ``python -c`` and an interactive session have
no main file to re-import, and keep their workers.
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from types import FrameType

GUARD_HINT = 'if __name__ == "__main__":'
PARENT_GONE = 1
"""A worker's exit status when the process that started it ended first."""


def when_parent_ends(act: Callable[[], object]) -> None:
    """Call ``act`` from a background thread the moment the process that started this one ends.

    Nothing happens in a process that no ``multiprocessing`` parent started. A parent stopped by ``kill`` runs no
    ``finally`` (SIGTERM and SIGKILL skip it), so nothing else would tell its children to stop; its sentinel, which
    this thread waits on, becomes ready as it ends.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def wait_for_the_parent() -> None:
        parent.join()
        act()

    threading.Thread(target=wait_for_the_parent, name="parent-watch", daemon=True).start()


def exit_with_parent() -> None:
    """End this pool worker as soon as its parent ends: called first in every spawned pool worker.

    Left alone, the workers of a killed tournament would play on to the end of their chunk (minutes, for a search)
    on cores nobody is waiting for; their results have no one to go to, so there is nothing to clean up.
    """
    when_parent_ends(lambda: os._exit(PARENT_GONE))


def unguarded_main_call() -> str | None:
    """Where the main script calls into this code at its top level outside the ``__main__`` guard, or None.

    Returns:
        ``"path:line"`` of the top-level statement of the main script that this call comes from, when that
        statement is not inside an ``if __name__ == "__main__":`` block (spawned workers would run it again);
        None when the call is guarded, comes from no main file (a notebook, ``python -c``, a REPL), or the
        script cannot be read (then the workers are tried as usual).
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not isinstance(path, str):
        return None
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not (frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if frame is None:
        return None  # called from elsewhere than the main module's top-level code (a worker, a test runner)
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8") as file:
            tree = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end:
                return None
    return f"{path}:{line}"


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    constants = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(constants) == 1


def unreadable_main_script() -> str | None:
    """The main script's name when it is no file a spawned worker could read again (``<stdin>``), or None."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    return path if isinstance(path, str) and not os.path.isfile(path) else None


def worker_count(jobs: int, what: str) -> int:
    """``jobs``, or 1 (with one line on stderr saying why) when spawned workers could not start from the main script.

    Args:
        jobs: the worker processes asked for.
        what: the function the user called, for the message ("run_tournament").
    """
    if jobs <= 1:
        return jobs
    unreadable = unreadable_main_script()
    where = None if unreadable else unguarded_main_call()
    if unreadable is not None:
        why = f"the main script ({unreadable}) is no file a worker can read again; save it to a file"
    elif where is not None:
        why = (
            f"{where} calls it outside `{GUARD_HINT}`, and each worker would run the script again; "
            "put the call under that line"
        )
    else:
        return jobs
    print(f"{what}: playing in this process, not in {jobs} workers: {why} to use the workers", file=sys.stderr)
    return 1
