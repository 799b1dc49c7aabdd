"""Warm start by imitation: demonstrations are legal and the policy learns to copy them."""

import numpy as np

from agents.heuristic import HeuristicAgent
from agents.imitation import collect, pretrain
from agents.ppo import PPOAgent
from gubs_env.wrappers import SelfPlayEnv


def test_demonstrations_record_legal_choices_at_every_table_size():
    data = collect(HeuristicAgent(0), [2, 3], games=4, seed=0, progress=False)
    assert len(data) == len(data.masks) == len(data.observations) > 100
    assert data.observations.dtype == np.float16 and data.observations.shape[1] == 512
    assert all(mask[action] for mask, action in zip(data.masks, data.actions, strict=True))


def test_pretraining_lowers_the_loss_and_copies_the_teacher():
    from sb3_contrib import MaskablePPO

    data = collect(HeuristicAgent(0), [2], games=30, seed=0, progress=False)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), seed=0)
    student = PPOAgent(model)

    def agreement():
        picks = [student.act(o.astype(np.float32), m) for o, m in zip(data.observations, data.masks, strict=True)]
        return float(np.mean(np.array(picks) == data.actions))

    before = agreement()
    losses = pretrain(model, data, epochs=4, progress=False)
    assert losses[-1] < losses[0]
    assert agreement() > max(before, 0.9)
