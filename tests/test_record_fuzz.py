"""Fuzzing game records: real records, mutated, are refused with a RecordError and nothing else, and never hang.

Two mutators: one edits the parsed record (replaces a value anywhere with random JSON, drops, adds, repeats or
swaps entries, nudges numbers and texts), the other edits the bytes of the JSON text. Whatever comes out,
``GameRecord.from_json`` followed by ``replay`` either succeeds or raises :class:`RecordError`. Each example
runs under an alarm, so a hang fails the test instead of stalling the run.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gubs_env.engine import Game
from gubs_env.engine.cards import Kind
from gubs_env.records.record import EVENT_KEYS, RECORD_KEYS, RESULT_KEYS, GameRecord, RecordError, replay

EXAMPLE_SECONDS = 10
"""Far more than any example needs (milliseconds): only a hang reaches it."""


def _recorded(players: int, seed: int, actions: int | None = None) -> dict[str, Any]:
    game = Game(players, seed=seed)
    pick = random.Random(seed)
    while not game.is_over and (actions is None or len(game.log) < actions):
        game.apply(pick.choice(game.legal_actions()))
    return GameRecord.from_game(game, seed, [f"bot {s}" for s in range(players)]).to_dict()


RECORDS = [_recorded(2, 5), _recorded(3, 8, actions=25), _recorded(4, 2, actions=40)]
"""A finished game and two left early (their results are of games not over)."""

KEYS = sorted({*RECORD_KEYS, *EVENT_KEYS, *RESULT_KEYS, "op", "card", "as_kind", "use", "seat", "part", "detail"})
WORDS = [kind.label for kind in Kind] + ["draw", "play", "pick", "Gub", "", " ", "\x1b[2J", "\ud800"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities included: json.dumps writes them, the strict reader must refuse them
    | st.text(max_size=12)
    | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner),
    max_leaves=12,
)


def _mutate(data: st.DataObject, node: Any) -> Any:
    """A changed copy of ``node``: one change somewhere below it, chosen by ``data``."""
    if isinstance(node, (dict, list)) and node and data.draw(st.integers(0, 3)) > 0:
        if isinstance(node, dict):
            key = data.draw(st.sampled_from(sorted(node)))
            return {**node, key: _mutate(data, node[key])}
        index = data.draw(st.integers(0, len(node) - 1))
        return [*node[:index], _mutate(data, node[index]), *node[index + 1 :]]
    return _change_here(data, node)


def _change_here(data: st.DataObject, node: Any) -> Any:
    how = data.draw(st.sampled_from(["replace", "shape", "nudge"]))
    if how == "replace":
        return data.draw(json_values)
    if how == "shape" and isinstance(node, dict):
        changed = dict(node)
        drop = data.draw(st.booleans())
        if node and drop:
            changed.pop(data.draw(st.sampled_from(sorted(node))))
        else:
            changed[data.draw(st.sampled_from(KEYS) | st.text(max_size=6))] = data.draw(json_values)
        return changed
    if how == "shape" and isinstance(node, list) and node:
        i, j = (data.draw(st.integers(0, len(node) - 1)) for _ in range(2))
        return data.draw(
            st.sampled_from([node[:i] + node[i + 1 :], node[: i + 1] + node[i:], _swapped(node, i, j), node[:i]])
        )
    if isinstance(node, bool):
        return not node
    if isinstance(node, int):
        return node + data.draw(st.sampled_from([-1, 1, -(2**40), 2**63, 7]))
    if isinstance(node, str):
        return data.draw(st.sampled_from(WORDS) | st.text(max_size=8))
    return data.draw(json_values)


def _swapped(items: list[Any], i: int, j: int) -> list[Any]:
    swapped = list(items)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


@contextlib.contextmanager
def _alarm(seconds: int) -> Iterator[None]:
    """Fail (raise TimeoutError) when the block runs longer than ``seconds``: a hang must not stall the suite."""

    def ring(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _load_and_replay(text: str | bytes) -> None:
    """Only RecordError may come out (a record the mutation left valid replays)."""
    with _alarm(EXAMPLE_SECONDS):
        try:
            replay(GameRecord.from_json(text))
        except RecordError as err:
            assert "\n" not in str(err)  # the commands print it as one line


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_record_replays_or_raises_record_error(data: st.DataObject) -> None:
    record = copy.deepcopy(data.draw(st.sampled_from(RECORDS)))
    for _ in range(data.draw(st.integers(1, 3))):
        record = _mutate(data, record)
    _load_and_replay(json.dumps(record))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_record_with_mutated_bytes_replays_or_raises_record_error(data: st.DataObject) -> None:
    text = bytearray(json.dumps(data.draw(st.sampled_from(RECORDS))).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text) - 1))
        how = data.draw(st.sampled_from(["set", "delete", "insert"]))
        if how == "set":
            text[at] = data.draw(st.integers(0, 255))
        elif how == "delete":
            del text[at : at + data.draw(st.integers(1, 40))]
        else:
            text[at:at] = data.draw(st.binary(max_size=12) | st.sampled_from([b"NaN", b"-Infinity", b"[" * 50]))
    _load_and_replay(bytes(text))


def test_the_fuzzed_records_are_valid_before_mutation() -> None:
    for record in RECORDS:
        _load_and_replay(json.dumps(record))
        assert replay(GameRecord.from_json(json.dumps(record))).to_dict()  # and they do replay


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": 1, "seed": NaN}', "NaN is not allowed"),
        ('{"format": 1, "seed": -Infinity}', "-Infinity is not allowed"),
        ('{"format": 1, "format": 1}', r"repeated key\(s\) \['format'\]"),
        ('{"format": 1, "seed": 1e999}', "1e999 is out of range"),
        ('{"format": 1, "players": ' + "[" * 20 + "]" * 20 + "}", "nested deeper than a game record"),
        ('{"format": 1, "seed": 1' + "0" * 5000 + "}", "not a JSON game record"),
        (b'{"format": 1, "players": ["\xff"]}', "not a JSON game record: 'utf-8' codec"),
    ],
)
def test_records_must_be_strict_json(text: str | bytes, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(text)
