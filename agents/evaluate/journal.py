"""A tournament's journal: every finished game written down as it finishes, so that a stopped tournament goes on.

``python -m agents.evaluate ... --out DIR`` keeps ``DIR/games.jsonl``: a first line with the tournament's settings,
then one JSON line per game (its pairing, deal, seat, scores, winners, luck and what each agent that reports its usage
spent), appended and flushed the moment the game's result comes back. A tournament stopped by a model server that
stays down (:class:`~agents.bots.base.AgentUnavailableError`), by Ctrl-C or by a crash has lost nothing it finished:
``--resume`` reads the journal, checks that the settings are the same, and plays only the games it lacks. The journal
is read as data (strict JSON, every field's type and range checked), never run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from gubs_env.support import strict_json

JOURNAL_NAME = "games.jsonl"
"""The journal's file in a tournament's ``--out`` folder."""
FORMAT = 1
MAX_LINE = 1 << 20
"""The longest line a journal may hold (a game's line is a few hundred characters)."""
_USAGE_VALUE = (int, float, bool)
_MAX_USAGE_KEYS = 32


class JournalError(ValueError):
    """A journal that can't be resumed: another tournament's, or not one at all (one line says why)."""


class Journal:
    """The games of one tournament, written to ``path`` as they finish (see the module docstring).

    Args:
        path: the journal's file.
        config: the tournament's settings: what a resume must match.
        resume: go on from the games the file holds (it must exist and hold this tournament); else start it afresh.

    Raises:
        JournalError: resuming from a missing file, another tournament's, or one that is not a journal.
    """

    def __init__(self, path: str | Path, config: dict[str, Any], resume: bool) -> None:
        self.path = Path(path)
        self.config = json.loads(json.dumps(config))  # as the file holds it: lists for tuples
        self.games: list[dict[str, Any]] = self._read() if resume else []
        self._file: IO[str] | None = None
        if not resume:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"journal": FORMAT, "config": self.config}) + "\n", encoding="utf-8")

    def _read(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            raise JournalError(f"nothing to resume: {self.path} does not exist (run without --resume first)")
        games = []
        with self.path.open(encoding="utf-8", errors="strict") as lines:
            for number, line in enumerate(lines, 1):
                if len(line) > MAX_LINE:
                    raise JournalError(f"{self.path}, line {number}: longer than {MAX_LINE:,} characters")
                if not line.strip():
                    continue
                try:
                    entry = strict_json.loads(line, finite=True)
                except (ValueError, RecursionError) as err:
                    if number > 1 and not line.endswith("\n"):
                        break  # the last line was cut short when the tournament was killed: that game is played again
                    raise JournalError(f"{self.path}, line {number}: not JSON ({str(err)[:80]})") from None
                if number == 1:
                    self._check_header(entry)
                else:
                    games.append(_checked_game(entry, self.config, f"{self.path}, line {number}"))
        return games

    def _check_header(self, entry: Any) -> None:
        if not isinstance(entry, dict) or entry.get("journal") != FORMAT or "config" not in entry:
            raise JournalError(f"{self.path} is not a tournament's journal")
        if entry["config"] != self.config:
            differ = sorted(k for k in self.config if entry["config"].get(k) != self.config.get(k))[:4]
            raise JournalError(
                f"{self.path} holds another tournament (its {', '.join(differ) or 'settings'} differ): resume with "
                "the same agents and flags, or start afresh without --resume"
            )

    def add(self, outcomes: Iterable[Any]) -> None:
        """Write finished games down (:class:`~agents.evaluate.tournament.GameOutcome`), flushed at once."""
        from dataclasses import asdict

        if self._file is None:
            self._file = self.path.open("a", encoding="utf-8")
        for outcome in outcomes:
            self._file.write(json.dumps({"game": asdict(outcome)}) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file (a journal reopens it on the next :meth:`add`)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _checked_game(entry: Any, config: dict[str, Any], where: str) -> dict[str, Any]:
    """A game's line, every field checked against the tournament's settings."""
    game = entry.get("game") if isinstance(entry, dict) and set(entry) == {"game"} else None
    keys = {"pairing", "deal", "seat", "scores", "winners", "truncated", "luck", "usage"}
    if not isinstance(game, dict) or set(game) != keys:
        raise JournalError(f"{where}: not a game ({sorted(keys)})")
    players, pairings, deals = config["num_players"], config["pairings"], config["deals"]

    def whole(value: Any, low: int, high: int) -> bool:
        return type(value) is int and low <= value < high

    seats = game["scores"], game["winners"], game["luck"], game["usage"]
    if not (whole(game["pairing"], 0, pairings) and whole(game["deal"], 0, deals) and whole(game["seat"], 0, players)):
        raise JournalError(f"{where}: a pairing, deal or seat this tournament does not have")
    if not all(isinstance(values, list) and len(values) <= players for values in seats) or len(seats[0]) != players:
        raise JournalError(f"{where}: scores, winners, luck and usage are lists of at most one entry per seat")
    if not all(whole(v, 0, 100) for v in game["scores"]) or not all(whole(v, 0, players) for v in game["winners"]):
        raise JournalError(f"{where}: scores and winners must be small whole numbers and seats")
    if type(game["truncated"]) is not bool or not all(type(v) is float and math.isfinite(v) for v in game["luck"]):
        raise JournalError(f"{where}: truncated is true or false, luck a list of numbers")
    if not all(u is None or _usage_ok(u) for u in game["usage"]):
        raise JournalError(f"{where}: usage holds a seat's counts (names and numbers) or null")
    return game


def _usage_ok(usage: Any) -> bool:
    return (
        isinstance(usage, dict)
        and len(usage) <= _MAX_USAGE_KEYS
        and all(isinstance(k, str) and k.isidentifier() and len(k) <= 40 for k in usage)
        and all(type(v) in _USAGE_VALUE and (type(v) is bool or 0 <= v < 1e15) for v in usage.values())
    )
