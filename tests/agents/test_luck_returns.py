"""Luck-adjusted returns: each sample's reward is its seat's luck between its decision and its next, scaled."""

import csv
import json

import numpy as np
import pytest

from agents.evaluate.luck import DEAL_STEP, ConstantValue, GameLuck, LuckEstimator, LuckSettings
from agents.training import ConfigError, RunSetupError, TrainingConfig, train
from agents.training.core.config import PoolConfig
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.seating import Seating
from agents.training.native.learner import Learner, advantages
from agents.training.native.luck_returns import LuckReturns, luck_after, luck_rewards, luck_slope
from tests.agents.test_selfplay_core import tiny_batch
from tests.helpers import FLOAT32


def batch_of(moves: list[int], trajectory: list[int], returns: list[float], games: int = 1) -> Batch:
    return tiny_batch([0.0] * len(moves), returns, trajectory, moves=moves, games=games)


# one 2-player game: seat 0 decides at moves 0, 2, 4; seat 1 at moves 1, 3 (samples in time order)
GAME = batch_of(moves=[0, 1, 2, 3, 4], trajectory=[0, 1, 0, 1, 0], returns=[1, -1, 1, -1, 1])
LUCK = GameLuck(
    steps=(DEAL_STEP, 1, 2, 4),
    corrections=np.array([[0.3, -0.3], [0.1, -0.1], [-0.2, 0.2], [0.05, -0.05]]),
    results=np.array([1.0, 0.0]),
)


def test_the_luck_after_a_decision_counts_the_chance_steps_from_it_to_the_end():
    after = luck_after(GAME, [LUCK])
    # seat 0 at move 0: steps 1, 2, 4; at move 2: steps 2, 4; at move 4: step 4 (the deal is before every decision)
    # seat 1 at move 1: steps 1, 2, 4; at move 3: step 4
    assert after == pytest.approx([-0.05, 0.05, -0.15, -0.05, 0.05], **FLOAT32)


def test_the_rewards_from_a_decision_on_add_up_to_the_scaled_luck_after_it():
    after = luck_after(GAME, [LUCK])
    rewards = luck_rewards(GAME, after, scale=2.0)
    # each sample's reward is the luck between it and its seat's next sample
    expected = [-2 * (-0.05 + 0.15), -2 * (0.05 + 0.05), -2 * (-0.15 - 0.05), -2 * -0.05, -0.1]
    assert rewards == pytest.approx(expected, **FLOAT32)
    for sample in range(5):
        later = [k for k in range(sample, 5) if GAME.trajectory[k] == GAME.trajectory[sample]]
        assert rewards[later].sum() == pytest.approx(-2.0 * after[sample], **FLOAT32)


def test_advantages_at_lambda_1_are_the_outcome_less_the_scaled_luck_less_the_value():
    game = batch_of(moves=[0, 1, 2, 3, 4], trajectory=[0, 1, 0, 1, 0], returns=[1, -1, 1, -1, 1])
    game.rewards = luck_rewards(game, luck_after(game, [LUCK]), scale=2.0)
    values = np.array([0.1, -0.2, 0.3, 0.0, 0.5], np.float32)
    adv = advantages(game, values, lam=1.0)
    assert adv == pytest.approx(game.returns - 2.0 * luck_after(game, [LUCK]) - values, abs=1e-6)


def test_the_scale_is_the_slope_of_the_outcome_on_the_luck_clipped():
    batch = batch_of(moves=[0, 1, 0, 1], trajectory=[0, 1, 8, 9], returns=[1, -1, -1, 1], games=2)
    assert luck_slope(batch, np.array([0.25, -0.25, -0.25, 0.25])) == pytest.approx(4.0)  # 2 / 0.5 → clipped at 4
    assert luck_slope(batch, np.array([0.5, -0.5, -0.5, 0.5])) == pytest.approx(2.0)
    assert luck_slope(batch, np.zeros(4)) == 0.0
    assert luck_slope(batch, np.array([-0.5, 0.5, 0.5, -0.5])) == 0.0  # luck against the outcome: none taken off


