"""Tournaments: fair seating, replayed deals, statistics, ratings, output files, records and the command."""

import csv
import json
from collections import Counter, defaultdict

import pytest

import agents.evaluate.tournament as tournament
from agents.evaluate.command import main
from agents.evaluate.matches import wilson_interval
from agents.evaluate.ratings import game_ranks
from agents.evaluate.tournament import GameOutcome, run_tournament
from agents.evaluate.tournament_report import PairingResult
from gubs_env.records.record import GameRecord, replay

SAMPLE = "tests.agents.sample_agent:FirstLegalAgent"
THREE = ["random", "heuristic", SAMPLE]
CSV_COLUMNS = [
    "agent",
    "opponent",
    "players",
    "games",
    "deals",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "mean_score",
    "mean_margin",
    "truncated",
]


@pytest.fixture(scope="module")
def round_robin():
    """Three agents at 2 players, played in this process."""
    return run_tournament(THREE, num_players=2, deals=4, seed=3, jobs=1)


def _seatings(monkeypatch, agents, num_players, deals, seed, fields=None):
    """Run a tournament in-process; return it and {(agent, field): sorted [(deal seed, agent's seat)]} as played."""
    played = defaultdict(list)
    real = tournament.play_game

    def recording(table, game_seed, codec=None, **options):
        counts = Counter(a.name for a in table)
        if num_players == 2:
            for seat, agent in enumerate(table):
                played[agent.name, table[1 - seat].name].append((game_seed, seat))
        else:
            (alone,) = [name for name, n in counts.items() if n == 1]
            (field,) = [name for name, n in counts.items() if n > 1]
            played[alone, field].append((game_seed, [a.name for a in table].index(alone)))
        return real(table, game_seed, codec, **options)

    monkeypatch.setattr(tournament, "play_game", recording)
    result = run_tournament(agents, num_players=num_players, deals=deals, seed=seed, jobs=1, fields=fields)
    return result, {key: sorted(value) for key, value in played.items()}


def test_every_pairing_replays_the_same_deals_with_the_agent_at_every_seat(monkeypatch):
    result, seatings = _seatings(monkeypatch, THREE, num_players=3, deals=2, seed=5)
    expected = [(deal, seat) for deal in (5, 6) for seat in range(3)]
    assert len(seatings) == 6  # every ordered pair of distinct agents
    assert all(used == expected for used in seatings.values())
    assert [p.games for p in result.pairings] == [6] * 6
    assert len(result.games) == 36


def test_two_player_pairings_are_played_once_and_give_both_rows(monkeypatch):
    result, seatings = _seatings(monkeypatch, THREE, num_players=2, deals=3, seed=0)
    expected = [(deal, seat) for deal in (0, 1, 2) for seat in range(2)]
    assert len(seatings) == 6 and all(used == expected for used in seatings.values())
    assert len(result.games) == 3 * 6  # three unordered pairs of six games each, not six pairings
    rows = {(p.agent, p.opponent): p for p in result.pairings}
    for (a, b), row in rows.items():
        assert row.games == rows[b, a].games == 6
        assert row.mean_margin == pytest.approx(-rows[b, a].mean_margin)


@pytest.mark.parametrize("num_players", [2, 3])
def test_fields_play_only_the_pairings_against_those_fields(monkeypatch, num_players):
    result, seatings = _seatings(monkeypatch, THREE, num_players, 2, 0, fields=["heuristic"])
    assert all("heuristic" in pair for pair in seatings)
    if num_players == 2:  # a pair is played when either agent may be the field; it gives both rows
        assert len(seatings) == 4 and ("heuristic", "random") in seatings
    else:
        assert len(seatings) == 2 and all(field == "heuristic" for _, field in seatings)
    matrix = result.matrix()
    assert matrix[0][1] is not None and matrix[2][1] is not None and matrix[0][2] is None
    assert len(result.games) == 2 * 2 * num_players  # two pairings of two deals
    assert {r.agent for r in result.ratings} == set(THREE)


@pytest.mark.parametrize(("fields", "message"), [(["minimax"], "minimax"), ([], "field"), ("heuristic", "field")])
def test_a_field_that_names_no_agent_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        run_tournament(["random", "heuristic"], deals=1, fields=fields)


