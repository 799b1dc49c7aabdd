"""The league of self-play runs: seat shares, the learner's score against each snapshot, prioritized draws, resume."""

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.bots.model_file import load_policy
from agents.bots.names import CATALOGUE
from agents.training import PoolConfig, TrainingConfig, train
from agents.training.core.config import HEURISTIC, RANDOM, SELF, SNAPSHOTS
from agents.training.core.league import GameEnd, League, pair_score, seat_kind, snapshot_label
from agents.training.core.runs import LEAGUE_CSV, RunFileError, RunState
from agents.training.core.seating import Seating

SHIPPED = [("old", load_policy(CATALOGUE["ppo-2p"].path)), ("new", load_policy(CATALOGUE["ppo-4p"].path))]
"""Two snapshots to draw (any policies do)."""


def drawn_labels(pool: PoolConfig, snapshots, weights, games: int, players: int = 4) -> list[list[str]]:
    """The labels of the opponent seats of ``games`` games a seating seats (the learner at seat 0)."""
    table = Seating(games, pool, seed=3)
    table.set_league(snapshots, weights)
    table.seat(np.arange(games), np.full(games, players), np.zeros(games, dtype=np.int64))
    return [row[1:players] for row in table.labels]


def test_the_learner_scores_one_half_or_nothing_against_a_seat():
    assert pair_score(learner_won=True, seat_won=False) == 1.0
    assert pair_score(learner_won=False, seat_won=True) == 0.0
    assert pair_score(learner_won=True, seat_won=True) == 0.5  # a shared win
    assert pair_score(learner_won=False, seat_won=False) == 0.5  # somebody else won, or a truncated game


def test_a_game_counts_every_opponent_seat_by_kind_and_scores_only_the_snapshots():
    league = League()
    labels = [HEURISTIC, snapshot_label("a"), SELF]  # seats 2, 3, 0 of a 4-player game whose learner sits at 1
    league.record_game(labels, [2, 3, 0], winners=[3], learner=1)
    assert league.seats == {HEURISTIC: 1, SNAPSHOTS: 1, SELF: 1}
    assert league.shares() == pytest.approx({HEURISTIC: 1 / 3, SNAPSHOTS: 1 / 3, SELF: 1 / 3})
    assert list(league.records) == ["a"] and league.records["a"] == [1.0, 0.0]  # the snapshot beat the learner
    assert league.learner_score("a") == pytest.approx(1 / 3)  # (0 + 1) / (1 + 2)
    assert league.learner_score("never played") == 0.5
    assert seat_kind(snapshot_label("x")) == SNAPSHOTS and seat_kind(RANDOM) == RANDOM


def test_the_recorded_shares_converge_to_the_configured_ones():
    pool_config = PoolConfig(p_random=0.1, p_heuristic=0.3, self_share=0.25)
    league, rng = League(), np.random.default_rng(0)
    games = [GameEnd(tuple(labels), (1, 2, 3), (int(rng.integers(4)),), 0)
             for labels in drawn_labels(pool_config, SHIPPED, [1.0, 1.0], 5000)]  # fmt: skip
    league.record(games)
    shares = league.shares()
    assert sum(shares.values()) == pytest.approx(1.0)
    for kind, share in pool_config.shares(has_snapshots=True).items():
        assert shares.get(kind, 0.0) == pytest.approx(share, abs=0.01), kind


def test_a_snapshot_the_learner_now_beats_is_drawn_less():
    league = League(power=1.0)
    for _ in range(300):  # both snapshots beat the learner at first
        league.record_game([snapshot_label("old"), snapshot_label("new")], [1, 2], winners=[1], learner=0)
        league.record_game([snapshot_label("old"), snapshot_label("new")], [1, 2], winners=[2], learner=0)
    before = league.weights(["old", "new"])
    assert before[0] == pytest.approx(before[1], abs=0.01)
    for _ in range(1500):  # then the learner learns to beat "old" but not "new"
        league.record_game([snapshot_label("old"), snapshot_label("new")], [1, 2], winners=[0, 2], learner=0)
    after = league.weights(["old", "new"])
    assert after[0] < before[0] and after[0] < after[1] / 3
    assert after[0] > 0  # never ruled out
    drawn = [row[0] for row in drawn_labels(PoolConfig(0.0, 0.0, self_share=0.0), SHIPPED, after, 4000, players=2)]
    assert drawn.count(snapshot_label("old")) < drawn.count(snapshot_label("new")) / 3


def test_power_zero_draws_snapshots_evenly_and_a_higher_power_sharpens_the_preference():
    results = {"beaten": 0.9, "even": 0.5}
    weights = {}
    for power in (0.0, 1.0, 2.0):
        league = League(power)
        for name, score in results.items():
            league.records[name] = [1000.0, 1000.0 * score]
        weights[power] = league.weights(list(results))
    assert weights[0.0] == [1.0, 1.0]
    assert weights[1.0][0] / weights[1.0][1] > weights[2.0][0] / weights[2.0][1]


