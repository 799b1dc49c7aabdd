"""The shipped models load by name and play full games at their table sizes."""

import pytest

from agents import RandomAgent, play_game
from agents.bots.heuristic import HeuristicAgent
from agents.bots.names import CATALOGUE, MODELS_DIR, NETWORKS, ModelKind
from agents.bots.ppo import PPOAgent
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS


@pytest.mark.parametrize(
    ("name", "num_players"),
    [
        ("ppo-2p", 2),
        ("ppo-4p", 4),
        ("selfplay-2p", 2),
        ("selfplay-4p", 4),
        *(("gubs-net", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ],
)
def test_shipped_model_plays_full_games(name, num_players):
    agent = PPOAgent.pretrained(name)
    assert agent.name == name
    for seed in range(3):
        others = [RandomAgent(seed), HeuristicAgent(seed)] * 3
        game = play_game([agent, *others[: num_players - 1]], seed=seed)
        assert game.is_over


def test_the_catalogue_and_the_models_folder_agree():
    """Every shipped file is catalogued once, under the name whose kind of agent (or search) reads it."""
    from agents.bots.spec import AgentSpec, SpecKind

    assert sorted(model.file for model in CATALOGUE.values()) == sorted(path.name for path in MODELS_DIR.iterdir())
    assert all(name == model.name and model.path.is_file() for name, model in CATALOGUE.items())
    assert NETWORKS == ("gubs-net", "ppo-2p", "ppo-4p", "selfplay-2p", "selfplay-4p")
    played = {ModelKind.NETWORK: SpecKind.NETWORK, ModelKind.WEIGHT_SET: SpecKind.BUILTIN}
    for model in CATALOGUE.values():
        if model.kind in played:
            spec = AgentSpec.parse(model.name)
            assert spec.kind is played[model.kind]
            assert spec.model_file == (model.path if model.kind is ModelKind.NETWORK else None)


def test_the_one_network_is_weights_only_and_loads_without_running_code():
    """gubs_net.npz is numpy arrays only: read with pickling refused, and its layers fit the observation."""
    import numpy as np

    from agents.bots.model_file import load_policy
    from gubs_env.encoding.observation import OBS_SIZE

    path = CATALOGUE["gubs-net"].path
    with np.load(path, allow_pickle=False) as arrays:  # an object array would raise here
        assert all(arrays[key].dtype != object for key in arrays.files)
    assert load_policy(path).observation_size == OBS_SIZE


def test_a_shipped_model_can_sample_too():
    agent = PPOAgent.pretrained("2p", deterministic=False)
    agent.reset(3)
    assert play_game([agent, RandomAgent(0)], seed=5).is_over


def test_export_writes_the_actor_only_and_it_loads_safely(tmp_path):
    import numpy as np
    from sb3_contrib import MaskablePPO

    from agents.bots.model_file import load_policy
    from gubs_env.envs.selfplay import SelfPlayEnv

    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), n_steps=64, batch_size=32, seed=0)
    model.learn(64)  # one update, so the optimizer holds state
    model.save(tmp_path / "full.zip")
    small = PPOAgent.export(tmp_path / "full.zip", tmp_path / "small.npz")
    assert small.stat().st_size < (tmp_path / "full.zip").stat().st_size * 0.6
    assert load_policy(small).activation == "tanh"
    observation = np.random.default_rng(0).random(512).astype(np.float32)
    original, exported = PPOAgent(model), PPOAgent.load(small)
    np.testing.assert_array_equal(original.action_logits(observation), exported.action_logits(observation))


def observations(num_players, games=2):
    """Observations and masks from a few heuristic games."""
    seen = []

    class Recorder(HeuristicAgent):
        def act(self, observation, action_mask):
            seen.append((observation.copy(), action_mask.copy()))
            return super().act(observation, action_mask)

    for seed in range(games):
        play_game([Recorder(seed) for _ in range(num_players)], seed=seed)
    return seen


@pytest.mark.parametrize(("name", "num_players"), [("ppo-2p", 2), ("ppo-4p", 4)])
def test_shipped_models_play_exactly_as_the_full_load_did(name, num_players):
    """The safe loader reads the very weights MaskablePPO.load builds (our own files: a full load is fine here)."""
    import numpy as np
    from sb3_contrib import MaskablePPO

    from agents.bots.model_file import load_policy

    path = CATALOGUE[name].path
    full = MaskablePPO.load(path, device="cpu")
    assert load_policy(path).source == path
    for deterministic in (True, False):
        before = PPOAgent(full, deterministic=deterministic, seed=7)
        after = PPOAgent.pretrained(name, deterministic=deterministic)
        after.reset(7)
        for observation, mask in observations(num_players):
            np.testing.assert_array_equal(after.action_logits(observation), before.action_logits(observation))
            assert after.act(observation, mask) == before.act(observation, mask)
