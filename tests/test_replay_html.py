"""The replay page as a file (no browser): its data blocks, escaping, size, and the ``replay --html`` command."""

from __future__ import annotations

import base64
import json
import random
import re
import zlib
from pathlib import Path

import pytest

from gubs_env.engine import Game
from gubs_env.engine.actions import Op
from gubs_env.records.record import GameRecord, RecordError
from gubs_env.replay import main as replay_main
from gubs_env.viz.replay_html import ALL_SEEING, all_seeing_line, replay_html, script_json, view_choice

HOSTILE = "</script><script>alert(1)</script><!-- </SCRIPT & @TEXTS@ @SCRIPT@"


def random_game(seed: int, players: int = 2, limit: int | None = None) -> Game:
    game = Game(players, seed=seed)
    chooser = random.Random(seed)
    while not game.is_over and (limit is None or len(game.log) < limit):
        game.apply(chooser.choice(game.legal_actions()))
    return game


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return GameRecord.from_game(random_game(5, limit=40), 5, [HOSTILE, "bot"])


@pytest.fixture(scope="module")
def page(record: GameRecord) -> str:
    return replay_html(record, view=1)


def found(pattern: str, text: str) -> str:
    """The first group of ``pattern``'s match in ``text``, which must match."""
    match = re.search(pattern, text, re.S)
    assert match is not None, pattern
    return match.group(1)


def blocks(page: str) -> tuple[dict, dict]:
    """The texts and the unpacked pictures the page carries."""
    texts = found(r'<script type="application/json" id="texts">(.*?)</script>', page)
    packed = found(r'<script type="application/octet-stream" id="pictures">(.*?)</script>', page)
    return json.loads(texts), json.loads(zlib.decompress(base64.b64decode(packed)))


@pytest.mark.parametrize("value", [HOSTILE, "a\u2028b\u2029", {"k</script>": ["<!--", "\u2029", "&amp;"]}, "plain"])
def test_script_json_cannot_end_the_element_and_reads_back(value) -> None:
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == value


def test_the_page_has_exactly_its_own_script_elements_and_fetches_nothing(page: str) -> None:
    assert page.lower().count("<script") == 3 and page.lower().count("</script") == 3
    assert "<!--" not in page and "alert(1)" not in page.split('id="texts">')[0]
    assert "src=" not in page and "href=" not in page and "https://" not in page and "http://" not in page
    assert "default-src 'none'" in page


def test_the_data_blocks_hold_every_step_and_view(page: str, record: GameRecord) -> None:
    texts, pictures = blocks(page)
    steps = len(record.actions)
    assert texts["steps"] == steps and texts["first_view"] == "1" and texts["names"][0] == f"seat 0 ({HOSTILE})"
    assert [v["id"] for v in texts["views"]] == ["0", "1", ALL_SEEING] == sorted(pictures)
    assert all(len(pictures[v]) == steps + 1 and len(texts["log"][v]) == steps for v in pictures)
    assert "seen by seat 0" in pictures["0"][0] and "all-seeing" in pictures[ALL_SEEING][steps]
    assert texts["log"]["0"][0].startswith(f"[turn 1] seat 0 ({HOSTILE}): ")


def test_the_script_hash_in_the_policy_matches_the_script(page: str) -> None:
    import hashlib

    script = found(r"<script>(.*?)</script>", page)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page


def test_the_all_seeing_log_marks_private_facts_and_hidden_choices() -> None:
    game = random_game(5, limit=40)
    private = next(e for e in game.log if any(f.seen_by is not None for f in e.facts))
    assert f"(seat {private.actor} only) you " in all_seeing_line(private)
    for seed in range(40):  # a game where someone keeps a card or orders the deck top
        hidden = [e for e in random_game(seed, players=3).log if e.action.op in (Op.KEEP, Op.PLACE)]
        if hidden:
            assert all_seeing_line(hidden[0]).endswith(f"(seat {hidden[0].actor} only) {hidden[0].action}")
            return
    pytest.fail("no random game had a hidden choice")


def test_a_200_step_game_at_three_views_stays_small() -> None:
    game = random_game(1, limit=200)
    page = replay_html(GameRecord.from_game(game, 1, ["a", "b"]))
    assert len(game.log) == 200 and len(page.encode()) < 1_000_000


@pytest.mark.parametrize("text", ["all", "0", "5"])
def test_view_choice_takes_a_seat_or_all(text: str) -> None:
    assert view_choice(text) == (text if text == ALL_SEEING else int(text))


@pytest.mark.parametrize("text", ["-1", "ALL", "x", "", "1.5", "1e3"])
def test_view_choice_refuses_anything_else(text: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        view_choice(text)


@pytest.mark.parametrize("view", [2, -1, "seat", True])
def test_a_view_outside_the_record_is_a_record_error(record: GameRecord, view) -> None:
    with pytest.raises(RecordError):
        replay_html(record, view=view)


# --- the command ----------------------------------------------------------------------------------------------


@pytest.fixture
def record_file(tmp_path: Path, record: GameRecord) -> Path:
    return record.save(tmp_path / "game.json")


def test_replay_html_writes_the_page(record_file: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "pages" / "replay.html"
    assert replay_main([str(record_file), "--html", str(target), "--seat", "all"]) == 0
    out = capsys.readouterr().out
    assert f"Replay page written to {target}" in out and "[turn 1]" not in out  # the page instead of the log
    assert blocks(target.read_text())[0]["first_view"] == ALL_SEEING


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--seat", "all"], 2),  # all-seeing is for the page only
        (["--html", "{dir}/r.html", "--seat", "2"], 2),  # a seat the record does not have
        (["--html", "{dir}/r.html", "--seat", "everyone"], 2),
        (["--html", "{dir}"], 1),  # a folder
        (["--html", "{dir}/game.json/r.html"], 1),  # under a file
    ],
)
def test_replay_html_errors(record_file: Path, argv: list[str], code: int, capsys) -> None:
    args = [a.replace("{dir}", str(record_file.parent)) for a in argv]
    if code == 2:
        with pytest.raises(SystemExit) as stop:
            replay_main([str(record_file), *args])
        assert stop.value.code == 2
    else:
        assert replay_main([str(record_file), *args]) == 1
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err
    assert not (record_file.parent / "r.html").exists()


def test_replay_html_of_a_bad_record_writes_nothing(tmp_path: Path, record: GameRecord, capsys) -> None:
    data = record.to_dict()
    data["actions"][3] = {"op": "nonsense"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert replay_main([str(bad), "--html", str(tmp_path / "r.html")]) == 1
    assert not (tmp_path / "r.html").exists() and "error" in capsys.readouterr().err
