"""The public event log: what every player saw happen after each action, and what only some saw.

Facts are stored as a template and its arguments and only rendered when read, so recording them
costs little on the hot path of random play.
"""

from __future__ import annotations

from typing import NamedTuple

from gubs_env.engine.actions import Action, Op
from gubs_env.engine.cards import Kind

HIDDEN_CHOICES: dict[Op, str] = {Op.KEEP: "Keep a card", Op.PLACE: "Scout: put a card next"}
"""What others see of the choices whose action text would name a card only the chooser knows."""


class Fact(NamedTuple):
    """One thing that happened. ``seen_by`` is None when every player saw it, else the one seat that did."""

    seen_by: int | None
    template: str
    args: tuple = ()

    def text(self) -> str:
        """The fact in words; card kinds are named."""
        return self.template.format(*(_words(a) for a in self.args))


class Count(NamedTuple):
    """A number and its noun, put in the singular or plural when the fact is read: ``1 Gub``, ``2 Gubs``."""

    n: int
    noun: str
    plural: str = ""
    """The plural when it is not ``noun + "s"``."""

    def words(self) -> str:
        """``"1 card"``, ``"0 cards"``."""
        return f"{self.n} {self.noun if self.n == 1 else self.plural or self.noun + 's'}"


class GubsFrom(NamedTuple):
    """Gubs taken seat by seat (a Ring's picks: one seat per Gub).

    Read as ``"2 Gubs from seat 1 and 1 from seat 3"``.
    """

    seats: tuple[int, ...]

    def words(self) -> str:
        """The Gubs per seat, in seat order."""
        tally = [(seat, self.seats.count(seat)) for seat in sorted(set(self.seats))]
        parts = [f"{Count(n, 'Gub').words() if i == 0 else n} from seat {seat}" for i, (seat, n) in enumerate(tally)]
        if len(parts) < 2:
            return parts[0] if parts else "no Gub"
        return ", ".join(parts[:-1]) + " and " + parts[-1]


def _words(value: object) -> object:
    if isinstance(value, (Count, GubsFrom)):
        return value.words()
    if isinstance(value, Action):
        return str(value)
    if isinstance(value, Kind):
        return value.label
    if isinstance(value, (list, tuple)):
        return ", ".join(str(_words(v)) for v in value) or "nothing"
    return value


class LogEntry(NamedTuple):
    """One applied action and what it made happen."""

    turn: int
    actor: int
    action: Action
    facts: tuple[Fact, ...]

    def view(self, player: int | None = None) -> list[str]:
        """What ``player`` saw of this action (``None``: only what everybody saw)."""
        return [f.text() for f in self.facts if f.seen_by is None or f.seen_by == player]

    def action_text(self, player: int | None = None) -> str:
        """The action as ``player`` may know it: choices only their maker sees get a neutral phrase for others."""
        hidden = HIDDEN_CHOICES.get(self.action.op)
        return hidden if hidden is not None and player != self.actor else str(self.action)

    def __repr__(self) -> str:
        """Short and readable: ``<turn 3, seat 0: Draw — seat 0 draws a card; [seat 0 only] you draw Lure>``.

        Every fact is shown, the private ones marked with the one seat that saw them.
        """
        said = [f.text() if f.seen_by is None else f"[seat {f.seen_by} only] {f.text()}" for f in self.facts]
        return f"<turn {self.turn}, seat {self.actor}: {self.action}" + (f" — {'; '.join(said)}>" if said else ">")

    def to_dict(self) -> dict:
        """A JSON-serialisable form with the facts rendered."""
        return {
            "turn": self.turn,
            "actor": self.actor,
            "action": str(self.action),
            "facts": [{"seen_by": f.seen_by, "text": f.text()} for f in self.facts],
        }


def kinds(counts: list[int]) -> list[Kind]:
    """Expand a count vector into a list of kinds (for readable facts)."""
    return [Kind(k) for k, n in enumerate(counts) for _ in range(n)]
