"""The luck-adjusted evaluation (agents/evaluate/luck.py): exact corrections, honest means, records as data."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents.evaluate.luck as luck
import agents.evaluate.luck.__main__ as luck_command
from agents.bots.registry import make_agent
from agents.evaluate.luck import (
    DEAL_STEP,
    ConstantValue,
    LuckError,
    LuckEstimator,
    LuckSettings,
    NetworkValue,
    adjusted_results,
    luck_scales,
    shipped_luck_value,
)
from agents.evaluate.matches import MeanInterval, play_game
from agents.evaluate.tournament import run_tournament
from benchmarks.luck_history import letter_probe
from gubs_env.engine import Game, Op
from gubs_env.engine.cards import LETTERS, Kind
from gubs_env.engine.positions.determinize import LETTER_DRAWN
from gubs_env.fast.convert import row_history, state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.determinize import new_rows, redeal_deck_rows
from gubs_env.fast.kernels import step_game
from gubs_env.records.record import GameRecord


def gubs_in_hand(rows: np.ndarray, num_players: int) -> np.ndarray:
    """A ``V`` whose expectation is easy by hand: seat 0's Gubs in hand / 10; every other seat 0.5."""
    values = np.full((len(rows), num_players), 0.5)
    values[:, 0] = rows[:, L.HANDS + Kind.GUB] / 10
    return values


def three_card_position(deck_top_first: list[str], seen_by_seat1: int = 0) -> Game:
    """Seat 0 to draw from a three-card deck, two Letters out (uniform placement), the rest discarded."""
    start = Game(2, seed=0, letter_placement="uniform").to_dict()
    rest = Counter(start["deck"])
    rest.subtract([*deck_top_first, "Letter G", "Letter U"])
    start |= {"deck": deck_top_first, "letters": ["Letter G", "Letter U"], "discard": dict(+rest)}
    start["deck_history"] = None  # a table set by hand: its past is not known
    if seen_by_seat1:
        start["seen"][1]["top"] = deck_top_first[:seen_by_seat1]
    return Game.from_dict(start)


def first_legal_to_the_end(game: Game, first: str) -> list:
    """``first`` (an op name), then the first legal action at every decision until the game ends."""
    played = game.clone()
    actions = [next(a for a in played.legal_actions() if a.op is Op[first])]
    played.apply(actions[0])
    while not played.is_over:
        actions.append(played.legal_actions()[0])
        played.apply(actions[-1])
    return actions


def test_a_draw_of_one_of_three_unseen_cards_is_corrected_by_its_exact_expectation() -> None:
    position = three_card_position(["Gub", "Sud Spout", "Letter B"])  # the Gub on top
    estimator = LuckEstimator(LuckSettings(worlds=4096), gubs_in_hand)
    measured = estimator.continuation(position, first_legal_to_the_end(position, "DRAW"))
    assert measured.steps[0] == 0
    # each of the three cards is on top with probability 1/3: V after is h/10 for B and the Spout, (h+1)/10 for the Gub
    exact = (1 - 1 / 3) / 10
    assert measured.corrections[0, 0] == pytest.approx(exact, abs=0.004)
    assert measured.corrections[0, 1] == 0.0


def test_a_card_someone_has_seen_is_no_chance_when_it_is_drawn() -> None:
    position = three_card_position(["Gub", "Sud Spout", "Letter B"], seen_by_seat1=1)
    measured = LuckEstimator(LuckSettings(worlds=64), gubs_in_hand).continuation(
        position, first_legal_to_the_end(position, "DRAW")
    )
    assert 0 not in measured.steps


def test_declining_draws_nothing_and_is_no_chance() -> None:
    position = three_card_position(["Gub", "Sud Spout", "Letter B"])
    measured = LuckEstimator(LuckSettings(worlds=8), gubs_in_hand).continuation(
        position, first_legal_to_the_end(position, "DECLINE")
    )
    assert 0 not in measured.steps


