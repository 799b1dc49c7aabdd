"""Which engine plays a game, and one game by action ids on it: :data:`ENGINES` and :func:`open_table`.

Every ``engine=`` argument of the project (the PettingZoo env, the RLlib env, evaluation games, the benchmarks)
is checked and resolved here, so the names and the ``"auto"`` rule exist once.

This is the lowest room that may import both engines: :class:`~gubs_env.encoding.id_table.ReferenceTable` sits in
``gubs_env.encoding`` and :class:`~gubs_env.fast.FastGame` in ``gubs_env.fast``, which needs numba and so is
imported only when the compiled engine is chosen. Nothing here imports gymnasium or pettingzoo: evaluation games
use it without the environments' packages.

>>> table = open_table("reference", 3, seed=7)
>>> table.actor
0
"""

from __future__ import annotations

import importlib.util
from typing import Any, Literal, get_args

from gubs_env.encoding.id_table import IdTable, ReferenceTable
from gubs_env.engine.positions.serialize import brief

__all__ = ["AUTO", "ENGINES", "ENGINE_CHOICES", "Engine", "IdTable", "check_engine", "open_table", "resolve_engine"]

Engine = Literal["fast", "reference"]
"""An engine that plays: the compiled one (:mod:`gubs_env.fast`) or the readable one (:mod:`gubs_env.engine`)."""
ENGINES: tuple[Engine, ...] = get_args(Engine)
"""Every :data:`Engine`, the compiled one first."""
AUTO = "auto"
"""The ``engine=`` value that picks the compiled engine when numba is installed, else the reference engine."""
ENGINE_CHOICES: tuple[str, ...] = (AUTO, *ENGINES)
"""What an ``engine=`` argument accepts."""


def fast_engine_available() -> bool:
    """Whether numba is installed, so that :mod:`gubs_env.fast` can be imported (checked without importing it)."""
    return importlib.util.find_spec("numba") is not None


def check_engine(engine: object) -> str:
    """``engine`` when it is one of :data:`ENGINE_CHOICES`; it is not resolved, so numba need not be installed.

    Raises:
        ValueError: anything else (one line).
    """
    if not isinstance(engine, str) or engine not in ENGINE_CHOICES:
        raise ValueError(f"engine must be one of {ENGINE_CHOICES}, not {brief(engine)}")
    return engine


def resolve_engine(engine: object) -> Engine:
    """The engine that plays for an ``engine=`` argument: :data:`AUTO` or one of :data:`ENGINES`.

    Raises:
        ValueError: not one of :data:`ENGINE_CHOICES` (one line).
        ImportError: ``"fast"`` without numba.
    """
    if check_engine(engine) == AUTO:
        return "fast" if fast_engine_available() else "reference"
    if engine == "fast" and not fast_engine_available():
        raise ImportError("engine='fast' needs numba: pip install -e '.[fast]'")
    return "fast" if engine == "fast" else "reference"  # the checked str as an Engine, for the type checker


def open_table(engine: str = AUTO, num_players: int = 2, seed: int | None = None, **rule_options: Any) -> IdTable:
    """A new game dealt with ``seed`` on ``engine``, played by action ids.

    Both engines give the same game for the same arguments and ids, and the same outcome.

    Args:
        engine: :data:`AUTO` (the compiled engine when numba is installed), ``"fast"`` or ``"reference"``.
        num_players: 2 to 6.
        seed: the deal, as ``Game(num_players, seed=seed)``: an int >= 0, or ``None`` for fresh entropy.
        **rule_options: rule options (:class:`~gubs_env.engine.options.RuleOptions`).

    Raises:
        ValueError: an unknown engine, or a bad player count, seed or rule option.
        ImportError: ``engine="fast"`` without numba.
    """
    if resolve_engine(engine) == "reference":
        return ReferenceTable(num_players, seed, **rule_options)
    from gubs_env.fast import FastGame  # numba loads only for this engine

    return FastGame(num_players, seed, **rule_options)
