"""GubsVectorEnv: the same games as SelfPlayEnv, both autoreset modes, seeds, opponents, bad actions, registration."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import gymnasium as gym
from gymnasium.vector import AutoresetMode

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import IllegalActionError
from gubs_env.envs.selfplay import SelfPlayEnv
from gubs_env.envs.vector import GubsVectorEnv

SIZES = [2, 3, 4, 5, 6]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal id per game."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def first_legal(masks: np.ndarray) -> np.ndarray:
    """The lowest legal id per game: a deterministic learner."""
    return np.argmax(masks, axis=1)


def snapshot(env: GubsVectorEnv) -> tuple[np.ndarray, ...]:
    """What a refused call must leave as it was."""
    loop = env.loop
    return (env.games.states.copy(), env.games.rngs.copy(), env.core.streams.copy(), loop.opponent_rngs.copy())


# --- the same games as SelfPlayEnv ---------------------------------------------------------------


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_same_trajectories_as_self_play_env_with_random_opponents(mode):
    """Random opponents seeded from the episode's generator, as SelfPlayEnv's are: the same games, move for move."""
    env = GubsVectorEnv(len(SIZES), SIZES, autoreset_mode=mode)
    obs, info = env.reset(seed=40)
    refs = [SelfPlayEnv(n) for n in SIZES]
    for i, ref in enumerate(refs):
        ref_obs, ref_info = ref.reset(seed=40 + i)
        np.testing.assert_array_equal(obs[i], ref_obs)
        assert info["learner_seat"][i] == ref_info["learner_seat"]
    rng = np.random.default_rng(3)
    restart = np.zeros(len(SIZES), dtype=bool)
    episodes = 0
    for _ in range(300):
        masks = env.action_masks()
        actions = random_legal(masks, rng)
        obs, rewards, terminated, truncated, info = env.step(actions)
        for i, ref in enumerate(refs):
            if restart[i]:  # NEXT_STEP: this step started the next episode
                ref_obs, _ = ref.reset()
                assert (rewards[i], terminated[i], truncated[i]) == (0.0, False, False)
                np.testing.assert_array_equal(obs[i], ref_obs)
                continue
            np.testing.assert_array_equal(masks[i], ref.action_masks())
            ref_obs, reward, ref_terminated, ref_truncated, ref_info = ref.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, ref_terminated, ref_truncated)
            if not (ref_terminated or ref_truncated):
                np.testing.assert_array_equal(obs[i], ref_obs)
                continue
            episodes += 1
            final = info if mode == AutoresetMode.NEXT_STEP else info["final_info"]
            assert final["_scores"][i] and final["learner_seat"][i] == ref_info["learner_seat"]
            assert final["scores"][i, : SIZES[i]].tolist() == ref_info["scores"]
            assert np.flatnonzero(final["winners"][i]).tolist() == ref_info["winners"]
            if mode == AutoresetMode.NEXT_STEP:
                np.testing.assert_array_equal(obs[i], ref_obs)
                assert info["action_mask"][i].all()  # the next action is ignored
            else:
                np.testing.assert_array_equal(info["final_obs"][i], ref_obs)
                np.testing.assert_array_equal(obs[i], ref.reset()[0])
        restart = (terminated | truncated) if mode == AutoresetMode.NEXT_STEP else restart
    assert episodes >= 8


def test_a_fixed_learner_seat_is_kept_at_every_episode():
    env = GubsVectorEnv(4, [2, 3], learner_seat=1, autoreset_mode="SameStep")
    _, info = env.reset(seed=2)
    ref = SelfPlayEnv(3, learner_seat=1)
    ref_obs, _ = ref.reset(seed=3)
    assert (info["learner_seat"] == 1).all()
    for _ in range(120):
        actions = first_legal(env.action_masks())
        obs, _, _terminated, _truncated, info = env.step(actions)
        ref_obs, _, done, cut, _ = ref.step(int(actions[1]))
        ref_obs = ref.reset()[0] if done or cut else ref_obs
        np.testing.assert_array_equal(obs[1], ref_obs)
        assert (info["learner_seat"] == 1).all() and (env.games.actor == 1).all()


def test_truncated_episodes_end_with_zero():
    env = GubsVectorEnv(3, 3, max_turns=3, autoreset_mode=AutoresetMode.SAME_STEP)
    env.reset(seed=0)
    cuts = 0
    for _ in range(40):
        _, rewards, terminated, truncated, info = env.step(first_legal(env.action_masks()))
        assert not (terminated & truncated).any()
        cuts += int(truncated.sum())
        assert (rewards[truncated] == 0).all()
        if truncated.any():
            assert not info["final_info"]["winners"][truncated].any()
    assert cuts >= 3


# --- seeds ---------------------------------------------------------------------------------------


def test_seeds_fix_the_games_and_an_int_seeds_game_i_with_seed_plus_i():
    a, b = GubsVectorEnv(3, [2, 4]), GubsVectorEnv(3, [2, 4])
    obs_a, _ = a.reset(seed=7)
    obs_b, _ = b.reset(seed=[7, 8, 9])
    np.testing.assert_array_equal(obs_a, obs_b)
    for _ in range(50):
        actions = first_legal(a.action_masks())
        step_a, step_b = a.step(actions), b.step(actions)
        np.testing.assert_array_equal(step_a[0], step_b[0])
        np.testing.assert_array_equal(step_a[1], step_b[1])
    assert a.num_players.tolist() == [2, 4, 2]
    other, _ = GubsVectorEnv(3, [2, 4]).reset(seed=8)
    assert not np.array_equal(other, obs_a)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", [1, 2], [1, 2, -3], [True, 1, 2]])
def test_bad_seeds_are_refused_and_change_nothing(seed):
    env = GubsVectorEnv(3)
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    for old, new in zip(before, snapshot(env), strict=True):
        np.testing.assert_array_equal(old, new)


# --- bad actions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "actions",
    [
        np.array([0, 1]),
        np.array([0, 1, NUM_ACTIONS]),
        np.array([-1, 0, 0]),
        np.array([0.0, 0.0, 0.0]),
        np.array([True, False, True]),
        np.zeros((3, 1), dtype=np.int64),
        "abc",
        None,
        [0, 0],
    ],
)
def test_actions_outside_the_action_space_raise_value_error_and_change_nothing(actions):
    env = GubsVectorEnv(3, [2, 3, 4])
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(ValueError, match="action"):
        env.step(actions)
    for old, new in zip(before, snapshot(env), strict=True):
        np.testing.assert_array_equal(old, new)


def test_a_masked_id_raises_illegal_action_error_naming_the_game_and_changes_nothing():
    env = GubsVectorEnv(3, [2, 3, 4], on_illegal="raise")
    env.reset(seed=0)
    masks = env.action_masks()
    actions = first_legal(masks)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="game 2"):
        env.step(actions)
    for old, new in zip(before, snapshot(env), strict=True):
        np.testing.assert_array_equal(old, new)
    np.testing.assert_array_equal(env.action_masks(), masks)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_a_masked_id_loses_that_episode_only_with_lose(mode):
    env = GubsVectorEnv(3, 2, on_illegal="lose", autoreset_mode=mode)
    obs, _ = env.reset(seed=0)
    masks = env.action_masks()
    actions = first_legal(masks)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    after, rewards, terminated, _, info = env.step(actions)
    assert terminated.tolist() == [False, True, False] and rewards[1] == -1.0
    final = info if mode == AutoresetMode.NEXT_STEP else info["final_info"]
    assert final["illegal_action"].tolist() == [False, True, False]
    seen = after[1] if mode == AutoresetMode.NEXT_STEP else info["final_obs"][1]
    np.testing.assert_array_equal(seen, obs[1])
    after, rewards, terminated, _, _ = env.step(first_legal(env.action_masks()))
    assert rewards[1] == 0.0 and not terminated[1]  # a new episode, waiting on its learner
    assert env.games.actor[1] == env.learner_seat[1]


def test_stepping_before_reset_is_refused():
    with pytest.raises(RuntimeError, match="reset"):
        GubsVectorEnv(2).step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_envs": 0},
        {"num_envs": True},
        {"num_players": 7},
        {"num_players": [2, "3"]},
        {"num_players": []},
        {"opponents": "heuristic"},
        {"opponents": 3},
        {"pick_opponents": "pool"},
        {"learner_seat": 2, "num_players": [2, 3]},
        {"learner_seat": True},
        {"autoreset_mode": AutoresetMode.DISABLED},
        {"autoreset_mode": "next"},
        {"on_illegal": "ignore"},
        {"max_turns": "many"},
        {"mask_dtype": "float32"},
        {"mask_dtype": True},
    ],
)
def test_bad_construction_raises_value_error(kwargs):
    with pytest.raises(ValueError):
        GubsVectorEnv(**{"num_envs": 2, **kwargs})


# --- opponents -----------------------------------------------------------------------------------


class LowestId:
    """A batched opponent that records how it is called."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape == (len(masks), OBS_SIZE) and masks.dtype == np.int8
        assert (masks.sum(axis=1) > 1).all()  # a forced move is played without asking
        self.calls.append(len(masks))
        return np.argmax(masks, axis=1)


