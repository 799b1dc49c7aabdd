"""JSON from files and requests that anyone may have written: strict, so that one text has one meaning.

:func:`loads` is :func:`json.loads` that refuses what the JSON standard does not allow or leaves ambiguous:
bytes that are not UTF-8, ``NaN`` and ``Infinity`` (Python writes them, JSON has none), and an object that gives
a key twice (which value counts?). Game records, heuristic weight sets and the browser's requests read with it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any, NoReturn


def loads(text: str | bytes, *, finite: bool = False) -> Any:
    """The value of the JSON ``text``; with ``finite``, a number too large for a float (``1e999``) is refused too.

    Raises:
        ValueError: the text is not strict UTF-8 JSON (``json.JSONDecodeError`` and ``UnicodeDecodeError`` are
            ValueErrors), or it repeats a key or holds a refused number; the message says which.
        RecursionError: the text nests deeper than the interpreter's recursion limit.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return json.loads(
        text,
        parse_constant=_refuse_constant,
        parse_float=_finite_float if finite else float,
        object_pairs_hook=_without_repeats,
    )


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed: JSON has no such number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is out of range")
    return value


def _without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        repeated = sorted(k[:40] for k, n in Counter(key for key, _ in pairs).items() if n > 1)
        shown = repr(repeated) if len(repr(repeated)) <= 80 else repr(repeated)[:77] + "..."
        raise ValueError(f"repeated key(s) {shown}: a key is given twice")
    return data