def test_old_games_fade_so_the_score_follows_the_learner():
    league = League()
    for _ in range(3000):
        league.record_game([snapshot_label("s")], [1], winners=[1], learner=0)
    assert league.learner_score("s") < 0.01
    for _ in range(3000):
        league.record_game([snapshot_label("s")], [1], winners=[0], learner=0)
    assert league.learner_score("s") > 0.7  # the early losses weigh little now
    assert league.records["s"][0] < 2000  # a record holds about MEMORY games


def test_the_league_round_trips_through_run_json_and_forgets_a_replaced_snapshot():
    league = League(2.0)
    league.record_game([snapshot_label("a"), HEURISTIC], [1, 2], winners=[0], learner=0)
    again = League.from_json(json.loads(json.dumps(league.to_json())), 2.0)
    assert again.seats == league.seats and again.records == league.records and again.power == 2.0
    again.forget("a")
    assert "a" not in again.records and again.learner_score("a") == 0.5
    assert League.from_json({}, 1.0).seats == {} and League.from_json(None, 1.0).records == {}


def test_league_csv_rows_give_each_snapshot_its_score_and_share_of_the_draws():
    league = League()
    league.records["a"] = [10.0, 9.0]
    rows = league.rows(["a", "b"], timesteps=100)
    assert [r["snapshot"] for r in rows] == ["a", "b"] and rows[0]["timesteps"] == 100
    assert rows[0]["learner_score"] == pytest.approx(10 / 12, abs=1e-4) and rows[1]["learner_score"] == 0.5
    assert sum(r["draw_share"] for r in rows) == pytest.approx(1.0, abs=1e-3)
    assert rows[0]["draw_share"] < rows[1]["draw_share"]


VALUES = st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats() | st.text(max_size=5)
LEAGUE_DATA = st.one_of(
    VALUES,
    st.dictionaries(
        st.sampled_from(["seats", "records", "other"]),
        VALUES | st.dictionaries(st.text(max_size=4), VALUES | st.lists(VALUES, max_size=3), max_size=3),
        max_size=3,
    ),
)


@settings(max_examples=300, deadline=None)
@given(LEAGUE_DATA)
def test_hostile_league_data_is_a_value_error_or_a_league(data):
    try:
        league = League.from_json(data, 1.0)
    except ValueError as error:
        assert "\n" not in str(error)
    else:
        assert all(0 <= points <= games + 1e-9 for games, points in league.records.values())
        assert all(isinstance(n, int) and n >= 0 for n in league.seats.values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"opponent_seat_shares": {"self": 2}}, "opponent_seat_shares"),
        ({"opponent_seat_shares": []}, "opponent_seat_shares"),
        ({"league": {"records": {"a": [1, 5]}}}, "league record"),
        ({"league": {"seats": {"self": -1}}}, "league seats"),
    ],
)
def test_a_run_file_with_a_damaged_league_is_refused(tmp_path, change, message):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**json.loads(json.dumps(RunState().__dict__)), **change}))
    with pytest.raises(RunFileError, match=message):
        RunState.load(path)


@pytest.mark.slow
def test_a_run_reports_its_seat_shares_and_snapshot_scores_and_resume_keeps_the_league(tmp_path):
    out = tmp_path / "run"
    config = TrainingConfig(
        steps=6000,
        envs=8,
        hidden=(16,),
        batch_size=512,
        eval_games=2,
        final_games=2,
        pool=PoolConfig(p_heuristic=0.35, self_share=0.4),
        snapshot_every=1000,
        eval_every=3000,
        checkpoint_every=2000,
    )
    result = train(config, out=out, progress=False)
    state = json.loads((out / "run.json").read_text())
    shares = state["opponent_seat_shares"]
    assert set(shares) == {HEURISTIC, SELF, SNAPSHOTS} and sum(shares.values()) == pytest.approx(1.0)
    assert result.opponent_seat_shares == shares and "opponent seats: heuristic" in str(result)
    assert shares[SELF] + shares[SNAPSHOTS] > 0.5
    rows = (out / LEAGUE_CSV).read_text().splitlines()
    assert rows[0] == "timesteps,snapshot,games,learner_score,snapshot_score,draw_share" and len(rows) > 1
    seats = sum(state["league"]["seats"].values())
    assert seats > 0 and set(state["league"]["records"]) <= {s.split("/")[-1] for s in state["snapshots"]}

    again = train(replace(config, steps=9000), out=out, resume=True, progress=False)
    resumed = json.loads((out / "run.json").read_text())
    assert again.timesteps >= 9000 and sum(resumed["league"]["seats"].values()) > seats  # counted on, not anew
    assert sum(resumed["opponent_seat_shares"].values()) == pytest.approx(1.0)


@pytest.mark.slow
def test_a_run_against_the_heuristic_alone_reports_only_heuristic_seats(tmp_path):
    pool = PoolConfig(p_heuristic=1)
    config = TrainingConfig(steps=500, envs=4, hidden=(16,), eval_games=2, final_games=2, pool=pool)
    result = train(config, out=tmp_path / "run", progress=False)
    assert result.opponent_seat_shares == {HEURISTIC: 1.0}
