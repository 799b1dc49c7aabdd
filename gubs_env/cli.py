"""Argument types shared by the project's command-line tools: each rejects bad input with a clear message."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS


def _number(convert: Callable[[str], float], what: str, text: str) -> float:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    value = int(_number(int, "a whole number", text))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of at least 0 (seeds)."""
    value = int(_number(int, "a whole number", text))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {value}")
    return value


def positive_float(text: str) -> float:
    """A number above 0."""
    value = _number(float, "a number", text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, not {value}")
    return value


def non_negative_float(text: str) -> float:
    """A number of at least 0."""
    value = _number(float, "a number", text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {value}")
    return value


def probability(text: str) -> float:
    """A number from 0 to 1."""
    value = _number(float, "a number", text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, not {value}")
    return value


def player_count(text: str) -> int:
    """A table size the game allows."""
    value = int(_number(int, "a whole number", text))
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"player counts go from {MIN_PLAYERS} to {MAX_PLAYERS}, not {value}")
    return value
