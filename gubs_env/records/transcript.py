"""The event log as lines of text for one viewer, for the terminal game and the replay tool.

Each line names who acted and gives what the viewer saw of it. An action text is shown only where the
facts say nothing (Ring picks, Retreat takes); the texts of choices that only their maker sees (the card
kept from the Traveling Merchant, the Scout's order) are replaced by a neutral phrase for everyone else.

>>> from gubs_env.engine import Game
>>> game = Game(2, seed=7)
>>> entry = game.apply("Draw")
>>> entry_line(entry, None, ["you", "heuristic"])
'[turn 1] seat 0 (you): seat 0 draws a card'
"""

from __future__ import annotations

from collections.abc import Sequence

from gubs_env.engine.log import LogEntry


def seat_name(seat: int, names: Sequence[str] | None = None) -> str:
    """``"seat 2"``, or ``"seat 2 (heuristic)"`` when ``names`` gives each seat a name."""
    return f"seat {seat} ({names[seat]})" if names else f"seat {seat}"


def entry_line(entry: LogEntry, viewer: int | None, names: Sequence[str] | None = None) -> str:
    """One log entry as ``viewer`` saw it: ``"[turn 4] seat 1 (random): seat 1 draws a card"``."""
    seen = "; ".join(entry.view(viewer)) or entry.action_text(viewer)
    return f"[turn {entry.turn}] {seat_name(entry.actor, names)}: {seen}"


def transcript(log: Sequence[LogEntry], viewer: int | None, names: Sequence[str] | None = None) -> list[str]:
    """Every entry of ``log`` as :func:`entry_line` writes it."""
    return [entry_line(entry, viewer, names) for entry in log]