def random_game(num_players: int, seed: int) -> list[int]:
    """The action ids of a game between random agents, dealt with ``seed``."""
    ids: list[int] = []
    play_game([make_agent("random", seed=s) for s in range(num_players)], seed, played=ids)
    return ids


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_a_constant_value_leaves_every_result_as_it_is(num_players: int) -> None:
    estimator = LuckEstimator(LuckSettings(worlds=2), ConstantValue(0.3))
    for seed in range(3):
        measured = estimator.game(num_players, seed, random_game(num_players, seed))
        assert measured.steps[0] == DEAL_STEP and len(measured.steps) > 10
        assert not measured.corrections.any()
        assert list(measured.adjusted) == list(measured.results)
        assert measured.results.sum() >= 1  # random games end by the rules; a shared win gives 1 to each winner


def test_the_estimate_is_the_same_for_the_same_game_and_seed() -> None:
    ids = random_game(3, 11)
    first = LuckEstimator(LuckSettings(worlds=4, seed=5)).game(3, 11, ids)
    again = LuckEstimator(LuckSettings(worlds=4, seed=5)).game(3, 11, ids)
    other = LuckEstimator(LuckSettings(worlds=4, seed=6)).game(3, 11, ids)
    assert np.array_equal(first.corrections, again.corrections)
    assert not np.array_equal(first.corrections, other.corrections)
    assert first.steps == other.steps


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_shipped_judge_is_the_table_sizes_own_where_it_has_one(num_players: int) -> None:
    ids = random_game(num_players, 21)
    own = LuckEstimator(LuckSettings(worlds=4, seed=5), NetworkValue(shipped_luck_value(num_players)))
    every_size = LuckEstimator(LuckSettings(worlds=4, seed=5), NetworkValue(shipped_luck_value()))
    default = LuckEstimator(LuckSettings(worlds=4, seed=5)).game(num_players, 21, ids).corrections
    assert np.array_equal(default, own.game(num_players, 21, ids).corrections)
    by_every_size = every_size.game(num_players, 21, ids).corrections
    assert np.array_equal(default, by_every_size) == (num_players not in luck.SIZE_JUDGES)
    assert shipped_luck_value(2) is not shipped_luck_value() and shipped_luck_value(3) is shipped_luck_value(4)


def test_engine_actions_and_ids_give_the_same_luck() -> None:
    game = Game(2, seed=4, record_log=True)
    rnd = random.Random(4)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])
    record = GameRecord.from_game(game, seed=4, players=["a", "b"])
    estimator = LuckEstimator(LuckSettings(worlds=4))
    by_record = estimator.record(record)
    by_actions = estimator.game(2, 4, [entry.action for entry in game.log])
    assert np.array_equal(by_record.corrections, by_actions.corrections)
    assert list(by_record.results) == [float(seat in game.winners()) for seat in range(2)]


def hand_sizes(rows: np.ndarray, num_players: int) -> np.ndarray:
    """A poor ``V``: each seat's cards in hand / 10 (it knows nothing of who is winning)."""
    hands = rows[:, L.HANDS : L.HANDS + num_players * L.KINDS].reshape(len(rows), num_players, L.KINDS)
    return hands.sum(axis=2) / 10


@pytest.mark.parametrize(("num_players", "value"), [(2, None), (2, hand_sizes), (4, hand_sizes)])
def test_the_mean_luck_stays_at_zero_whatever_the_value(num_players: int, value: luck.SeatValues | None) -> None:
    estimator = LuckEstimator(LuckSettings(worlds=4), value)
    per_seat: list[list[float]] = [[] for _ in range(num_players)]
    for seed in range(150):
        table = [make_agent("heuristic" if s == 0 else "random", seed=s) for s in range(num_players)]
        ids: list[int] = []
        play_game(table, seed, played=ids)
        measured = estimator.game(num_players, seed, ids)
        for seat in range(num_players):
            per_seat[seat].append(float(measured.luck[seat]))
    for seat, values in enumerate(per_seat):
        interval = MeanInterval.of(values)
        width = interval.high - interval.mean
        assert abs(interval.mean) < 1.6 * width, f"seat {seat}: mean luck {interval} is not around 0"


