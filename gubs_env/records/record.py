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
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gubs_env.engine import Action, Game, IllegalActionError, InvalidStateError, action_from_dict, action_to_dict
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.support import strict_json
from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically

RECORD_FORMAT = 1
"""Bumped whenever the layout of a record changes."""


RECORD_KEYS = ("format", "num_players", "seed", "options", "players", "actions", "events", "result", "usage")
"""The fields a record may have (``events``, ``result`` and ``usage`` may be left out)."""
MAX_USAGE_FIELDS = 32
"""The most counts one seat's ``usage`` may hold."""
EVENT_KEYS = ("turn", "actor", "action", "facts")
"""The fields of each entry of a record's ``events``."""
MAX_RECORD_BYTES = 16 * 2**20
"""The largest record file :meth:`GameRecord.load` reads (6-player records take about 1 KB a turn)."""
MAX_NESTING = 8
"""The deepest JSON nesting a record may have (a record nests 5 levels)."""
MAX_NAME_LENGTH = 1000
"""The longest player name (an agent spec, a model path) a record may hold."""


class RecordError(ValueError):
    """A record that is malformed, or whose actions do not replay to its recorded result."""


def state_digest(game: Game) -> str:
    """A SHA-256 of the full state (random generator included) in canonical JSON.

    It is taken of the state as saved-state version 1 wrote it, without the deck's history: a record's history
    follows from its seed and actions, and records written before the history was saved keep their digests.
    """
    saved = game.to_dict()
    del saved["deck_history"]
    text = json.dumps({**saved, "version": 1}, sort_keys=True, separators=(",", ":"))
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
    usage: list[dict[str, Any] | None] | None = None
    """Per seat, what its player spent on the game where it reports that (a language model's calls, tokens,
    seconds, retries and fallbacks: names and numbers), else None; None when no seat's player does."""

    @classmethod
    def from_game(
        cls, game: Game, seed: int, players: list[str], usage: list[dict[str, Any] | None] | None = None
    ) -> GameRecord:
        """Record ``game``, which must have been made as ``Game(n, seed=seed, **options)`` with its log on.

        ``usage``: per seat, what its player spent (see :attr:`usage`).
        """
        if not game.record_log:
            raise RecordError("the game kept no log (record_log=False): its actions are unknown")
        if len(players) != game.num_players:
            raise RecordError(f"{game.num_players} seats but {len(players)} player names")
        if not all(_is_name(str(p)) for p in players):
            raise RecordError(f"player names are 1 to {MAX_NAME_LENGTH} printable characters, not {_short(players)}")
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
            usage=None if usage is None else [None if u is None else dict(u) for u in usage],
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
        } | ({} if self.usage is None else {"usage": self.usage})

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Read a dict from :meth:`to_dict`, checking every field (not yet that it replays: see :func:`replay`).

        The table must be one the engine can set up, each action one the engine can read, each event and the
        result shaped as :meth:`from_game` writes them, and each player name printable.

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
            usage=data.get("usage"),
        )

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON (folders are created)."""
        path = Path(path)
        write_atomically(path, (json.dumps(self.to_dict(), indent=1) + "\n").encode())
        return path

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record saved by :meth:`save`, reading at most :data:`MAX_RECORD_BYTES` of the file.

        Raises:
            RecordError: the file cannot be read, is too large, is not strict JSON or is not a record.
        """
        try:
            data = read_bounded(path, MAX_RECORD_BYTES)  # bounded: a device or pipe may never end
        except FileTooLargeError:
            raise RecordError(f"{path} is larger than a game record can be ({MAX_RECORD_BYTES:,} bytes)") from None
        except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
            raise RecordError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
        try:
            return cls.from_json(data)
        except RecordError as err:
            raise RecordError(f"{path}: {err}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Read a record from its JSON text (strict: no NaN or Infinity, no repeated keys, bounded nesting).

        Raises:
            RecordError: the text is not strict UTF-8 JSON or not a record (the message names the field).
        """
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"a game record is at most {MAX_RECORD_BYTES:,} bytes, not {len(text):,}")
        try:
            data = strict_json.loads(text, finite=True)
        except (ValueError, RecursionError) as err:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise RecordError(f"not a JSON game record: {_clip(err)}") from None
        _check_depth(data)
        return cls.from_dict(data)


def _check_depth(data: Any) -> None:
    """Refuse JSON nested deeper than any record is, without recursing (a record nests 5 levels)."""
    level: list[Any] = [data]
    for _ in range(MAX_NESTING):
        level = [v for x in level if isinstance(x, (dict, list)) for v in (x.values() if isinstance(x, dict) else x)]
        if not level:
            return
    raise RecordError(f"nested deeper than a game record ({MAX_NESTING} levels)")


def _short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for an error message about hostile data."""
    return _clip(repr(value), limit)


def _clip(text: object, limit: int = 200) -> str:
    """``str(text)`` (an exception's message) cut to ``limit`` characters."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(value: Any, low: int = 0, high: float = math.inf) -> bool:
    """Whether ``value`` is a JSON integer (not a bool, not a float) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_name(value: Any) -> bool:
    """Whether ``value`` is a player name a terminal can print as it is (no control characters)."""
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME_LENGTH and value.isprintable()


def _check_fields(data: Any) -> None:
    """Raise a :class:`RecordError` naming the first field of a record dict that has the wrong shape."""
    if not isinstance(data, dict):
        raise RecordError(f"a game record is a JSON object, not {type(data).__name__}")
    # bool is an int to Python: without the type check a format of true would pass as 1
    if type(data.get("format")) is not int or data["format"] != RECORD_FORMAT:
        raise RecordError(
            f"unsupported record format {_short(data.get('format'))} (this version reads {RECORD_FORMAT})"
        )
    unknown = sorted(set(data) - set(RECORD_KEYS))
    if unknown:
        raise RecordError(f"unknown record field(s) {_short(unknown)}; a record has {list(RECORD_KEYS)}")
    expected = {"num_players": int, "seed": int, "options": dict, "players": list, "actions": list}
    words = {int: "an int", dict: "an object", list: "a list"}
    for key, kind in expected.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise RecordError(f"record field {key!r} must be {words[kind]}, not {_short(data.get(key))}")
    if not isinstance(data.get("events", []), list) or not isinstance(data.get("result", {}), dict):
        raise RecordError("record fields 'events' and 'result' must be a list and an object")
    _check_setup(data)
    for i, action in enumerate(data["actions"]):
        _action(i, action)
    _check_events(data.get("events", []), data["num_players"])
    _check_result(data.get("result", {}), data["num_players"])
    _check_usage(data.get("usage"), data["num_players"])


def _check_usage(usage: Any, num_players: int) -> None:
    """``usage``: None, or per seat None or a few counts (identifier names, numbers or true/false)."""
    if usage is None:
        return

    def counts(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and len(value) <= MAX_USAGE_FIELDS
            and all(isinstance(k, str) and k.isidentifier() and len(k) <= 40 for k in value)
            and all(type(v) is bool or (type(v) in (int, float) and 0 <= v < 1e15 and v == v) for v in value.values())
        )

    if not isinstance(usage, list) or len(usage) != num_players or not all(u is None or counts(u) for u in usage):
        raise RecordError(
            f"record field 'usage' must be null or one entry per seat, each null or an object of counts, not "
            f"{_short(usage)}"
        )


def _check_setup(data: dict[str, Any]) -> None:
    """The table: the player count, the seed, the names and the rule options."""
    n = data["num_players"]
    try:
        check_player_count(n, "record field 'num_players'")
    except ValueError as err:
        raise RecordError(str(err)) from None
    if data["seed"] < 0:
        raise RecordError(f"cannot set the game up: seed must be None or an int >= 0, not {data['seed']}")
    if not all(_is_name(p) for p in data["players"]):
        raise RecordError(
            f"record field 'players' must list names (strings of 1 to {MAX_NAME_LENGTH} printable characters), "
            f"not {_short(data['players'])}"
        )
    if len(data["players"]) != n:
        raise RecordError(f"{n} seats but {len(data['players'])} player names")
    try:
        RuleOptions.from_dict(data["options"])
    except (ValueError, TypeError) as err:
        raise RecordError(f"cannot set the game up: {_clip(err)}") from None


def _action(index: int, data: Any) -> Action:
    """The action a record's ``actions[index]`` describes, checked by the engine's reader."""
    try:
        return action_from_dict(data)
    except InvalidStateError as err:
        why = str(err).removeprefix("invalid state: ")  # misleading here: the action dict is at fault
        raise RecordError(f"action {index} ({_short(data)}) is malformed: {_clip(why)}") from None


def _check_events(events: list[Any], num_players: int) -> None:
    """Each event as :meth:`~gubs_env.engine.LogEntry.to_dict` writes it (what it says is checked by replay)."""
    for i, event in enumerate(events):
        if not (
            isinstance(event, dict)
            and set(event) == set(EVENT_KEYS)
            and _is_int(event["turn"])
            and _is_int(event["actor"], 0, num_players - 1)
            and isinstance(event["action"], str)
            and isinstance(event["facts"], list)
            and all(_is_fact(fact, num_players) for fact in event["facts"])
        ):
            raise RecordError(
                f"event {i} must be an object with the keys {list(EVENT_KEYS)} (facts: seen_by and text), "
                f"not {_short(event)}"
            )


def _is_fact(fact: Any, num_players: int) -> bool:
    return (
        isinstance(fact, dict)
        and set(fact) == {"seen_by", "text"}
        and (fact["seen_by"] is None or _is_int(fact["seen_by"], 0, num_players - 1))
        and isinstance(fact["text"], str)
    )


def _check_result(result: dict[str, Any], num_players: int) -> None:
    """An empty result (nothing to check), or every field of :func:`result_of` with its type."""
    if not result:
        return
    if set(result) != set(RESULT_KEYS):
        # a partial result would let a tampered record replay unchecked on the missing fields
        raise RecordError(
            f"record field 'result' needs exactly the keys {list(RESULT_KEYS)}, not {_short(list(result), 200)}"
        )
    seats = result["winners"]
    checks = {
        "over": isinstance(result["over"], bool),
        "truncated": isinstance(result["truncated"], bool),
        "turns": _is_int(result["turns"]),
        "scores": isinstance(result["scores"], list)
        and len(result["scores"]) == num_players
        and all(_is_int(v, -(2**31), 2**31) for v in result["scores"]),
        "winners": isinstance(seats, list) and all(_is_int(s, 0, num_players - 1) for s in seats),
        "final_state_sha256": isinstance(result["final_state_sha256"], str)
        and re.fullmatch(r"[0-9a-f]{64}", result["final_state_sha256"]) is not None,
    }
    wrong = [key for key, ok in checks.items() if not ok]
    if wrong:
        raise RecordError(f"record field 'result.{wrong[0]}' is malformed: {_short(result[wrong[0]])}")


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
    except (ValueError, TypeError) as err:  # a record built in Python skips from_dict's checks
        raise RecordError(f"cannot set the game up: {_clip(err)}") from None
    for i, data in enumerate(record.actions):
        action = _action(i, data)
        try:
            game.apply(action)
        except IllegalActionError as err:
            raise RecordError(f"action {i} ({_short(data)}) does not replay: {_clip(err)}") from None
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
