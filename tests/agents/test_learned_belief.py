"""The learned belief: a hand model read from the searching seat's observation, and nothing the seat cannot see."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.bots.model_file import ModelFileError, PolicyWeights, save_network
from agents.bots.names import CATALOGUE
from agents.bots.search import SearchAgent, SearchSettings
from agents.bots.search.belief import (
    HANDS,
    HandModel,
    reweight_hands,
    reweight_rows,
    static_weights,
)
from agents.recipes.search_nets.fitting import FitSettings, fit_hands, hand_targets, play_positions
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game, Kind
from gubs_env.engine.cards import COPIES, MAX_PLAYERS, NUM_KINDS
from gubs_env.engine.positions.determinize import knowledge, sample_world
from gubs_env.fast.convert import row_to_game
from gubs_env.fast.core import layout as L
from gubs_env.fast.determinize import new_rows, sample_rows
from tests.engine.test_determinize import built_positions, hidden_variants, random_positions

LEARNED = SearchSettings(worlds=6, top=3, prior=1.0, belief="learned")


def _model_favouring(kind: Kind, strength: float = 6.0) -> HandModel:
    """A hand model that gives ``kind`` a large share of every other seat's hand, whatever it sees."""
    bias = np.zeros((MAX_PLAYERS - 1, NUM_KINDS), np.float32)
    bias[:, int(kind)] = strength
    layers = (
        (np.zeros((4, OBS_SIZE), np.float32), np.zeros(4, np.float32)),
        (np.zeros((bias.size, 4), np.float32), bias.ravel()),
    )
    return HandModel(PolicyWeights(layers, "relu"))


@pytest.mark.parametrize("num_players", [2, 4])
def test_what_the_seat_cannot_see_changes_neither_the_weights_nor_the_worlds(num_players):
    rnd = random.Random(num_players)
    model = HandModel.load(CATALOGUE["hands"].path)
    searcher = SearchAgent(settings=LEARNED)
    tried = moved_hands = 0
    for game in random_positions(num_players, range(300, 302), every=11):
        for seat in range(num_players):
            weights = model.weights_for(encode(game.state, seat), knowledge(game.state, seat), 1.0)
            rows = searcher.world_rows(game, seat, seed=4) if seat == game.current_player else None
            for variant in hidden_variants(game, seat, rnd):
                other = Game.from_state(variant)  # the same public past (the state keeps it): only hidden cards differ
                moved_hands += other.state.hands != game.state.hands
                again = model.weights_for(encode(other.state, seat), knowledge(other.state, seat), 1.0)
                assert np.array_equal(again, weights)
                if rows is not None:
                    other_rows = searcher.world_rows(other, seat, seed=4)
                    assert all(np.array_equal(a, b) for a, b in zip(rows, other_rows, strict=True))
                tried += 1
    assert tried > 30 and moved_hands > 10


def test_learned_worlds_are_valid_and_look_the_same_to_the_seat():
    model = HandModel.load(CATALOGUE["hands"].path)
    for i, game in enumerate(random_positions(3, range(5, 7), every=13)):
        seat = game.current_player
        if seat is None:
            continue
        known = knowledge(game.state, seat)
        weights = model.weights_for(encode(game.state, seat), known, 1.0)
        world = sample_world(known, i)
        reweight_hands(world, known, weights, i)
        again = Game.from_dict(Game.from_state(world).to_dict())  # valid
        assert again.information_state(seat) == game.information_state(seat)


def _twelve_decisions_in():
    """A 2-player game 12 decisions in (the first legal action each time), its seat to act and that seat's knowledge."""
    game = Game(2, seed=3, record_log=False)
    for _ in range(12):
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    return game, seat, knowledge(game.state, seat)


def test_the_other_hands_move_toward_what_the_model_reads():
    game, seat, known = _twelve_decisions_in()
    observation = encode(game.state, seat)
    weights = _model_favouring(Kind.SPEAR).weights_for(observation, known, 1.0)
    assert weights[1 - seat, int(Kind.SPEAR)] > 10 * weights[1 - seat, int(Kind.GUB)]
    assert np.all(weights[seat] == 1.0)  # the own hand is known: nothing to weigh

    def spears(w: np.ndarray) -> int:
        held = 0
        for i in range(200):
            world = sample_world(known, i)
            reweight_hands(world, known, w, i)
            held += world.hands[1 - seat][int(Kind.SPEAR)]
        return held

    assert spears(weights) > 1.5 * spears(static_weights(0.0, 2)) > 0