def peek_then_draw(seed: int) -> tuple[Game, list]:
    """Seat 0 knows the top card (its Scout showed it) and draws only if it is a Gub; then first legal actions."""
    start = Game(2, seed=seed)
    data = start.to_dict()
    data["seen"][0]["top"] = [data["deck"][0]]  # a position's deck is written top first
    position = Game.from_dict(data)
    first = "DRAW" if position.state.deck[-1] == Kind.GUB else "DECLINE"
    return position, first_legal_to_the_end(position, first)


def naive_chance_steps(g, r, ids, legal, befores, afters, at) -> int:  # type: ignore[no-untyped-def]
    """The mistake the estimator must not make: every drawn card counted as chance, peeked or not."""
    count = 0
    for i, action in enumerate(ids):
        befores[count], before_rng = g, r.copy()
        step_game(g, r, int(action), legal)
        if g[L.DECK_LEN] < befores[count, L.DECK_LEN] or (before_rng != r).any():
            afters[count], at[count] = g, i
            count += 1
    return count


def test_an_agent_that_acts_on_a_peek_is_not_lucky(monkeypatch: pytest.MonkeyPatch) -> None:
    positions = [peek_then_draw(seed) for seed in range(400)]
    drawn = [(p, a) for p, a in positions if a[0].op is Op.DRAW]
    assert len(drawn) > 40
    estimator = LuckEstimator(LuckSettings(worlds=16), gubs_in_hand)
    assert all(0 not in estimator.continuation(p, a).steps for p, a in drawn)
    # Counting the peeked Gub as drawn at random credits seat 0 with luck it chose: caught at the first step.
    monkeypatch.setattr(luck, "_chance_steps", naive_chance_steps)
    monkeypatch.setattr(luck, "_known_top", lambda g: 0)
    naive = [estimator.continuation(p, a) for p, a in drawn]
    first_steps = [m.corrections[0, 0] for m in naive if m.steps[0] == 0]
    assert len(first_steps) == len(drawn)
    assert MeanInterval.of(first_steps).low > 0


