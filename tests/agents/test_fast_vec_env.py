"""FastSelfPlayVecEnv: SB3's VecEnv contract, the seating's players, and agreement with the readable oracle."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.bots.heuristic import HeuristicAgent
from agents.bots.model_file import load_policy
from agents.bots.names import CATALOGUE
from agents.bots.ppo import PPOAgent, policy_logits, sample_masked
from agents.training.core import seating
from agents.training.core.config import PoolConfig
from agents.training.core.seating import Seating
from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv
from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import IllegalActionError
from tests.agents.pool_oracle import SeatedSelfPlayEnv

SNAPSHOTS = [load_policy(CATALOGUE["ppo-2p"].path), load_policy(CATALOGUE["ppo-4p"].path)]
HEURISTIC_ONLY = PoolConfig(p_random=0.0, p_heuristic=1.0)
RANDOM_ONLY = PoolConfig(p_random=1.0, p_heuristic=0.0)


def vec_env(num_envs: int, players: Any, pool: PoolConfig = RANDOM_ONLY, seed: int = 0, opponent=None, **kwargs):
    """The sb3 backend's games: ``num_envs`` of them, seated by a seating of ``pool``."""
    table = Seating(num_envs, pool, seed, opponent, learner_plays_self=False)
    return FastSelfPlayVecEnv(table, players, seed=seed, **kwargs)


def started(num_envs: int = 6, players: Any = (2, 3, 4), pool: PoolConfig = RANDOM_ONLY, **kwargs: Any):
    """A reset env (seed 5) and its first observations; its league holds both snapshots, its self seats ppo-2p."""
    env = vec_env(num_envs, list(players), pool, **kwargs)
    env.seating.set_league([("a", SNAPSHOTS[0]), ("b", SNAPSHOTS[1])], [1.0, 2.0])
    env.seating.set_self(SNAPSHOTS[0])
    env.seed(5)
    return env, env.reset()


def first_legal(masks: np.ndarray) -> np.ndarray:
    """A deterministic learner: the lowest legal id of every env."""
    return np.argmax(masks, axis=1)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal id per env."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def learner_ids(env: FastSelfPlayVecEnv, i: int) -> list[int]:
    """The learner's legal ids in env ``i``, from the reference engine at the same position."""
    game = env.games.export_game(i, record_log=False)
    seat = int(env.learner_seat[i])
    assert game.current_player == seat
    return sorted(ActionCodec(game.num_players).ids(game.legal_actions(), seat))


# --- the VecEnv contract -------------------------------------------------------------------------


def test_shapes_dtypes_dones_terminal_observations_and_auto_reset():
    env, obs = started()
    assert obs.shape == (6, OBS_SIZE) and obs.dtype == np.float32
    assert env.observation_space.shape == (OBS_SIZE,) and env.action_space.n == NUM_ACTIONS
    assert [info["learner_seat"] for info in env.reset_infos] == env.learner_seat.tolist()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = env.action_masks()
        assert masks.shape == (6, NUM_ACTIONS) and masks.dtype == bool and masks.any(axis=1).all()
        before = obs
        obs, rewards, dones, infos = env.step(random_legal(masks, rng))
        assert obs.shape == (6, OBS_SIZE) and obs.dtype == np.float32 and obs is not env.games.obs
        assert rewards.shape == (6,) and rewards.dtype == np.float32 and dones.dtype == bool
        assert len(infos) == 6
        for i, info in enumerate(infos):
            assert ("terminal_observation" in info) == dones[i]
            if not dones[i]:
                assert rewards[i] == 0 and info["learner_seat"] == env.learner_seat[i]
                continue
            ended += 1
            terminal = info["terminal_observation"]
            assert terminal.shape == (OBS_SIZE,) and not np.array_equal(terminal, before[i])
            assert not np.array_equal(terminal, obs[i])  # the next episode has started
            assert env.games.actor[i] == env.learner_seat[i]  # and waits on its learner
    assert ended > 10


def test_masks_are_the_learners_legal_ids_and_the_observations_its_view():
    env, obs = started(pool=PoolConfig(p_random=0.2, p_heuristic=0.3, self_share=0.5))
    rng = np.random.default_rng(1)
    for _ in range(60):
        masks = env.action_masks()
        np.testing.assert_array_equal(env.games.actor, env.learner_seat)
        for i in range(env.num_envs):
            assert np.flatnonzero(masks[i]).tolist() == learner_ids(env, i)
        np.testing.assert_array_equal(obs, env.games.observe(env.learner_seat))
        obs, *_ = env.step(random_legal(masks, rng))


