"""Paired comparisons: two agents' win rates against one field on the same deals, clustered by deal."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.evaluate.command import main
from agents.evaluate.luck import adjusted_results
from agents.evaluate.matches import MatchResult, MeanInterval, deal_clustered_interval, wilson_interval
from agents.evaluate.paired import DealDifference, compare_agents, deal_differences, paired_comparison
from agents.evaluate.tournament import GameOutcome, TournamentResult, _pairing_results

SAMPLE = "tests.agents.sample_agent:FirstLegalAgent"

A_WINS = {0: (True, True), 1: (True, False), 2: (False, False)}
"""Whether agent a won each deal at seat 0 and at seat 1: deal means 1, 0.5, 0."""
B_WINS = {0: (True, False), 1: (False, False), 2: (False, False)}
"""The same for agent b: deal means 0.5, 0, 0; so the per-deal differences are 0.5, 0.5, 0."""


def _game(pairing: int, deal: int, seat: int, seat_wins: bool, luck: tuple[float, ...] = ()) -> GameOutcome:
    """A 2-player game in which the seat ``seat`` won or lost (to the other seat)."""
    winner = seat if seat_wins else 1 - seat
    scores = tuple(5 if s == winner else 3 for s in range(2))
    return GameOutcome(pairing, deal, seat, scores, (winner,), False, luck)


def _hand_built(luck: bool = False) -> TournamentResult:
    """Agents a, f, b at 2 players: a against f (pairing 0, a's seat) and f against b (pairing 1, f's seat).

    In pairing 1 the game's seat is f's, so b sits at the other one: the comparison must read b's seat as such.
    """
    games = []
    for deal in range(3):
        for seat in range(2):
            a_luck = (0.1 * (deal - seat), -0.1 * (deal - seat)) if luck else ()
            games.append(_game(0, deal, seat, A_WINS[deal][seat], a_luck))
    for deal in range(3):
        for b_seat in range(2):  # the game lists f's seat, 1 - b's
            b_luck = (0.05 * deal, -0.05 * deal) if luck else ()
            games.append(_game(1, deal, 1 - b_seat, not B_WINS[deal][b_seat], b_luck))
    agents, played = ["a", "f", "b"], [(0, 1), (1, 2)]
    return TournamentResult(
        agents=agents,
        num_players=2,
        deals=3,
        seed=0,
        rule_options={},
        played=played,
        games=games,
        pairings=_pairing_results(agents, 2, played, games),
    )


def test_per_deal_differences_their_mean_standard_error_and_interval():
    assert deal_differences([[1, 1], [1, 0], [0, 0]], [[1, 0], [0, 0], [0, 0]]) == [0.5, 0.5, 0.0]
    difference = DealDifference.of([0.5, 0.5, 0.0])
    assert difference.deals == 3
    assert difference.mean == pytest.approx(1 / 3)
    assert difference.standard_error == pytest.approx(1 / 6)  # sd sqrt(1/12) over sqrt(3)
    assert (difference.low, difference.high) == pytest.approx((1 / 3 - 1.96 / 6, 1 / 3 + 1.96 / 6))
    assert str(difference) == "+33.3 pts [+0.7, +66.0]"


def test_a_tournament_s_games_give_the_paired_comparison():
    comparison = paired_comparison(_hand_built(), "a", "b")
    assert comparison.fields == ("f",)
    assert (comparison.rate, comparison.other_rate) == pytest.approx((3 / 6, 1 / 6))
    assert (comparison.deals, comparison.games, comparison.players) == (3, 6, 2)
    assert comparison.difference == DealDifference.of([0.5, 0.5, 0.0])
    assert comparison.adjusted is None  # no luck measured
    assert comparison.summary() == "a 50.0% less b 16.7% = +33.3 pts [+0.7, +66.0] over 3 deals (6 games each)"
    reverse = paired_comparison(_hand_built(), "b", "a", ["f"])
    assert reverse.difference.mean == pytest.approx(-1 / 3)
    assert (reverse.difference.low, reverse.difference.high) == pytest.approx((-0.66, -1 / 3 + 1.96 / 6))


def test_the_luck_adjusted_difference_is_clustered_by_deal_from_each_game_s_adjusted_result():
    result = _hand_built(luck=True)
    comparison = paired_comparison(result, "a", "b")
    a_games = [g for g in result.games if g.pairing == 0]
    b_games = [g for g in result.games if g.pairing == 1]
    a = adjusted_results(
        [float(g.seat in g.winners) for g in a_games], [g.luck[g.seat] for g in a_games], [g.deal % 2 for g in a_games]
    )
    b_seats = [1 - g.seat for g in b_games]
    b = adjusted_results(
        [float(s in g.winners) for g, s in zip(b_games, b_seats, strict=True)],
        [g.luck[s] for g, s in zip(b_games, b_seats, strict=True)],
        [g.deal % 2 for g in b_games],
    )
    per_deal = [(a[2 * d] + a[2 * d + 1]) / 2 - (b[2 * d] + b[2 * d + 1]) / 2 for d in range(3)]
    assert comparison.adjusted == DealDifference.of(per_deal)
    rows = {(p.agent, p.opponent): p for p in result.pairings}  # the pairings' own adjusted rates agree
    assert rows["a", "f"].adjusted is not None and rows["b", "f"].adjusted is not None
    assert comparison.adjusted.mean == pytest.approx(rows["a", "f"].adjusted.mean - rows["b", "f"].adjusted.mean)


def test_intervals_stay_within_their_bounds_at_the_extremes():
    always = DealDifference.of([1.0] * 5)  # no spread: Wilson's interval of 5 wins in 5, on the difference's scale
    assert (always.mean, always.standard_error, always.high) == (1.0, 0.0, 1.0)
    assert always.low == pytest.approx(2 * wilson_interval(5, 5)[0] - 1) and str(always) == "+100.0 pts [+13.1, +100.0]"
    never = DealDifference.of([-1.0] * 5)
    assert (never.low, never.high) == pytest.approx((-1.0, -always.low))
    alike = DealDifference.of([0.0] * 4)  # two agents that did the same on every deal
    assert alike.mean == 0 and alike.low == pytest.approx(-alike.high) and 0 < alike.high < 1
    wide = DealDifference.of([1.0, -1.0])  # mean 0, standard error 1: clipped to the bounds
    assert (wide.mean, wide.standard_error, wide.low, wide.high) == (0.0, 1.0, -1.0, 1.0)
    one = DealDifference.of([0.5])  # one deal: its spread cannot be measured, so nothing is ruled out
    assert math.isinf(one.standard_error) and (one.low, one.high) == (-1.0, 1.0)
    with pytest.raises(ValueError, match="at least one deal"):
        DealDifference.of([])


def test_rates_stay_within_their_bounds_when_one_agent_always_wins():
    result = _hand_built()
    games = [g if g.pairing == 1 else _game(0, g.deal, g.seat, True) for g in result.games]
    result.games = [g if g.pairing == 0 else _game(1, g.deal, g.seat, True) for g in games]  # b never wins
    comparison = paired_comparison(result, "a", "b")
    assert (comparison.rate, comparison.other_rate) == (1.0, 0.0)
    assert (comparison.difference.mean, comparison.difference.high) == (1.0, 1.0)
    assert -1 < comparison.difference.low < 1


@pytest.mark.parametrize(
    ("agent", "other", "fields", "message"),
    [
        ("a", "a", None, "two different agents"),
        ("a", "x", None, "not in the tournament: x"),
        ("a", "b", ["a"], "neither of the two"),
        ("a", "b", [], "no common field"),
        ("a", "f", None, "no common field"),
    ],
)
def test_a_comparison_that_cannot_be_made_is_refused(agent, other, fields, message):
    with pytest.raises(ValueError, match=message):
        paired_comparison(_hand_built(), agent, other, fields)


@pytest.mark.parametrize(
    ("agent", "other", "fields", "message"),
    [
        ("random", "random", ["heuristic"], "given once"),
        ("random", "heuristic", [], "one or more"),
        ("random", "heuristic", "heuristic", "one or more"),
        ("random", "heuristic", ["heuristic"], "neither of the two"),
        ("random", "heuristic", ["dragon"], "dragon"),
    ],
)
def test_compare_agents_refuses_bad_input_before_playing(agent, other, fields, message):
    with pytest.raises(ValueError, match=message):
        compare_agents(agent, other, fields, deals=1, jobs=1, progress=False)


def test_compare_agents_plays_both_against_the_fields_on_the_same_deals():
    last = "tests.agents.sample_agent:LastLegalPlayer"
    comparison = compare_agents("heuristic", "random", [SAMPLE, last, SAMPLE], deals=3, seed=2, jobs=1)
    assert comparison.fields == (SAMPLE, last)  # each field once, each pooled equally
    assert (comparison.deals, comparison.games) == (3, 3 * 2 * 2)
    assert comparison.difference.mean == pytest.approx(comparison.rate - comparison.other_rate)
    assert -1 <= comparison.difference.low <= comparison.difference.mean <= comparison.difference.high <= 1


def test_the_command_prints_the_paired_comparison(capsys):
    argv = ["random", "heuristic", "--fields", SAMPLE, "--games", "4", "--jobs", "1", "--no-progress"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    title = lines.index(next(line for line in lines if line.startswith("Paired comparisons against")))
    assert lines[title].startswith(f"Paired comparisons against {SAMPLE} (")
    assert lines[title + 1].startswith("random ") and " less heuristic " in lines[title + 1]
    assert lines[title + 1].endswith("over 2 deals (4 games each)")


def test_the_command_keeps_the_paired_comparison_in_its_out_folder(tmp_path, capsys):
    argv = ["random", "heuristic", "--fields", SAMPLE, "--games", "4", "--jobs", "1", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    kept = (tmp_path / "paired.txt").read_text(encoding="utf-8")
    assert kept.startswith("Paired comparisons against ") and kept.rstrip("\n") in printed
    assert f"wrote {tmp_path / 'tournament.csv'}, " in printed and printed.rstrip().endswith("paired.txt")


def test_the_command_writes_no_paired_file_without_a_comparison(tmp_path):
    argv = ["random", "heuristic", "--games", "2", "--jobs", "1", "--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    expected = ["games.jsonl", "tournament.csv", "tournament.json", "tournament.png"]  # the journal, and the results
    assert sorted(path.name for path in tmp_path.iterdir()) == expected


def test_the_command_prints_the_luck_adjusted_comparison(capsys):
    argv = ["random", "heuristic", "--fields", SAMPLE, "--games", "4", "--jobs", "1", "--no-progress"]
    assert main([*argv, "--adjust-luck", "--luck-worlds", "2"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("random ") and "; luck-adjusted " in last


@pytest.mark.parametrize(
    "argv",
    [
        ["random", "random", "--fields", "heuristic"],
        ["random", "heuristic", "--fields"],
        ["random", "heuristic", "--fields", "dragon"],
        ["dragon", "heuristic", "--fields", "random"],
        ["random", "--fields", "random"],
    ],
)
def test_the_command_refuses_a_bad_comparison_in_one_line(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m agents.evaluate: error: ") and err.count("\n") == 1


# --- the pairings' own intervals, clustered by deal ------------------------------------------------------------------


def test_a_deal_clustered_interval_needs_enough_deals_and_a_measurable_spread():
    assert deal_clustered_interval([1.0, 0.0] * 19, [d for d in range(19) for _ in range(2)]) is None  # 19 deals
    assert deal_clustered_interval([1.0] * 40, list(range(40))) is None  # a rate of 1: no spread
    assert deal_clustered_interval([1.0, 0.0] * 30, [d for d in range(30) for _ in range(2)]) is None  # none at all


def test_rotations_that_move_together_count_as_one_game_and_independent_games_as_themselves():
    # every deal's two rotations agree: 60 games carry what 30 independent ones would
    together = [float(d % 3 == 0) for d in range(30) for _ in range(2)]
    deals = [d for d in range(30) for _ in range(2)]
    low, high = deal_clustered_interval(together, deals)
    expected = wilson_interval(29 / 3, 29)  # 30 units less the C / (C - 1) correction of 30 deals
    assert math.isclose(low, expected[0], rel_tol=1e-9) and math.isclose(high, expected[1], rel_tol=1e-9)
    # one game a deal: the games are the units, and the interval is Wilson's over them (up to that correction)
    alone = [float(k % 4 == 0) for k in range(80)]
    low, high = deal_clustered_interval(alone, list(range(80)))
    plain = wilson_interval(20, 80)
    assert abs(low - plain[0]) < 0.005 and abs(high - plain[1]) < 0.005


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 40)), min_size=1, max_size=200))
def test_a_deal_clustered_interval_holds_its_rate_within_0_and_1(games):
    results, deals = [float(won) for won, _ in games], [deal for _, deal in games]
    interval = deal_clustered_interval(results, deals)
    if interval is not None:
        rate = sum(results) / len(results)
        assert 0.0 <= interval[0] <= rate <= interval[1] <= 1.0


def test_a_tournaments_pairings_take_the_deal_as_the_unit_and_say_so():
    outcomes = [
        GameOutcome(pairing=0, deal=d, seat=s, scores=(1, 0), winners=(s if (d + s) % 3 else 1 - s,), truncated=False)
        for d in range(25)
        for s in range(2)
    ]
    rows = _pairing_results(["a", "b"], 2, [(0, 1)], outcomes)
    assert all(row.deals == 25 and row.deal_interval is not None for row in rows)
    assert rows[0].interval == rows[0].deal_interval and "25 deals as units" in str(rows[0])


def test_a_mean_over_deals_counts_each_deals_values_as_one():
    deals = [d for d in range(30) for _ in range(2)]
    together = [float(d % 5) for d in deals]  # both games of a deal alike: 30 values' worth, not 60
    clustered = MeanInterval.of(together, units=deals)
    by_deal = MeanInterval.of([float(d % 5) for d in range(30)])
    assert math.isclose(clustered.mean, by_deal.mean) and math.isclose(clustered.width, by_deal.width, rel_tol=1e-9)
    assert clustered.width > MeanInterval.of(together).width
    opposite = [(1.0 if s else -1.0) * (d % 5) for d in range(30) for s in range(2)]  # a deal's games cancel
    assert MeanInterval.of(opposite, units=deals).width == 0 < MeanInterval.of(opposite).width
    few = deals[:38]  # fewer than 20 deals: the values count as independent
    assert MeanInterval.of(together[:38], units=few) == MeanInterval.of(together[:38])


def test_the_luck_and_the_adjusted_rate_take_the_deal_as_the_unit():
    deals = [d for d in range(40) for _ in range(2)]
    results = [float((d + s) % 3 == 0) for d in range(40) for s in range(2)]
    luck = [0.3 * (r - 0.4) + (0.2 if d % 2 else -0.2) for r, d in zip(results, deals, strict=True)]
    row = MatchResult("a", len(results), int(sum(results)), 0)
    row.measure_deals(results, deals)
    row.measure_luck(results, luck, deals)
    assert row.luck == MeanInterval.of(luck, units=deals) != MeanInterval.of(luck)
    adjusted = adjusted_results(results, luck, [d % 2 for d in deals])
    assert row.adjusted == MeanInterval.adjusted_rate(adjusted, results, units=deals)
    assert row.adjusted != MeanInterval.adjusted_rate(adjusted, results)
