"""A native critic that sees the whole deal: every hand, the deck in order and each seat's Scout knowledge.

The policy gradient keeps its expectation: the action depends on the observation alone, so for any baseline ``b`` of
the hidden state (not of the action), ``E[grad log pi(a|o) b(s)] = sum_s p(s|o) b(s) sum_a grad pi(a|o) = 0``. The
first test checks that identity exactly on a tiny hand-built game with the learner's own network, and that a
baseline which peeks at the action breaks it (so the check can fail).
"""

from dataclasses import replace

import numpy as np
import pytest
import torch

from agents.training import ConfigError, RunSetupError, TrainingConfig, train
from agents.training.native.learner import ActorCritic, Learner
from agents.training.native.rollout import POLICY, SelfPlayGames
from gubs_env.encoding.hidden import HIDDEN_SIZE, encode_hidden
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS

CHANCE = torch.tensor([0.3, 0.7])
"""The chance of each hidden state: where a card lies that the acting seat cannot see."""
REWARD = torch.tensor([[1.0, -1.0, 0.5], [-0.5, 1.0, -1.0]])
"""The outcome of each of three legal actions in each hidden state."""


def exact_gradient(model: ActorCritic, baseline) -> torch.Tensor:
    """Sum over hidden states and actions of p(s) pi(a|o) (R(s,a) - b) grad log pi(a|o): the actor's parameters."""
    torch.manual_seed(0)
    obs = torch.rand(1, OBS_SIZE)
    masks = torch.zeros(1, 356, dtype=torch.int8)
    masks[0, :3] = 1
    log_pi = model.log_probs(obs, masks)[0, :3]
    pi = log_pi.exp().detach()
    hidden = torch.eye(2, HIDDEN_SIZE)  # what the critic sees of each hidden state
    total = torch.zeros(())
    for s in range(2):
        for a in range(3):
            b = baseline(obs, hidden[s : s + 1], a)
            total = total + CHANCE[s] * pi[a] * (REWARD[s, a] - b) * log_pi[a]
    model.zero_grad()
    total.backward()
    return torch.cat([p.grad.reshape(-1) for p in model.actor_parameters()])


def test_a_baseline_of_the_whole_deal_leaves_the_policy_gradient_as_it_was():
    torch.manual_seed(1)
    model = ActorCritic((16,), OBS_SIZE, HIDDEN_SIZE)
    plain = exact_gradient(model, lambda obs, hidden, a: torch.zeros(()))
    deal = exact_gradient(model, lambda obs, hidden, a: model.value(obs, hidden)[0].detach())
    own_view = exact_gradient(model, lambda obs, hidden, a: torch.tensor(0.37))
    assert torch.allclose(deal, plain, atol=1e-6) and torch.allclose(own_view, plain, atol=1e-6)
    peeking = exact_gradient(model, lambda obs, hidden, a: REWARD[int(hidden[0, 1] > 0), a])  # knows the action
    assert not torch.allclose(peeking, plain, atol=1e-3)


def test_each_sample_keeps_what_its_observation_left_out_at_its_decision():
    """One game at a time, so that every call of ``decide`` is one sample: the position is read as it is asked."""
    learner = Learner(TrainingConfig(backend="native", hidden=(16,), whole_deal_critic=True).resolved())
    for players in (2, 4):
        games = SelfPlayGames(1, players, keep_deal=True)
        expected = []

        def decide(obs, masks, games=games, expected=expected):
            game = games.tables.games.export_game(0, record_log=False)
            expected.append(encode_hidden(game.state, game.current_player))
            return learner.decide(obs, masks)

        kinds = np.full((1, MAX_PLAYERS), POLICY, dtype=np.int8)
        batch = games.play(np.array([players + 20], np.uint64), kinds, decide)
        assert batch.deal.shape == (len(batch), HIDDEN_SIZE) and len(batch) == len(expected) > 20
        assert np.array_equal(batch.deal, np.array(expected))
        assert not batch.values.any()  # valued by the learner, with the hidden deal
        values = learner.values(batch)
        assert values.shape == (len(batch),) and np.isfinite(values).all() and np.unique(values).size > 1
    plain = SelfPlayGames(1, 2).play(np.array([3], np.uint64), np.zeros((1, MAX_PLAYERS), np.int8), learner.decide)
    assert plain.deal.shape == (len(plain), 0)


def test_a_run_whose_critic_sees_the_deal_trains_resumes_and_ships_the_actor_alone(tmp_path):
    from agents.bots.model_file import load_policy

    config = TrainingConfig.from_scratch(envs=8, hidden=(16,), batch_size=512, eval_games=4, whole_deal_critic=True)
    first = train(replace(config, steps=2000), out=tmp_path / "run", progress=False)
    weights = load_policy(first.model)
    assert weights.observation_size == OBS_SIZE  # the actor alone: it reads the observation
    again = train(replace(config, steps=4000), out=tmp_path / "run", resume=True, progress=False)
    assert again.timesteps > first.timesteps
    with pytest.raises(RunSetupError, match="whole_deal_critic"):
        train(replace(config, whole_deal_critic=False, steps=9000), out=tmp_path / "run", resume=True)


@pytest.mark.parametrize(
    ("settings", "refused"),
    [
        ({"backend": "sb3", "whole_deal_critic": True}, "the sb3 backend cannot honour whole_deal_critic"),
        ({"backend": "rllib", "whole_deal_critic": True}, "the rllib backend cannot honour whole_deal_critic"),
        ({"backend": "native", "whole_deal_critic": 1}, "whole_deal_critic must be True or False"),
        ({"backend": "native", "whole_deal_critic": True, "imitate_games": 10}, "cannot go with luck_value critic"),
        (
            {"backend": "native", "whole_deal_critic": True, "luck_returns": True, "luck_value": "critic"},
            "each reads the critic from observations alone",
        ),
    ],
)
def test_what_a_whole_deal_critic_cannot_go_with_is_one_line(settings, refused):
    with pytest.raises(ConfigError, match=refused) as error:
        TrainingConfig(**settings)
    assert "\n" not in str(error.value)