def test_learner_reward_is_the_game_result():
    env, _ = started(num_envs=8, players=(2, 5))
    rng = np.random.default_rng(2)
    results: Counter[bool] = Counter()
    while sum(results.values()) < 40:
        _, rewards, dones, infos = env.step(random_legal(env.action_masks(), rng))
        for i in np.flatnonzero(dones):
            info = infos[i]
            won = info["learner_seat"] in info["winners"]
            assert info["winners"] and not info["TimeLimit.truncated"]
            assert rewards[i] == (1.0 if won else -1.0)
            assert len(info["scores"]) == env.num_players[i]
            results[won] += 1
    assert results[True] and results[False]


def test_truncated_games_give_zero_and_say_so():
    env, _ = started(num_envs=4, players=(3,), max_turns=4)
    truncations = 0
    for _ in range(30):
        _, rewards, dones, infos = env.step(first_legal(env.action_masks()))
        for i in np.flatnonzero(dones):
            assert rewards[i] == 0.0 and infos[i]["TimeLimit.truncated"] and infos[i]["winners"] == []
            truncations += 1
    assert truncations > 4


# --- the opponents -------------------------------------------------------------------------------


def test_every_episode_is_seated_from_the_learners_seat_and_its_labels_come_back_at_its_end():
    env, _ = started(num_envs=8, players=(2, 4, 6), pool=PoolConfig(p_random=0.2, p_heuristic=0.3, self_share=0.4))
    for i, n in enumerate(env.num_players.tolist()):
        assert env.seating.players[i, 0] == seating.POLICY and env.seating.labels[i][0] == ""
        assert all(label for label in env.seating.labels[i][1:n])
    rng = np.random.default_rng(3)
    seen: Counter[str] = Counter()
    while sum(seen.values()) < 60:
        labels = [list(env.seating.labels[i][1 : int(n)]) for i, n in enumerate(env.num_players)]
        _, _, dones, infos = env.step(random_legal(env.action_masks(), rng))
        for i in np.flatnonzero(dones):
            assert infos[i]["opponents"] == labels[i]  # the ended episode's, not the next one's
            seen.update(labels[i])
    assert {"random", "heuristic", "self", "snapshot:a", "snapshot:b"} <= set(seen)


def test_each_player_is_asked_once_per_round_for_all_its_games(monkeypatch):
    env, _ = started(num_envs=16, players=(4,), pool=PoolConfig(p_random=0.0, p_heuristic=0.0, self_share=0.0))
    calls: list[Any] = []
    real_logits, real_run = seating.policy_logits, env.vector.loop.run

    def counting_logits(weights, observations, *rest):
        calls.append((id(weights), len(observations)))
        return real_logits(weights, observations, *rest)

    def marking_run(*args, **kwargs):  # a round: one run of the compiled loop between the opponents' calls
        calls.append("round")
        return real_run(*args, **kwargs)

    monkeypatch.setattr(seating, "policy_logits", counting_logits)
    monkeypatch.setattr(env.vector.loop, "run", marking_run)
    rng = np.random.default_rng(4)
    for _ in range(40):
        env.step(random_legal(env.action_masks(), rng))
    rounds: list[list[Any]] = [[]]
    for call in calls:
        if call == "round":
            rounds.append([])
        else:
            rounds[-1].append(call)
    for asked in rounds:
        weights = [w for w, _ in asked]
        assert len(weights) == len(set(weights)) <= 2  # never twice in a round
    assert max(size for asked in rounds for _, size in asked) > 3  # several games in one forward pass


def test_the_sparse_forward_pass_gives_the_dense_ones_logits():
    weights = PPOAgent.pretrained("2p").model
    env = vec_env(24, [2, 4], seed=3)
    observations = env.reset()
    masks = env.action_masks().astype(np.int8)
    layers = [(w.astype(np.float64), b.astype(np.float64)) for w, b in weights.layers]
    dense = observations.astype(np.float64)
    for w, b in layers[:-1]:
        dense = np.tanh(dense @ w.T + b)
    dense = dense @ layers[-1][0].T + layers[-1][1]
    np.testing.assert_allclose(policy_logits(weights, observations), dense, rtol=1e-4, atol=1e-4)
    ids = np.flatnonzero(masks.any(axis=0))
    np.testing.assert_allclose(policy_logits(weights, observations, ids), dense[:, ids], rtol=1e-4, atol=1e-4)
    assert 0 < len(ids) < NUM_ACTIONS


