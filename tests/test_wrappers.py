"""SelfPlayEnv: the single-agent Gymnasium view used for self-play training."""

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from gubs_env import IllegalActionError
from gubs_env.encoding.action_table import NUM_ACTIONS, TEMPLATES, encode
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.encoding.observation import encode as encode_obs
from gubs_env.envs.selfplay import RandomOpponent, SelfPlayEnv


def learner_legal_ids(env: SelfPlayEnv) -> set[int]:
    game = env.game
    assert game.current_player == env.learner
    return {encode(a, env.learner, env.num_players) for a in game.legal_actions()}


def illegal_in_table_id(env: SelfPlayEnv) -> int:
    """An in-range id that is not legal now and aims at no missing seat."""
    mask = env.action_masks()
    for action_id, template in enumerate(TEMPLATES):
        if not mask[action_id] and (template.seat is None or template.seat < env.num_players):
            return action_id
    raise AssertionError("every id is legal")


def random_learner_step(env: SelfPlayEnv, rng: random.Random):
    return env.step(rng.choice(np.flatnonzero(env.action_masks()).tolist()))


def play_episode(env: SelfPlayEnv, seed: int, rng: random.Random | None = None):
    rng = rng or random.Random(seed)
    obs, info = env.reset(seed=seed)
    trajectory = [(obs.tobytes(), info["learner_seat"], info["action_mask"].tobytes())]
    while True:
        obs, reward, terminated, truncated, info = random_learner_step(env, rng)
        trajectory.append((obs.tobytes(), reward, terminated, truncated, info["action_mask"].tobytes()))
        if terminated or truncated:
            return trajectory, reward, terminated, truncated, info


class CountingOpponent:
    """A random legal player that counts its calls and records the seats it played."""

    def __init__(self, env: SelfPlayEnv | None = None, seed: int = 0):
        self.env = env
        self.random = RandomOpponent(seed)
        self.calls = 0
        self.seats = set()

    def __call__(self, observation, action_mask):
        assert observation.shape == (OBS_SIZE,) and action_mask.shape == (NUM_ACTIONS,)
        assert action_mask.any()
        self.calls += 1
        if self.env is not None:
            self.seats.add(self.env.game.current_player)
        return self.random(observation, action_mask)


# --- environment checkers --------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_gymnasium_check_env_passes(num_players):
    gym_check_env(SelfPlayEnv(num_players=num_players), skip_render_check=True)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_sb3_check_env_passes(num_players):
    sb3_check_env(SelfPlayEnv(num_players=num_players), warn=True)


# --- masks and seats -------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_action_masks_are_bool_and_equal_the_learners_legal_set(num_players):
    env = SelfPlayEnv(num_players=num_players)
    for seed in range(3):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while True:
            mask = env.action_masks()
            assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,)
            assert set(np.flatnonzero(mask).tolist()) == learner_legal_ids(env)
            _obs, _reward, terminated, truncated, _info = random_learner_step(env, rng)
            if terminated or truncated:
                assert env.action_masks().all()  # between episodes every id is allowed: a vector env ignores it
                break


def test_observation_is_the_learners_and_in_the_space():
    env = SelfPlayEnv(num_players=3)
    obs, _info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs, encode_obs(env.game.state, env.learner))


def test_learner_seat_is_random_across_resets_by_default():
    env = SelfPlayEnv(num_players=4)
    seats = {env.reset(seed=seed)[1]["learner_seat"] for seed in range(30)}
    assert seats == {0, 1, 2, 3}
    env.reset(seed=0)
    seats = {env.reset()[1]["learner_seat"] for _ in range(30)}
    assert len(seats) > 1


def test_learner_seat_is_fixed_when_given():
    env = SelfPlayEnv(num_players=4, learner_seat=2)
    for seed in range(10):
        _obs, info = env.reset(seed=seed)
        assert info["learner_seat"] == 2 == env.learner
        assert env.game.current_player == 2


@pytest.mark.parametrize("seat", [-1, 3, True, 1.5, "0"])
def test_bad_learner_seat_raises(seat):
    with pytest.raises(ValueError):
        SelfPlayEnv(num_players=3, learner_seat=seat)


# --- rewards ---------------------------------------------------------------------------------------


def test_reward_when_the_game_ends_on_an_opponents_move():
    cases = []
    for seed in range(80):
        opponent = CountingOpponent(seed=seed)
        env = SelfPlayEnv(num_players=3, opponents=opponent, learner_seat=0)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while True:
            calls_before = opponent.calls
            _obs, reward, terminated, truncated, info = random_learner_step(env, rng)
            if terminated or truncated:
                break
        assert terminated and not truncated
        assert reward in (1.0, -1.0)
        assert reward == (1.0 if 0 in info["winners"] else -1.0)
        assert info["winners"] == env.game.winners()
        if opponent.calls > calls_before:  # the game was still on after the learner's move
            cases.append(reward)
        if len(set(cases)) == 2 and len(cases) >= 5:
            break
    assert cases, "no game ended on an opponent's move"
    assert set(cases) == {1.0, -1.0}