def test_a_hand_model_file_is_read_as_data_and_refused_as_anything_else(tmp_path):
    layers = [(np.zeros((4, OBS_SIZE)), np.zeros(4)), (np.zeros((HANDS.outputs, 4)), np.zeros(HANDS.outputs))]
    path = save_network(tmp_path / "hands.npz", layers, "relu", HANDS)
    shares = HandModel.load(path).shares(np.zeros(OBS_SIZE, np.float32))
    assert shares.shape == (MAX_PLAYERS - 1, NUM_KINDS) and np.allclose(shares.sum(axis=1), 1)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ModelFileError):
        HandModel.load(tmp_path / "junk.npz")
    with pytest.raises(ModelFileError, match="does not name gubs-hand-weights"):
        HandModel.load(save_network(tmp_path / "v.npz", layers, "relu", HANDS.__class__(
            "gubs-value-weights", OBS_SIZE, HANDS.outputs, "x", "y", output_member="output_count")))  # fmt: skip


def test_the_hand_targets_are_the_other_seats_hands_and_the_fit_beats_the_mean_shares():
    data = play_positions(1500, [2], seed=1, progress=False, keep_every=8)
    targets = hand_targets(data)
    assert targets.shape == (len(data.labels), MAX_PLAYERS - 1, NUM_KINDS)
    assert np.all(targets[:, 1:] == 0) and np.all(targets[:, 0].sum(axis=1) >= 0)
    assert np.all(targets == np.rint(targets))

    _layers, report = fit_hands(
        data, FitSettings(hands_hidden=(64,), epochs=4, learning_rate=3e-3), threads=1, progress=False
    )
    assert report.network_loss < report.constant_loss


def test_the_learned_belief_is_a_spec_setting():
    from agents.bots.registry import make_agent

    bot = make_agent("search:prior=1,belief=learned,worlds=8", seed=0)
    assert bot.settings.belief == "learned"
    with pytest.raises(ValueError, match="belief"):
        SearchSettings.parse("belief=psychic")


def _rows_of(game: Game, seat: int, worlds: int, weights: np.ndarray, seed: int = 3):
    rows, rngs = new_rows(worlds)
    sample_rows(knowledge(game.state, seat), seed, rows, rngs)
    reweight_rows(rows, seat, weights, seed)
    return rows, rngs


@pytest.mark.parametrize("players", [2, 3, 5])
def test_compiled_reweighted_worlds_are_valid_and_look_the_same_to_the_seat(players):
    games = [*random_positions(players, range(40, 42), every=9), *built_positions()]
    checked = 0
    for game in games:
        seat = game.current_player
        if seat is None:
            continue
        weights = static_weights(2.0, game.num_players)
        rows, rngs = _rows_of(game, seat, 4, weights)
        for w in range(4):
            world = row_to_game(rows[w], rngs[w], record_log=False)  # validated: raises on a broken position
            assert world.state.card_counts() == list(COPIES)
            assert world.information_state(seat) == game.information_state(seat)
            assert np.array_equal(encode(world.state, seat), encode(game.state, seat))
            checked += 1
    assert checked > 40


def test_compiled_and_reference_reweighting_draw_the_same_hands():
    """Same moves, other random streams: the other hand's mean make-up agrees within the sampling noise."""
    game, seat, known = _twelve_decisions_in()
    weights = static_weights(1.5, 2)
    worlds = 600
    rows, _rngs = _rows_of(game, seat, worlds, weights)
    compiled = rows[:, L.HANDS + (1 - seat) * NUM_KINDS : L.HANDS + (2 - seat) * NUM_KINDS].astype(float)
    reference = np.zeros((worlds, NUM_KINDS))
    for w in range(worlds):
        world = sample_world(known, w)
        reweight_hands(world, known, weights, w)
        reference[w] = world.hands[1 - seat]
    plain_rows, plain_rngs = new_rows(worlds)
    sample_rows(known, 3, plain_rows, plain_rngs)
    uniform = plain_rows[:, L.HANDS + (1 - seat) * NUM_KINDS : L.HANDS + (2 - seat) * NUM_KINDS].mean(axis=0)
    error = np.sqrt(compiled.var(axis=0) / worlds + reference.var(axis=0) / worlds) + 1e-9
    assert np.all(np.abs(compiled.mean(axis=0) - reference.mean(axis=0)) < 4.5 * error + 0.02)
    assert np.abs(compiled.mean(axis=0) - uniform).sum() > 0.3  # and both moved away from the uniform deal