def test_sample_masked_draws_legal_ids_by_their_probabilities():
    logits = np.zeros((4000, NUM_ACTIONS))
    logits[:, 7] = np.log(3.0)
    logits[:, 9] = 50.0  # the most likely id of all, but illegal
    masks = np.zeros((4000, NUM_ACTIONS), dtype=np.int8)
    masks[:, [3, 7, NUM_ACTIONS - 1]] = 1
    chosen = sample_masked(logits, masks, np.random.default_rng(0))
    counts = Counter(chosen.tolist())
    assert set(counts) == {3, 7, NUM_ACTIONS - 1}
    assert abs(counts[7] / 4000 - 0.6) < 0.04  # 3 / (1 + 3 + 1), within about 5 standard deviations
    assert abs(counts[3] / 4000 - 0.2) < 0.035


class AlmostOne:
    """A generator whose every draw is just below 1: in float32 it rounds to 1 and passes a whole row."""

    def random(self, size: int) -> np.ndarray:
        return np.full(size, 1 - 1e-9)


@pytest.mark.parametrize("legal", [[0, 1, 2, 3], [0, 1], [2], [0], [3], [1, 3]])
def test_a_draw_that_rounds_to_one_takes_the_last_legal_id_never_one_past_the_row(legal):
    """Found by a 10-minute training run: a float32 draw of 1.0 chose the column after the last one."""
    logits = np.array([[0.1, 0.5, 0.2, 0.3]], dtype=np.float32)
    masks = np.zeros((1, 4), dtype=np.int8)
    masks[0, legal] = 1
    assert sample_masked(logits, masks, AlmostOne()).tolist() == [max(legal)]
    seeded = [sample_masked(logits, masks, np.random.default_rng(seed))[0] for seed in range(50)]
    assert set(seeded) <= set(legal)


# --- illegal and garbage input -------------------------------------------------------------------


def test_an_illegal_learner_id_loses_that_episode_only():
    env, obs = started(num_envs=3, players=(2,))
    masks = env.action_masks()
    actions = first_legal(masks)
    actions[1] = int(np.flatnonzero(masks[1] == 0)[0])
    _, rewards, dones, infos = env.step(actions)
    assert dones[1] and rewards[1] == -1.0 and infos[1]["illegal_action"] is True
    np.testing.assert_array_equal(infos[1]["terminal_observation"], obs[1])
    assert "illegal_action" not in infos[0] and "illegal_action" not in infos[2]


def test_an_illegal_learner_id_raises_and_changes_nothing_with_raise():
    env, _ = started(num_envs=3, players=(2,), on_illegal="raise")
    states, masks = env.games.states.copy(), env.action_masks().copy()
    actions = first_legal(masks)
    actions[2] = int(np.flatnonzero(masks[2] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 2"):
        env.step(actions)
    np.testing.assert_array_equal(env.games.states, states)
    np.testing.assert_array_equal(env.action_masks(), masks)


@pytest.mark.parametrize(
    "actions",
    [np.array([0.0, 1.0, 2.0]), np.array([0, 1]), np.array([0, 1, NUM_ACTIONS]), np.array([-1, 0, 0]), "abc", None],
)
def test_actions_outside_the_action_space_raise_value_error(actions):
    env, _ = started(num_envs=3, players=(2,))
    states = env.games.states.copy()
    with pytest.raises(ValueError, match="action"):
        env.step(actions)
    np.testing.assert_array_equal(env.games.states, states)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 7},
        {"players": []},
        {"players": [2, "3"]},
        {"players": 2.0},
        {"on_illegal": "ignore"},
        {"seed": -1},
        {"max_turns": "many"},
    ],
)
def test_bad_construction_raises_value_error(kwargs):
    options = {"players": 2, **kwargs}
    with pytest.raises(ValueError):
        FastSelfPlayVecEnv(Seating(2, RANDOM_ONLY, 0), **options)


def test_unknown_methods_and_attributes_are_refused():
    env, _ = started(num_envs=2, players=(2, 3))
    assert env.has_attr("action_masks") and not env.has_attr("__class__")
    assert env.get_attr("learner_seat") == env.learner_seat.tolist()
    assert env.get_attr("num_players", indices=[1]) == [3]
    for name in ("games", "__init__", "close", "_start_episodes", "set_snapshots", "set_learner"):
        with pytest.raises(AttributeError):
            env.env_method(name)
        with pytest.raises(AttributeError):
            env.get_attr(name)
    with pytest.raises(AttributeError):
        env.set_attr("seed", 1)
    assert env.env_is_wrapped(object) == [False, False]


def test_stepping_before_reset_is_refused():
    env = vec_env(2, 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))


# --- agreement with the reference path -----------------------------------------------------------