def play_batch(games: int, players: int, seed: int) -> tuple[Batch, np.ndarray, list[list[int]], SelfPlayGames]:
    learner = Learner(TrainingConfig(backend="native", hidden=(16,), seed=seed).resolved())
    table = SelfPlayGames(Seating(games, PoolConfig(), seed), players)
    seeds = np.arange(games, dtype=np.uint64) + 100 * seed
    history: list[list[int]] = [[] for _ in range(games)]
    table.deal(seeds, np.zeros(games, dtype=np.int64))
    batch = table.play(learner.decide, history=history)
    return batch, seeds, history, table


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_samples_move_is_where_its_action_stands_in_its_games_ids(players):
    batch, _, history, _ = play_batch(6, players, seed=players)
    assert len(batch) > 0
    for sample in range(len(batch)):
        assert history[int(batch.game[sample])][int(batch.moves[sample])] == batch.actions[sample]


def test_the_first_batch_takes_no_luck_off_and_the_next_takes_its_slope_and_it_resumes():
    batch, seeds, history, table = play_batch(8, 2, seed=3)
    luck = LuckReturns(worlds=2)
    assert luck.apply(batch, table.players, seeds, history) == 0.0 and not batch.rewards.any()
    after = luck_after(batch, [luck.estimator.game(2, int(s), h) for s, h in zip(seeds, history, strict=True)])
    assert luck.scale == pytest.approx(luck_slope(batch, after))
    again = LuckReturns(worlds=2, state=luck.state())
    assert again.scale == luck.scale
    scale = again.apply(batch, table.players, seeds, history)
    assert scale == luck.scale and batch.rewards == pytest.approx(luck_rewards(batch, after, scale), **FLOAT32)


def test_a_value_that_sees_nothing_leaves_every_reward_at_0():
    batch, seeds, history, table = play_batch(6, 3, seed=1)
    luck = LuckReturns(worlds=2)
    luck.estimator = LuckEstimator(LuckSettings(worlds=2), ConstantValue())
    luck.slope_sum, luck.weight = 1.5, 1.0
    luck.apply(batch, table.players, seeds, history)
    assert not batch.rewards.any()


def luck_config(**changes) -> TrainingConfig:
    base = dict(envs=8, eval_every=10**6, eval_games=4, final_games=2, checkpoint_every=1, luck_returns=True, threads=1)
    return TrainingConfig(**{**base, "luck_worlds": 2, "hidden": (32,), "batch_size": 512, **changes})