def test_zero_reward_and_a_small_info_before_the_end():
    env = SelfPlayEnv(num_players=2)
    env.reset(seed=0)
    rng = random.Random(0)
    while True:
        _obs, reward, terminated, truncated, info = random_learner_step(env, rng)
        if terminated or truncated:
            break
        assert reward == 0.0
        assert set(info) == {"learner_seat", "action_mask"} and info["learner_seat"] == env.learner
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
    assert info["scores"] == env.game.scores() and info["winners"] == env.game.winners()
    assert info["action_mask"].all()


@pytest.mark.parametrize("num_players", [2, 5])
def test_truncation_returns_truncated_and_zero_reward(num_players):
    env = SelfPlayEnv(num_players=num_players, max_turns=3)
    _trajectory, reward, terminated, truncated, info = play_episode(env, seed=1)
    assert truncated and not terminated
    assert reward == 0.0
    assert env.game.truncated and info["winners"] == []


# --- opponents -------------------------------------------------------------------------------------


def test_opponents_swapped_between_episodes_are_the_ones_called():
    first, second = CountingOpponent(seed=1), CountingOpponent(seed=2)
    env = SelfPlayEnv(num_players=3, opponents=first)
    play_episode(env, seed=0)
    assert first.calls > 0 and second.calls == 0
    calls_of_first = first.calls
    env.set_opponents(second)
    play_episode(env, seed=1)
    assert second.calls > 0
    assert first.calls == calls_of_first


@pytest.mark.parametrize("ask_forced", [False, True])
def test_opponents_are_asked_about_forced_moves_only_when_wanted(ask_forced):
    legal_counts = []

    def opponent(observation, action_mask):
        legal = np.flatnonzero(action_mask)
        legal_counts.append(len(legal))
        return int(legal[0])

    env = SelfPlayEnv(num_players=3, opponents=opponent, ask_forced=ask_forced)
    for seed in range(5):
        play_episode(env, seed=seed)
    assert legal_counts
    assert (min(legal_counts) == 1) is ask_forced


def test_a_list_of_opponents_plays_the_other_seats_clockwise_from_the_learner():
    for learner_seat in (0, 1):
        env = SelfPlayEnv(num_players=3, learner_seat=learner_seat)
        a, b = CountingOpponent(env, seed=1), CountingOpponent(env, seed=2)
        env.set_opponents([a, b])
        for seed in range(3):
            play_episode(env, seed=seed)
        assert a.seats == {(learner_seat + 1) % 3}
        assert b.seats == {(learner_seat + 2) % 3}


def test_list_of_opponents_accepted_in_the_constructor():
    opponents = [CountingOpponent(seed=i) for i in range(3)]
    env = SelfPlayEnv(num_players=4, opponents=opponents, learner_seat=0)
    for seed in range(3):
        play_episode(env, seed=seed)
    assert all(o.calls > 0 for o in opponents)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_wrong_number_of_opponents_raises(count):
    opponents = [RandomOpponent(i) for i in range(count)]
    with pytest.raises(ValueError):
        SelfPlayEnv(num_players=3, opponents=opponents)
    env = SelfPlayEnv(num_players=3)
    with pytest.raises(ValueError):
        env.set_opponents(opponents)


def test_non_callable_opponent_raises():
    with pytest.raises(ValueError):
        SelfPlayEnv(num_players=3, opponents=[RandomOpponent(0), "random"])


# --- illegal and bad actions -----------------------------------------------------------------------


def test_on_illegal_lose_ends_the_episode_with_minus_one():
    env = SelfPlayEnv(num_players=3)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(illegal_in_table_id(env))
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_action"] is True
    assert obs.shape == (OBS_SIZE,)
    assert env.action_masks().all() and info["action_mask"].all()
    with pytest.raises(RuntimeError):  # the mask allows every id, but a lone env is reset first
        env.step(0)


def test_on_illegal_lose_for_an_id_aiming_at_a_missing_seat():
    env = SelfPlayEnv(num_players=2)
    env.reset(seed=0)
    action_id = next(i for i, t in enumerate(TEMPLATES) if t.seat == 5)
    _obs, reward, terminated, _truncated, info = env.step(action_id)
    assert reward == -1.0 and terminated and info["illegal_action"]


def test_on_illegal_raise_raises_and_changes_nothing():
    env = SelfPlayEnv(num_players=3, on_illegal="raise")
    env.reset(seed=0)
    before = env.game.to_dict()
    with pytest.raises(IllegalActionError):
        env.step(illegal_in_table_id(env))
    assert env.game.to_dict() == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the episode goes on


def test_on_illegal_raise_for_an_id_aiming_at_a_missing_seat():
    env = SelfPlayEnv(num_players=2, on_illegal="raise")
    env.reset(seed=0)
    before = env.game.to_dict()
    action_id = next(i for i, t in enumerate(TEMPLATES) if t.seat == 5)
    with pytest.raises(IllegalActionError):
        env.step(action_id)
    assert env.game.to_dict() == before