def test_a_batched_opponent_is_asked_once_per_round_for_every_game_waiting_on_it():
    opponent = LowestId()
    env = GubsVectorEnv(16, [2, 4, 6], opponents=opponent)
    env.reset(seed=1)
    rounds = []
    real_run = env.loop.run

    def counting_run(*args: Any, **kwargs: Any) -> None:
        rounds.append(len(opponent.calls))
        real_run(*args, **kwargs)

    env.loop.run = counting_run  # type: ignore[method-assign]
    for _ in range(30):
        env.step(first_legal(env.action_masks()))
    assert np.all(np.diff([*rounds, len(opponent.calls)]) <= 1)  # at most one call between two runs
    assert max(opponent.calls) > 4


def test_pick_opponents_chooses_each_episode_and_act_batch_sees_games_and_slots():
    picks: list[tuple[int, int]] = []
    seen: list[tuple[int, int]] = []

    class PerSeat:
        def act_batch(self, observations, masks, games, slots):
            seen.extend(zip(games.tolist(), slots.tolist(), strict=True))
            return np.argmax(masks, axis=1)

    per_seat = PerSeat()

    def pick(game: int, num_players: int) -> list[Any]:
        picks.append((game, num_players))
        return ["random"] + [per_seat] * (num_players - 2)

    env = GubsVectorEnv(3, [2, 3, 5], pick_opponents=pick, autoreset_mode="SameStep")
    env.reset(seed=0)
    assert picks == [(0, 2), (1, 3), (2, 5)]
    ended = 0
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(first_legal(env.action_masks()))
        ended += int((terminated | truncated).sum())
    assert len(picks) == 3 + ended and ended > 0
    assert seen and all(game != 0 and 1 <= slot <= 3 for game, slot in seen)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda obs, masks: np.full(len(masks), -1), "integer ids"),
        (lambda obs, masks: np.zeros(len(masks) + 1, dtype=np.int64), "integer ids"),
        (lambda obs, masks: np.argmin(masks, axis=1), "not legal"),
    ],
)
def test_an_opponent_answering_badly_is_refused_clearly(answer, message):
    env = GubsVectorEnv(4, 3, opponents=answer)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0)
        for _ in range(20):
            env.step(first_legal(env.action_masks()))


