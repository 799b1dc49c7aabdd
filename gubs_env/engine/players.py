"""Table sizes: the one place that says which player counts the game allows.

Every command, env, trainer and file reader that takes a player count or a list of them checks it here, so the
rule (2 to 6 players, a whole number, never a bool) is written once. :class:`TableSizes` is the parsed value a
list of table sizes becomes at the edge (a flag, a config, a run file) and travels as from there on.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS


def is_player_count(value: Any) -> bool:
    """Whether ``value`` is an int (or numpy integer, not a bool) from 2 to 6."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and bool(MIN_PLAYERS <= value <= MAX_PLAYERS)  # a numpy integer compares to a numpy bool
    )


def check_player_count(value: Any, what: str = "num_players") -> int:
    """``value`` as an int when it is a player count the game allows.

    Raises:
        ValueError: anything else, with a message that names ``what``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, not {_brief(value)}")
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise ValueError(f"{what} must be from {MIN_PLAYERS} to {MAX_PLAYERS}, not {_brief(int(value))}")
    return int(value)


@dataclass(frozen=True)
class TableSizes:
    """The table sizes a run, an env or a measurement plays, in the order given (repeats weigh a size more).

    Build it with :meth:`of`, which accepts one size, a sequence of sizes or a ``TableSizes``; the constructor
    checks what it is given too, so no unchecked value exists.

    Raises:
        ValueError: an empty list, or a size that is not a player count the game allows.
    """

    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.sizes, tuple) or not self.sizes:
            raise ValueError(f"table sizes must be a non-empty list of player counts, not {_brief(self.sizes)}")
        object.__setattr__(self, "sizes", tuple(check_player_count(n, "a table size") for n in self.sizes))

    @classmethod
    def of(cls, value: Any) -> TableSizes:
        """``value`` (one size, a list or tuple of sizes, or a ``TableSizes``) as a ``TableSizes``.

        Raises:
            ValueError: anything that is not one of those.
        """
        if isinstance(value, TableSizes):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return cls((int(value),))
        if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1):
            return cls(tuple(value))
        raise ValueError(f"table sizes must be a player count or a list of them, not {_brief(value)}")

    @property
    def distinct(self) -> list[int]:
        """Each size once, smallest first (what evaluations and warm starts play)."""
        return sorted(set(self.sizes))

    def __iter__(self) -> Iterator[int]:
        return iter(self.sizes)

    def __len__(self) -> int:
        return len(self.sizes)

    def __getitem__(self, index: int) -> int:
        return self.sizes[index]

    def per_slot(self, num_slots: int, first: int = 0) -> np.ndarray:
        """The table size of a run's slots ``first`` to ``first + num_slots - 1``.

        Slot ``i`` plays ``sizes[i % len(sizes)]``, game after game. The one rule by which a vector env, both training
        backends and the self-play core mix table sizes: the sizes' shares are exact in every batch rather
        than drawn.

        Raises:
            ValueError: a negative slot count or first slot.
        """
        if num_slots < 0 or first < 0:
            raise ValueError(f"slots are counted from 0, not {num_slots} slots from slot {first}")
        return np.array([self.sizes[(first + i) % len(self.sizes)] for i in range(num_slots)], dtype=np.int64)

    def as_list(self) -> list[int]:
        """The sizes as a JSON-ready list."""
        return list(self.sizes)

    def __str__(self) -> str:
        return " ".join(map(str, self.sizes))


def _brief(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters for a one-line error."""
    if isinstance(value, int) and value.bit_length() > 64:  # repr refuses ints of over 4,300 digits
        return f"an int of {value.bit_length()} bits"
    text = repr(value) if not isinstance(value, Sequence) or len(value) < 100 else f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."
