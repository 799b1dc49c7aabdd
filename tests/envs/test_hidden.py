"""What the observation hides (gubs_env.encoding.hidden): layout, range, and each field against the position."""

import random

import numpy as np
import pytest

from gubs_env.encoding.hidden import HIDDEN_FIELDS, HIDDEN_LAYOUT, HIDDEN_SIZE, TOP_CARDS, encode_hidden
from gubs_env.engine import Game, Kind
from gubs_env.engine.cards import COPIES, DECK_SIZE, LETTERS, MAX_PLAYERS, NUM_KINDS
from tests.envs.test_observation import play_random


def fields(vector: np.ndarray) -> dict[str, np.ndarray]:
    return {name: vector[s] for name, s in HIDDEN_LAYOUT.items()}


def test_the_layout_is_contiguous_and_covers_the_vector():
    start = 0
    for field in HIDDEN_FIELDS:
        s = HIDDEN_LAYOUT[field.name]
        assert s.start == start and s.stop - s.start == field.size > 0
        start = s.stop
    assert start == HIDDEN_SIZE


@pytest.mark.parametrize("players", range(2, 7))
def test_each_field_is_the_position_seen_from_the_viewer(players):
    rng = random.Random(players)
    game = Game(players, seed=players)
    play_random(game, rng, 40)
    st = game.state
    copies = np.array(COPIES, np.float32)
    for viewer in range(players):
        got = fields(encode_hidden(st, viewer))
        hands = got["hands"].reshape(MAX_PLAYERS - 1, NUM_KINDS)
        for rel in range(1, MAX_PLAYERS):
            expected = np.array(st.hands[(viewer + rel) % players], np.float32) / copies if rel < players else 0
            np.testing.assert_allclose(hands[rel - 1], expected, rtol=0, atol=1e-6)
        top = got["top"].reshape(TOP_CARDS, NUM_KINDS)
        assert [int(np.argmax(row)) for row in top[: len(st.deck)]] == st.deck[::-1][:TOP_CARDS]
        assert top.sum() == min(TOP_CARDS, len(st.deck))
        assert round(float((got["deck"] * copies).sum())) == len(st.deck)
        for i, letter in enumerate(LETTERS):
            depth = round(float(got["letter_depth"][i]) * DECK_SIZE)
            assert (depth > 0) == (letter in st.deck)
            if depth:
                assert st.deck[-depth] == letter and letter not in st.deck[len(st.deck) - depth + 1 :]
        assert not got["scout_top"][players:].any() and not got["scout_seat"][players * MAX_PLAYERS :].any()


def test_scout_knowledge_is_each_seats_own():
    game = Game(3, seed=1)
    st = game.state
    st.seen_top[2] = [int(Kind.GUB), int(Kind.LURE)]
    st.seen_hand[2] = (0, [0] * NUM_KINDS)
    got = fields(encode_hidden(st, 1))  # seat 2 is relative seat 1 of viewer 1, seat 0 its relative seat 2
    assert got["scout_top"][1] == pytest.approx(2 / 3) and not got["scout_top"][[0, 2]].any()
    assert got["scout_seat"].reshape(MAX_PLAYERS, MAX_PLAYERS)[1, 2] == 1 and got["scout_seat"].sum() == 1


@pytest.mark.parametrize("seed", range(8))
def test_every_value_lies_in_0_to_1(seed):
    rng = random.Random(seed)
    players = 2 + seed % 5
    game = Game(players, seed=seed)
    while not game.is_over:
        vector = encode_hidden(game.state, game.current_player)
        assert vector.dtype == np.float32 and vector.shape == (HIDDEN_SIZE,)
        assert vector.min() >= 0 and vector.max() <= 1
        play_random(game, rng, 7)
