"""The learner's cheaper masked distribution equals sb3-contrib's; its policy saves and loads alike."""

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.bots.model_file import load_policy
from agents.training.sb3.masked_policy import LeanMaskablePolicy, LeanMaskedCategorical
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE


def logits_and_masks(rows: int = 64, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits of the spread a policy gives, and masks with a few legal ids per row (as in a game), one forced."""
    generator = np.random.default_rng(seed)
    logits = torch.as_tensor(generator.normal(0, 3, (rows, NUM_ACTIONS)).astype(np.float32))
    masks = generator.random((rows, NUM_ACTIONS)) < 0.03
    masks[np.arange(rows), generator.integers(NUM_ACTIONS, size=rows)] = True
    masks[0] = False
    masks[0, 7] = True  # a single legal id
    return logits, torch.as_tensor(masks)


def test_same_log_probs_probs_and_entropy_as_sb3_contrib():
    logits, masks = logits_and_masks()
    lean = LeanMaskedCategorical(logits, masks)
    reference = MaskableCategorical(logits=logits, masks=masks)
    torch.testing.assert_close(lean.probs, reference.probs, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(lean.entropy(), reference.entropy(), atol=1e-4, rtol=1e-4)  # 356 float32 terms
    legal = masks.float().argmax(dim=1)
    torch.testing.assert_close(lean.log_prob(legal), reference.log_prob(legal), atol=1e-5, rtol=1e-5)
    assert (lean.probs[~masks] == 0).all()  # a masked id can never be drawn
    assert lean.probs[0, 7] == 1 and lean.entropy()[0] == 0


def test_samples_are_legal_and_follow_the_probabilities():
    logits, masks = logits_and_masks(rows=4)
    distribution = LeanMaskedCategorical(logits, masks)
    torch.manual_seed(0)
    draws = distribution.sample(torch.Size([20_000]))  # (draws, rows)
    for row in range(4):
        counts = torch.bincount(draws[:, row], minlength=NUM_ACTIONS).float() / len(draws)
        assert (counts[~masks[row]] == 0).all()
        assert torch.allclose(counts, distribution.probs[row], atol=0.015)


def test_removing_the_mask_restores_the_plain_softmax():
    logits, masks = logits_and_masks(rows=8)
    distribution = LeanMaskedCategorical(logits, masks)
    distribution.apply_masking(None)
    torch.testing.assert_close(distribution.probs, torch.softmax(logits, dim=-1))
    assert distribution.masks is None


def test_the_gradient_of_the_loss_is_sb3_contribs():
    logits, masks = logits_and_masks()
    legal = masks.float().argmax(dim=1)
    gradients = []
    for build in (
        lambda x: LeanMaskedCategorical(x, masks),
        lambda x: MaskableCategorical(logits=x, masks=masks),
    ):
        x = logits.clone().requires_grad_(True)
        distribution = build(x)
        (-distribution.log_prob(legal).mean() - 0.01 * distribution.entropy().mean()).backward()
        gradients.append(x.grad)
    torch.testing.assert_close(gradients[0], gradients[1], atol=1e-6, rtol=1e-4)


def spaces_pair() -> tuple[spaces.Box, spaces.Discrete]:
    return spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_ACTIONS)


def test_the_policy_has_sb3_contribs_networks_and_answers():
    observation_space, action_space = spaces_pair()
    kwargs = {"lr_schedule": lambda _: 3e-4, "net_arch": [32, 32]}
    lean = LeanMaskablePolicy(observation_space, action_space, **kwargs)
    reference = MaskableActorCriticPolicy(observation_space, action_space, **kwargs)
    assert lean.state_dict().keys() == reference.state_dict().keys()
    reference.load_state_dict(lean.state_dict())
    generator = np.random.default_rng(1)
    obs = torch.as_tensor((generator.random((16, OBS_SIZE)) < 0.1).astype(np.float32))
    _, masks = logits_and_masks(rows=16, seed=1)
    actions = masks.float().argmax(dim=1)
    with torch.no_grad():
        for got, expected in zip(
            lean.evaluate_actions(obs, actions, masks), reference.evaluate_actions(obs, actions, masks), strict=True
        ):
            torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)  # entropies sum 356 float32 terms
        best = lean(obs, deterministic=True, action_masks=masks.numpy())[0]
        assert torch.equal(best, reference(obs, deterministic=True, action_masks=masks.numpy())[0])
    assert masks[torch.arange(16), best].all()


def test_a_model_with_the_policy_saves_and_loads_both_ways(tmp_path):
    from agents.training.core.config import PoolConfig
    from agents.training.core.seating import Seating
    from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv

    envs = FastSelfPlayVecEnv(Seating(2, PoolConfig(p_random=1.0), seed=0), 2, seed=0)
    model = MaskablePPO(LeanMaskablePolicy, envs, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [32, 32]})
    model.save(tmp_path / "model.zip")
    weights = load_policy(tmp_path / "model.zip")  # the safe loader: weights only, whatever the policy class
    assert [w.shape for w, _ in weights.layers] == [(32, OBS_SIZE), (32, 32), (NUM_ACTIONS, 32)]
    again = MaskablePPO.load(tmp_path / "model.zip", device="cpu")  # our own file: a full load is fine here
    assert isinstance(again.policy, LeanMaskablePolicy)
    envs.close()


def test_only_a_discrete_action_space_is_accepted():
    observation_space, _ = spaces_pair()
    with pytest.raises(ValueError, match="Discrete"):
        LeanMaskablePolicy(observation_space, spaces.MultiDiscrete([3, 3]), lambda _: 3e-4)
