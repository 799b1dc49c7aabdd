"""Rule options: the documented switches of docs/rules.md (R2, R23) with their defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

LETTER_PLACEMENTS = ("thirds", "uniform")
MAX_TURNS_LIMIT = 2**31 - 2
"""The largest turn limit: turn numbers (at most the limit + 1, R23) stay within 32 bits in both engines."""


@dataclass(frozen=True)
class RuleOptions:
    """Switches for the points docs/rules.md marks as options.

    Attributes:
        letter_placement: ``"thirds"`` puts one Letter in each third of the deck (R2, the default);
            ``"uniform"`` puts each at a uniformly random position anywhere.
        max_turns: turns (all players counted) after which the game is truncated (R23). The printed
            rules have no limit; random play practically never reaches the default.
    """

    letter_placement: str = "thirds"
    max_turns: int = 2000

    def __post_init__(self) -> None:
        if self.letter_placement not in LETTER_PLACEMENTS:
            raise ValueError(f"letter_placement must be one of {LETTER_PLACEMENTS}, not {self.letter_placement!r}")
        if (
            isinstance(self.max_turns, bool)
            or not isinstance(self.max_turns, int)
            or not 1 <= self.max_turns <= MAX_TURNS_LIMIT
        ):
            raise ValueError(f"max_turns must be an int from 1 to {MAX_TURNS_LIMIT}, not {self.max_turns!r:.40}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> RuleOptions:
        """Build from keyword values, rejecting unknown names with a clear error."""
        if not isinstance(values, dict):
            raise ValueError(f"rule options must be a dict, not {type(values).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown rule option(s) {unknown}; known options: {sorted(known)}")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-serialisable dict."""
        return asdict(self)