def paired_envs(players: list[int], pool: PoolConfig, seed: int):
    """A fast vector env and the reference envs it must equal, reset from ``seed``; their first observations equal."""
    fast = vec_env(len(players), players, pool, seed=seed)
    fast.seed(seed)
    obs = fast.reset()
    draws = np.random.default_rng([seed, 11])  # the seating's stream, which the oracles share as the games do
    refs = [SeatedSelfPlayEnv(n, draws) for n in players]
    expected = [ref.reset(seed=seed + i)[0] for i, ref in enumerate(refs)]
    np.testing.assert_array_equal(obs, np.stack(expected))
    return fast, refs, obs


def test_same_games_as_the_self_play_env_on_the_reference_engine(monkeypatch):
    """Same seeds, the learner's same ids, heuristic opponents seeded alike: the same learner trajectories.

    The fast env's heuristic decides in compiled code, each seat with a generator of its own; the reference's is one
    HeuristicAgent per seat.
    """
    compiled_rows = []
    real = seating.heuristic_actions

    def counted(*args: Any) -> None:
        compiled_rows.append(len(args[2]))
        real(*args)

    monkeypatch.setattr(seating, "heuristic_actions", counted)
    players = [2, 3, 4, 5, 6]
    fast, refs, obs = paired_envs(players, HEURISTIC_ONLY, 21)
    rng = np.random.default_rng(8)
    episodes = 0
    for _ in range(250):
        masks = fast.action_masks()
        np.testing.assert_array_equal(masks, np.stack([ref.action_masks() for ref in refs]))
        actions = random_legal(masks, rng)
        stepped, rewards, dones, infos = fast.step(actions)
        obs = stepped
        for i, ref in enumerate(refs):
            ref_obs, reward, terminated, truncated, info = ref.step(int(actions[i]))
            assert (rewards[i], dones[i]) == (reward, terminated or truncated)
            if dones[i]:
                episodes += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], ref_obs)
                assert (infos[i]["scores"], infos[i]["winners"]) == (info["scores"], info["winners"])
                ref_obs, _ = ref.reset()
            np.testing.assert_array_equal(obs[i], ref_obs)
            assert fast.learner_seat[i] == ref.learner
    assert episodes >= 5
    assert sum(compiled_rows) > 500 and max(compiled_rows) > 1  # decided by the compiled heuristic, in batches


def test_a_fixed_opponent_plays_every_seat_greedily_in_one_batch_per_round():
    """train.py's --opponent: the league is not drawn from, and a greedy policy keeps its greedy choices."""

    class Recording(PPOAgent):
        rounds: list[int] = []

        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            chosen = super().act_batch(observations, action_masks)
            for observation, mask, action in zip(observations, action_masks, chosen, strict=True):
                assert action == self.act(observation, mask)  # the greedy id, not a draw
            Recording.rounds.append(len(chosen))
            return chosen

    target = Recording(SNAPSHOTS[0], deterministic=True)
    env, _ = started(num_envs=4, players=(2, 3), pool=RANDOM_ONLY, opponent=target)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(random_legal(env.action_masks(), rng))
    for i, n in enumerate(env.num_players.tolist()):
        assert (env.seating.players[i, 1:n] == seating.OPPONENT).all()
    assert Recording.rounds and max(Recording.rounds) > 1  # several games answered in one call


def test_an_agent_opponent_that_is_no_policy_is_asked_game_by_game():
    class Counting(HeuristicAgent):
        calls = 0

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            Counting.calls += 1
            return super().act(observation, action_mask)

    env, _ = started(num_envs=2, players=(3,), opponent=Counting())
    for _ in range(10):
        env.step(first_legal(env.action_masks()))
    assert Counting.calls > 0


# --- training on it ------------------------------------------------------------------------------


@pytest.mark.slow
def test_maskable_ppo_learns_on_it_with_a_league_of_snapshots():
    from sb3_contrib import MaskablePPO

    env = vec_env(4, [2, 3], PoolConfig(self_share=0.5), seed=0)
    env.seating.set_league([("a", SNAPSHOTS[0])], [1.0])
    env.seating.set_self(SNAPSHOTS[1])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    observations = env.reset()
    action, _ = model.predict(observations, action_masks=env.action_masks())
    assert env.action_masks()[np.arange(4), action].all()


@pytest.mark.parametrize(
    "argv",
    [["--engine", "reference"], ["--engine"], ["--vec-env", "subproc"], ["--workers", "2"], ["--engine", "fast"]],
)
def test_the_reference_engines_training_flags_are_refused_with_what_replaced_them(argv, tmp_path, capsys):
    from agents.training.command import parse

    with pytest.raises(SystemExit) as exit_info:
        parse([*argv, "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"{argv[0]} was removed: every backend trains on the compiled engine" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "run").exists()
