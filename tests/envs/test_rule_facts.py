"""Rule facts: the unseen cards, the top card's chances and the standing, worked out from observations alone."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.encoding.rule_facts import (
    FACT_LAYOUT,
    FACTS_SIZE,
    POLICY_INPUT_SIZE,
    located,
    policy_input,
    rule_facts,
)
from gubs_env.engine import Game
from gubs_env.engine.cards import COPIES, EVENTS, LETTERS, NUM_KINDS, Kind
from gubs_env.engine.state import GameState, Step
from tests.helpers import table
from tests.viz.test_svg import rich_table

COPIES_ARRAY = np.array(COPIES, dtype=np.float64)


def unseen(st: GameState, viewer: int) -> np.ndarray:
    return np.rint(rule_facts(encode(st, viewer))[FACT_LAYOUT["unseen"]] * COPIES_ARRAY)


def hidden_from(st: GameState, viewer: int) -> np.ndarray:
    """What the viewer has not located, from the whole state: the deck below what it saw, the other hands."""
    counts = np.zeros(NUM_KINDS)
    for kind in st.deck:
        counts[kind] += 1
    for kind in st.seen_top[viewer]:
        counts[kind] -= 1
    if st.pending.step is Step.SCOUT and st.pending.by == viewer:
        for kind in st.pending.cards + st.pending.placed:
            counts[kind] -= 1
    for seat in range(st.num_players):
        if seat != viewer:
            counts += np.array(st.hands[seat])
    return counts


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_unseen_cards_are_exactly_the_deck_below_what_was_seen_and_the_other_hands(players: int) -> None:
    checked = 0
    for seed in range(4):
        game = Game(players, seed=seed)
        chooser = random.Random(seed)
        while not game.is_over:
            for viewer in range(players):
                assert np.array_equal(unseen(game.state, viewer), hidden_from(game.state, viewer))
                checked += 1
            game.apply(chooser.choice(game.legal_actions()))
    assert checked > 500


def test_every_located_card_is_counted_once_on_a_crowded_table() -> None:
    game = rich_table()  # seat 0 has just played its Lure at seat 1: the Lure is in play, out of every zone
    found = located(encode(game.state, 0))
    assert found[Kind.GUB] == 1 + 1 + 2 + 1 + 1 + 2  # free, protected, free, spouted, protected, the Ring's two
    assert found[Kind.ELDER] == 1 and found[Kind.SUD_SPOUT] == 1 and found[Kind.DOUBLE_RING] == 1
    assert found[Kind.TOAD_RIDER] == found[Kind.VELVET_MOTH] == 1
    assert found[Kind.LETTER_G] == found[Kind.LETTER_B] == 1 and found[Kind.LETTER_U] == 0
    assert found[Kind.LURE] == found[Kind.SCOUT] == found[Kind.CYCLONE] == 1
    assert found[Kind.FEATHER] == found[Kind.SPEAR] == 0  # in other hands
    assert hidden_from(game.state, 0).sum() == COPIES_ARRAY.sum() - found.sum()


def test_top_chances_add_up_to_one_and_follow_the_scouts_knowledge() -> None:
    known_tops = 0
    for seed in range(12):
        game = Game(3, seed=seed)
        chooser = random.Random(seed)
        while not game.is_over:
            st = game.state
            for viewer in range(3):
                chance = rule_facts(encode(st, viewer))[FACT_LAYOUT["top_chance"]]
                if st.deck:
                    assert chance.sum() == pytest.approx(1.0, abs=1e-5)
                if st.seen_top[viewer]:
                    known_tops += 1
                    assert chance[st.seen_top[viewer][0]] == 1.0
            game.apply(chooser.choice(game.legal_actions()))
    assert known_tops > 0


def test_events_and_letters_are_all_in_the_deck_when_unseen() -> None:
    """At the deal every Event and Letter is in the deck: each kind's chance is its copies over the deck."""
    st = Game(2, seed=0).state
    chance = rule_facts(encode(st, 0))[FACT_LAYOUT["top_chance"]]
    for kind in EVENTS:
        assert chance[kind] == pytest.approx(COPIES[kind] / len(st.deck), rel=1e-5)
    assert sum(chance[k] for k in LETTERS) == pytest.approx(3 / len(st.deck), rel=1e-5)


def test_the_top_chances_are_calibrated_over_random_games() -> None:
    """Summed over many positions, the chances of the Events and Letters match how often one was on top."""
    predicted = actual = positions = 0.0
    for seed in range(25):
        game = Game(2, seed=seed, letter_placement="uniform")
        chooser = random.Random(seed)
        while not game.is_over:
            st = game.state
            if st.deck:
                chance = rule_facts(encode(st, 0))[FACT_LAYOUT["top_chance"]]
                predicted += sum(chance[k] for k in EVENTS)
                actual += st.deck[-1] in EVENTS
                positions += 1
            game.apply(chooser.choice(game.legal_actions()))
    rate = actual / positions
    assert predicted / positions == pytest.approx(rate, abs=4 * np.sqrt(rate * (1 - rate) / positions) + 0.01)


def standing(game: Game, viewer: int) -> tuple[float, float, float]:
    facts = rule_facts(encode(game.state, viewer))
    return (
        float(facts[FACT_LAYOUT["margin"]][0]),
        float(facts[FACT_LAYOUT["would_win"]][0]),
        float(facts[FACT_LAYOUT["leaders"]][0]),
    )


def test_the_standing_follows_the_tie_breaks() -> None:
    # seats 0 and 1 tie on 2 points; seat 1 has the Elder, so it would win
    game = table(
        num_players=3,
        hands=[{"Lure": 1}, {}, {"Spear": 1}],
        sides=[{"free": 2}, {"free": 1, "elder": True}, {"free": 1}],
    )
    assert standing(game, 0) == pytest.approx((0.0, 0.0, 2 / 6))
    assert standing(game, 1) == pytest.approx((0.0, 1.0, 2 / 6))
    assert standing(game, 2) == pytest.approx((-1 / 14, 0.0, 2 / 6))
    # no Elder among the tied seats: the fewest cards in hand wins
    game = table(num_players=2, hands=[{"Lure": 1}, {"Lure": 1, "Spear": 1}], sides=[{"free": 3}, {"free": 3}])
    assert standing(game, 0)[1] == 1.0 and standing(game, 1)[1] == 0.0
    game = table(num_players=2, hands=[{}, {}], sides=[{"free": 5}, {"free": 1}])
    assert standing(game, 0) == pytest.approx((4 / 14, 1.0, 1 / 6))


def test_shapes_batches_and_bad_input() -> None:
    game = Game(4, seed=2)
    one = encode(game.state, 1)
    batch = np.stack([encode(game.state, seat) for seat in range(4)])
    assert rule_facts(one).shape == (FACTS_SIZE,) and rule_facts(one).dtype == np.float32
    assert rule_facts(batch).shape == (4, FACTS_SIZE)
    assert np.array_equal(rule_facts(batch)[1], rule_facts(one))
    assert policy_input(batch).shape == (4, POLICY_INPUT_SIZE) == (4, OBS_SIZE + FACTS_SIZE)
    assert np.array_equal(policy_input(batch)[:, :OBS_SIZE], batch)
    assert np.isfinite(rule_facts(np.zeros((3, OBS_SIZE), dtype=np.float32))).all()  # an empty table
    with pytest.raises(ValueError, match="observations of 512 values"):
        rule_facts(np.zeros(511))