def test_bad_on_illegal_value_raises():
    with pytest.raises(ValueError):
        SelfPlayEnv(num_players=2, on_illegal="ignore")


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10**9, "3", 1.5, None, True, [1]])
def test_out_of_range_and_non_int_actions_raise_value_error(action):
    env = SelfPlayEnv(num_players=2, on_illegal="lose")
    env.reset(seed=0)
    before = env.game.to_dict()
    with pytest.raises(ValueError):
        env.step(action)
    assert env.game.to_dict() == before
    assert env.action_masks().any()  # the episode is still on


def test_numpy_integer_actions_are_accepted():
    env = SelfPlayEnv(num_players=2)
    env.reset(seed=0)
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))


def test_stepping_after_the_end_raises_runtime_error():
    env = SelfPlayEnv(num_players=2)
    play_episode(env, seed=0)
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_step_and_masks_before_reset_raise():
    env = SelfPlayEnv(num_players=2)
    with pytest.raises(RuntimeError):
        env.step(0)
    with pytest.raises(RuntimeError):
        env.action_masks()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 1},
        {"num_players": 7},
        {"num_players": "2"},
        {"num_players": 2, "no_such_option": 1},
        {"num_players": 2, "render_mode": "rgb"},
    ],
)
def test_bad_configuration_raises_value_error(kwargs):
    with pytest.raises(ValueError):
        SelfPlayEnv(**kwargs)


# --- determinism and rendering ---------------------------------------------------------------------


def test_same_seed_same_episode():
    first = play_episode(SelfPlayEnv(num_players=4), seed=7)
    second = play_episode(SelfPlayEnv(num_players=4), seed=7)
    assert first[0] == second[0]
    assert first[1:4] == second[1:4]
    other = play_episode(SelfPlayEnv(num_players=4), seed=8)
    assert other[0] != first[0]


def test_render_modes(capsys):
    env = SelfPlayEnv(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render(env.learner)
    env = SelfPlayEnv(num_players=3, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert env.game.render(env.learner) in capsys.readouterr().out
    env = SelfPlayEnv(num_players=3)
    env.reset(seed=0)
    assert env.render() is None


# --- training ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_maskable_ppo_learns_a_few_steps():
    from sb3_contrib import MaskablePPO

    env = SelfPlayEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    model.learn(128)
    obs, _info = env.reset(seed=0)
    action, _state = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


# --- hostile actions and settings (issue 11) -------------------------------------------------------


def legal_id(env: SelfPlayEnv) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize(
    "make_action",
    [
        lambda i: float("inf"),  # raised OverflowError
        lambda i: float("nan"),
        lambda i: float(i),  # 3.0 was taken as 3
        lambda i: np.float64(i),
        lambda i: np.float32(i),
        lambda i: np.array([i]),
        lambda i: np.array(float(i)),
        lambda i: np.bool_(True),
        lambda i: 10**5000,
        lambda i: complex(i),
        lambda i: str(i),
    ],
    ids=["inf", "nan", "float", "float64", "float32", "1-d array", "0-d float", "np.bool", "huge", "complex", "str"],
)
def test_only_integer_ids_are_accepted(make_action):
    env = SelfPlayEnv(num_players=2, on_illegal="raise")
    env.reset(seed=0)
    before = env.game.to_dict()
    with pytest.raises(ValueError, match="an action is an int id") as info:
        env.step(make_action(legal_id(env)))
    assert not isinstance(info.value, IllegalActionError)
    assert len(str(info.value)) < 200
    assert env.game.to_dict() == before
    assert env.action_masks().any()  # the episode is still on


@pytest.mark.parametrize("kind", [int, np.int64, np.uint8, np.array])
def test_integer_ids_of_every_accepted_type_play(kind):
    env = SelfPlayEnv(num_players=2)
    env.reset(seed=0)
    env.step(kind(legal_id(env)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"learner_seat": 1.0}, "learner_seat"),
        ({"learner_seat": np.float64(0)}, "learner_seat"),
        ({"learner_seat": "0"}, "learner_seat"),
        ({"learner_seat": 10**5000}, "learner_seat"),
        ({"opponents": 5}, "opponents"),
        ({"opponents": "ab"}, "opponents"),
        ({"opponents": iter([RandomOpponent(), RandomOpponent()])}, "opponents"),
        ({"opponents": [RandomOpponent(), 5]}, "opponents"),
        ({"on_illegal": ["raise"]}, "on_illegal"),
        ({"ask_forced": "yes"}, "ask_forced"),
        ({"render_mode": ["ansi"]}, "render_mode"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_settings_are_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        SelfPlayEnv(num_players=3, **kwargs)
    assert len(str(info.value)) < 200


def test_numpy_learner_seat_is_accepted_as_an_int():
    env = SelfPlayEnv(num_players=3, learner_seat=np.int64(2))
    _, info = env.reset(seed=0)
    assert info["learner_seat"] == 2 and type(env.learner) is int


def test_an_opponent_returning_a_non_integer_id_is_an_error():
    env = SelfPlayEnv(num_players=2, learner_seat=1, opponents=lambda obs, mask: float(np.flatnonzero(mask)[0]))
    with pytest.raises(ValueError, match="an action is an int id"):
        env.reset(seed=0)
