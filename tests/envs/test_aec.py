"""The PettingZoo AEC environment: API conformance, agent order, masks, rewards and errors."""

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import gubs_env
from gubs_env import IllegalActionError
from gubs_env.encoding.action_table import NUM_ACTIONS, TEMPLATES, decode, encode
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.actions import Op
from gubs_env.engine.state import Step
from gubs_env.envs.gubs_aec import raw_env
from tests.helpers import table

PLAYER_COUNTS = range(2, 7)


def legal_ids(game) -> set[int]:
    actor = game.current_player
    return {encode(a, actor, game.num_players) for a in game.legal_actions()}


def illegal_in_table_id(env: raw_env) -> int:
    """An in-range id that is not legal now and aims at no missing seat."""
    legal = legal_ids(env.game)
    for action_id, template in enumerate(TEMPLATES):
        if action_id not in legal and (template.seat is None or template.seat < env.num_players):
            return action_id
    raise AssertionError("every id is legal")


def play_out(e, rng: random.Random) -> dict[str, float]:
    """Step an AEC env with random legal ids through agent_iter; the rewards last() gives at the end."""
    final = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            final[agent] = reward
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


# --- PettingZoo's own tests ------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test(num_players):
    api_test(gubs_env.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda: gubs_env.env(num_players=num_players), num_cycles=300)


def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: gubs_env.env(num_players=3, render_mode=render_mode))


# --- metadata and spaces ---------------------------------------------------------------------------


def test_metadata_and_agent_names():
    e = gubs_env.env(num_players=4)
    assert e.metadata["name"] == "gubs_v0"
    assert e.metadata["is_parallelizable"] is False
    assert set(e.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    e.reset(seed=0)
    assert e.agents == e.possible_agents


@pytest.mark.parametrize("num_players", [2, 6])
def test_spaces_are_the_same_for_every_agent_and_table_size(num_players):
    e = raw_env(num_players=num_players)
    for agent in e.possible_agents:
        assert e.action_space(agent).n == NUM_ACTIONS
        space = e.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,)
        assert space["action_mask"].shape == (NUM_ACTIONS,)


# --- rendering -------------------------------------------------------------------------------------


def test_ansi_render_returns_the_table_of_the_acting_player():
    e = gubs_env.env(num_players=3, render_mode="ansi")
    e.reset(seed=1)
    game = e.unwrapped.game
    text = e.render()
    assert isinstance(text, str) and text
    assert text == game.render(game.current_player)


def test_human_render_prints_the_table(capsys):
    e = gubs_env.env(num_players=3, render_mode="human")
    e.reset(seed=1)
    game = e.unwrapped.game
    assert e.render() is None
    assert game.render(game.current_player) in capsys.readouterr().out


def test_render_without_mode_returns_none(capsys):
    e = gubs_env.env(num_players=3)
    e.reset(seed=1)
    assert e.render() is None
    assert capsys.readouterr().out == ""


# --- agent selection follows the engine ------------------------------------------------------------


def test_agent_selection_is_the_player_asked_in_a_cancel_window_not_the_turn_player():
    e = raw_env(num_players=3)
    e.reset(seed=0)
    e.game = table(
        num_players=3,
        hands=[{"Lure": 1}, {"Gub": 1}, {"Feather": 1}],
        sides=[{"free": 1}, {"free": 2}, {"free": 1}],
    )
    e.agent_selection = "player_0"
    assert e.game.current_player == 0
    lure = next(a for a in e.game.legal_actions() if str(a) == "Lure → seat 1")
    e.step(encode(lure, 0, 3))
    assert e.game.pending.step is Step.CANCEL
    assert e.game.state.turn_player == 0
    assert e.agent_selection == "player_2"  # the Feather holder; seat 1 has no answer and is not asked
    mask = e.observe("player_2")["action_mask"]
    texts = {str(decode(i, 2, 3)) for i in np.flatnonzero(mask)}
    assert texts == {"Feather: cancel it", "Pass"}
    for agent in ("player_0", "player_1"):
        assert not e.observe(agent)["action_mask"].any()
    e.step(encode(decode(int(np.flatnonzero(mask)[0]), 2, 3), 2, 3))
    assert e.agent_selection == "player_0"


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_mask_equals_the_engines_legal_set_at_every_step(num_players):
    e = raw_env(num_players=num_players)
    for seed in range(4):
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not e.game.is_over:
            acting = e.possible_agents[e.game.current_player]
            assert e.agent_selection == acting
            legal = legal_ids(e.game)
            for agent in e.agents:
                obs = e.observe(agent)
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                assert np.array_equal(e.action_mask(agent), mask)
                assert e.observation_space(agent).contains(obs)
                if agent == acting:
                    assert set(np.flatnonzero(mask).tolist()) == legal
                else:
                    assert not mask.any()
            e.step(rng.choice(sorted(legal)))


