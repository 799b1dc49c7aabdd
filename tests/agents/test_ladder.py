"""The ladder: round robins at each table size, search timings, and the table and chart it writes."""

from __future__ import annotations

import csv
import itertools
import json

import pytest

from agents.evaluate import ladder
from agents.evaluate.paired import paired_comparison
from agents.evaluate.tournament import run_tournament


def test_a_tiny_ladder_writes_its_table_data_and_chart(tmp_path):
    agents = ["random", "heuristic", "search-all-seeing:worlds=2,top=2"]
    rows = ladder.run_ladder(agents, [2, 3], deals=1, jobs=1, out=tmp_path, progress=False)
    assert [(r.agent, r.players) for r in rows] == [(a, n) for n in (2, 3) for a in agents]
    by_key = {(r.agent, r.players): r for r in rows}
    assert by_key["heuristic", 2].win_rate_vs_baseline is None  # no pairing against itself
    assert by_key["random", 3].win_rate_vs_baseline is not None
    searched = by_key["search-all-seeing:worlds=2,top=2", 2]
    assert searched.median_ms is not None and searched.p99_ms >= searched.median_ms > 0
    assert by_key["random", 2].median_ms is None  # only search settings are timed
    table = (tmp_path / "ladder.md").read_text()
    ranking, steps = table.split("\n\n", 1)
    assert ranking.count("\n") == 1 + len(agents) and "2p vs heuristic" in ranking
    assert steps.count("| 2 | ") == steps.count("| 3 | ") == 1  # two ranked agents at each size: one step
    assert len(list(csv.DictReader((tmp_path / "ladder.csv").read_text().splitlines()))) == len(rows)
    assert len(json.loads((tmp_path / "ladder.json").read_text())) == len(rows)
    assert (tmp_path / "ladder.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "2p" / "tournament.csv").exists() and (tmp_path / "3p" / "tournament.json").exists()


def test_fields_play_only_against_the_named_agents_and_every_search_kind_is_timed(tmp_path):
    agents = ["random", "heuristic", "ismcts:iterations=4"]
    rows = ladder.run_ladder(agents, [3], deals=1, jobs=1, out=tmp_path, progress=False, fields=["heuristic"])
    by_agent = {r.agent: r for r in rows}
    assert by_agent["random"].win_rate_vs_baseline is not None
    assert by_agent["ismcts:iterations=4"].median_ms is not None  # a tree search is timed like the others
    played = json.loads((tmp_path / "3p" / "tournament.json").read_text())["pairings"]
    assert {p["opponent"] for p in played} == {"heuristic"}
    with pytest.raises(ValueError, match="include it in the fields"):
        ladder.run_ladder(agents, [2], deals=1, jobs=1, progress=False, fields=["random"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--fields", "random"], "include it in --fields"),
        (["--fields", "heuristic", "nobody"], "'nobody' is not one of --bots"),
        (["--bots", "random", "search"], "include it in --bots"),
        (["--bots", "heuristic", "search:worlds=0"], "worlds must be int"),
        (["--players", "7"], "players"),
        (["--games", "0"], "--games"),
    ],
)
def test_bad_command_lines_stop_before_any_game(argv, words, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        ladder.main([*argv, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
    assert not (tmp_path / "out").exists()


def _ranked(rows: list[ladder.LadderRow]) -> list[ladder.LadderRow]:
    return sorted((r for r in rows if r.win_rate_vs_baseline is not None), key=lambda r: -r.win_rate_vs_baseline)


def test_each_step_down_the_ladder_is_the_paired_difference_on_the_same_deals(tmp_path):
    agents = ["random", "heuristic", "heuristic-tuned", "tests.agents.sample_agent:FirstLegalAgent"]
    rows = ladder.run_ladder(agents, [2], deals=4, jobs=1, out=tmp_path, progress=False, fields=["heuristic"])
    result = run_tournament(agents, num_players=2, deals=4, jobs=1, progress=False, fields=["heuristic"])
    ranked = _ranked(rows)
    assert len(ranked) == 3 and ranked[-1].below is None and ranked[-1].lead is None
    assert next(r for r in rows if r.agent == "heuristic").below is None  # the field is not ranked against itself
    table = (tmp_path / "ladder.md").read_text()
    for upper, lower in itertools.pairwise(ranked):
        step = paired_comparison(result, upper.agent, lower.agent, ["heuristic"]).difference
        assert upper.below == lower.agent
        assert (upper.lead, upper.lead_low, upper.lead_high) == (step.mean, step.low, step.high)
        assert f"| 2 | {upper.agent} | {lower.agent} | {step} |" in table
    lines = [table.index(f"| 2 | {upper.agent} | {upper.below} |") for upper in ranked[:-1]]
    assert lines == sorted(lines)  # the steps from the top of the ladder down
    written = {r["agent"]: r for r in csv.DictReader((tmp_path / "ladder.csv").read_text().splitlines())}
    assert written[ranked[0].agent]["below"] == ranked[1].agent


def test_the_ladder_adds_the_luck_adjusted_rate_when_asked(tmp_path):
    rows = ladder.run_ladder(["random", "heuristic", "heuristic-tuned"], [2], deals=3, jobs=1, out=tmp_path,
                             progress=False, adjust_luck=True)  # fmt: skip
    random_row = next(r for r in rows if r.agent == "random")
    assert (
        random_row.adjusted is not None and random_row.adjusted_low <= random_row.adjusted <= random_row.adjusted_high
    )
    top = _ranked(rows)[0]
    assert top.adjusted_lead is not None and top.adjusted_lead_low <= top.adjusted_lead <= top.adjusted_lead_high
    ranking, steps = (tmp_path / "ladder.md").read_text().split("\n\n", 1)
    assert "luck-adjusted" in ranking and "| luck-adjusted |" in steps
    assert "adjusted_win_rate" in (tmp_path / "2p" / "tournament.csv").read_text()
