"""Game records: everything needed to replay a game exactly, saved as JSON.

A record holds the seed and rule options (which fix every shuffle and insertion), who played each seat,
the actions in order, the events as every player saw them, and the result with a digest of the final
state. :func:`replay` plays the actions again from the seed and checks that it reaches the same state.

>>> from gubs_env.engine import Game
>>> game = Game(2, seed=3)
>>> while not game.is_over:
...     _ = game.apply(game.legal_actions()[0])
>>> record = GameRecord.from_game(game, seed=3, players=["first", "first"])
>>> replay(record).scores() == game.scores()
True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gubs_env.engine import Game, IllegalActionError, InvalidStateError, action_from_dict, action_to_dict
from gubs_env.engine.options import RuleOptions

RECORD_FORMAT = 1
"""Bumped whenever the layout of a record changes."""


class RecordError(ValueError):
    """A record that is malformed, or whose actions do not replay to its recorded result."""


def state_digest(game: Game) -> str:
    """A SHA-256 of the full state (random generator included) in canonical JSON."""
    text = json.dumps(game.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


RESULT_KEYS = ("over", "truncated", "turns", "scores", "winners", "final_state_sha256")
"""The fields of :func:`result_of`, all required in a record that has a result."""


def result_of(game: Game) -> dict[str, Any]:
    """How a game stands: scores, winners, truncation, turns and the state digest."""
    return {
        "over": game.is_over,
        "truncated": game.truncated,
        "turns": game.state.turn,
        "scores": game.scores(),
        "winners": game.winners(),
        "final_state_sha256": state_digest(game),
    }


@dataclass(frozen=True)
class GameRecord:
    """One recorded game (see the module docstring)."""

    num_players: int
    seed: int
    options: dict[str, Any]
    players: list[str]
    """Who played each seat (agent names, ``"human"`` …), seat 0 first."""
    actions: list[dict[str, Any]]
    """Every applied action in order, as :func:`~gubs_env.engine.action_to_dict` writes them."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The log: per action its turn, actor, text and facts (with who saw each private fact)."""
    result: dict[str, Any] = field(default_factory=dict)
    """:func:`result_of` the game when it was recorded."""

    @classmethod
    def from_game(cls, game: Game, seed: int, players: list[str]) -> GameRecord:
        """Record ``game``, which must have been made as ``Game(n, seed=seed, **options)`` with its log on."""
        if not game.record_log:
            raise RecordError("the game kept no log (record_log=False): its actions are unknown")
        if len(players) != game.num_players:
            raise RecordError(f"{game.num_players} seats but {len(players)} player names")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            # a game made with seed=None cannot be replayed: its shuffle came from fresh entropy
            raise RecordError(f"the seed must be the int >= 0 the game was made with, not {seed!r}")
        return cls(
            num_players=game.num_players,
            seed=seed,
            options=game.options.to_dict(),
            players=[str(p) for p in players],
            actions=[action_to_dict(e.action) for e in game.log],
            events=[e.to_dict() for e in game.log],
            result=result_of(game),
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-serialisable dict."""
        return {
            "format": RECORD_FORMAT,
            "num_players": self.num_players,
            "seed": self.seed,
            "options": self.options,
            "players": self.players,
            "actions": self.actions,
            "events": self.events,
            "result": self.result,
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Read a dict from :meth:`to_dict`, checking its shape (not yet that it replays: see :func:`replay`).

        Raises:
            RecordError: the dict is not shaped like a record (the message names the field).
        """
        _check_fields(data)
        return cls(
            num_players=data["num_players"],
            seed=data["seed"],
            options=data["options"],
            players=list(data["players"]),
            actions=data["actions"],
            events=data.get("events", []),
            result=data.get("result", {}),
        )

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON (folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record saved by :meth:`save`.

        Raises:
            RecordError: the file is not JSON or not a record; ``OSError`` if it cannot be read.
        """
        try:
            data = json.loads(Path(path).read_text())
        except (ValueError, RecursionError) as err:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise RecordError(f"{path} is not a JSON game record: {err}") from None
        return cls.from_dict(data)


def _check_fields(data: Any) -> None:
    """Raise a :class:`RecordError` naming the first field of a record dict that has the wrong shape."""
    if not isinstance(data, dict):
        raise RecordError(f"a game record is a JSON object, not {type(data).__name__}")
    # bool is an int to Python: without the type check a format of true would pass as 1
    if type(data.get("format")) is not int or data["format"] != RECORD_FORMAT:
        raise RecordError(f"unsupported record format {data.get('format')!r} (this version reads {RECORD_FORMAT})")
    expected = {"num_players": int, "seed": int, "options": dict, "players": list, "actions": list}
    words = {int: "an int", dict: "an object", list: "a list"}
    for key, kind in expected.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise RecordError(f"record field {key!r} must be {words[kind]}, not {data.get(key)!r}")
    if not isinstance(data.get("events", []), list) or not isinstance(data.get("result", {}), dict):
        raise RecordError("record fields 'events' and 'result' must be a list and an object")
    if not all(isinstance(p, str) for p in data["players"]):
        raise RecordError(f"record field 'players' must list names (strings), not {data['players']!r}")
    if len(data["players"]) != data["num_players"]:
        raise RecordError(f"{data['num_players']} seats but {len(data['players'])} player names")
    result = data.get("result", {})
    if result and set(result) != set(RESULT_KEYS):
        # a partial result would let a tampered record replay unchecked on the missing fields
        raise RecordError(f"record field 'result' needs exactly the keys {list(RESULT_KEYS)}, not {list(result)}")


def replay(record: GameRecord, check: bool = True) -> Game:
    """Play the record's actions again from its seed and return the game.

    Args:
        record: the record to replay.
        check: compare the outcome with ``record.result`` and the log with ``record.events`` (each when the
            record has one).

    Raises:
        RecordError: bad seed, options or action, an action that is illegal where it comes, or (with
            ``check``) a final state or log that differs from the recorded one.
    """
    try:
        RuleOptions.from_dict(record.options)
        game = Game(record.num_players, seed=record.seed, **record.options)
    except ValueError as err:
        raise RecordError(f"cannot set the game up: {err}") from None
    for i, data in enumerate(record.actions):
        try:
            action = action_from_dict(data)
        except InvalidStateError as err:
            why = str(err).removeprefix("invalid state: ")  # misleading here: the action dict is at fault
            raise RecordError(f"action {i} ({data!r}) is malformed: {why}") from None
        try:
            game.apply(action)
        except IllegalActionError as err:
            raise RecordError(f"action {i} ({data!r}) does not replay: {err}") from None
    if check:
        differs = _differences(record, game)
        if differs:
            raise RecordError(f"the replay does not reach the recorded result: {', '.join(differs)} differ")
    return game


def _differences(record: GameRecord, game: Game) -> list[str]:
    """The recorded fields (result fields, and the events as a whole) that the replayed game contradicts."""
    differs = []
    if record.result:
        outcome = result_of(game)
        differs = sorted(k for k, v in record.result.items() if outcome.get(k) != v)
    if record.events and record.events != [entry.to_dict() for entry in game.log]:
        differs.append("events")
    return differs
