"""Whole files read and written safely: bounded reads of files that may come from anyone, atomic replacement.

A device, a pipe or a huge file must not make a reader hang or fill the memory, and a process killed while
writing must leave either the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


class FileTooLargeError(ValueError):
    """A file longer than its reader's limit (only the first ``limit + 1`` bytes were read)."""


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The whole content of ``path``, at most ``limit`` bytes of it.

    Raises:
        OSError: the file cannot be opened or read.
        ValueError: the path cannot name a file (a NUL byte in it).
        FileTooLargeError: the file holds more than ``limit`` bytes.
    """
    with open(path, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(f"{path} is over {limit:,} bytes")
    return data


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, then rename it over ``path``.

    A ``path`` that exists and is not a regular file (``/dev/null``, a named pipe, a terminal) is written
    through instead: renaming over it would replace the device itself, and for root that is allowed.
    """
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        with path.open("wb") as file:
            file.write(data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(tmp, path)


def first_free_folder(base: Path, taken: Callable[[Path], bool]) -> Path:
    """``base``, or the first of ``base-2``, ``base-3``, ... that is not ``taken`` (a run's default output)."""
    candidate, n = base, 1
    while taken(candidate):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def latest_folder(base: Path, commit_file: Callable[[Path], Path]) -> Path | None:
    """The run folder named like ``base`` (``base``, ``base-2``, ``base-big``, ...) committed last, or None.

    Args:
        base: the default output folder (``runs/gubs``); every folder beside it whose name starts with its
            name is a candidate.
        commit_file: the file whose presence makes a candidate a run (its ``run.json``); its modification
            time says which run was written last (a folder's own time changes with any file in it).
    """
    newest: tuple[int, str] | None = None
    found: Path | None = None
    try:
        candidates = sorted(base.parent.glob(f"{base.name}*"))
    except OSError:  # no readable parent folder: no run to find
        return None
    for folder in candidates:
        try:
            if not folder.is_dir() or not commit_file(folder).exists():
                continue
            key = (commit_file(folder).stat().st_mtime_ns, folder.name)
        except OSError:  # a folder that cannot be read is no run to resume
            continue
        if newest is None or key > newest:
            newest, found = key, folder
    return found