def read_rows(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_a_luck_adjusted_run_logs_its_scale_and_resumes_with_it(tmp_path):
    out = tmp_path / "run"
    first = train(luck_config(steps=3000), out=out, progress=False)
    rows = read_rows(out / "progress.csv")
    assert float(rows[0]["luck_scale"]) == 0.0 and float(rows[-1]["luck_scale"]) > 0
    train(luck_config(steps=first.timesteps + 1500), out=out, resume=True, progress=False)
    again = read_rows(out / "progress.csv")
    assert len(again) > len(rows) and all(float(r["luck_scale"]) > 0 for r in again[1:])
    with pytest.raises(ConfigError, match="luck_worlds"):
        luck_config(luck_worlds=0)
    with pytest.raises(ConfigError, match="the sb3 backend cannot honour luck_returns"):
        TrainingConfig(backend="sb3", luck_returns=True)
    with pytest.raises(RunSetupError, match="keeps its own luck_returns"):
        train(luck_config(luck_returns=False, luck_worlds=16, steps=10**6), out=out, resume=True, progress=False)


@pytest.mark.parametrize("saved", [[1.0], [1.0, 2.0], ["a", 1.0], [float("nan"), 0.5], 3, {"a": 1}, [True, 0.5]])
def test_a_checkpoint_with_a_garbage_luck_scale_is_a_one_line_refusal(tmp_path, saved):
    import hashlib
    import io

    import torch

    out = tmp_path / "run"
    first = train(luck_config(envs=4, luck_worlds=1, hidden=(8,), steps=1), out=out, progress=False)
    run_file = json.loads((out / "run.json").read_text())
    checkpoint = out / run_file["checkpoint"]
    data = torch.load(checkpoint, weights_only=True)
    buffer = io.BytesIO()
    torch.save({**data, "luck_returns": saved}, buffer)
    checkpoint.write_bytes(buffer.getvalue())  # as a run of our own would commit it: its digest in run.json
    run_file["checkpoint_sha256"] = hashlib.sha256(buffer.getvalue()).hexdigest()
    (out / "run.json").write_text(json.dumps(run_file))
    with pytest.raises(RunSetupError, match="cannot be resumed") as refused:
        train(luck_config(envs=4, luck_worlds=1, hidden=(8,), steps=first.timesteps + 1), out=out, resume=True)
    assert "\n" not in str(refused.value)


def seat_views(rows, n):
    """Each seat's own observation in each row, in row order (row 0's seats first)."""
    from agents.bots.search.value import FEATURES, leaf_features
    from gubs_env.encoding.observation import OBS_SIZE

    views = np.zeros((len(rows) * n, FEATURES), dtype=np.float32)
    for index in range(len(views)):
        leaf_features(rows[index // n], index % n, views[index])
    return views[:, :OBS_SIZE]


def games_played(players, steps):
    """Three compiled games of ``players`` seats, ``steps`` decisions in (the lowest legal id each time)."""
    from gubs_env.fast import FastGames

    games = FastGames(3)
    games.reset(seeds=np.arange(3), num_players=np.full(3, players))
    for _ in range(steps):  # into the game: hands apart
        games.step(np.argmax(games.mask, axis=1))
    return games


def recorded_outcome(seed):
    """A fixed estimate of an observation's outcome, and the list of the stacks it was asked about."""
    weights, calls = np.random.default_rng(seed).normal(size=512), []

    def outcome(observations):
        calls.append(observations.copy())
        return np.tanh(observations @ weights)

    return outcome, calls


def test_the_critics_judgement_is_each_seats_outcome_as_a_chance_scaled_to_one_and_a_finished_game_its_result():
    from agents.evaluate.luck import ObservationValue

    games = games_played(3, 30)
    rows = games.states.copy()
    outcome, calls = recorded_outcome(0)
    chances = ObservationValue(outcome)(rows, 3)
    assert chances.shape == (3, 3) and np.allclose(chances.sum(axis=1), 1.0)
    views = seat_views(rows, 3)
    assert len(calls) == 1 and {v.tobytes() for v in calls[0]} == {v.tobytes() for v in views}
    expected = np.clip((outcome(views) + 1) / 2, 1e-6, 1).reshape(3, 3)
    assert np.allclose(chances, expected / expected.sum(axis=1, keepdims=True))
    actor = int(games.actor[0])
    own_view = views[actor]  # the acting seat's observation, as the games show it
    assert np.allclose(own_view, games.obs[0], rtol=FLOAT32["rel"], atol=FLOAT32["abs"])


def test_the_critic_is_asked_once_per_distinct_observation_and_never_of_a_finished_row():
    from agents.evaluate.luck import ObservationValue
    from gubs_env.fast import S_OVER
    from gubs_env.fast import layout as L

    games = games_played(2, 20)
    open_row, finished = games.states[0].copy(), games.states[1].copy()
    finished[L.STEP] = S_OVER
    rows = np.stack([open_row, open_row, finished, open_row])  # one position three times, and a finished game
    outcome, calls = recorded_outcome(1)
    chances = ObservationValue(outcome)(rows, 2)
    assert len(calls) == 1 and len(calls[0]) == 2  # the open position's two seats, once each
    assert np.array_equal(chances[0], chances[1]) and np.array_equal(chances[0], chances[3])
    assert set(chances[2]) <= {0.0, 1.0}  # the finished game: its results
    expected = np.clip((outcome(seat_views(rows[:1], 2)) + 1) / 2, 1e-6, 1)
    assert np.allclose(chances[0], expected / expected.sum())


def test_rows_are_grouped_exactly_even_where_two_distinct_ones_share_their_weighted_sum(monkeypatch):
    import agents.evaluate.luck as luck

    monkeypatch.setattr(luck, "_ROW_KEY", np.zeros(512, dtype=np.float32))  # every row the same sum
    rows = np.random.default_rng(2).integers(0, 2, size=(40, 512)).astype(np.float32)[np.arange(80) % 7]
    first, inverse = luck._distinct_rows(rows)
    assert len(first) == 7 and np.array_equal(rows[first][inverse], rows)


def test_a_run_judged_by_its_own_critic_logs_its_scale_resumes_with_it_and_keeps_its_judge(tmp_path):
    out = tmp_path / "run"
    first = train(luck_config(luck_value="critic", steps=3000), out=out, progress=False)
    rows = read_rows(out / "progress.csv")
    assert float(rows[0]["luck_scale"]) == 0.0 and "luck_scale" in rows[-1]
    train(luck_config(luck_value="critic", steps=first.timesteps + 1500), out=out, resume=True, progress=False)
    assert len(read_rows(out / "progress.csv")) > len(rows)
    with pytest.raises(RunSetupError, match="keeps its own luck_value"):
        train(luck_config(steps=10**6), out=out, resume=True, progress=False)
