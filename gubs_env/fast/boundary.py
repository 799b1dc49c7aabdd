"""Checks at the Python boundary of the compiled engine: what callers pass is made safe before a kernel runs.

The kernels index arrays without bounds checks, and numba compiles one version of a kernel per combination of
argument types (dtype, dimensions, layout, writability, alignment). So every array a caller gives reaches a
kernel only in the exact type it was compiled for, with a shape it can index safely; anything else is refused
here with one ``ValueError``, or converted into an array the engine owns. That keeps a hostile array from
crashing the process and an unusual but valid one (read-only, ``uint64``, big-endian) from stalling a call
while a new version of the kernel compiles.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS, describe_id
from gubs_env.engine.state import Step
from gubs_env.fast.core import layout as L


def shown(value: int) -> str:
    """An int for an error message: in full up to 64 bits, else only its size (printing it could take long)."""
    bits = value.bit_length()
    return str(value) if bits <= 64 else f"an int of {bits} bits"


def brief_value(value: Any) -> str:
    """A caller's value for an error message: ints in full (or their size), anything else by its type."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return shown(int(value))
    if isinstance(value, (bool, float, np.floating, np.bool_)) or value is None:
        return repr(value)
    return f"a {type(value).__name__[:40]}"


def describe(value: Any) -> str:
    """What a refused argument is, in a few words (never its contents)."""
    if not isinstance(value, np.ndarray):
        name = type(value).__name__[:40]
        return f"{'an' if name[:1] in tuple('aeiou') else 'a'} {name}"
    writable = "" if value.flags.writeable else "read-only "
    layout = "" if value.flags.c_contiguous else "non-contiguous "
    return f"a {writable}{layout}array of {value.dtype}, shape {value.shape}"


def readonly_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be made writable.

    A plain view with ``writeable`` cleared can be switched back by anyone (``view.flags.writeable = True``
    is allowed while the owner is writable); a view lent through a read-only buffer cannot.
    """
    return np.asarray(array.data.toreadonly())  # ``data``: a memoryview of the array's memory


def integers(values: Any, size: int | None, what: str) -> np.ndarray | list[int]:
    """``values`` checked to be a 1-d sequence of integers, not yet converted.

    Args:
        values: a list or tuple of ints (numpy integer scalars too), or anything ``np.asarray`` makes into an
            array of an integer dtype (any width, signed or not, any byte order, read-only or not).
        size: the length required, or ``None`` for any.
        what: the argument's name for the error message.

    Returns:
        A list of Python ints (from a list or tuple: they may be of any size) or a 1-d integer ndarray.

    Raises:
        ValueError: not integers (floats, bools, strings, ...) or not 1-d of ``size`` entries.
    """
    if isinstance(values, (list, tuple)):
        for i, v in enumerate(values):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"{what} must be integers, but {what}[{i}] is {describe(v)}")
        if size is not None and len(values) != size:
            raise ValueError(f"{what} must be {size} integers, not {len(values)}")
        return [int(v) for v in values]
    array = np.asarray(values)
    if array.dtype.kind not in "iu":  # bools are kind "b", floats "f", objects "O", strings "U"
        raise ValueError(f"{what} must be integers, not {describe(values)}")
    if array.ndim != 1 or (size is not None and array.shape[0] != size):
        raise ValueError(f"{what} must have shape ({'N' if size is None else size},), not {array.shape}")
    return array


def bounded(values: Any, size: int | None, what: str, lo: int, hi: int, dtype: type) -> np.ndarray:
    """``values`` as a new C-contiguous array of ``dtype``, every value from ``lo`` to ``hi``.

    The range is checked on the values as given, before any conversion, so nothing wraps around (``2**64 - 1``
    does not become ``-1``).

    Raises:
        ValueError: as :func:`integers`, or a value out of range (the message names the first one).
    """
    checked = integers(values, size, what)
    if isinstance(checked, list):
        for i, v in enumerate(checked):
            if not lo <= v <= hi:
                raise ValueError(f"{what}[{i}] is {shown(v)}, not from {lo} to {hi}")
        return np.array(checked, dtype=dtype)
    # numpy compares with Python ints outside the dtype's range exactly (no cast of the bound)
    outside = (checked < lo) | (checked > hi)
    if outside.any():
        i = int(np.argmax(outside))
        raise ValueError(f"{what}[{i}] is {shown(int(checked[i]))}, not from {lo} to {hi}")
    return np.array(checked, dtype=dtype, order="C")  # a copy: the caller's array is never handed to a kernel


def clipped_into(checked: np.ndarray | list[int], target: np.ndarray, lo: int, hi: int) -> None:
    """Copy integers into an int64 ``target``, every value first clipped into ``lo..hi`` (within int64).

    Used where an out-of-range value is refused later by the kernel that reads ``target``: a clipped value
    stays out of the accepted range instead of wrapping into it.
    """
    if isinstance(checked, list):
        target[:] = [min(max(v, lo), hi) for v in checked]
    elif checked.dtype.kind == "u" and checked.dtype.itemsize == 8:
        np.copyto(target, np.minimum(checked, np.uint64(hi)), casting="unsafe")  # exact once below 2**63
    else:
        np.copyto(target, checked, casting="unsafe")  # every other integer dtype fits int64 exactly


def writable_out(array: Any, shape: tuple[int, ...], dtype: type, what: str) -> np.ndarray:
    """``array`` as a kernel may write it: a plain, writable, aligned, C-contiguous ndarray of ``shape``.

    A subclass (a memmap, say) is passed on as a plain view of the same memory, so the kernel sees one type.

    Raises:
        ValueError: anything else, in one message that says what is needed and what was given.
    """
    # ``flags`` makes a new object on each access: read it once (this runs on every batch step)
    flags = array.flags if isinstance(array, np.ndarray) else None
    if (
        flags is None
        or array.dtype != dtype
        or array.shape != shape
        or not (flags.c_contiguous and flags.writeable and flags.aligned)
    ):
        needed = f"a writable C-contiguous {np.dtype(dtype).name} array of shape {shape}"
        raise ValueError(f"{what} must be {needed}, not {describe(array)}")
    return array if type(array) is np.ndarray else array.view(np.ndarray)


def max_threads() -> int:
    """The most threads the compiled kernels may use (numba's ``NUMBA_NUM_THREADS``)."""
    return int(nb.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def check_threads(threads: Any) -> int:
    """``threads`` as an int from 1 to :func:`max_threads`, else ``ValueError``."""
    top = max_threads()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= top:
        raise ValueError(f"threads must be an int from 1 to {top}, not {brief_value(threads)}")
    return int(threads)


def why_illegal(row: np.ndarray, legal: np.ndarray, action: int) -> str:
    """Why ``action`` (an int as the caller gave it) is not legal in game ``row``, whose legal ids are ``legal``."""
    meaning = f"({describe_id(action)})" if 0 <= action < NUM_ACTIONS else f"outside 0..{NUM_ACTIONS - 1}"
    if row[L.STEP] == int(Step.OVER):
        return f"action id {shown(action)} {meaning} is not legal: the game is over"
    step = Step(int(row[L.STEP])).name.lower()
    return (
        f"action id {shown(action)} {meaning} is not legal: seat {int(row[L.ACTOR])} must decide a {step} step, "
        f"where the legal ids are {np.flatnonzero(legal).tolist()}"
    )
