"""Heuristic weight sets as files: plain JSON of named numbers, read without running anything.

A weight set is the heuristic with other numbers (the same rules, the same compiled decision): what
``python -m agents.recipes.tune_heuristic`` writes and the ``heuristic-tuned`` spec plays. The file holds

```json
{"format": "gubs-heuristic-weights", "version": 1, "note": "...", "weights": {"END_STAKE": 7.2, ...}}
```

with any subset of the tunable weights (:data:`~agents.bots.heuristic.tables.TUNABLE`; the rest keep their
defaults). It is data: :func:`load_weights` parses JSON and checks every name and number, and refuses anything
else with a :class:`WeightsFileError`.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from agents.bots.heuristic.tables import HeuristicTables, named_weights, tables_with
from gubs_env.support import strict_json
from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically

FORMAT_NAME = "gubs-heuristic-weights"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 1024
"""A weight set is about 4 KB; anything much longer is not one."""
MAX_NOTE = 2000
"""Characters of the free-text note kept (a longer one is refused)."""


class WeightsFileError(ValueError):
    """A file that is not a heuristic weight set this project can read (the message says why)."""


def load_weights(path: str | Path) -> HeuristicTables:
    """The heuristic's tables with the weights of the file at ``path``.

    Raises:
        WeightsFileError: the file cannot be read, is too large, is not JSON of the format above, or names an
            unknown weight or a value out of its range.
    """
    path = Path(path)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)  # a FIFO would block the open below, a device never end
        raw = read_bounded(path, MAX_FILE_BYTES) if regular else b""
    except FileTooLargeError as err:
        raise WeightsFileError(f"heuristic weight set {err}") from None
    except (OSError, ValueError) as err:  # missing, unreadable, a NUL in the path
        raise WeightsFileError(f"cannot read heuristic weights {path}: {err}") from None
    if not regular:
        raise WeightsFileError(f"heuristic weight set {path}: not a regular file")
    try:
        document = strict_json.loads(raw)
    except (ValueError, RecursionError) as err:
        raise WeightsFileError(f"{path} is not a heuristic weight set: {str(err)[:200]}") from None
    return _tables(document, path)


def save_weights(path: str | Path, tables: HeuristicTables, note: str = "") -> Path:
    """Write ``tables``' tunable weights as a weight set at ``path`` (replaced atomically); returns the path."""
    document = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "note": note, "weights": named_weights(tables)}
    _tables(document, Path(path))  # never write a file load_weights would refuse
    path = Path(path)
    write_atomically(path, (json.dumps(document, indent=1) + "\n").encode())
    return path


def _tables(document: Any, path: Path) -> HeuristicTables:
    if not isinstance(document, dict):
        raise WeightsFileError(f"{path} is not a heuristic weight set: the top level must be an object")
    unknown = set(document) - {"format", "version", "note", "weights"}
    if unknown:
        raise WeightsFileError(f"{path}: unknown field {sorted(unknown)[0][:40]!r}")
    if document.get("format") != FORMAT_NAME or document.get("version") != FORMAT_VERSION:
        raise WeightsFileError(f"{path} is not a {FORMAT_NAME} file of version {FORMAT_VERSION}")
    note = document.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise WeightsFileError(f"{path}: note must be text of at most {MAX_NOTE} characters")
    weights = document.get("weights")
    if not isinstance(weights, dict):
        raise WeightsFileError(f"{path}: weights must be an object of named numbers")
    try:
        return tables_with(weights)
    except ValueError as err:
        raise WeightsFileError(f"{path}: {err}") from None
