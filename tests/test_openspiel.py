"""The OpenSpiel game ``python_gubs``: OpenSpiel's own checks, agreement with the engine, resampling, ISMCTS."""

from __future__ import annotations

import ast
import pickle
import random
import re
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason='OpenSpiel is not installed (pip install -e ".[openspiel]")')

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from gubs_env import Game  # noqa: E402
from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec  # noqa: E402
from gubs_env.encoding.observation import OBS_SIZE, encode  # noqa: E402
from gubs_env.engine.cards import COPIES  # noqa: E402
from gubs_env.openspiel import DEAL, GAME_NAME, EngineRolloutEvaluator, GubsState  # noqa: E402
from tests.snippets import with_budget  # noqa: E402

PLAYERS = [2, 3, 4, 5, 6]


def load(players: int, **params: object) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, {"players": players, **params})


def dealt(game: pyspiel.Game, seed: int) -> GubsState:
    state = game.new_initial_state()
    state.deal(seed)
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_openspiel_random_simulation(players: int) -> None:
    game = load(players, rng_seed=players)
    # serialize=False: OpenSpiel saves the game's generator for a sampled-stochastic game through
    # Game::GetRNGState, which its bridge for Python games does not forward (state.serialize() is tested below)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_game_description() -> None:
    game = load(4)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS == 356
    assert game.max_chance_outcomes() == 1
    assert game.observation_tensor_shape() == [OBS_SIZE]
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_game_length() == 2000 * 1000
    assert game.max_history_length() == game.max_game_length() + 1  # the deal is the one chance node
    assert load(2, max_turns=2**31 - 2).max_history_length() == 2**31 - 1  # still a C++ int
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor
    assert load(2).num_players() == 2  # the default table is 2 players
    assert pyspiel.load_game(GAME_NAME).num_players() == 2


@pytest.mark.parametrize("players", [1, 7, 0, -2])
def test_bad_player_count(players: int) -> None:
    with pytest.raises(ValueError, match="players must be an int from 2 to 6"):
        pyspiel.load_game(GAME_NAME, {"players": players})


def test_parameter_types_are_checked_by_openspiel() -> None:
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game(GAME_NAME, {"players": "3"})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game(GAME_NAME, {"seats": 3})


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="letter_placement"):
        load(2, letter_placement="anywhere")
    with pytest.raises(ValueError, match="max_turns"):
        load(2, max_turns=0)
    with pytest.raises(ValueError, match="rng_seed"):
        load(2, rng_seed=-5)


@pytest.mark.parametrize("players", PLAYERS)
def test_agrees_with_the_engine(players: int) -> None:
    codec, rng = ActionCodec(players), random.Random(players)
    for seed in range(3):
        state = dealt(load(players), seed)
        engine = Game(players, seed=seed, record_log=False)
        while not engine.is_over:
            seat = engine.current_player
            assert seat is not None
            assert state.current_player() == seat
            ids = sorted(codec.ids(engine.legal_actions(), seat))
            assert state.legal_actions() == ids
            assert state.legal_actions_mask() == [int(i in ids) for i in range(NUM_ACTIONS)]
            assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32), encode(engine.state, seat))
            assert state.information_state_string(seat) == engine.information_state(seat)
            assert state.observation_string(seat) == engine.seat_text(seat)
            assert state.returns() == [0.0] * players
            choice = rng.choice(ids)
            state.apply_action(choice)
            engine.apply(codec.action(choice, seat))
        assert state.is_terminal()
        winners = set(engine.winners())
        assert winners
        assert state.returns() == [1.0 if s in winners else -1.0 for s in range(players)]


def test_deals_follow_rng_seed() -> None:
    first, second = load(3, rng_seed=7), load(3, rng_seed=7)
    seeds = []
    for game in (first, second):
        states = [game.new_initial_state() for _ in range(3)]
        for state in states:
            state.apply_action(DEAL)
        seeds.append([s.deal_seed for s in states])
    assert seeds[0] == seeds[1] and len(set(seeds[0])) == 3
    state = first.new_initial_state()
    state.apply_action(DEAL)
    assert str(state) == str(dealt(load(3), state.deal_seed))
    assert state.history() == [DEAL]