def test_a_batch_of_decks_follows_the_engine_deal_letters_included() -> None:
    """Pooled over deals (and over random play), one re-dealt deck per position has the real deck's distribution.

    Each position is a random draw of the deal and the play; its re-dealt deck is a draw from the deck's
    distribution given everything seen there. If that is the engine's own, the two pools are alike: where the
    first Letter lies (thirds placement, put-backs by the deal, cards drawn since) and which card is on top.
    """
    new_worlds = new_rows(1)
    real_depth, dealt_depth, real_top, dealt_top = [], [], [], []
    letters = np.array([int(k) for k in LETTERS])
    for seed in range(2500):
        game = Game(3, seed=seed)
        rnd = random.Random(seed)
        for _ in range(rnd.randrange(0, 60)):  # random play draws part of the deck first (no agent peeks here)
            if game.is_over:
                break
            legal = [a for a in game.legal_actions() if a.card != Kind.SCOUT]
            game.apply(legal[rnd.randrange(len(legal))] if legal else game.legal_actions()[0])
        st = game.state
        if game.is_over or any(st.seen_top) or not set(st.deck) & set(letters.tolist()):
            continue
        row, rng = new_rows(1)
        state_to_row(st, row[0], rng[0])
        redeal_deck_rows(row[0], 0, seed, *new_worlds)
        redealt = new_worlds[0][0, L.DECK : L.DECK + len(st.deck)]
        for deck, depth, top in ((np.array(st.deck), real_depth, real_top), (redealt, dealt_depth, dealt_top)):
            top_first = deck[::-1]
            depth.append(min(int(np.flatnonzero(np.isin(top_first, letters))[0]) // 4, 8))
            top.append(int(top_first[0]))
    assert len(real_depth) > 1500
    for real, dealt in ((real_depth, dealt_depth), (real_top, dealt_top)):
        cells = sorted(set(real) | set(dealt))
        assert alike([real.count(c) for c in cells], [dealt.count(c) for c in cells])


def alike(first: list[int], second: list[int]) -> bool:
    """Whether two histograms of equal totals pass a chi-square test of one distribution at the 0.1% level.

    The critical value is the Wilson-Hilferty approximation of the chi-square quantile (no scipy needed).
    """
    observed = np.array([first, second], dtype=float)
    expected = observed.sum(axis=0) / 2
    keep = expected > 0
    statistic = float((((observed[:, keep] - expected[keep]) ** 2) / expected[keep]).sum())
    df = int(keep.sum()) - 1
    z = 3.09  # the standard normal's 99.9% quantile
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return statistic < critical


def test_the_scale_is_fitted_on_the_other_fold_only() -> None:
    results = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    lucky = [0.5, -0.5, 0.4, -0.4, 0.6, -0.6]
    folds = [0, 0, 0, 1, 1, 1]
    scales = luck_scales(results, lucky, folds)
    assert scales[:3] == [scales[0]] * 3 and scales[3:] == [scales[3]] * 3
    changed = [*results[:3], 1.0, 1.0, 1.0]  # fold 1's results change: only fold 0's scale moves
    assert luck_scales(changed, lucky, folds)[3:] == scales[3:]
    assert luck_scales(results, [0.0] * 6, folds) == [0.0] * 6
    assert adjusted_results(results, [0.0] * 6, folds) == results


def test_a_tournament_reports_the_adjusted_rates_and_saved_records_give_the_same(tmp_path: Path) -> None:
    adjust = LuckSettings(worlds=4)
    result = run_tournament(
        ["random", "heuristic"], num_players=2, deals=6, jobs=1, records_dir=tmp_path / "games", adjust_luck=adjust
    )
    assert result.luck == adjust and all(len(g.luck) == 2 for g in result.games)
    row = result.to_dict()["pairings"][0]
    for key in ("adjusted_win_rate", "adjusted_ci_low", "adjusted_ci_high", "luck_mean", "luck_ci_low", "luck_ci_high"):
        assert math.isfinite(row[key])
    assert row["adjusted_ci_low"] <= row["adjusted_win_rate"] <= row["adjusted_ci_high"]
    assert "luck-adjusted" in result.table() and "luck-adjusted" in result.pairings[0].summary()
    out = result.save(tmp_path / "out")
    assert "adjusted_win_rate" in out[0].read_text().splitlines()[0]
    assert json.loads(out[1].read_text())["config"]["luck"] == {"worlds": 4, "seed": 0}

    records = [GameRecord.load(path) for path in sorted((tmp_path / "games").glob("*.json"))]
    rows = [p.to_row() for p in luck_command.pairings(luck_command.seat_games(records, LuckEstimator(adjust)))]
    again = {(r["agent"], r["opponent"]): r for r in rows}
    for pairing in result.to_dict()["pairings"]:
        assert again[pairing["agent"], pairing["opponent"]] == pairing  # every column, from the records alone


def test_the_all_seeing_search_is_not_adjusted() -> None:
    result = run_tournament(
        ["random", "search-all-seeing:worlds=2,top=2"], num_players=2, deals=1, jobs=1, allow_all_seeing=True,
        adjust_luck=True,
    )  # fmt: skip
    assert all(g.luck == () for g in result.games)
    assert all(p.adjusted is None for p in result.pairings)
    assert "(reads the deck)" in result.table()


def test_the_command_reads_records_as_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game(2, seed=1, record_log=True)
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    # names that would import and run code if anything built agents from them
    for seat_names, name in ((["os:system", "builtins:exec"], "a.json"), (["builtins:exec", "os:system"], "b.json")):
        GameRecord.from_game(game, 1, seat_names).save(tmp_path / name)
    argv = [str(tmp_path), "--luck-worlds", "2", "--no-progress", "--out", str(tmp_path / "out")]
    assert luck_command.main(argv) == 0
    printed = capsys.readouterr().out
    assert "os:system against builtins:exec" in printed and (tmp_path / "out" / "luck.csv").exists()

    broken = json.loads((tmp_path / "a.json").read_text())
    broken["actions"] = broken["actions"][:5]
    (tmp_path / "a.json").write_text(json.dumps(broken))
    (tmp_path / "b.json").unlink()
    assert luck_command.main([str(tmp_path / "a.json"), "--no-progress"]) == 1
    assert capsys.readouterr().err.count("\n") == 1

    (tmp_path / "a.json").write_text('{"format": 1, "num_players": "__import__"}')
    assert luck_command.main([str(tmp_path / "a.json"), "--no-progress"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "num_players" in error


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 6),
    seed=st.integers(0, 2**40),
    actions=st.lists(st.one_of(st.integers(-5, 400), st.booleans(), st.text(max_size=3), st.none()), max_size=30),
)
def test_actions_that_play_no_whole_game_are_refused_with_a_luck_error(
    num_players: int, seed: int, actions: list
) -> None:
    estimator = LuckEstimator(LuckSettings(worlds=1), ConstantValue())
    with pytest.raises(LuckError):
        estimator.game(num_players, seed, actions)


def test_a_match_gives_the_adjusted_rate_and_training_evaluations_write_it() -> None:
    from agents.evaluate.matches import match
    from agents.training.core.reports import ADJUSTED_COLUMNS, describe_evaluation, evaluation_row

    plain = match(make_agent("heuristic"), make_agent("random"), 2, 8)
    match_result = match(make_agent("heuristic"), make_agent("random"), 2, 8, adjust_luck=LuckSettings(worlds=2))
    assert plain.adjusted is None and match_result.wins == plain.wins
    assert match_result.adjusted is not None and match_result.luck is not None
    rows = [evaluation_row(match_result, 2, "random", 100, 1.0, "curve")]
    assert all(set(ADJUSTED_COLUMNS) <= set(row) for row in rows)
    assert "luck-adjusted" in describe_evaluation(rows, "curve at 100 timesteps")
    assert not set(ADJUSTED_COLUMNS) & set(evaluation_row(plain, 2, "random", 1, 1.0, "curve"))


@pytest.mark.slow
def test_with_uniform_letters_the_redealt_decks_reveal_letters_as_often_as_the_real_ones() -> None:
    interval = letter_probe(1200, letter_placement="uniform")
    assert interval.low < 0 < interval.high, interval


@pytest.mark.slow
def test_with_thirds_letters_the_redealt_decks_reveal_letters_as_often_as_the_real_ones() -> None:
    # the re-deal follows the deck's history since the deal (every card put back at random moves the Letters)
    interval = letter_probe(1200)
    assert interval.low < 0 < interval.high, interval


@pytest.mark.parametrize("won", [0.0, 1.0])
def test_adjusted_intervals_stay_within_0_and_1_when_every_game_is_won_or_lost(won):
    from agents.evaluate.matches import MeanInterval, wilson_interval

    results = [won] * 200
    corrections = np.random.default_rng(0).normal(0, 0.05, 200)
    for adjusted in ([r - x for r, x in zip(results, corrections, strict=True)], results):  # luck measured, and none
        rate = MeanInterval.adjusted_rate(adjusted, results)
        assert 0 <= rate.low <= rate.mean <= rate.high <= 1 and rate.mean == pytest.approx(won, abs=0.01)
        # the results do not vary: no games can be saved, and the interval is about the plain one
        assert (rate.low, rate.high) == pytest.approx(wilson_interval(won * 200, 200), abs=0.005)
        assert rate.width > 0.01


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.floats(-0.9, 0.9)), min_size=2, max_size=60))
def test_an_adjusted_interval_is_never_outside_0_and_1_and_never_of_no_width(games):
    from agents.evaluate.matches import MeanInterval

    results = [r for r, _ in games]
    rate = MeanInterval.adjusted_rate([r - x for r, x in games], results)
    assert 0 <= rate.low <= rate.mean <= rate.high <= 1
    assert rate.width > 0


