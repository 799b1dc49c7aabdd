"""Self-play training pieces: the opponent pool and the shaped pool env."""

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.training import OpponentPool, PoolConfig, PoolSelfPlayEnv


def test_pool_without_snapshots_shares_seats_between_random_and_heuristic():
    pool = OpponentPool(PoolConfig(p_random=0.25, p_heuristic=0.25), seed=0)
    names = [pool.sample().name for _ in range(2000)]
    assert set(names) == {"random", "heuristic"}
    assert 0.4 < names.count("random") / len(names) < 0.6


def test_pool_with_only_random_weight_gives_random_agents():
    pool = OpponentPool(PoolConfig(p_random=1.0, p_heuristic=0.0), seed=0)
    assert {pool.sample().name for _ in range(50)} == {"random"}


def play_episode(env, seed):
    env.reset(seed=seed)
    env.start_potential = env._potential
    rng = np.random.default_rng(seed)
    total, done = 0.0, False
    while not done:
        ids = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, info = env.step(int(ids[rng.integers(ids.size)]))
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("seed", range(5))
def test_shaping_telescopes_to_the_terminal_reward_minus_the_start_potential(seed):
    config = PoolConfig(p_random=1.0, p_heuristic=0.0)
    plain = PoolSelfPlayEnv(2, config, seed=seed)
    shaped = PoolSelfPlayEnv(2, config, seed=seed, shaping=0.5)
    plain_total, plain_info = play_episode(plain, seed)
    shaped_total, shaped_info = play_episode(shaped, seed)
    assert plain_info == shaped_info  # the same game
    assert shaped_total == pytest.approx(plain_total - 0.5 * shaped.start_potential)
    assert plain_total in (-1.0, 0.0, 1.0)


def test_same_seed_same_episode():
    config = PoolConfig(p_random=0.5, p_heuristic=0.5)
    first = play_episode(PoolSelfPlayEnv(2, config, seed=3), 11)
    again = play_episode(PoolSelfPlayEnv(2, config, seed=4), 11)
    assert first == again


def test_pool_env_draws_its_opponents_at_each_reset():
    env = PoolSelfPlayEnv(3, PoolConfig(p_random=1.0, p_heuristic=0.0), seed=1)
    env.reset(seed=0)
    assert all(isinstance(o, RandomAgent) for o in env._opponents)


def test_snapshot_models_are_loaded_once_per_process_and_shared_between_pools(tmp_path):
    import os
    import shutil

    from agents.ppo import MODELS_DIR, PPOAgent
    from agents.training import SnapshotModels

    paths = [str(tmp_path / f"step_{i}.zip") for i in range(3)]
    for path in paths:
        shutil.copy(MODELS_DIR / "gubs_2p.zip", path)
    models = SnapshotModels(capacity=2)
    first = models.get(paths[0])
    assert models.get(paths[0]) is first
    observation = np.linspace(0, 1, first.observation_space.shape[0], dtype=np.float32)
    reference = PPOAgent.load(paths[0]).action_logits(observation)
    np.testing.assert_allclose(PPOAgent(first).action_logits(observation), reference, rtol=1e-5, atol=1e-6)

    models.get(paths[1])
    models.get(paths[2])  # over capacity: the least recently used one goes
    assert models.get(paths[0]) is not first
    again = models.get(paths[0])
    os.utime(paths[0], ns=(1, 1))  # a file written again is read again
    assert models.get(paths[0]) is not again

    pools = [OpponentPool(PoolConfig(p_random=0.0, p_heuristic=0.0, snapshots=[paths[1]]), seed=s) for s in (0, 1)]
    agents = [pool.sample() for pool in pools]
    assert agents[0] is not agents[1] and agents[0].model is agents[1].model


def test_timed_vec_env_counts_steps_resets_and_mask_calls():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.training import TimedVecEnv

    venv = TimedVecEnv(DummyVecEnv([lambda: PoolSelfPlayEnv(2, PoolConfig(p_random=1.0, p_heuristic=0.0))]))
    venv.reset()
    after_reset = venv.env_seconds
    masks = venv.env_method("action_masks")
    after_masks = venv.env_seconds
    venv.step(np.array([np.flatnonzero(masks[0])[0]]))
    assert 0 < after_reset < after_masks < venv.env_seconds
