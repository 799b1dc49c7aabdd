"""Game records: recording, replaying, saving, rejecting corrupt records, and ``python -m gubs_env.replay``."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gubs_env.engine import Game, Op
from gubs_env.records.record import RESULT_KEYS, GameRecord, RecordError, replay, result_of
from gubs_env.records.transcript import entry_line
from gubs_env.replay import main as replay_main
from tests.helpers import table


def random_game(players: int, seed: int, actions: int | None = None, **options: Any) -> Game:
    """A game of seeded random legal actions: to the end, or ``actions`` of them."""
    game = Game(players, seed=seed, **options)
    pick = random.Random(seed)
    while not game.is_over and (actions is None or len(game.log) < actions):
        game.apply(pick.choice(game.legal_actions()))
    return game


def record_of(game: Game, seed: int) -> GameRecord:
    return GameRecord.from_game(game, seed, ["random"] * game.num_players)


@pytest.fixture(scope="module")
def record_dict() -> dict[str, Any]:
    """A finished 3-player game's record as a dict (copy it before changing it)."""
    return record_of(random_game(3, seed=11), 11).to_dict()


@pytest.fixture
def record_file(tmp_path: Path, record_dict: dict[str, Any]) -> Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_dict))
    return path


# --- records replay their games --------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 7))
def test_a_record_replays_to_the_same_state(players: int) -> None:
    for seed in range(10):
        game = random_game(players, seed)
        again = replay(GameRecord.from_dict(json.loads(json.dumps(record_of(game, seed).to_dict()))))
        assert again.to_dict() == game.to_dict()
        assert again.scores() == game.scores() and again.winners() == game.winners()
        assert [e.to_dict() for e in again.log] == [e.to_dict() for e in game.log]


def test_an_unfinished_game_replays_to_where_it_stopped() -> None:
    game = random_game(4, seed=3, actions=37)
    record = record_of(game, 3)
    assert record.result["over"] is False and len(record.actions) == 37
    assert replay(record).to_dict() == game.to_dict()


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    record = record_of(random_game(5, seed=2), 2)
    path = record.save(tmp_path / "new" / "folder" / "game.json")
    assert path.is_file()
    assert GameRecord.load(path) == record
    assert json.loads(path.read_text())["format"] == 1


def test_rule_options_are_kept() -> None:
    game = random_game(3, seed=4, letter_placement="uniform")
    record = GameRecord.from_dict(json.loads(json.dumps(record_of(game, 4).to_dict())))
    assert record.options == {"letter_placement": "uniform", "max_turns": 2000}
    assert replay(record).options.letter_placement == "uniform"
    assert replay(record).to_dict() == game.to_dict()


def test_a_truncated_game_is_recorded_and_replayed_as_truncated() -> None:
    game = random_game(2, seed=5, max_turns=6)
    assert game.truncated
    record = record_of(game, 5)
    assert record.options["max_turns"] == 6
    assert record.result["truncated"] is True and record.result["winners"] == []
    again = replay(record)
    assert again.truncated and again.winners() == [] and again.to_dict() == game.to_dict()


def test_from_game_needs_the_log_a_seed_and_a_name_per_seat() -> None:
    with pytest.raises(RecordError, match="record_log=False"):
        GameRecord.from_game(Game(2, seed=1, record_log=False), 1, ["a", "b"])
    with pytest.raises(RecordError, match="2 seats but 3 player names"):
        GameRecord.from_game(Game(2, seed=1), 1, ["a", "b", "c"])
    with pytest.raises(RecordError, match="the seed must be"):
        GameRecord.from_game(Game(2), None, ["a", "b"])


def test_replay_without_check_accepts_a_changed_result(record_dict: dict[str, Any]) -> None:
    data = copy.deepcopy(record_dict)
    data["result"]["scores"] = [99, 99, 99]
    assert replay(GameRecord.from_dict(data), check=False).is_over
    with pytest.raises(RecordError, match="scores differ"):
        replay(GameRecord.from_dict(data))