def test_an_adjustment_that_explains_a_third_of_the_variance_narrows_the_interval_by_its_root():
    from agents.evaluate.matches import MeanInterval, wilson_interval

    rng = np.random.default_rng(3)
    corrections = rng.normal(0, 0.3, 4000)
    results = (rng.random(4000) < 0.5 + corrections).astype(float)  # luck that moves the outcome
    rate = MeanInterval.adjusted_rate(list(results - corrections), list(results))
    low, high = wilson_interval(results.sum(), 4000)
    share = np.var(results - corrections, ddof=1) / np.var(results, ddof=1)
    assert rate.width / (high - low) == pytest.approx(math.sqrt(share), rel=0.02)


def test_each_chance_step_is_redealt_given_the_decks_history_since_the_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    passed: list[tuple | None] = []
    real = luck.redeal_deck_rows

    def spy(row, known, seed, rows, rngs):  # type: ignore[no-untyped-def]
        passed.append(row_history(row))
        return real(row, known, seed, rows, rngs)

    monkeypatch.setattr(luck, "redeal_deck_rows", spy)
    estimator = LuckEstimator(LuckSettings(worlds=2), luck.ConstantValue())
    with_put_backs = 0
    for seed in range(6):
        game, rnd = Game(3, seed=seed, record_log=False), random.Random(seed)
        actions, before = [], []  # each action, and the game's own deck history before it
        while not game.is_over:
            before.append(tuple(game.deck_history or ()))
            actions.append(rnd.choice(game.legal_actions()))
            game.apply(actions[-1])
        passed.clear()
        steps = [step for step in estimator.game(3, seed, actions).steps if step != luck.DEAL_STEP]
        assert passed == [before[step] for step in steps]
        with_put_backs += sum(any(what != LETTER_DRAWN for _, what in history or ()) for history in passed)
    assert with_put_backs  # histories with cards put back were compared, not only empty ones


