"""The observation vector: layout, value range, per-field contents and no leak of hidden cards."""

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from gubs_env.encoding.observation import FIELDS, LAYOUT, OBS_SIZE, SCOUT_DEPTH, encode, markdown_table, unpack
from gubs_env.engine import Game, Kind
from gubs_env.engine.actions import Use
from gubs_env.engine.cards import COPIES, EVENTS, MAX_PLAYERS, NUM_KINDS
from gubs_env.engine.state import Step
from tests.helpers import act, table

PLAYER_COUNTS = range(2, 7)
DOC = Path(__file__).resolve().parents[2] / "docs" / "observation.md"
REGENERATE = "python -m gubs_env.encoding.observation > docs/observation.md"


def per_kind(counts: dict[Kind, int]) -> np.ndarray:
    out = np.zeros(NUM_KINDS, dtype=np.float32)
    for kind, n in counts.items():
        out[kind] = n / COPIES[kind]
    return out


def seats_vector(values: dict[int, float]) -> np.ndarray:
    out = np.zeros(MAX_PLAYERS, dtype=np.float32)
    for rel, value in values.items():
        out[rel] = value
    return out


def one_hot(size: int, index: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.float32)
    out[index] = 1.0
    return out


def assert_field(fields, name, expected):
    np.testing.assert_allclose(fields[name], np.asarray(expected, dtype=np.float32), rtol=0, atol=1e-6, err_msg=name)