@pytest.mark.parametrize("num_players", [2, 3])
def test_a_field_outside_the_agents_joins_as_a_field_only(monkeypatch, num_players):
    result, seatings = _seatings(monkeypatch, ["random", SAMPLE], num_players, 2, 0, fields=[" heuristic", "random"])
    assert result.agents == ["random", SAMPLE, "heuristic"]
    pairs = {  # as the seated agents name themselves
        ("random", "heuristic"),
        ("FirstLegalAgent", "heuristic"),
        ("FirstLegalAgent", "random"),
    }
    if num_players == 2:  # both rows of each game: the field-only heuristic's rows are the other side of its games
        pairs |= {(b, a) for a, b in pairs}
    assert set(seatings) == pairs  # the heuristic, a field only, plays no pairing of its own


def test_one_agent_and_a_field_are_a_tournament():
    result = run_tournament(["random"], deals=1, jobs=1, fields=["heuristic"])
    assert result.agents == ["random", "heuristic"] and result.played == [(0, 1)]


def test_pairing_intervals_are_wilson_intervals():
    row = PairingResult(agent="a", games=10, wins=1, truncated=0, opponent="b")
    assert row.interval == pytest.approx((0.0179, 0.4042), abs=1e-4)
    assert (row.to_row()["ci_low"], row.to_row()["ci_high"]) == pytest.approx((0.0179, 0.4042), abs=1e-4)


def test_pairing_statistics(round_robin):
    assert [(p.agent, p.opponent) for p in round_robin.pairings] == [(a, b) for a in THREE for b in THREE if a != b]
    for p in round_robin.pairings:
        assert p.games == 8 and 0 <= p.wins <= 8 and p.truncated == 0
        assert p.interval == wilson_interval(p.wins, p.games)
    matrix = round_robin.matrix()
    assert [matrix[i][i] for i in range(3)] == [None] * 3
    rates = {(p.agent, p.opponent): p.win_rate for p in round_robin.pairings}
    assert matrix[1][0] == rates["heuristic", "random"] and matrix[0][2] == rates["random", SAMPLE]


def test_seats_are_ranked_winners_first_then_by_score():
    game = GameOutcome(pairing=0, deal=0, seat=0, scores=(3, 5, 5, 7), winners=(0,), truncated=False)
    assert game_ranks(game.scores, game.winners) == [0, 2, 2, 1]
    shared = GameOutcome(pairing=0, deal=0, seat=0, scores=(4, 4, 1), winners=(0, 1), truncated=False)
    assert game_ranks(shared.scores, shared.winners) == [0, 0, 1]


def test_ratings_rank_heuristic_above_random():
    result = run_tournament(["random", "heuristic"], num_players=2, deals=15, jobs=1)
    assert [r.agent for r in result.ratings] == ["heuristic", "random"]
    best, worst = result.ratings
    assert best.ordinal > worst.ordinal and best.mu > 25 > worst.mu
    assert best.sigma < 25 / 3


