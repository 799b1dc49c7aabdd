"""How a ``Game`` finds its picture without the engine importing the drawing code.

The engine is the bottom layer: it imports nothing else of the package. The table's picture lives a layer up, in
:mod:`gubs_env.viz`, which registers its drawing functions here when it is imported; ``import gubs_env`` does that,
so every ``Game`` can show itself in a notebook. The engine alone (``gubs_env.engine`` without viz) simply has no
picture to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


class TablePicture(Protocol):
    """A game seen from one seat: an SVG picture in Jupyter, the text view elsewhere."""

    def _repr_svg_(self) -> str: ...


@dataclass(frozen=True)
class Pictures:
    """The drawing functions that :mod:`gubs_env.viz` provides."""

    table_svg: Any  # (game, viewer) -> str
    view: Any  # (game, viewer) -> TablePicture
    save_svg: Any  # (game, path, viewer) -> Path


_registered: list[Pictures] = []


def register(pictures: Pictures) -> None:
    """Make ``pictures`` the drawing functions of every :class:`Game` (called by :mod:`gubs_env.viz`)."""
    _registered[:] = [pictures]


def pictures() -> Pictures:
    """The registered drawing functions; ``RuntimeError`` when :mod:`gubs_env.viz` was never imported."""
    if not _registered:
        raise RuntimeError("no table pictures: import gubs_env.viz (importing gubs_env does it)")
    return _registered[0]


def table_svg(game: Any, viewer: int | None) -> str:
    """The SVG of the table as ``viewer`` sees it."""
    return str(pictures().table_svg(game, viewer))


def view(game: Any, seat: int | None) -> TablePicture:
    """The table as ``seat`` sees it, as an object that shows itself."""
    picture: TablePicture = pictures().view(game, seat)
    return picture


def save_svg(game: Any, path: str | Path, viewer: int | None) -> Path:
    """Write the picture of the table to ``path``."""
    return Path(pictures().save_svg(game, path, viewer))