def test_pick_opponents_must_give_one_opponent_per_other_seat():
    env = GubsVectorEnv(2, 3, pick_opponents=lambda game, n: ["random"])
    with pytest.raises(ValueError, match="needs 2"):
        env.reset(seed=0)


# --- Gymnasium -----------------------------------------------------------------------------------


def test_spaces_and_metadata_are_gymnasiums():
    env = GubsVectorEnv(5, autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert GubsVectorEnv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.observation_space.shape == (5, OBS_SIZE) and env.single_action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.action_space.contains(first_legal(info["action_mask"]))
    assert info["action_mask"].dtype == bool and info["action_mask"].any(axis=1).all()


@pytest.mark.parametrize("order", ["import gymnasium, gubs_env", "import gubs_env, gymnasium"])
def test_make_vec_builds_it_after_import_gubs_env_in_either_order(order):
    code = (
        f"{order}\n"
        "envs = gymnasium.make_vec('Gubs-v0', num_envs=3, vectorization_mode='vector_entry_point', num_players=4)\n"
        "obs, info = envs.reset(seed=0)\n"
        "print(type(envs.unwrapped).__name__, obs.shape, envs.metadata['autoreset_mode'].value)\n"
        "print(type(gymnasium.make('Gubs-v0').unwrapped).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["GubsVectorEnv (3, 512) NextStep", "SelfPlayEnv"]


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_every_vector_mode_puts_the_mask_in_info_and_never_an_empty_one(mode):
    """The documented loop (a masked random policy reading ``info["action_mask"]``) runs in each of Gymnasium's
    modes, through episode ends and autoresets; the mask is bool and agrees with ``action_masks()``."""
    envs = gym.make_vec("Gubs-v0", num_envs=2, vectorization_mode=mode)
    try:
        rng = np.random.default_rng(0)
        _, info = envs.reset(seed=0)
        ends = 0
        for _ in range(400):
            mask = info["action_mask"]
            assert mask.dtype == np.bool_ and mask.shape == (2, NUM_ACTIONS) and mask.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
            _, _, terminated, truncated, info = envs.step(actions)
            ends += int((terminated | truncated).sum())
        assert ends > 0  # the loop went through episode ends and the resets after them
    finally:
        envs.close()


def test_mask_dtype_int8_gives_the_same_masks_as_int8_in_info_and_action_masks():
    """``mask_dtype="int8"`` (what AgileRL's DQN computes ``1 - mask`` on) changes the dtype and nothing else,
    through episode ends: the NEXT_STEP masks between episodes (every id allowed) included."""
    envs = {dtype: GubsVectorEnv(num_envs=3, num_players=[2, 3], mask_dtype=dtype) for dtype in ("bool", "int8")}
    infos = {dtype: env.reset(seed=4)[1] for dtype, env in envs.items()}
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(300):
        masks = {dtype: info["action_mask"] for dtype, info in infos.items()}
        assert masks["bool"].dtype == np.bool_ and masks["int8"].dtype == np.int8
        assert envs["int8"].action_masks().dtype == np.int8
        np.testing.assert_array_equal(masks["int8"], masks["bool"].astype(np.int8))
        np.testing.assert_array_equal(envs["int8"].action_masks(), masks["int8"])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks["bool"]])
        for dtype, env in envs.items():
            *_, terminated, truncated, infos[dtype] = env.step(actions)
        ends += int((terminated | truncated).sum())
    assert ends > 0
