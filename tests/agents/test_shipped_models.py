"""The shipped models load by name and play full games at their table sizes."""

import pytest

from agents import RandomAgent, play_game
from agents.bots.heuristic import HeuristicAgent
from agents.bots.ppo import PRETRAINED, SHIPPED_SPECS, PPOAgent
from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS


@pytest.mark.parametrize(
    ("name", "num_players"),
    [
        ("2p", 2),
        ("4p", 4),
        ("selfplay-2p", 2),
        ("selfplay-4p", 4),
        *(("net", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ],
)
def test_shipped_model_plays_full_games(name, num_players):
    agent = PPOAgent.pretrained(name)
    assert agent.name == next(spec for spec, short in SHIPPED_SPECS.items() if short == name)
    for seed in range(3):
        others = [RandomAgent(seed), HeuristicAgent(seed)] * 3
        game = play_game([agent, *others[: num_players - 1]], seed=seed)
        assert game.is_over


def test_every_shipped_name_has_its_file():
    from agents.bots.ppo import MODELS_DIR

    assert sorted(PRETRAINED) == ["2p", "4p", "net", "selfplay-2p", "selfplay-4p"]
    assert sorted(SHIPPED_SPECS.values()) == sorted(PRETRAINED)
    assert all((MODELS_DIR / file).is_file() for file in PRETRAINED.values())


def test_the_one_network_is_weights_only_and_loads_without_running_code():
    """gubs_net.npz is numpy arrays only: read with pickling refused, and its layers fit the observation."""
    import numpy as np

    from agents.bots.model_file import load_policy
    from agents.bots.ppo import MODELS_DIR
    from gubs_env.encoding.observation import OBS_SIZE

    path = MODELS_DIR / PRETRAINED["net"]
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


@pytest.mark.parametrize(("name", "num_players"), [("2p", 2), ("4p", 4)])
def test_shipped_models_play_exactly_as_the_full_load_did(name, num_players):
    """The safe loader reads the very weights MaskablePPO.load builds (our own files: a full load is fine here)."""
    import numpy as np
    from sb3_contrib import MaskablePPO

    from agents.bots.model_file import load_policy
    from agents.bots.ppo import MODELS_DIR

    path = MODELS_DIR / PRETRAINED[name]
    full = MaskablePPO.load(path, device="cpu")
    assert load_policy(path).source == path
    for deterministic in (True, False):
        before = PPOAgent(full, deterministic=deterministic, seed=7)
        after = PPOAgent.pretrained(name, deterministic=deterministic)
        after.reset(7)
        for observation, mask in observations(num_players):
            np.testing.assert_array_equal(after.action_logits(observation), before.action_logits(observation))
            assert after.act(observation, mask) == before.act(observation, mask)
