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


def _words(value: object) -> object:
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
