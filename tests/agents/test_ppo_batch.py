"""PPOAgent over a batch: the same logits and ids as one observation at a time, and shape errors that say why."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.ppo import PPOAgent
from gubs_env.engine import Game
from gubs_env.envs.selfplay import SelfPlayEnv
from tests.helpers import NETWORK


@pytest.fixture(scope="module")
def batch() -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of 24 positions from random games: varied, and each with a legal id."""
    observations, masks = [], []
    env = SelfPlayEnv(num_players=2)
    rng = np.random.default_rng(0)
    for seed in range(6):
        observation, _ = env.reset(seed=seed)
        for _ in range(4):
            mask = env.action_masks()
            observations.append(observation)
            masks.append(mask.astype(np.int8))
            observation, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if done:
                observation, _ = env.reset(seed=seed + 100)
    return np.stack(observations), np.stack(masks)


def test_batch_logits_are_the_single_logits(batch: tuple[np.ndarray, np.ndarray]) -> None:
    observations, _ = batch
    agent = PPOAgent.pretrained("2p")
    together = agent.action_logits(observations)
    assert together.shape == (len(observations), 356)
    one_by_one = np.stack([agent.action_logits(o) for o in observations])
    np.testing.assert_allclose(together, one_by_one, **NETWORK)


@pytest.mark.parametrize("deterministic", [True, False])
def test_act_batch_chooses_what_act_chooses_row_by_row(
    batch: tuple[np.ndarray, np.ndarray], deterministic: bool
) -> None:
    observations, masks = batch
    batched = PPOAgent.pretrained("2p", deterministic=deterministic)
    single = PPOAgent.pretrained("2p", deterministic=deterministic)
    batched.reset(seed=5)
    single.reset(seed=5)  # sampling draws from the generator row after row, as act does call after call
    ids = batched.act_batch(observations, masks)
    assert ids.dtype == np.int64 and ids.shape == (len(observations),)
    assert ids.tolist() == [single.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert all(masks[row, ids[row]] for row in range(len(ids)))


def test_a_batch_of_one_is_a_batch(batch: tuple[np.ndarray, np.ndarray]) -> None:
    observations, masks = batch
    agent = PPOAgent.pretrained("2p")
    assert agent.action_logits(observations[:1]).shape == (1, 356)
    assert agent.act_batch(observations[:1], masks[:1]).tolist() == [agent.act(observations[0], masks[0])]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a, o, m: a.act(o, m), r"act takes one observation of shape \(512,\).*use act_batch"),
        (lambda a, o, m: a.act(o[0], m[0][:100]), r"action_mask must have shape \(356,\), not \(100,\)"),
        (lambda a, o, m: a.act_batch(o[0], m[0]), r"act_batch takes a batch of shape \(batch, 512\).*use act"),
        (lambda a, o, m: a.act_batch(o, m[:3]), r"action_masks must have shape \(24, 356\), not \(3, 356\)"),
        (lambda a, o, m: a.action_logits(o[:, :500]), r"observation must have shape \(512,\) or \(batch, 512\)"),
        (lambda a, o, m: a.action_logits(o[None]), r"not \(1, 24, 512\)"),
        (lambda a, o, m: a.action_logits(o, np.array([0, 1])), r"ids selects logits of one observation"),
    ],
)
def test_shapes_that_do_not_fit_say_what_was_expected(batch: tuple[np.ndarray, np.ndarray], call, message) -> None:
    observations, masks = batch
    with pytest.raises(ValueError, match=message):
        call(PPOAgent.pretrained("2p"), observations, masks)


def test_a_batch_row_without_a_legal_action_is_named(batch: tuple[np.ndarray, np.ndarray]) -> None:
    observations, masks = batch
    masks = masks.copy()
    masks[3] = 0
    with pytest.raises(ValueError, match="action_masks row 3 allows no action"):
        PPOAgent.pretrained("2p").act_batch(observations, masks)


def test_one_observation_still_plays_whole_games() -> None:
    from agents.evaluate.matches import play_game

    game = play_game([PPOAgent.pretrained("2p"), PPOAgent.pretrained("2p", deterministic=False)], seed=3)
    assert isinstance(game, Game) and game.is_over