# --- rewards -------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_winners_get_plus_one_others_minus_one_through_last(num_players):
    last_movers = set()
    for seed in range(6):
        e = gubs_env.env(num_players=num_players)
        e.reset(seed=seed)
        rng = random.Random(seed)
        final = {}
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                assert terminated and not truncated
                final[agent] = reward
                e.step(None)
                continue
            assert reward == 0
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if e.unwrapped.game.is_over:  # on the fast engine, a copy of the position after this step
                last_movers.add(agent)
        winners = set(e.unwrapped.game.winners())
        assert winners
        assert final == {a: (1 if i in winners else -1) for i, a in enumerate(e.possible_agents)}
        assert e.agents == []
    assert last_movers  # the game ended on some agent's move; every agent got its reward regardless


def test_every_agent_gets_its_reward_whoever_makes_the_last_move():
    seen_last_movers = set()
    for seed in range(12):
        e = raw_env(num_players=3)
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not e.game.is_over:
            mover = e.agent_selection
            e.step(rng.choice(sorted(legal_ids(e.game))))
        seen_last_movers.add(mover)
        winners = set(e.game.winners())
        expected = {a: (1 if i in winners else -1) for i, a in enumerate(e.possible_agents)}
        got = {}
        for agent in e.agent_iter():
            _obs, reward, terminated, _truncated, _info = e.last()
            assert terminated
            got[agent] = reward
            e.step(None)
        assert got == expected
    assert len(seen_last_movers) >= 2


def test_truncation_gives_truncations_and_zero_reward():
    e = gubs_env.env(num_players=2, max_turns=3)
    e.reset(seed=0)
    final = {}
    rng = random.Random(0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            assert truncated and not terminated
            final[agent] = reward
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.unwrapped.game.truncated
    assert final == {"player_0": 0, "player_1": 0}


def test_truncation_flags_on_raw_env():
    e = raw_env(num_players=3, max_turns=3)
    e.reset(seed=0)
    rng = random.Random(0)
    while not e.game.is_over:
        e.step(rng.choice(sorted(legal_ids(e.game))))
    assert e.truncations == dict.fromkeys(e.possible_agents, True)
    assert e.terminations == dict.fromkeys(e.possible_agents, False)
    assert e.rewards == dict.fromkeys(e.possible_agents, 0)


# --- illegal input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 4])
def test_raw_env_illegal_id_raises_and_changes_nothing(num_players):
    e = raw_env(num_players=num_players)
    e.reset(seed=3)
    rng = random.Random(3)
    for _ in range(30):
        e.step(rng.choice(sorted(legal_ids(e.game))))
    before = e.game.to_dict()
    selected = e.agent_selection
    action_id = illegal_in_table_id(e)
    with pytest.raises(IllegalActionError):
        e.step(action_id)
    assert issubclass(IllegalActionError, ValueError)
    assert e.game.to_dict() == before
    assert e.agent_selection == selected
    assert e.terminations == dict.fromkeys(e.possible_agents, False)


def test_raw_env_id_aiming_at_a_missing_seat_raises_illegal_action_and_changes_nothing():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = e.game.to_dict()
    action_id = next(i for i, t in enumerate(TEMPLATES) if t.op is Op.PLAY and t.seat == 5)
    with pytest.raises(IllegalActionError):
        e.step(action_id)
    assert e.game.to_dict() == before


@pytest.mark.parametrize("action", ["3", 1.5, None, True, [0]])
def test_raw_env_non_int_action_raises_value_error(action):
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = e.game.to_dict()
    with pytest.raises(ValueError):
        e.step(action)
    assert e.game.to_dict() == before


def test_raw_env_accepts_numpy_integers():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    action_id = min(legal_ids(e.game))
    e.step(np.int64(action_id))
    e.step(np.array(min(legal_ids(e.game))))


def test_env_illegal_id_ends_the_game_with_minus_one_for_the_culprit():
    e = gubs_env.env(num_players=3)
    e.reset(seed=0)
    culprit = e.agent_selection
    obs, *_ = e.last()
    action_id = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(action_id)
    assert all(e.terminations.values())
    assert e.rewards[culprit] == -1
    final = {}
    for agent in e.agent_iter():
        _obs, reward, terminated, truncated, _info = e.last()
        assert terminated or truncated
        final[agent] = reward
        e.step(None)
    assert final[culprit] == -1
    assert all(r == 0 for a, r in final.items() if a != culprit)


@pytest.mark.parametrize("action_id", [-1, NUM_ACTIONS])
def test_env_out_of_range_id_raises(action_id):
    e = gubs_env.env(num_players=2)
    e.reset(seed=0)
    before = e.unwrapped.game.to_dict()
    with pytest.raises(AssertionError, match="action space"):
        e.step(action_id)
    assert e.unwrapped.game.to_dict() == before


def test_using_before_reset_raises():
    with pytest.raises(RuntimeError):
        raw_env(num_players=2).observe("player_0")


# --- configuration -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 1},
        {"num_players": 7},
        {"num_players": "2"},
        {"num_players": 2, "no_such_option": 1},
        {"num_players": 2, "letter_placement": "anywhere"},
        {"num_players": 2, "render_mode": "rgb"},
        {"num_players": 2, "render_mode": "text"},
    ],
)
@pytest.mark.parametrize("make", [gubs_env.env, raw_env], ids=["env", "raw_env"])
def test_bad_configuration_raises_value_error(make, kwargs):
    with pytest.raises(ValueError):
        make(**kwargs)