def play_random(game: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        game.apply(rng.choice(game.legal_actions()))


# --- layout ----------------------------------------------------------------------------------------


def test_layout_slices_are_contiguous_and_cover_the_vector():
    assert list(LAYOUT) == [f.name for f in FIELDS]
    start = 0
    for field in FIELDS:
        s = LAYOUT[field.name]
        assert s.start == start and s.stop - s.start == field.size and s.step is None
        start = s.stop
    assert start == OBS_SIZE == sum(f.size for f in FIELDS)


def test_field_names_are_unique_and_sizes_positive():
    names = [f.name for f in FIELDS]
    assert len(set(names)) == len(names)
    assert all(f.size > 0 for f in FIELDS)


def test_unpack_splits_into_every_field():
    vector = np.arange(OBS_SIZE, dtype=np.float32)
    fields = unpack(vector)
    assert list(fields) == [f.name for f in FIELDS]
    assert np.array_equal(np.concatenate(list(fields.values())), vector)


def test_markdown_table_matches_the_committed_docs():
    assert DOC.exists(), f"docs/observation.md is missing; generate it with `{REGENERATE}`"
    assert markdown_table() == DOC.read_text(encoding="utf-8"), (
        "docs/observation.md is out of date with the observation layout. If the change is deliberate, "
        f"regenerate it with `{REGENERATE}` and commit it (trained policies read the old layout)."
    )


def test_the_regenerate_command_prints_the_table_and_nothing_else():
    out = subprocess.run(
        [sys.executable, "-m", "gubs_env.encoding.observation"],
        cwd=DOC.parents[1],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == markdown_table()
    assert out.stderr == ""  # no warning: the package does not import the module before running it


# --- value range -----------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_values_are_float32_in_unit_interval_over_random_games(num_players):
    for seed in range(3):
        game = Game(num_players, seed=seed, record_log=False)
        rng = random.Random(seed)
        while True:
            for viewer in range(num_players):
                obs = encode(game.state, viewer)
                assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
                assert np.all(obs >= 0.0) and np.all(obs <= 1.0), (seed, viewer, unpack(obs))
                fields = unpack(obs)
                assert_field(fields, "seats", [1.0] * num_players + [0.0] * (MAX_PLAYERS - num_players))
                assert fields["to_act"][0] == float(viewer == game.current_player)
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        assert unpack(encode(game.state, 0))["step"][Step.OVER] == 1.0


# --- per-field contents from hand-set positions ----------------------------------------------------


def three_player_table():
    """Viewer seat 1 holds cards; seat 2 has 2 Free Gubs and a spouted Gub; seat 0 the Elder, a Mushroom
    Gub, a Free Gub and the Double Ring."""
    return table(
        num_players=3,
        hands=[{"Spear": 2}, {"Lure": 2, "Feather": 1}, {"Gub": 1}],
        sides=[
            {"free": 1, "elder": True, "protected": {"Mushroom": 1}, "rings": ["Double Ring"]},
            {},
            {"free": 2, "spouted": 1},
        ],
        discard={"Lure": 1, "Spear": 2},
        letters=["Letter G"],
        declined=[False, False, True],
        turn=5,
        deck_top=["Gub"],
    )


def test_public_and_own_fields_from_a_hand_set_table():
    game = three_player_table()
    fields = unpack(encode(game.state, 1))  # relative seats: 0 -> seat 1, 1 -> seat 2, 2 -> seat 0
    assert_field(fields, "hand", per_kind({Kind.LURE: 2, Kind.FEATHER: 1}))
    assert_field(fields, "hand_sizes", seats_vector({0: 3 / 20, 1: 1 / 20, 2: 2 / 20}))
    assert_field(fields, "seats", [1, 1, 1, 0, 0, 0])
    assert_field(fields, "turn_player", one_hot(MAX_PLAYERS, 2))
    assert_field(fields, "declined", seats_vector({1: 1.0}))
    assert_field(fields, "free", seats_vector({1: 2 / 13, 2: 1 / 13}))
    assert_field(fields, "elder", seats_vector({2: 1.0}))
    protected = np.zeros(MAX_PLAYERS * 3, dtype=np.float32)
    protected[2 * 3 + 0] = 1 / 7  # seat 0 (relative 2): one Mushroom of 7
    assert_field(fields, "protected", protected)
    assert_field(fields, "spouted", seats_vector({1: 1 / 4}))
    rings = np.zeros(MAX_PLAYERS * 3, dtype=np.float32)
    rings[2 * 3 + 1] = 1.0  # the Double Ring at relative seat 2
    assert_field(fields, "rings", rings)
    assert_field(fields, "score", seats_vector({0: 0, 1: 2 / 14, 2: 3 / 14}))  # spouted Gubs do not score
    assert_field(fields, "discard", per_kind({Kind.LURE: 1, Kind.SPEAR: 2}))
    assert_field(fields, "letters", [1, 0, 0])
    assert len(game.state.deck) == 49  # 70 - 6 in hands - 4 at seat 2 - 7 at seat 0 - 3 discarded - 1 Letter
    assert_field(fields, "deck_size", [49 / 70])
    assert_field(fields, "turn", [5 / 2000])
    assert_field(fields, "step", one_hot(len(Step), Step.PLAY))
    assert_field(fields, "to_act", [0])
    for name in ("known_top", "scouted_seat", "scouted_hand", "pending_card", "pending_by", "ring_picks", "saved"):
        assert not fields[name].any(), name


def test_own_hand_is_seen_only_by_its_owner():
    game = three_player_table()
    for viewer, hand in enumerate(
        [{Kind.SPEAR: 2}, {Kind.LURE: 2, Kind.FEATHER: 1}, {Kind.GUB: 1}],
    ):
        fields = unpack(encode(game.state, viewer))
        assert_field(fields, "hand", per_kind(hand))


def test_relative_seats_rotate_with_the_viewer():
    game = three_player_table()
    for viewer in range(3):
        fields = unpack(encode(game.state, viewer))
        assert_field(fields, "elder", seats_vector({(0 - viewer) % 3: 1.0}))
        assert_field(fields, "turn_player", one_hot(MAX_PLAYERS, (0 - viewer) % 3))
        assert_field(fields, "spouted", seats_vector({(2 - viewer) % 3: 1 / 4}))


def cancel_window_table():
    game = table(
        num_players=3,
        hands=[{"Super Lure": 1}, {"Blindfold": 1}, {}],
        sides=[{"free": 1}, {"free": 2, "protected": {"Mushroom": 1}}, {"elder": True}],
    )
    act(game, "Super Lure → seat 1")
    assert game.pending.step is Step.CANCEL and game.current_player == 1
    return game


@pytest.mark.parametrize("viewer", [0, 1, 2])
def test_pending_fields_during_a_cancel_window(viewer):
    game = cancel_window_table()
    fields = unpack(encode(game.state, viewer))
    assert_field(fields, "step", one_hot(len(Step), Step.CANCEL))
    assert_field(fields, "to_act", [float(viewer == 1)])
    assert_field(fields, "pending_card", one_hot(NUM_KINDS, Kind.SUPER_LURE))
    assert_field(fields, "pending_as", one_hot(NUM_KINDS, Kind.SUPER_LURE))
    assert_field(fields, "pending_use", one_hot(len(Use), Use.SUPER_LURE))
    assert_field(fields, "pending_by", one_hot(MAX_PLAYERS, (0 - viewer) % 3))
    assert_field(fields, "pending_target", one_hot(MAX_PLAYERS, (1 - viewer) % 3))
    assert not fields["pending_part"].any()
    assert not fields["pending_detail"].any()
    assert_field(fields, "turn_player", one_hot(MAX_PLAYERS, (0 - viewer) % 3))
    # the Super Lure is in transit: out of the hand, not yet discarded
    assert fields["discard"][Kind.SUPER_LURE] == 0
    assert fields["hand_sizes"][(0 - viewer) % 3] == 0


def test_pending_as_differs_for_cricket_song():
    game = table(num_players=2, hands=[{"Cricket Song": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    act(game, "Cricket Song as Lure → seat 1")
    fields = unpack(encode(game.state, 1))
    assert_field(fields, "pending_card", one_hot(NUM_KINDS, Kind.CRICKET_SONG))
    assert_field(fields, "pending_as", one_hot(NUM_KINDS, Kind.LURE))
    assert_field(fields, "pending_use", one_hot(len(Use), Use.LURE))
    assert_field(fields, "pending_by", one_hot(MAX_PLAYERS, 1))
    assert_field(fields, "pending_target", one_hot(MAX_PLAYERS, 0))


def scout_deck_table():
    game = table(
        num_players=3,
        hands=[{"Scout": 1}, {}, {}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
        deck_top=["Lure", "Spear", "Feather", "Gub"],
    )
    act(game, "Scout: look at the deck")
    return game


def test_own_scout_cards_are_seen_only_by_the_scouting_player_while_placing():
    game = scout_deck_table()
    assert game.pending.step is Step.SCOUT
    mine = unpack(encode(game.state, 0))
    assert_field(mine, "scout_cards", per_kind({Kind.LURE: 1, Kind.SPEAR: 1, Kind.FEATHER: 1}))
    assert not mine["scout_placed"].any()
    act(game, "Scout: put Spear next")
    mine = unpack(encode(game.state, 0))
    assert_field(mine, "scout_cards", per_kind({Kind.LURE: 1, Kind.FEATHER: 1}))
    assert_field(mine, "scout_placed", per_kind({Kind.SPEAR: 1}))
    for viewer in (1, 2):
        other = unpack(encode(game.state, viewer))
        assert not other["scout_cards"].any() and not other["scout_placed"].any()
        assert_field(other, "step", one_hot(len(Step), Step.SCOUT))


def test_known_top_after_own_scout_on_the_deck_and_empty_for_others():
    game = scout_deck_table()
    act(game, "Scout: put Spear next", "Scout: put Feather next")
    assert game.pending.step is Step.PLAY
    expected = np.zeros(SCOUT_DEPTH * NUM_KINDS, dtype=np.float32)
    for depth, kind in enumerate([Kind.SPEAR, Kind.FEATHER, Kind.LURE]):
        expected[depth * NUM_KINDS + kind] = 1.0
    assert_field(unpack(encode(game.state, 0)), "known_top", expected)
    for viewer in (1, 2):
        assert not unpack(encode(game.state, viewer))["known_top"].any()


def test_known_top_shifts_when_a_card_is_drawn():
    game = scout_deck_table()
    act(game, "Scout: put Spear next", "Scout: put Feather next", "Go (end turn)")
    act(game, "Draw")  # seat 1 draws the Spear
    expected = np.zeros(SCOUT_DEPTH * NUM_KINDS, dtype=np.float32)
    for depth, kind in enumerate([Kind.FEATHER, Kind.LURE]):
        expected[depth * NUM_KINDS + kind] = 1.0
    assert_field(unpack(encode(game.state, 0)), "known_top", expected)


def test_scouted_seat_and_hand_after_a_scout_on_a_hand():
    game = table(
        num_players=3,
        hands=[{"Gub": 1}, {"Lure": 1, "Feather": 1}, {"Scout": 1}],
        sides=[{"free": 1}, {"free": 1}, {"free": 1}],
        turn_player=2,
    )
    act(game, "Scout → seat 1: look at a hand")
    mine = unpack(encode(game.state, 2))
    assert_field(mine, "scouted_seat", one_hot(MAX_PLAYERS, (1 - 2) % 3))
    assert_field(mine, "scouted_hand", per_kind({Kind.LURE: 1, Kind.FEATHER: 1}))
    for viewer in (0, 1):
        other = unpack(encode(game.state, viewer))
        assert not other["scouted_seat"].any() and not other["scouted_hand"].any()


# --- no information leak ---------------------------------------------------------------------------


def hidden_permutation(game: Game, viewer: int, rng: random.Random):
    """A copy of the state with every card ``viewer`` cannot see shuffled among the places it can be."""
    state = game.state.copy()
    n = state.num_players
    others = [s for s in range(n) if s != viewer]
    known = len(state.seen_top[viewer])
    pend = state.pending
    if pend.step is Step.SCOUT and pend.by == viewer:
        known = max(known, min(3, len(state.deck)))  # the own Scout is looking at the top cards
    split = len(state.deck) - known
    hidden_deck, known_top = state.deck[:split], state.deck[split:]
    # exchange holdable cards between the other hands and the hidden deck, keeping every zone's size
    holdable_slots = [i for i, k in enumerate(hidden_deck) if k not in EVENTS]
    pool = [k for s in others for k, c in enumerate(state.hands[s]) for _ in range(c)]
    pool += [hidden_deck[i] for i in holdable_slots]
    rng.shuffle(pool)
    for s in others:
        size = sum(state.hands[s])
        hand = [0] * NUM_KINDS
        for kind in pool[:size]:
            hand[kind] += 1
        del pool[:size]
        state.hands[s] = hand
    for i, kind in zip(holdable_slots, pool, strict=True):
        hidden_deck[i] = kind
    rng.shuffle(hidden_deck)
    state.deck = hidden_deck + known_top
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 6),
    seed=st.integers(0, 2**20),
    steps=st.integers(0, 250),
    data=st.data(),
)
def test_observation_does_not_depend_on_cards_the_viewer_cannot_see(num_players, seed, steps, data):
    game = Game(num_players, seed=seed, record_log=False)
    play_random(game, random.Random(seed), steps)
    viewer = data.draw(st.integers(0, num_players - 1), label="viewer")
    shuffle_seed = data.draw(st.integers(0, 2**32 - 1), label="shuffle_seed")
    permuted = hidden_permutation(game, viewer, random.Random(shuffle_seed))
    note(f"step={game.pending.step!r} hands before={game.state.hands} after={permuted.hands}")
    assert len(permuted.deck) == len(game.state.deck)
    assert [sum(h) for h in permuted.hands] == [sum(h) for h in game.state.hands]
    assert permuted.card_counts() == game.state.card_counts()
    assert np.array_equal(encode(permuted, viewer), encode(game.state, viewer))


def test_hidden_permutation_really_moves_hidden_cards():
    moved = 0
    for seed in range(20):
        game = Game(4, seed=seed, record_log=False)
        play_random(game, random.Random(seed), 40)
        permuted = hidden_permutation(game, 0, random.Random(seed))
        if permuted.hands != game.state.hands:
            moved += 1
            assert permuted.hands[0] == game.state.hands[0]
            assert np.array_equal(encode(permuted, 0), encode(game.state, 0))
    assert moved >= 10


@settings(max_examples=30, deadline=None)
@given(num_players=st.integers(2, 6), seed=st.integers(0, 2**20), steps=st.integers(0, 150), data=st.data())
def test_changing_the_viewers_own_hand_changes_the_observation(num_players, seed, steps, data):
    game = Game(num_players, seed=seed, record_log=False)
    play_random(game, random.Random(seed), steps)
    viewer = data.draw(st.integers(0, num_players - 1), label="viewer")
    state = game.state.copy()
    hand = state.hands[viewer]
    held = [k for k, c in enumerate(hand) if c]
    if held:  # swap one held card for a card of another kind
        old = data.draw(st.sampled_from(held), label="old")
        new = data.draw(st.sampled_from([k for k in range(NUM_KINDS) if k != old and Kind(k) not in EVENTS]))
        hand[old] -= 1
        hand[new] += 1
    else:  # an empty hand: give it a card
        hand[data.draw(st.sampled_from([k for k in range(NUM_KINDS) if Kind(k) not in EVENTS]))] += 1
    assert not np.array_equal(encode(state, viewer), encode(game.state, viewer))