def test_truncation_returns_zero() -> None:
    state = dealt(load(2, max_turns=2), 0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.engine.truncated
    assert state.returns() == [0.0, 0.0]


def test_options_reach_the_engine() -> None:
    state = dealt(load(4, letter_placement="uniform", max_turns=50), 3)
    assert state.engine.options.letter_placement == "uniform"
    assert state.engine.options.max_turns == 50
    assert str(state) == str(dealt(load(4, letter_placement="uniform", max_turns=50), 3))


def test_illegal_id_raises_and_changes_nothing() -> None:
    state = dealt(load(2), 0)
    before = str(state)
    with pytest.raises(ValueError):
        state.apply_action(max(state.legal_actions()) + 1)
    assert str(state) == before


def test_clone_and_serialize_keep_the_future() -> None:
    game = load(3)
    state = dealt(game, 11)
    rng = random.Random(0)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    copies = [state.clone(), game.deserialize_state(state.serialize())]
    for _ in range(60):
        if state.is_terminal():
            break
        choice = rng.choice(state.legal_actions())
        for s in (state, *copies):
            s.apply_action(choice)
    for copy in copies:
        assert isinstance(copy, GubsState)
        assert str(copy) == str(state)
        assert copy.history() == state.history()


def test_pickling_a_state_is_refused_by_openspiel() -> None:
    # the limit docs/openspiel.md describes: if OpenSpiel starts forwarding GetRNGState, update the docs
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pickle.dumps(dealt(load(2), 0))


def test_before_the_deal() -> None:
    state = load(2).new_initial_state()
    with pytest.raises(ValueError, match="seed"):
        state.deal(-1)
    assert state.is_chance_node() and state.history() == [] and state.deal_seed is None
    assert state.is_chance_node() and state.chance_outcomes() == [(DEAL, 1.0)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, DEAL) == "Deal"
    assert state.observation_tensor(0) == [0.0] * OBS_SIZE
    with pytest.raises(RuntimeError, match="not dealt"):
        _ = state.engine


def test_observers() -> None:
    from open_spiel.python.observation import make_observation

    game = load(3)
    state = dealt(game, 2)
    seen = make_observation(game)
    seen.set_from(state, 1)
    assert np.array_equal(seen.tensor, encode(state.engine.state, 1))
    assert list(seen.dict)[:2] == ["hand", "hand_sizes"]  # the observation's named fields
    assert seen.string_from(state, 1) == state.engine.seat_text(1)
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert recall.tensor is None and recall.string_from(state, 1) == state.engine.information_state(1)
    public_only = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="private_info=NONE"):
        make_observation(game, public_only)


@pytest.mark.parametrize("players", PLAYERS)
def test_the_game_in_words_and_every_actions_text_round_trip_through_openspiel(players: int) -> None:
    game = load(players, record_log=True)
    state, rnd = game.new_initial_state(), random.Random(players)
    assert state.string_to_action(" deal ") == DEAL
    state.apply_action(DEAL)
    while not state.is_terminal():
        seat = state.current_player()
        text = state.observation_string(seat)
        assert text == state.engine.seat_text(seat) and "What happened since your last decision" in text
        for number, action in enumerate(sorted(state.legal_actions(), key=_engine_order(state)), 1):
            written = state.action_to_string(seat, action)
            assert state.string_to_action(written) == action == state.string_to_action(seat, written.upper())
            assert state.string_to_action(str(number)) == action
        state.apply_action(rnd.choice(state.legal_actions()))
    with pytest.raises(ValueError, match="only the player to act"):
        state.string_to_action("Draw")


def _engine_order(state: GubsState):  # type: ignore[no-untyped-def]
    """Ids in the order the engine (and the observation string) lists the legal moves."""
    seat = state.current_player()
    order = ActionCodec(state.engine.num_players).ids(state.engine.legal_actions(), seat)
    return order.index


def test_string_to_action_refuses_what_names_no_legal_move_in_one_line() -> None:
    state = dealt(load(2), 3)
    for bad in ("Fly away", "9", "", "x" * 1000):
        with pytest.raises(ValueError) as error:
            state.string_to_action(bad)
        assert "\n" not in str(error.value)
    with pytest.raises(pyspiel.SpielError, match="record_log"):  # OpenSpiel checks the parameter's type itself
        load(2, record_log=1)


@pytest.mark.parametrize("players", PLAYERS)
def test_resample_from_infostate(players: int) -> None:
    rng = random.Random(players)
    sampler = pyspiel.UniformProbabilitySampler(players, 0.0, 1.0)
    state = dealt(load(players), players)
    moves = 0
    while not state.is_terminal():
        if moves % 9 == 0:  # every ninth position, from every seat's point of view
            for seat in range(players):
                world = state.resample_from_infostate(seat, sampler)
                assert isinstance(world, GubsState)
                assert world.information_state_string(seat) == state.information_state_string(seat)
                assert world.current_player() == state.current_player()
                if seat == state.current_player():  # the actor knows its own hand, so its choices too
                    assert world.legal_actions() == state.legal_actions()
                assert world.engine.state.card_counts() == list(COPIES)  # all 70 cards, each somewhere
                assert world.history() == state.history()
        state.apply_action(rng.choice(state.legal_actions()))
        moves += 1