def test_report_and_files(round_robin, tmp_path):
    text = str(round_robin)
    for part in ("Pairings", "95% interval", "Payoff matrix", "Ratings", "ordinal", *THREE):
        assert part in text
    paths = round_robin.save(tmp_path / "out")
    assert [p.name for p in paths] == ["tournament.csv", "tournament.json", "tournament.png"]
    with paths[0].open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == CSV_COLUMNS and len(rows) == 6
    assert {(r["agent"], r["opponent"]) for r in rows} == {(a, b) for a in THREE for b in THREE if a != b}
    data = json.loads(paths[1].read_text())
    assert set(data) == {"config", "agents", "pairings", "matrix", "ratings"}
    assert data["config"]["games_per_pairing"] == 8 and data["config"]["deal_seeds"] == [3, 6]
    assert len(data["matrix"]) == 3 and all(len(row) == 3 for row in data["matrix"])
    assert {r["agent"] for r in data["ratings"]} == set(THREE)
    assert paths[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_worker_processes_give_the_same_results(round_robin):
    parallel = run_tournament(THREE, num_players=2, deals=4, seed=3, jobs=2)
    assert parallel.games == round_robin.games
    assert parallel.pairings == round_robin.pairings
    assert parallel.ratings == round_robin.ratings


def test_an_imported_agent_class_plays():
    result = run_tournament([SAMPLE, "random"], num_players=4, deals=1, jobs=1)
    assert result.pairings[0].agent == SAMPLE and result.pairings[0].games == 4
    assert {r.agent for r in result.ratings} == {SAMPLE, "random"}


def test_records_replay(tmp_path):
    folder = tmp_path / "games"
    result = run_tournament(["random", "heuristic"], num_players=3, deals=1, seed=7, jobs=1, records_dir=folder)
    files = sorted(folder.glob("*.json"))
    assert len(files) == len(result.games) == 6
    assert files[0].name == "p00-random-vs-heuristic-deal0000-seat0.json"
    for path, outcome in zip(files, result.games, strict=True):
        record = GameRecord.load(path)
        assert record.seed == 7 and record.players.count("random" if outcome.pairing == 0 else "heuristic") == 1
        assert record.players[outcome.seat] == result.agents[result.played[outcome.pairing][0]]
        assert replay(record).scores() == list(outcome.scores)


@pytest.mark.parametrize(
    ("agents", "options", "message"),
    [
        (["random"], {}, "at least two"),
        (["random", "random"], {}, "repeated"),
        (["random", "heuristic"], {"deals": 0}, "deals"),
        (["random", "heuristic"], {"num_players": 7}, "num_players"),
        (["random", "heuristic"], {"jobs": 0}, "jobs"),
    ],
)
def test_bad_configurations_are_clear_errors(agents, options, message):
    with pytest.raises(ValueError, match=message):
        run_tournament(agents, **options)


# --- the command ---------------------------------------------------------------------------------------------


def test_command_prints_the_report_and_writes_files(capsys, tmp_path):
    out = tmp_path / "results"
    argv = ["random", "heuristic", "--games", "5", "--seed", "2", "--jobs", "1", "--out", str(out)]
    assert main([*argv, "--records", str(tmp_path / "games")]) == 0
    text = capsys.readouterr().out
    assert "--games 5 rounded up to 6 games per pairing" in text
    assert "2 players, random against heuristic at every other seat: random: " in text
    assert "over 6 games" in text and "Payoff matrix" in text and "Ratings" in text
    written = ["games.jsonl", "tournament.csv", "tournament.json", "tournament.png"]  # the journal and the results
    assert sorted(p.name for p in out.iterdir()) == written
    assert len(list((tmp_path / "games").glob("*.json"))) == 6


def test_command_shows_its_progress_in_a_log_unless_told_not_to(capsys):
    """A tournament written to a log file still says how far it is (plain lines, no redraws); --no-progress is
    silent. Before, the command showed progress only on a terminal, so a long run in the background said nothing."""
    argv = ["random", "heuristic", "--games", "5", "--seed", "2", "--jobs", "1"]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines and lines[-1].startswith("tournament: 100%") and "6/6" in lines[-1], lines
    assert not any("\r" in line or "\x1b" in line for line in lines)
    assert main([*argv, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_command_parses_each_spec_it_is_given_once(monkeypatch, capsys):
    from agents.bots.spec import AgentSpec

    parsed = []
    parse = AgentSpec.parse.__func__

    def counting(cls, text):
        parsed.append(text)
        return parse(cls, text)

    monkeypatch.setattr(AgentSpec, "parse", classmethod(counting))
    argv = ["random", " heuristic ", "--fields", "heuristic", "--games", "2", "--jobs", "1", "--no-progress"]
    assert main(argv) == 0
    assert sorted(parsed) == [" heuristic ", "heuristic", "random"]  # the agents and the field, once each
    assert "random against heuristic at every other seat" in capsys.readouterr().out


def test_named_agents_keep_their_names_as_given():
    from agents.evaluate.tournament import name_agents

    named = name_agents([" search:top=4,worlds=8 ", "random"])
    assert list(named) == ["search:top=4,worlds=8", "random"]
    assert str(named["search:top=4,worlds=8"]) == "search:worlds=8,top=4"
    result = run_tournament(name_agents(["heuristic", "random"]), deals=1, jobs=1, progress=False)
    assert result.agents == ["heuristic", "random"]


@pytest.mark.parametrize(
    "argv",
    [
        ["random"],
        ["random", "random"],
        ["random", "heuristic", "random"],
        ["dragon", "random"],
        ["nowhere.zip", "random"],
        ["random", "heuristic", "--games", "many"],
        ["random", "heuristic", "--games", "0"],
        ["random", "heuristic", "--jobs", "0"],
        ["random", "heuristic", "--players", "1"],
        ["random", "heuristic", "--seed", "-1"],
        ["random", "heuristic", "--out", "{blocker}/out"],
        ["random", "heuristic", "--out", "{blocker}"],
        ["random", "heuristic", "--records", "{blocker}/games"],
        ["random", "heuristic", "--fields", "dragon"],
        ["random", "heuristic", "--fields"],
        ["random", "--fields", "random"],
    ],
)
def test_command_rejects_bad_input(argv, capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    argv = [arg.format(blocker=blocker) for arg in argv]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m agents.evaluate: error: ") and err.count("\n") == 1  # one line, no usage
    assert list(tmp_path.iterdir()) == [blocker]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_duck_typed_agent_class_and_instance_play_under_their_own_names(jobs):
    from tests.agents.sample_agent import LastLegalPlayer

    for given in (LastLegalPlayer, LastLegalPlayer()):
        result = run_tournament([given, "random"], deals=2, jobs=jobs, progress=False)
        assert result.agents == ["last-legal", "random"]
        assert {p.agent for p in result.pairings} == {"last-legal", "random"} and len(result.games) == 4


def test_an_agent_s_name_labels_its_rows():
    from tests.agents.sample_agent import FirstLegalAgent

    class Named(FirstLegalAgent):
        name = "first-legal"

    assert run_tournament([Named(), "random"], deals=1, jobs=1, progress=False).agents == ["first-legal", "random"]
    assert run_tournament([Named, "random"], deals=1, jobs=1, progress=False).agents == ["first-legal", "random"]


@pytest.mark.parametrize("given", [3, object(), "not a spec at all"])
def test_something_that_is_not_an_agent_is_refused_saying_what_an_agent_must_have(given):
    with pytest.raises(ValueError) as refused:
        run_tournament([given, "random"], deals=1, progress=False)
    message = str(refused.value)
    assert "\n" not in message
    if not isinstance(given, str):
        assert "act(observation, action_mask, game=None)" in message


def test_the_command_lines_games_keyword_is_refused_with_the_deals_it_means():
    with pytest.raises(ValueError, match=r"deals=100 plays what --games 200 plays"):
        run_tournament(["heuristic", "random"], games=200)


def test_ranks_never_order_two_agents_against_the_results_between_them():
    from agents.evaluate.ratings import agreeing_ranks

    order = ["a", "b", "c", "d"]
    rates = {("a", "b"): 0.6, ("b", "a"): 0.4, ("b", "c"): 0.49, ("c", "b"): 0.51, ("c", "d"): 0.7, ("d", "c"): 0.3}
    assert agreeing_ranks(order, rates) == [1, 2, 2, 4]  # c beat b although rated below it: they share a rank
    rates |= {("a", "d"): 0.45, ("d", "a"): 0.55}  # d beat a: nothing between them is settled
    assert agreeing_ranks(order, rates) == [1, 1, 1, 1]
    assert agreeing_ranks(order, {}) == [1, 2, 3, 4]  # no results between them: the ratings' order stands


def test_a_report_whose_ratings_run_against_a_result_says_so_and_shares_the_rank():
    from agents.evaluate.ratings import AgentRating
    from agents.evaluate.tournament import TournamentResult

    def pairing(agent, opponent, wins):
        return PairingResult(agent=agent, games=100, wins=wins, truncated=0, opponent=opponent, players=2)

    result = TournamentResult(
        agents=["model", "heuristic"],
        num_players=2,
        deals=50,
        seed=0,
        rule_options={},
        played=[(0, 1)],
        games=[],
        pairings=[pairing("model", "heuristic", 49), pairing("heuristic", "model", 51)],
        ratings=[AgentRating("model", 26.0, 1.0, rank=1), AgentRating("heuristic", 25.0, 1.0, rank=1)],
    )
    table = str(result)
    assert "1=" in table and "heuristic won 51.0% against model" in table
