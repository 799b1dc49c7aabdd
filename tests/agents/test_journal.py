"""A tournament's journal: every game kept as it finishes, read back on ``--resume`` as data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.evaluate.journal import Journal, JournalError
from agents.evaluate.tournament import GameOutcome, run_tournament

CONFIG = {"agents": ["a", "b"], "num_players": 2, "deals": 3, "pairings": 1, "seed": 0}
GAME = {"pairing": 0, "deal": 1, "seat": 1, "scores": [2, 3], "winners": [1], "truncated": False, "luck": [0.1, -0.1]}
GAME |= {"usage": [None, {"calls": 3, "seconds": 1.5, "forfeited": False}]}


def written(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join([json.dumps({"journal": 1, "config": CONFIG}), *lines]) + "\n", encoding="utf-8")
    return path


def test_a_journal_reads_back_the_games_it_wrote(tmp_path: Path) -> None:
    book = Journal(tmp_path / "g.jsonl", CONFIG, resume=False)
    outcome = GameOutcome.from_journal(GAME)
    book.add([outcome])
    book.close()
    again = Journal(tmp_path / "g.jsonl", CONFIG, resume=True)
    assert [GameOutcome.from_journal(game) for game in again.games] == [outcome]


def test_a_last_line_cut_short_is_dropped_and_its_game_played_again(tmp_path: Path) -> None:
    path = written(tmp_path / "g.jsonl", [json.dumps({"game": GAME})])
    path.write_text(path.read_text() + json.dumps({"game": GAME})[:30], encoding="utf-8")
    assert len(Journal(path, CONFIG, resume=True).games) == 1


def test_another_tournaments_journal_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path / "g.jsonl", [])
    with pytest.raises(JournalError, match="its deals differ"):
        Journal(path, CONFIG | {"deals": 4}, resume=True)
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "none.jsonl", CONFIG, resume=True)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(sorted(GAME)),
        st.one_of(st.integers(-5, 200), st.floats(allow_nan=False), st.lists(st.integers(-1, 9)), st.booleans()),
    )
)
def test_a_tampered_game_line_is_one_line_or_a_valid_game(tmp_path_factory, changes) -> None:
    path = written(tmp_path_factory.mktemp("j") / "g.jsonl", [json.dumps({"game": GAME | changes}), "{}"])
    try:
        games = Journal(path, CONFIG, resume=True).games
    except JournalError as error:
        assert "\n" not in str(error) and len(str(error)) < 400
    else:
        pytest.fail(f"the closing '{{}}' line is no game, yet {len(games)} were read")


def test_run_tournament_resumes_from_its_journal_and_plays_only_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    whole = run_tournament(["random", "heuristic"], deals=3, jobs=1, progress=False, journal=path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:3]) + "\n")  # the first two games only, as if stopped there
    resumed = run_tournament(["random", "heuristic"], deals=3, jobs=1, progress=False, journal=path, resume=True)
    assert resumed.games == whole.games and path.read_text().splitlines()[:3] == lines[:3]
    with pytest.raises(ValueError, match="needs the journal"):
        run_tournament(["random", "heuristic"], deals=1, jobs=1, progress=False, resume=True)
