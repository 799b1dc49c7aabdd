"""The agent interface, RandomAgent, PPOAgent and the evaluation tools."""

import numpy as np
import pytest

from agents import RandomAgent, match, play_game, wilson_interval
from agents.bots.ppo import PPOAgent
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.envs.selfplay import SelfPlayEnv
from tests.helpers import NETWORK


@pytest.mark.parametrize("num_players", range(2, 7))
def test_random_agent_only_picks_legal_ids(num_players):
    for seed in range(5):
        game = play_game([RandomAgent(seed + i) for i in range(num_players)], seed)
        assert game.is_over  # every decision was applied, so every id was legal


def test_random_agent_is_reproducible():
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[3, 7, 11, 40]] = 1
    agent = RandomAgent(5)
    first = [agent.act(None, mask) for _ in range(5)]
    agent.reset(5)
    assert [agent.act(None, mask) for _ in range(5)] == first
    assert {RandomAgent(s).act(None, mask) for s in range(40)} == {3, 7, 11, 40}


def test_an_empty_mask_is_a_clear_error():
    with pytest.raises(ValueError, match="allows no action"):
        RandomAgent(0).act(None, np.zeros(NUM_ACTIONS, dtype=np.int8))


def test_agents_are_opponent_callables_for_selfplayenv():
    env = SelfPlayEnv(num_players=3, opponents=RandomAgent(1))
    env.reset(seed=0)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, reward, done, truncated, _ = env.step(int(legal[0]))
        done = done or truncated
    assert reward in (-1.0, 1.0, 0.0)


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [(8, 10, 0.4902, 0.9433), (50, 100, 0.4038, 0.5962), (0, 20, 0.0, 0.1611), (20, 20, 0.8389, 1.0)],
)
def test_wilson_interval_matches_known_values(wins, games, low, high):
    lo, hi = wilson_interval(wins, games)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_needs_games():
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_match_counts_games_and_checks_the_opponent_count():
    result = match(RandomAgent(0), RandomAgent(1), num_players=3, games=9, seed=0)
    assert result.games == 9 and 0 <= result.wins <= 9
    assert "random" in str(result)
    with pytest.raises(ValueError, match="opponents"):
        match(RandomAgent(0), [RandomAgent(1)], num_players=3, games=1)


def test_match_replays_each_deal_with_the_agent_at_every_seat(monkeypatch):
    import agents.evaluate.matches as evaluate

    tables = []
    real = evaluate.play_game

    def recording(table, seed, codec=None, **options):
        tables.append((seed, [a.name for a in table].index("me")))
        return real(table, seed, codec, **options)

    monkeypatch.setattr(evaluate, "play_game", recording)
    me = RandomAgent(0)
    me.name = "me"
    evaluate.match(me, RandomAgent(1), num_players=4, games=8, seed=3)
    # each deal is replayed with the agent at every seat before the next deal
    assert tables == [(3, 0), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1), (4, 2), (4, 3)]


def test_ppo_agent_plays_legal_actions_at_every_table_size():
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", SelfPlayEnv(num_players=2), n_steps=32, batch_size=32, seed=0)
    for deterministic in (True, False):
        agent = PPOAgent(model, deterministic=deterministic, seed=1)
        for n in range(2, 7):
            game = play_game([agent] + [RandomAgent(i) for i in range(n - 1)], seed=n)
            assert game.is_over


def test_ppo_agent_chooses_what_maskable_ppo_predicts_and_follows_training():
    import torch
    from sb3_contrib import MaskablePPO

    env = SelfPlayEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0)
    agent = PPOAgent(model)
    observation, _ = env.reset(seed=0)
    for _ in range(40):
        mask = env.action_masks()
        expected, _ = model.predict(observation, action_masks=mask, deterministic=True)
        with torch.no_grad():
            tensor = torch.as_tensor(observation, device=model.policy.device)[None]  # where the model is: a GPU too
            logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(tensor))[0].cpu().numpy()
        chosen = agent.act(observation, mask)
        # the same choice, unless two legal logits tie within float32 rounding (numpy and torch round otherwise)
        assert chosen == int(expected) or logits[chosen] == pytest.approx(logits[int(expected)], abs=1e-4)
        np.testing.assert_allclose(agent.action_logits(observation), logits, **NETWORK)
        legal = np.flatnonzero(mask)
        np.testing.assert_allclose(agent.action_logits(observation, legal), logits[legal], **NETWORK)
        observation, _, done, _, _ = env.step(int(expected))
        if done:
            observation, _ = env.reset()
    before = agent.action_logits(observation).copy()
    frozen = PPOAgent(model, frozen=True)
    frozen.action_logits(observation)
    model.learn(64)  # the optimizer changes the weights in place: the agent must see the new ones
    np.testing.assert_array_equal(frozen.action_logits(observation), before)  # a snapshot keeps its first weights
    with torch.no_grad():
        tensor = torch.as_tensor(observation, device=model.policy.device)[None]
        logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(tensor))[0].cpu().numpy()
    assert not np.allclose(before, logits)
    np.testing.assert_allclose(agent.action_logits(observation), logits, **NETWORK)


def test_unknown_pretrained_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown pretrained model"):
        PPOAgent.pretrained("9p")


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        PPOAgent.load(tmp_path / "nothing.zip")


def test_evaluate_command_prints_a_win_rate(capsys):
    from agents.evaluate.command import main

    assert main(["random", "heuristic", "--players", "3", "--games", "6", "--jobs", "1"]) == 0
    assert "3 players, random against heuristic at every other seat: random: " in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["dragon", "random"],
        ["random", "random", "--players", "8"],
        ["random", "random", "--games", "0"],
        ["nowhere.zip", "random"],
    ],
)
def test_evaluate_command_rejects_bad_input(argv, capsys):
    from agents.evaluate.command import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err
