"""The fast env runner: its games are the readable engine's for the same seeds, its episodes what it played."""

from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib")

from agents.training.core.config import CLIP_RANGE, MAX_GRAD_NORM, VALUE_COEF
from agents.training.rllib.backend import build_config
from agents.training.rllib.runner import FastEnvRunner
from gubs_env.envs.rllib_env import MASK_KEY, OBS_KEY, GubsMultiAgentEnv
from tests.rllib.test_fast_env import assert_same
from tests.rllib.test_training import tiny_config

# RLlib registers its env wrapper with gymnasium again for every runner built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")


@pytest.fixture(
    scope="module", params=[("--no-skip-forced",), ("--skip-forced",)], ids=["every-decision", "skip-forced"]
)
def recorded(request):
    """A fast env runner (3 games, 2- and 3-player tables) that records every deal and step of its batch."""
    config = build_config(tiny_config("--env-runners", "0", "--envs", "3", "--players", "2", "3", *request.param))
    assert config.env_runner_cls is FastEnvRunner
    runner = FastEnvRunner(config=config)
    tables = runner._tables
    log: list[tuple[str, object, object]] = []
    deal, step = tables.reset, tables.step

    def recording_reset(slots, seeds):
        observations = deal(slots, seeds)
        log.append(("reset", (list(slots), list(seeds)), observations))
        return observations

    def recording_step(actions):
        results = step(actions)
        log.append(("step", actions.copy(), results))
        return results

    tables.reset, tables.step = recording_reset, recording_step
    episodes = runner.sample(num_timesteps=600)
    episodes += runner.sample(num_timesteps=300)
    runner.stop()
    return config, log, episodes


def test_each_slot_plays_the_reference_envs_games_for_its_seed(recorded):
    config, log, _ = recorded
    envs = [GubsMultiAgentEnv({**config.env_config, "engine": "reference", "slot": slot}) for slot in range(3)]
    acting = [""] * 3
    games = 0
    for kind, given, returned in log:
        if kind == "reset":
            slots, seeds = given
            for slot, seed, observations in zip(slots, seeds, returned, strict=True):
                assert_same(envs[slot].reset(seed=seed)[0], observations)
                acting[slot] = next(iter(observations))
                games += 1
            continue
        for slot, result in enumerate(returned):
            assert_same(envs[slot].step({acting[slot]: int(given[slot])}), result)
            acting[slot] = next(iter(result[0]))
    assert log[0][1] == ([0, 1, 2], [config.seed, config.seed + 1, config.seed + 2])
    assert games > 3  # some games ended and their slots were dealt again
    assert envs[0]._play.skip_forced is config.env_config["skip_forced"]
    # the update is sb3's: the gradient's norm clipped, its ratio clip and value weight, no KL penalty
    assert (config.grad_clip, config.clip_param, config.vf_loss_coeff) == (MAX_GRAD_NORM, CLIP_RANGE, VALUE_COEF)
    assert config.use_kl_loss is False


def test_the_episodes_hold_what_was_played(recorded):
    config, log, episodes = recorded
    steps = sum(len(returned) for kind, _, returned in log if kind == "step")
    assert sum(episode.env_steps() for episode in episodes) == steps
    done = [episode for episode in episodes if episode.is_done]
    assert done, "no game ended in 900 steps"
    for episode in done:
        for name, agent_episode in episode.agent_episodes.items():
            observations = agent_episode.get_observations()
            masks = observations[MASK_KEY]
            actions = agent_episode.get_actions()
            assert observations[OBS_KEY].shape[1] == 512
            assert all(masks[t][actions[t]] == 1 for t in range(len(actions))), f"{name} chose an illegal id"
            if config.env_config["skip_forced"]:  # a seat is shown no decision with a single legal id
                assert all(masks[t].sum() > 1 for t in range(len(actions)))
            assert not masks[-1].any()  # the last observation closes the seat's episode
            assert sum(agent_episode.get_rewards()) in (-1.0, 0.0, 1.0)
