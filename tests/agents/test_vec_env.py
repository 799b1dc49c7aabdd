"""ShardedVecEnv and LeanDummyVecEnv: the same results as a DummyVecEnv."""

import numpy as np
import pytest
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from agents.training.sb3.pool import PoolConfig, PoolSelfPlayEnv
from agents.training.sb3.vec_env import LeanDummyVecEnv, ShardedVecEnv

NUM_ENVS = 5


def factories(num_envs=NUM_ENVS):
    def factory(i):
        # table sizes differ between envs, so a mixed-up env order shows in the observations
        return lambda: Monitor(PoolSelfPlayEnv(2 + i % 3, PoolConfig(p_random=0.5, p_heuristic=0.5), seed=i))

    return [factory(i) for i in range(num_envs)]


@pytest.fixture
def sharded():
    venv = ShardedVecEnv(factories(), workers=2, start_method="fork")
    yield venv
    venv.close()


def rollout(venv, steps=120, seed=3):
    """Observations, rewards, dones, learner seats and masks of a seeded rollout with random legal actions."""
    venv.seed(seed)
    trace = [venv.reset()]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        trace.append(masks)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        trace += [observations, rewards, dones, [info["learner_seat"] for info in infos]]
        trace += [info["terminal_observation"] for info in infos if "terminal_observation" in info]
    return trace


def test_sharded_rollout_equals_dummy_rollout(sharded):
    dummy = DummyVecEnv(factories())
    expected, got = rollout(dummy), rollout(sharded)
    assert len(got) == len(expected)
    for a, b in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert sharded.num_envs == NUM_ENVS
    assert [len(shard) for shard in sharded.shards] == [3, 2]


def test_lean_rollout_equals_dummy_rollout():
    expected, got = rollout(DummyVecEnv(factories())), rollout(LeanDummyVecEnv(factories()))
    assert len(got) == len(expected)
    for a, b in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_lean_results_are_not_shared_between_steps():
    venv = LeanDummyVecEnv(factories(2))
    first = venv.reset()
    kept = first.copy()
    masks = np.stack(venv.env_method("action_masks"))
    observations, _, _, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    np.testing.assert_array_equal(first, kept)  # the next step wrote into its own buffer, not this array
    assert observations is not first and infos[0] is not infos[1]


def test_lean_refuses_dict_observations():
    import gymnasium as gym

    class DictEnv(gym.Env):
        observation_space = gym.spaces.Dict({"a": gym.spaces.Discrete(2)})
        action_space = gym.spaces.Discrete(2)

    with pytest.raises(ValueError, match="flat observation spaces"):
        LeanDummyVecEnv([DictEnv])


def test_cached_masks_are_the_envs_masks_for_any_indices(sharded):
    sharded.reset()
    cached = sharded.env_method("action_masks", indices=[1, 4])
    direct = sharded._per_env("env_method", [1, 4], "action_masks", (), {})  # bypasses the cache
    assert len(cached) == 2
    for a, b in zip(cached, direct, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.any()


def test_attributes_and_methods_reach_the_right_env(sharded):
    assert sharded.get_attr("num_players") == [2, 3, 4, 2, 3]
    assert sharded.get_attr("num_players", indices=[2, 3]) == [4, 2]
    sharded.set_attr("shaping", 0.25, indices=[0, 4])
    assert sharded.get_attr("shaping") == [0.25, 0.0, 0.0, 0.0, 0.25]
    sharded.env_method("set_snapshots", [], indices=3)
    assert sharded.env_is_wrapped(Monitor) == [True] * NUM_ENVS


def test_a_failing_env_call_raises_with_the_workers_traceback_and_the_workers_go_on(sharded):
    with pytest.raises(RuntimeError, match="no_such_method"):
        sharded.env_method("no_such_method")
    sharded.reset()
    assert sharded.get_attr("num_players", indices=[4]) == [3]


@pytest.mark.parametrize("workers", [0, NUM_ENVS + 1])
def test_bad_worker_counts_are_refused(workers):
    with pytest.raises(ValueError, match="workers must be between 1 and the number of envs"):
        ShardedVecEnv(factories(), workers=workers, start_method="fork")


def test_no_envs_is_refused():
    with pytest.raises(ValueError, match="at least one environment"):
        ShardedVecEnv([], workers=1)


def test_a_closed_env_refuses_commands():
    venv = ShardedVecEnv(factories(2), workers=2, start_method="fork")
    venv.close()
    venv.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        venv.reset()
