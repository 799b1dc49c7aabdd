"""Shared helpers for tests: set a table, act by text, read zones."""

from __future__ import annotations

from typing import Any

from gubs_env.engine import Game
from gubs_env.engine.positions import position


def table(**kwargs: Any) -> Game:
    """A game at a hand-set position (see gubs_env.engine.positions.position)."""
    return Game.from_dict(position(**kwargs))


def act(game: Game, *texts: str) -> Game:
    """Apply actions given by their readable text, in order."""
    for text in texts:
        game.apply(text)
    return game


def legal_texts(game: Game) -> list[str]:
    """The legal actions as text."""
    return [str(a) for a in game.legal_actions()]


def zones(game: Game) -> dict[str, Any]:
    """The public and private zones of the state dict (everything but rng, options and seen)."""
    d = game.to_dict()
    return {k: d[k] for k in ("deck", "discard", "letters", "hands", "sides")}


def side(
    free: int = 0,
    elder: bool = False,
    protected: dict[str, int] | None = None,
    spouted: int = 0,
    rings: list[str] | None = None,
) -> dict[str, Any]:
    """A side dict as to_dict() writes it."""
    return {"free": free, "elder": elder, "protected": protected or {}, "spouted": spouted, "rings": rings or []}
