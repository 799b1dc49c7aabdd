"""A native critic that sees the deal: every other hand beside the observation, for the critic only.

The policy gradient keeps its expectation: the actor's action depends on the observation alone, so for any baseline
``b`` of the hidden state (not of the action), ``E[grad log pi(a|o) b(s)] = sum_s p(s|o) b(s) sum_a grad pi(a|o) = 0``.
The first test checks that identity exactly on a tiny hand-built game with the project's own network, and that a
baseline which peeks at the action breaks it (so the check can fail).
"""

from dataclasses import replace

import numpy as np
import pytest
import torch

from agents.training import ConfigError, RunSetupError, TrainingConfig, train
from agents.training.native.learner import ActorCritic, Learner
from agents.training.native.rollout import HANDS, POLICY, SelfPlayGames, other_hands
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS

HIDDEN = torch.tensor([0.3, 0.7])
"""The chance of each hidden state: a card the acting seat cannot see."""
REWARD = torch.tensor([[1.0, -1.0, 0.5], [-0.5, 1.0, -1.0]])
"""The outcome of each of three legal actions in each hidden state."""


def exact_gradient(model: ActorCritic, baseline) -> torch.Tensor:
    """sum over hidden states and actions of p(s) pi(a|o) (R(s,a) - b) grad log pi(a|o), the actor's parameters."""
    torch.manual_seed(0)
    obs = torch.rand(1, OBS_SIZE)
    masks = torch.zeros(1, 356, dtype=torch.int8)
    masks[0, :3] = 1
    log_pi = model.log_probs(obs, masks)[0, :3]
    pi = log_pi.exp().detach()
    hands = torch.eye(2, HANDS)  # what the critic sees of each hidden state
    total = torch.zeros(())
    for s in range(2):
        for a in range(3):
            b = baseline(obs, hands[s : s + 1], a)
            total = total + HIDDEN[s] * pi[a] * (REWARD[s, a] - b) * log_pi[a]
    model.zero_grad()
    total.backward()
    return torch.cat([p.grad.reshape(-1) for p in model.actor_parameters()])


def test_a_baseline_of_the_whole_deal_leaves_the_policy_gradient_as_it_was():
    torch.manual_seed(1)
    model = ActorCritic((16,), OBS_SIZE, HANDS)
    plain = exact_gradient(model, lambda obs, hands, a: torch.zeros(()))
    deal = exact_gradient(model, lambda obs, hands, a: model.value(torch.cat([obs, hands], 1))[0].detach())
    own_view = exact_gradient(model, lambda obs, hands, a: torch.tensor(0.37))
    assert torch.allclose(deal, plain, atol=1e-6) and torch.allclose(own_view, plain, atol=1e-6)
    peeking = exact_gradient(model, lambda obs, hands, a: REWARD[int(hands[0, 1] > 0), a])  # knows the action
    assert not torch.allclose(peeking, plain, atol=1e-3)


def test_the_games_keep_every_other_hand_with_each_sample():
    from agents.bots.search.value import FEATURES, leaf_features

    learner = Learner(TrainingConfig(backend="native", hidden=(16,), critic_sees="deal").resolved())
    games = SelfPlayGames(3, (2, 3, 4), hands=True)
    kinds = np.full((3, MAX_PLAYERS), POLICY, dtype=np.int8)
    batch = games.play(np.arange(3, dtype=np.uint64) + 11, kinds, learner.decide)
    assert batch.hands is not None and batch.hands.shape == (len(batch), HANDS)
    assert batch.hands.any() and not batch.values.any()  # valued once the batch is played
    states = games.tables.games.states
    out = np.empty((1, HANDS), np.float32)
    scratch = np.empty(FEATURES, np.float32)
    leaf_features(states[0], 1, scratch)
    other_hands(states, np.array([0]), np.array([1]), out)
    assert np.array_equal(out[0], scratch[OBS_SIZE:])
    assert SelfPlayGames(2, 2).play(np.arange(2, dtype=np.uint64), kinds[:2], learner.decide).hands is None


def test_a_run_whose_critic_sees_the_deal_trains_resumes_and_ships_the_actor_alone(tmp_path):
    from agents.bots.model_file import load_policy

    config = TrainingConfig.from_scratch(envs=8, hidden=(16,), batch_size=512, eval_games=4, critic_sees="deal")
    first = train(replace(config, steps=2000), out=tmp_path / "run", progress=False)
    weights = load_policy(first.model)
    assert weights.observation_size == OBS_SIZE  # the actor alone: it reads the observation
    again = train(replace(config, steps=4000), out=tmp_path / "run", resume=True, progress=False)
    assert again.timesteps > first.timesteps
    with pytest.raises(RunSetupError, match="keeps its own critic_sees"):
        train(replace(config, critic_sees="observation", steps=9000), out=tmp_path / "run", resume=True)


@pytest.mark.parametrize(
    ("settings", "refused"),
    [
        ({"backend": "sb3", "critic_sees": "deal"}, "the sb3 backend cannot honour critic_sees"),
        ({"backend": "native", "critic_sees": "all"}, "critic_sees must be one of observation, deal"),
        ({"backend": "native", "critic_sees": "deal", "imitate_games": 10}, "the warm start and luck_value critic"),
        (
            {"backend": "native", "critic_sees": "deal", "luck_returns": True, "luck_value": "critic"},
            "the warm start and luck_value critic",
        ),
    ],
)
def test_what_a_deal_critic_cannot_go_with_is_one_line(settings, refused):
    with pytest.raises(ConfigError, match=refused) as error:
        TrainingConfig(**settings)
    assert "\n" not in str(error.value)