def test_rule_options_reach_the_engine():
    e = raw_env(num_players=2, letter_placement="uniform", max_turns=50)
    e.reset(seed=0)
    assert e.game.options.max_turns == 50
    assert e.game.options.letter_placement == "uniform"


# --- the notebook loop -----------------------------------------------------------------------------


def test_notebook_loop_runs_to_the_end():
    e = gubs_env.env(num_players=4)
    e.reset(seed=0)
    steps = 0
    for agent in e.agent_iter():
        observation, _reward, termination, truncation, _info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(observation["action_mask"])
        e.step(action)
        steps += 1
    assert e.agents == []
    assert steps > 4
    e.close()


def test_same_seed_same_game():
    def trajectory(seed):
        e = gubs_env.env(num_players=3)
        e.reset(seed=seed)
        out = []
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _info = e.last()
            legal = np.flatnonzero(obs["action_mask"])
            action = None if terminated or truncated else int(legal[len(out) % len(legal)])
            out.append((agent, action, reward, obs["observation"].tobytes()))
            e.step(action)
        return out

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


@pytest.mark.parametrize(
    "make_action",
    [
        lambda i: float("inf"),
        lambda i: float(i),
        lambda i: np.float64(i),
        lambda i: np.array([i]),
        lambda i: np.array(float(i)),
        lambda i: np.bool_(False),
        lambda i: 10**5000,
        lambda i: -(10**5000),
        lambda i: np.uint64(2**63),
    ],
    ids=["inf", "float", "float64", "1-d array", "0-d float", "np.bool", "huge", "huge negative", "uint64"],
)
def test_raw_env_refuses_every_non_integer_or_out_of_range_id_and_changes_nothing(make_action):
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before, selected = e.game.to_dict(), e.agent_selection
    with pytest.raises(ValueError) as info:
        e.step(make_action(min(legal_ids(e.game))))
    assert not isinstance(info.value, IllegalActionError)
    assert len(str(info.value)) < 200
    assert e.game.to_dict() == before and e.agent_selection == selected


@pytest.mark.parametrize("num_players", [2, 5])
def test_each_agent_reads_the_game_in_words_and_answers_in_the_notation(num_players):
    env = gubs_env.env(num_players=num_players, record_log=True)
    env.reset(seed=num_players)
    rnd = random.Random(num_players)
    raw = env.unwrapped
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        view = raw.seat_view(agent)
        assert view["your_decision"] and view["events_recorded"] and raw.seat_text(agent).startswith("You are seat")
        ids = set(np.flatnonzero(observation["action_mask"]).tolist())
        moves = view["legal_moves"]
        assert {raw.parse_action(agent, m["text"].lower()) for m in moves} == ids
        number = rnd.randrange(len(moves)) + 1
        action_id = raw.parse_action(agent, str(number))
        assert action_id == raw.parse_action(agent, moves[number - 1]["text"])
        other = next(a for a in env.agents if a != agent)
        with pytest.raises(ValueError, match="does not act now"):
            raw.parse_action(other, "1")
        env.step(action_id)


def test_an_env_without_its_log_says_so_and_the_fast_engine_keeps_none():
    env = gubs_env.env(num_players=2)
    env.reset(seed=0)
    assert env.unwrapped.seat_view("player_1")["events_recorded"] is False
    with pytest.raises(ValueError, match="record_log"):
        raw_env(2, engine="fast", record_log=True)