# --- corrupt records are refused with a clear message ----------------------------------------------


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets ``data[key]...`` (dotted path, numeric parts index lists) to ``value``."""
    *parents, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]

    def change(data: dict[str, Any]) -> None:
        for part in parents:
            data = data[part]
        data[last] = value

    return change


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


CORRUPTIONS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "format 2": (_set("format", 2), "unsupported record format 2"),
    "format true": (_set("format", True), "unsupported record format True"),
    "no format": (_delete("format"), "unsupported record format None"),
    "no seed": (_delete("seed"), "record field 'seed' must be an int"),
    "no actions": (_delete("actions"), "record field 'actions' must be a list"),
    "no players": (_delete("players"), "record field 'players' must be a list"),
    "no options": (_delete("options"), "record field 'options' must be an object"),
    "no num_players": (_delete("num_players"), "record field 'num_players' must be an int"),
    "seed as text": (_set("seed", "11"), "record field 'seed' must be an int"),
    "seed as bool": (_set("seed", True), "record field 'seed' must be an int"),
    "num_players as float": (_set("num_players", 3.0), "record field 'num_players' must be an int"),
    "players as text": (_set("players", "abc"), "record field 'players' must be a list"),
    "players not names": (_set("players", [1, 2, 3]), "must list names"),
    "actions as dict": (_set("actions", {}), "record field 'actions' must be a list"),
    "events as number": (_set("events", 5), "'events' and 'result' must be a list and an object"),
    "result as list": (_set("result", []), "'events' and 'result' must be a list and an object"),
    "result missing a key": (lambda d: d["result"].pop("final_state_sha256"), "needs exactly"),
    "result with an extra key": (_set("result.extra", 1), "needs exactly the keys"),
    "more players than names": (_set("num_players", 4), "4 seats but 3 player names"),
    "fewer players than names": (_set("players", ["a", "b"]), "3 seats but 2 player names"),
    "negative seed": (_set("seed", -1), "cannot set the game up: seed must be None or an int >= 0"),
    "bad option": (_set("options.letter_placement", "diagonal"), "cannot set the game up: letter_placement"),
    "unknown option": (_set("options.speed", 2), "cannot set the game up: unknown rule option"),
    "action not a dict": (_set("actions.0", "Draw"), r"action 0 \('Draw'\) is malformed: an action is a dict"),
    "action without op": (_set("actions.0", {"seat": 1}), r"action 0 \({'seat': 1}\) is malformed"),
    "unknown op": (_set("actions.0", {"op": "fly"}), "'fly' is not one of"),
    "unknown card": (_set("actions.1", {"op": "play", "card": "Dragon"}), "unknown card 'Dragon'"),
    "seat as text": (_set("actions.1", {"op": "pick", "seat": "1"}), "seat must be an int"),
    "unknown field": (_set("actions.0", {"op": "draw", "speed": 1}), "is malformed: an action is a dict with"),
    "illegal first action": (_set("actions.0", {"op": "end_turn"}), "action 0 .* does not replay: .* is not legal"),
    "action after the end": (lambda d: d["actions"].append({"op": "draw"}), "the game is over"),
    "an action left out": (lambda d: d["actions"].pop(), "does not reach the recorded result"),
    "changed scores": (_set("result.scores", [0, 0, 0]), "scores differ"),
    "changed winners": (_set("result.winners", [0, 1, 2]), "winners differ"),
    "changed digest": (_set("result.final_state_sha256", "0" * 64), "final_state_sha256 differ"),
    "changed turns": (_set("result.turns", 1), "turns differ"),
    "changed event": (_set("events.0.facts", []), "events differ"),
    "another seed": (_set("seed", 12), "does not (replay|reach the recorded result)"),
    "unknown top-level field": (_set("speed", 1), r"unknown record field\(s\) \['speed'\]"),
    "seven players": (lambda d: d.update(num_players=7, players=["a"] * 7), "must be from 2 to 6, not 7"),
    "a name with a control sequence": (_set("players.0", "\x1b[2Jbot"), "printable characters"),
    "an empty name": (_set("players.0", ""), "printable characters"),
    "a name too long": (_set("players.0", "x" * 1001), "printable characters"),
    "max_turns as text": (_set("options.max_turns", "many"), "cannot set the game up: max_turns"),
    "event not an object": (_set("events.0", 5), "event 0 must be an object"),
    "event with an extra key": (_set("events.1.secret", 1), "event 1 must be an object"),
    "event actor off the table": (_set("events.0.actor", 3), "event 0 must be an object"),
    "fact seen by no seat": (_set("events.0.facts.0.seen_by", "all"), "event 0 must be an object"),
    "over as a number": (_set("result.over", 1), r"'result\.over' is malformed"),
    "scores too short": (_set("result.scores", [1]), r"'result\.scores' is malformed"),
    "scores as floats": (_set("result.scores", [0.5, 0, 0]), r"'result\.scores' is malformed"),
    "winner off the table": (_set("result.winners", [3]), r"'result\.winners' is malformed"),
    "digest not hex": (_set("result.final_state_sha256", "Z" * 64), r"'result\.final_state_sha256' is malformed"),
    "huge action text": (_set("actions.0", {"op": "x" * 10_000}), r"action 0 \(\{'op': 'xxx.{40,70}\.\.\.\)"),
    "another player count": (
        lambda d: d.update(num_players=2, players=["a", "b"]),
        r"does not (replay|reach the recorded result)|event \d+ must be",
    ),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_corrupt_record_is_refused_with_a_clear_message(name: str, record_dict: dict[str, Any]) -> None:
    change, message = CORRUPTIONS[name]
    data = copy.deepcopy(record_dict)
    change(data)
    with pytest.raises(RecordError, match=message):
        replay(GameRecord.from_dict(json.loads(json.dumps(data))))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not a JSON game record"),
        ("", "not a JSON game record"),
        ("[1, 2]", "a game record is a JSON object, not list"),
        ('"text"', "a game record is a JSON object, not str"),
    ],
)
def test_a_file_that_is_not_a_record_is_refused(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError, match=message):
        GameRecord.load(path)


def test_undecodable_or_deeply_nested_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="not a JSON game record"):
        GameRecord.load(path)
    path.write_text("[" * 100_000)
    with pytest.raises(RecordError, match="not a JSON game record"):
        GameRecord.load(path)


def test_a_record_file_is_read_with_a_size_cap(tmp_path: Path, monkeypatch) -> None:
    import gubs_env.records.record

    with pytest.raises(RecordError, match="larger than a game record can be"):
        GameRecord.load("/dev/zero")  # endless: only the cap's worth is read
    path = tmp_path / "big.json"
    path.write_text(" " * 101 + "{}")
    monkeypatch.setattr(gubs_env.records.record, "MAX_RECORD_BYTES", 100)
    with pytest.raises(RecordError, match="larger than a game record can be"):
        GameRecord.load(path)


@pytest.mark.parametrize("path", ["\0", "no/such/file.json"])
def test_an_unreadable_path_is_a_record_error(path: str) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(path)


def test_from_game_refuses_names_a_record_cannot_hold() -> None:
    with pytest.raises(RecordError, match="printable characters"):
        GameRecord.from_game(random_game(2, seed=1, actions=3), 1, ["ok", "bad\nname"])


def test_result_keys_match_result_of() -> None:
    assert tuple(result_of(Game(2, seed=0))) == RESULT_KEYS


# --- the replay command ----------------------------------------------------------------------------


def test_replay_prints_the_game_and_the_result(record_file: Path, record_dict: dict[str, Any], capsys) -> None:
    assert replay_main([str(record_file)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 players (seat 0: random, seat 1: random, seat 2: random), seed 11")
    assert "[turn 1] seat 0 (random): " in out
    assert f"Scores: {record_dict['result']['scores']}" in out
    assert "The replay reaches the recorded final state." in out
    assert "you draw" not in out  # the public view


def test_replay_quiet_prints_only_the_result(record_file: Path, capsys) -> None:
    assert replay_main([str(record_file), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("Scores: ")


def test_replay_view_shows_that_seats_private_facts(record_file: Path, capsys) -> None:
    assert replay_main([str(record_file), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "you draw" in out and "seat 2 (you)" in out


@pytest.mark.parametrize(("view", "message"), [("3", "--seat must be a seat from 0 to 2"), ("-1", "at least 0")])
def test_replay_view_out_of_range_is_a_bad_command_line(view: str, message: str, record_file: Path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        replay_main([str(record_file), "--seat", view])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_replay_of_a_missing_bad_or_mismatched_file_exits_1(tmp_path: Path, record_dict, capsys) -> None:
    assert replay_main([str(tmp_path / "missing.json")]) == 1
    assert capsys.readouterr().err.startswith("python -m gubs_env.replay: error: cannot read ")
    bad = tmp_path / "bad.json"
    bad.write_text("nonsense")
    assert replay_main([str(bad)]) == 1
    assert "error: " in capsys.readouterr().err
    data = copy.deepcopy(record_dict)
    data["result"]["scores"][0] += 1
    bad.write_text(json.dumps(data))
    assert replay_main([str(bad)]) == 1
    assert "error: the replay does not reach the recorded result: scores differ" in capsys.readouterr().err
    assert replay_main([str(tmp_path)]) == 1  # a folder
    assert "error: " in capsys.readouterr().err


def test_replay_says_when_a_game_was_left_unfinished(tmp_path: Path, capsys) -> None:
    path = record_of(random_game(2, seed=1, actions=10), 1).save(tmp_path / "short.json")
    assert replay_main([str(path), "--quiet"]) == 0
    assert "left unfinished" in capsys.readouterr().out


def test_replay_runs_as_a_module(record_file: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gubs_env.replay", str(record_file), "--quiet"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "The replay reaches the recorded final state." in done.stdout
    command = [sys.executable, "-m", "gubs_env.replay", "missing.json"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith("python -m gubs_env.replay: error: ")


# --- what a viewer may read of the log -------------------------------------------------------------


def test_others_do_not_see_the_order_a_scout_chose() -> None:
    game = table(num_players=2, hands=[{"Scout": 1}, {}], deck_top=["Lure", "Gub", "Mushroom"])
    game.apply("Scout: look at the deck")
    entry = game.apply("Scout: put Lure next")
    assert entry.action.op is Op.PLACE
    assert entry_line(entry, 0) == "[turn 1] seat 0: Scout: put Lure next"
    assert entry_line(entry, 1) == entry_line(entry, None) == "[turn 1] seat 0: Scout: put a card next"
