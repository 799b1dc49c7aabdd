"""The masked PPO module, the fixed-agent module, the actor's export, and the self-play mapping."""

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
from agents.training.rllib.env import MASK_KEY, OBS_KEY, GubsMultiAgentEnv, agent_id, observation_space
from agents.training.rllib.module import FixedAgentModule, MaskedPPOModule, actor_layers, actor_linears
from agents.training.rllib.selfplay import (
    ACTIVE_SNAPSHOTS,
    HEURISTIC,
    MAIN,
    RANDOM,
    SeatMapping,
    learner_seat,
    next_slot,
    tag_learner_seat,
)
from agents.training.rllib.train import main_spec
from gubs_env.encoding.action_table import NUM_ACTIONS
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

    config = TrainingConfig(backend="rllib").resolved()  # starts from ppo-2p
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


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_fixed_agent_modules_play_legal_ids(name):
    fixed = RLModuleSpec(
        module_class=FixedAgentModule,
        observation_space=observation_space(),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config={"agent": name},
    ).build()
    batch = real_batch(32, players=5, seed=1)
    actions = fixed.forward_inference({Columns.OBS: {k: torch.as_tensor(v) for k, v in batch.items()}})
    picked = actions[Columns.ACTIONS]
    assert batch[MASK_KEY][np.arange(len(picked)), picked].all()


@pytest.mark.parametrize("name", ["", "agents.bots.heuristic:HeuristicAgent", "ppo-2p", None])
def test_fixed_agent_module_refuses_other_agents(name):
    spec = RLModuleSpec(
        module_class=FixedAgentModule,
        observation_space=observation_space(),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config={"agent": name},
    )
    with pytest.raises(ValueError, match="random' or 'heuristic"):
        spec.build()


class FakeEpisode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


@pytest.mark.parametrize("players", [2, 4, 6])
def test_mapping_seats_main_where_the_compiled_runners_core_drew_the_learner(players):
    mapping = SeatMapping(PoolConfig(p_random=0.1, p_heuristic=0.9))  # no seat of the learner's own: main once
    for seat in range(players):
        episode = FakeEpisode("same-id")
        tag_learner_seat(episode, seat)
        modules = [mapping(agent_id(s, players), episode) for s in range(players)]
        assert modules.index(MAIN) == seat == learner_seat(episode, players) and modules.count(MAIN) == 1
        assert modules == [mapping(agent_id(s, players), episode) for s in range(players)]  # stable


@pytest.mark.parametrize("episode_id", ["episode-1", "x.learner-", "x.learner-9", "x.learner-one"])
def test_an_episode_no_compiled_runner_started_is_refused(episode_id):
    with pytest.raises(ValueError, match="names no learner seat: train on FastEnvRunner"):
        learner_seat(FakeEpisode(episode_id), 4)


def test_mapping_draws_opponents_in_the_pool_proportions():
    mapping = SeatMapping(PoolConfig(p_random=0.2, p_heuristic=0.3, pool_size=3, self_share=0.4))
    draws = np.linspace(0, 1, 1000, endpoint=False)
    without = [mapping.opponent(u, []) for u in draws]  # before a snapshot, main plays the learner's share
    assert set(without) == {RANDOM, HEURISTIC, MAIN} and abs(without.count(MAIN) / 1000 - 0.5) < 0.01
    snapshots = ["snapshot_2", "snapshot_0"]  # oldest first
    drawn = [mapping.opponent(u, snapshots, [1.0, 2.0]) for u in draws]
    assert abs(drawn.count(RANDOM) / 1000 - 0.2) < 0.01 and abs(drawn.count(HEURISTIC) / 1000 - 0.3) < 0.01
    assert abs(drawn.count(MAIN) / 1000 - 0.2) < 0.01
    assert abs(drawn.count("snapshot_0") / drawn.count("snapshot_2") - 2) < 0.1  # by the league's weights
    evenly = [mapping.opponent(u, snapshots, [1.0]) for u in draws]  # weights that do not match: evenly
    assert abs(evenly.count("snapshot_0") / evenly.count("snapshot_2") - 1) < 0.1


def test_mapping_reads_the_active_snapshots_of_this_process():
    mapping = SeatMapping(PoolConfig(p_random=0.0, p_heuristic=0.0, pool_size=2, self_share=0.0))
    saved = list(ACTIVE_SNAPSHOTS)
    try:
        ACTIVE_SNAPSHOTS[:] = ["snapshot_1"]
        episode = FakeEpisode("x")
        tag_learner_seat(episode, 0)
        learner = learner_seat(episode, 2)
        assert mapping(agent_id(1 - learner, 2), episode) == "snapshot_1"
    finally:
        ACTIVE_SNAPSHOTS[:] = saved


def test_next_slot_fills_free_slots_then_replaces_the_oldest():
    pool = PoolConfig(pool_size=2)
    assert next_slot([], pool) == "snapshot_0"
    assert next_slot(["snapshot_0"], pool) == "snapshot_1"
    assert next_slot(["snapshot_1", "snapshot_0"], pool) == "snapshot_1"


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


def test_a_rule_facts_module_reads_the_observation_and_its_facts_and_exports_an_actor_that_plays_them(tmp_path):
    """model_config["rule_facts"]: every pass appends the facts (sb3's feature layer); the exported actor reads 580
    values, is written in the rule-facts format, and its player computes the module's logits."""
    from agents.training.core.features import with_rule_facts
    from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE

    torch.manual_seed(1)
    module = main_spec([32, 16], rule_facts=True).build()
    assert module.rule_facts and not main_spec([32, 16]).build().rule_facts
    batch = real_batch(48, players=4, seed=3)
    observation = {key: torch.as_tensor(value) for key, value in batch.items()}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: observation})[Columns.ACTION_DIST_INPUTS]
        assert batch[MASK_KEY][np.arange(len(logits)), logits.argmax(-1).numpy()].all()
    assert module.compute_values({Columns.OBS: observation}).shape == (48,)
    inputs = module.inputs(torch.as_tensor(batch[OBS_KEY]))
    assert (
        torch.equal(inputs, with_rule_facts(torch.as_tensor(batch[OBS_KEY]))) and inputs.shape[1] == POLICY_INPUT_SIZE
    )
    layers, activation = actor_layers(module)
    assert [w.shape for w, _ in layers] == [(32, POLICY_INPUT_SIZE), (16, 32), (NUM_ACTIONS, 16)]
    path = save_policy(tmp_path / "policy.npz", layers, activation, rule_facts=module.rule_facts)
    agent = PPOAgent.load(path)
    assert load_policy(path).rule_facts
    exported = np.stack([agent.action_logits(row) for row in batch[OBS_KEY]])
    np.testing.assert_allclose(exported, module.actor_logits(batch[OBS_KEY]), **NETWORK)