def random_continuation(game: Game, prefix: list, seed: int) -> list:
    """``prefix`` played from ``game``, then uniformly random legal actions (drawn with ``seed``) to the end."""
    played, choose = game.clone(), random.Random(seed)
    for action in prefix:
        played.apply(action)
    actions = list(prefix)
    while not played.is_over:
        actions.append(choose.choice(played.legal_actions()))
        played.apply(actions[-1])
    return actions


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_steps_correction_reads_its_position_and_worlds_only_not_the_game_to_come(num_players: int) -> None:
    # Two games share a deal and their first actions, then part: the chance steps they share must be judged alike,
    # so nothing of what follows a step (later draws, the play, the result) reaches its judge.
    start = Game(num_players, seed=8, record_log=False)
    first = random_continuation(start, [], seed=1)
    shared = len(first) // 2
    second = random_continuation(start, first[:shared], seed=2)
    assert second[shared:] != first[shared:]
    estimator = LuckEstimator(LuckSettings(worlds=4, seed=3))
    one, other = (estimator.game(num_players, 8, actions) for actions in (first, second))
    common = [i for i, step in enumerate(one.steps) if step < shared]
    assert len(common) > 5 and one.steps[: len(common)] == other.steps[: len(common)]
    # the judge is float32 and batches differ in size between the two games: alike to its precision
    np.testing.assert_allclose(one.corrections[common], other.corrections[common], rtol=1e-4, atol=1e-5)