def test_resample_hides_what_the_seat_does_not_know() -> None:
    state = dealt(load(4), 5)
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    worlds = {str(state.resample_from_infostate(0, sampler)) for _ in range(8)}
    assert len(worlds) > 1  # the other hands and the deck differ between worlds
    assert state.resample_from_infostate(0).information_state_string(0) == state.information_state_string(0)


def play_with_ismcts(players: int, seed: int) -> list[float]:
    """ISMCTS at every seat, small budgets, reproducible through seeded generators and samplers."""
    game = load(players, rng_seed=seed)
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, EngineRolloutEvaluator(1, seed), uct_c=2.0, max_simulations=3, random_state=rs)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, seat: state.resample_from_infostate(seat, sampler))
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(DEAL)
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state.returns()


def test_engine_rollouts_match_openspiel_rollouts() -> None:
    state = dealt(load(3), 4)
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
    before = str(state)
    ours = EngineRolloutEvaluator(1, seed=0)
    theirs = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    assert ours.prior(state) == theirs.prior(state)
    for value in (ours.evaluate(state), theirs.evaluate(state)):
        assert value.shape == (3,) and set(value) <= {-1.0, 0.0, 1.0}
    assert str(state) == before  # a rollout plays on a copy
    with pytest.raises(ValueError):
        EngineRolloutEvaluator(0)


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_plays_full_games(players: int) -> None:
    returns = play_with_ismcts(players, seed=players)
    assert len(returns) == players
    assert set(returns) <= {-1.0, 0.0, 1.0}


@pytest.mark.filterwarnings("ignore:Agent.s m(ax|in)imum observation space value is -?infinity:UserWarning")
def test_shimmy_wraps_the_game_for_pettingzoo() -> None:
    shimmy = pytest.importorskip("shimmy", reason="Shimmy is not installed (pip install 'shimmy[openspiel]')")
    from pettingzoo.test import api_test

    env = shimmy.OpenSpielCompatibilityV0(game_name=GAME_NAME, config={"players": 3, "rng_seed": 1})
    api_test(env, num_cycles=200)


def test_rl_environment_plays_an_episode() -> None:
    # OpenSpiel's RL environment is what its learning algorithms (DQN, NFSP, PSRO's oracles) step through
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(GAME_NAME, players=3, rng_seed=0)
    assert env.observation_spec()["info_state"] == (OBS_SIZE,)
    assert env.action_spec()["num_actions"] == NUM_ACTIONS
    rng = np.random.RandomState(0)
    step = env.reset()
    while not step.last():
        seat = step.observations["current_player"]
        step = env.step([int(rng.choice(step.observations["legal_actions"][seat]))])
    assert sorted(step.rewards) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0])


def test_the_docs_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "openspiel.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    first, example = blocks[0], text.split("### Example: ISMCTS against random play", 1)[1]
    exec(compile(first, "docs/openspiel.md", "exec"), {})
    returns = ast.literal_eval(capsys.readouterr().out)
    assert len(returns) == 4 and set(returns) <= {-1.0, 0.0, 1.0}
    # the ISMCTS example as written, with the test budget of tests/snippets.py (2 simulations, 1 rollout)
    block = re.findall(r"```python\n(.*?)```", example, flags=re.S)[0]
    assert "max_simulations=50" in block and "n_rollouts=2" in block
    cheap = with_budget(block)
    assert "max_simulations=2" in cheap and "n_rollouts=1" in cheap
    exec(compile(cheap, "docs/openspiel.md", "exec"), {})
    assert re.fullmatch(r"ISMCTS won [0-2] of 2 games against random play\n", capsys.readouterr().out)


def test_the_tour_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "quickstart.md").read_text(encoding="utf-8")
    block = re.findall(r"```python\n(.*?)```", text.split("### OpenSpiel", 1)[1], flags=re.S)[0]
    assert len(block.splitlines()) == 3
    exec(compile(block, "docs/quickstart.md", "exec"), {})
    assert capsys.readouterr().out.startswith("[0, 1] {")  # draw or decline, then seat 0's information state
