"""Tournaments of models behind a scripted OpenAI-compatible server (tests/llm_server.py), through the command.

Under every injected fault the tournament completes with 0 crashes and 0 illegal moves, and every output format
holds each game's exact counts; a server that dies mid-tournament ends it in one line with every finished game kept,
``--resume`` plays the rest, and the result is the uninterrupted tournament's. The API key reaches no file and no
output.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openai")

from agents.evaluate.command import main
from agents.evaluate.journal import JOURNAL_NAME
from gubs_env.records.record import GameRecord
from tests.llm_helpers import Server
from tests.llm_server import LEAKED_KEY

FAULTS = (("legal", "illegal", "sometimes", "empty"), ("long", "ratelimit", "error", "garbage"))
"""Two tournaments of four models each, each model's script a fault (tests/llm_server.py); ``legal`` none."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    yield running
    running.stop()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def every_file_text(folder: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("models", FAULTS)
def test_under_every_fault_the_tournament_completes_and_every_format_counts_exactly(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, models: tuple
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LEAKED_KEY)  # sent to the server, written nowhere
    specs = [server.spec(model, attempts=4) for model in models]
    out = tmp_path / "out"
    code, printed, errors = run(
        capsys, *specs, "--fields", "heuristic", "--games", "2", "--jobs", "1", "--no-progress",
        "--out", str(out), "--records", str(out / "records"),
    )  # fmt: skip
    assert code == 0, errors
    assert "Model usage" in printed
    games = list(csv.DictReader((out / "games.csv").open()))
    assert len(games) == 2 * len(models) and {int(row["seat"]) for row in games} == {0, 1}
    stats = server.stats()
    for model in models:
        rows = [row for row in games if f"model={model}," in row["agent"]]
        for key, served in (("requests", "requests"), ("calls", "answered"), ("tokens_in", "tokens_in")):
            if (model, key) != ("garbage", "calls"):  # an unreadable body is a call answered, which the script skips
                assert sum(int(row[key]) for row in rows) == stats[served][model], (model, key)
    fallbacks = {row["agent"]: float(row["usage_fallbacks"]) for row in csv.DictReader((out / "tournament.csv").open())}
    assert all(
        (fallbacks[spec] > 0) == (model in ("illegal", "empty")) for spec, model in zip(specs, models, strict=True)
    )
    report = json.loads((out / "tournament.json").read_text())
    assert len(report["game_usage"]) == len(games) and set(report["usage"]) == set(specs)
    records = [GameRecord.load(path) for path in (out / "records").glob("*.json")]
    assert len(records) == len(games) and all(r.usage and any(u for u in r.usage) for r in records)
    assert LEAKED_KEY not in printed + errors + every_file_text(out)


def test_a_server_that_dies_mid_tournament_stops_it_in_one_line_and_resume_finishes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dying = Server(tmp_path, die_after=60)
    spec = dying.spec("legal", attempts=2, timeout=2)
    argv = [spec, "heuristic", "--games", "6", "--jobs", "1", "--no-progress"]
    code, _, errors = run(capsys, *argv, "--out", str(tmp_path / "out"))
    dying.stop()
    assert code == 1 and errors.count("\n") == 1, errors
    assert "stayed down through 2 tries" in errors and "--resume" in errors
    kept = (tmp_path / "out" / JOURNAL_NAME).read_text().splitlines()[1:]
    assert 0 < len(kept) < 6 and f"all {len(kept)} kept" in errors
    again = Server(tmp_path, port=dying.port)
    try:
        code, _, errors = run(capsys, *argv, "--out", str(tmp_path / "out"), "--resume")
        assert code == 0, errors
        code, _, errors = run(capsys, *argv, "--out", str(tmp_path / "whole"))
        assert code == 0, errors
    finally:
        again.stop()
    resumed, whole = (json.loads((tmp_path / d / "tournament.json").read_text()) for d in ("out", "whole"))
    assert resumed["pairings"] == whole["pairings"] and len(resumed["game_usage"]) == 6
    journal = (tmp_path / "out" / JOURNAL_NAME).read_text().splitlines()
    assert len(journal) == 1 + 6 and journal[1 : 1 + len(kept)] == kept  # the kept games were not played again


def test_a_resume_of_another_tournament_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    assert run(capsys, "random", "heuristic", "--games", "4", "--jobs", "1", "--no-progress", "--out", out)[0] == 0
    code, _, errors = run(capsys, "random", "heuristic", "--games", "8", "--jobs", "1", "--out", out, "--resume")
    assert code == 2 and "another tournament (its deals differ)" in errors
    code, _, errors = run(capsys, "random", "heuristic", "--resume")
    assert code == 2 and "give --out" in errors
    code, _, errors = run(capsys, "llm:model=m,base_url=http://127.0.0.1:9/v1", "heuristic")
    assert code == 2 and "give --out DIR" in errors


def test_a_server_that_refuses_stops_the_tournament_without_the_key(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = [server.spec("refuse"), "heuristic", "--games", "2", "--jobs", "1", "--no-progress", "--out", str(out)]
    code, printed, errors = run(capsys, *argv)
    assert code == 1 and "refused the request: 401" in errors and "stopped after 0 of 2 games" in errors
    assert "THISKEYMUSTNEVERSHOW" not in printed + errors + every_file_text(out)
