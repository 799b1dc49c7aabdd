"""The masked PPO module, the actor's export, and the pool settings RLlib reads."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from agents.bots.model_file import load_policy, save_policy
from agents.bots.ppo import PPOAgent
from agents.training.core.config import PoolConfig
from agents.training.rllib.backend import main_spec
from agents.training.rllib.module import MaskedPPOModule, actor_layers, actor_linears
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.envs.rllib_env import MASK_KEY, OBS_KEY, GubsMultiAgentEnv
from tests.helpers import NETWORK


def real_batch(count: int = 64, players: int = 3, seed: int = 0) -> dict[str, np.ndarray]:
    """Observations and masks met in random play."""
    env = GubsMultiAgentEnv({"players": [players]})
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    obs, _ = env.reset(seed=seed)
    while len(observations) < count:
        ((name, one),) = obs.items()
        observations.append(one[OBS_KEY])
        masks.append(one[MASK_KEY])
        obs, _, terminated, truncated, _ = env.step({name: int(rng.choice(np.flatnonzero(one[MASK_KEY])))})
        if terminated["__all__"] or truncated["__all__"]:
            obs, _ = env.reset()
    return {OBS_KEY: np.stack(observations), MASK_KEY: np.stack(masks)}


@pytest.fixture(scope="module")
def module() -> MaskedPPOModule:
    torch.manual_seed(0)
    return main_spec([32, 16]).build()


def test_masked_module_samples_and_picks_only_legal_ids(module):
    batch = real_batch()
    observation = {key: torch.as_tensor(value) for key, value in batch.items()}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: observation})[Columns.ACTION_DIST_INPUTS]
        distribution = torch.distributions.Categorical(logits=logits)
        for _ in range(20):
            picked = distribution.sample().numpy()
            assert batch[MASK_KEY][np.arange(len(picked)), picked].all()
        assert batch[MASK_KEY][np.arange(len(logits)), logits.argmax(-1).numpy()].all()


def test_the_warm_start_copies_the_init_network_into_mains_actor():
    from agents.training.core.config import TrainingConfig
    from agents.training.imitation.warm_start import load_actor, read_init

    config = TrainingConfig(backend="rllib", init="ppo-2p").resolved()
    built = main_spec(config.hidden).build()
    layers = read_init(config)
    load_actor(actor_linears(built)[0], layers)
    copied, activation = actor_layers(built)
    assert activation == "tanh" and len(copied) == len(layers) == 3
    for (weight, bias), (shipped_weight, shipped_bias) in zip(copied, layers, strict=True):
        assert np.array_equal(weight, shipped_weight) and np.array_equal(bias, shipped_bias)


def test_values_read_the_observation_vector(module):
    batch = real_batch(8)
    values = module.compute_values({Columns.OBS: {key: torch.as_tensor(v) for key, v in batch.items()}})
    assert values.shape == (8,) and torch.isfinite(values).all()


def test_exported_actor_computes_the_module_logits(module, tmp_path):
    batch = real_batch(48, players=4, seed=2)
    layers, activation = actor_layers(module)
    assert activation == "tanh" and [w.shape for w, _ in layers] == [(32, 512), (16, 32), (NUM_ACTIONS, 16)]
    path = save_policy(tmp_path / "policy.npz", layers, activation)
    agent = PPOAgent.load(path)
    expected = module.actor_logits(batch[OBS_KEY])
    exported = np.stack([agent.action_logits(row) for row in batch[OBS_KEY]])
    np.testing.assert_allclose(exported, expected, **NETWORK)
    for (weight, bias), (read_weight, read_bias) in zip(layers, load_policy(path).layers, strict=True):
        np.testing.assert_array_equal(weight, read_weight)
        np.testing.assert_array_equal(bias, read_bias)
    for row, mask in zip(batch[OBS_KEY], batch[MASK_KEY], strict=True):
        assert mask[agent.act(row, mask)] == 1


def test_a_shared_encoder_or_mixed_activations_are_refused_for_export():
    spec = main_spec([16])
    shared = RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=spec.observation_space,
        action_space=spec.action_space,
        model_config={"fcnet_hiddens": [16], "vf_share_layers": True},
    ).build()
    with pytest.raises(ValueError, match="shares"):
        actor_layers(shared)
    mixed = main_spec([16, 16]).build()
    mixed.encoder.actor_encoder.net.mlp[1] = torch.nn.ReLU()
    with pytest.raises(ValueError, match="one activation"):
        actor_layers(mixed)


@pytest.mark.parametrize(
    "space", [spaces.Box(0, 1, (512,)), spaces.Dict({"observation": spaces.Box(0, 1, (512,))}), None]
)
def test_masked_module_refuses_other_observation_spaces(space):
    with pytest.raises(ValueError, match="Dict observation space"):
        MaskedPPOModule(observation_space=space, action_space=spaces.Discrete(NUM_ACTIONS), model_config={})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"p_random": -0.1},
        {"p_random": 1.5},
        {"p_random": 0.6, "p_heuristic": 0.6},
        {"p_heuristic": "0.4"},
        {"p_random": True},
        {"pool_size": 0},
        {"pool_size": 2.0},
        {"self_share": -0.5},
        {"prioritize": float("inf")},
    ],
)
def test_the_pool_config_both_backends_read_refuses_garbage(kwargs):
    with pytest.raises(ValueError):
        PoolConfig(**kwargs)
