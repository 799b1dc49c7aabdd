"""The compiled batch sampler (gubs_env/fast/determinize.py) against the reference one.

Every compiled world is converted back and checked as the reference sampler's worlds are
(tests/engine/test_determinize.py, whose helpers and hand-built tables are reused here); the rows must not
depend on what the viewer cannot see; and on tiny tables whose worlds can be enumerated, both samplers
must fit the exact distribution while a deliberately wrong variant of the compiled one must not.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game, Kind, Step
from gubs_env.engine.cards import CARDS, COPIES, EVENTS, LETTERS, NUM_KINDS
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions import determinize as det
from gubs_env.engine.positions import position
from gubs_env.engine.positions.determinize import Knowledge, knowledge
from gubs_env.engine.positions.determinize import _answer_kinds as det_answer_kinds
from gubs_env.engine.rules import cancel_answers, flop_answers
from gubs_env.engine.state import MAX_DECK_EVENTS
from gubs_env.fast import determinize as fd
from gubs_env.fast.convert import NAMES, row_to_dict, state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.observe import encode as fast_encode
from gubs_env.fast.core.rules import legal_mask
from tests.engine import test_determinize as ref

PLAYER_COUNTS = range(2, 7)
NO_IDS = np.zeros(0, dtype=np.int64)
KIND = {spec.name: int(spec.kind) for spec in CARDS}


def rows_for(k: Knowledge, seed: int, worlds: int) -> tuple[np.ndarray, np.ndarray]:
    rows, rngs = fd.new_rows(worlds)
    fd.sample_rows(k, seed, rows, rngs)
    return rows, rngs


def check_rows(real: Game, viewer: int, seed: int, worlds: int = 3, play_out: bool = False) -> list[Game]:
    """Every property a compiled world must have for ``viewer``, for each of ``worlds`` rows; returns them."""
    rows, rngs = rows_for(knowledge(real.state, viewer), seed, worlds)
    real_obs = encode(real.state, viewer)
    real_rng = real.to_dict()["rng"]
    out = []
    for w in range(worlds):
        world = Game.from_dict(row_to_dict(rows[w], rngs[w]), record_log=False)  # a valid position: raises otherwise
        st = world.state
        assert st.card_counts() == list(COPIES)  # all 70 cards, each in one place
        assert world.information_state(viewer) == real.information_state(viewer)
        assert np.array_equal(encode(st, viewer), real_obs)
        assert world.render(viewer) == real.render(viewer)
        assert world.current_player == real.current_player
        if real.current_player == viewer:
            assert world.legal_actions() == real.legal_actions()
        for hand in st.hands:
            assert not any(hand[k] for k in EVENTS)
        # What another seat's Scout showed it is read off the world (as the reference sampler does); the
        # viewer's own is what it saw.
        for seat, seen in enumerate(st.seen_hand):
            if seat == viewer:
                assert seen == real.state.seen_hand[viewer]
            elif seen is not None:
                assert seen[0] == real.state.seen_hand[seat][0] and seen[1] == st.hands[seen[0]]
        assert world.to_dict()["rng"] != real_rng  # a fresh future, not the real one
        # The row is exactly what the reference writes for that world, so the fast engine reads it as such:
        # its own observation and legal ids on the row are the viewer's real ones.
        back, back_rng = fd.new_rows(1)
        state_to_row(st, back[0], back_rng[0])
        assert np.array_equal(back[0], rows[w]) and np.array_equal(back_rng[0], rngs[w])
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        fast_encode(rows[w], viewer, obs)
        assert np.array_equal(obs, real_obs)
        if real.current_player == viewer:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            legal_mask(rows[w], mask, NO_IDS)
            codec = ActionCodec(real.num_players)
            assert np.array_equal(mask, codec.mask(tuple(real.legal_actions()), viewer))
        if play_out:
            ref.play_random(world, random.Random(seed + w))
            assert world.is_over and world.state.card_counts() == list(COPIES)
        out.append(world)
    return out


# --- compiled worlds look the same to the viewer --------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_compiled_worlds_look_the_same_to_the_viewer(num_players):
    steps: Counter[Step] = Counter()
    for i, game in enumerate(ref.random_positions(num_players, range(3), every=9)):
        steps[game.pending.step] += 1
        viewers = {game.current_player if game.current_player is not None else 0, i % num_players}
        for viewer in viewers:
            check_rows(game, viewer, seed=i, play_out=i % 20 == 0)
    assert steps[Step.PLAY] and steps[Step.DRAW] and steps[Step.OVER]


def test_every_kind_of_decision_is_sampled():
    found: dict[Step, list[Game]] = {step: [] for step in Step}
    for game in ref.built_positions():
        found[game.pending.step].append(game)
    for num_players in PLAYER_COUNTS:
        for game in ref.random_positions(num_players, range(100, 106), every=50):
            if len(found[game.pending.step]) < 10:
                found[game.pending.step].append(game)
    assert all(found[step] for step in Step), [step.name for step in Step if not found[step]]
    for games in found.values():
        for i, game in enumerate(games):
            for viewer in range(game.num_players):
                check_rows(game, viewer, seed=31 * i + viewer, play_out=i < 2 and viewer == 0)


def test_window_seats_hold_their_answers_and_hidden_choices_are_drawn():
    for game in ref.built_positions():
        pend = game.pending
        for viewer in range(game.num_players):
            for world in check_rows(game, viewer, seed=viewer, worlds=20):
                wp = world.state.pending
                if pend.step in (Step.CANCEL, Step.FLOP):
                    for seat in [pend.actor, *wp.queue]:  # the real queue is hidden: each world rebuilds its own
                        hand = world.state.hands[seat]
                        assert cancel_answers(hand, pend.play) if pend.play else flop_answers(hand), (seat, viewer)
                if pend.step is Step.SCOUT and pend.by == viewer:
                    assert (wp.cards, wp.placed) == (pend.cards, pend.placed)
                if pend.step is Step.KEEP:
                    assert wp.marks[viewer] == pend.marks[viewer]
                    assert [m < 0 for m in wp.marks] == [m < 0 for m in pend.marks]
                    for seat, mark in enumerate(wp.marks):
                        assert mark < 0 or world.state.hands[seat][mark] > 0


def test_rows_are_a_function_of_knowledge_seed_and_world():
    game = ref.play_random(Game(4, seed=5), random.Random(5), 40)
    k = knowledge(game.state, 2)
    rows, rngs = rows_for(k, 9, 6)
    again, again_rngs = rows_for(k, 9, 6)
    assert np.array_equal(rows, again) and np.array_equal(rngs, again_rngs)
    few, few_rngs = rows_for(fd.plan_worlds(k), 9, 2)  # world w does not depend on the batch size
    assert np.array_equal(few, rows[:2]) and np.array_equal(few_rngs, rngs[:2])
    assert len({rows[w].tobytes() for w in range(6)}) > 1
    assert len({tuple(r) for r in rngs}) == 6
    other, _ = rows_for(k, 10, 6)
    assert not np.array_equal(other, rows)
    assert np.array_equal(rows_for(k, 2**64 - 1, 1)[0], rows_for(k, 2**64 - 1, 1)[0])


@pytest.mark.parametrize("bad", [-1, 2**64, 1.0, True, "0"])
def test_bad_seed_is_refused(bad):
    k = knowledge(Game(2, seed=0).state, 0)
    with pytest.raises(ValueError):
        fd.sample_rows(k, bad, *fd.new_rows(1))


def test_bad_arrays_are_refused():
    k = knowledge(Game(2, seed=0).state, 0)
    rows, rngs = fd.new_rows(2)
    for bad_rows, bad_rngs in (
        (rows.astype(np.int64), rngs),
        (rows[:, :-1], rngs),
        (rows, rngs[:1]),
        (rows, rngs.astype(np.int64)),
        (np.asfortranarray(rows), rngs),
    ):
        with pytest.raises(ValueError):
            fd.sample_rows(k, 0, bad_rows, bad_rngs)


def test_knowledge_that_admits_no_world_is_refused():
    k = knowledge(Game(3, seed=0).state, 0)
    with pytest.raises(ValueError):
        fd.plan_worlds(dataclasses.replace(k, hand_sizes=(k.hand_sizes[0], 60, k.hand_sizes[2])))
    with pytest.raises(ValueError):
        fd.plan_worlds(dataclasses.replace(k, discard=(20, *k.discard[1:])))


# --- no leak --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_what_the_viewer_cannot_see_does_not_reach_the_rows(num_players):
    rnd = random.Random(num_players)
    tried = 0
    games = [*ref.random_positions(num_players, range(200, 202), every=9), *ref.built_positions()]
    for i, game in enumerate(games):
        for viewer in range(game.num_players):
            rows, rngs = rows_for(knowledge(game.state, viewer), i, 3)
            for variant in ref.hidden_variants(game, viewer, rnd):
                assert Game.from_state(variant).information_state(viewer) == game.information_state(viewer)
                other, other_rngs = rows_for(knowledge(variant, viewer), i, 3)
                assert np.array_equal(other, rows) and np.array_equal(other_rngs, rngs)
                tried += 1
    assert tried > 100


# --- exact distributions --------------------------------------------------------------------------------------


def row_outcome(row: np.ndarray, viewer: int) -> tuple[Any, ...]:
    """The outcome ``ref.world_outcome`` reads from a world, read from its row."""
    n = int(row[L.NUM_PLAYERS])
    zones = [
        [NAMES[kind] for kind in range(NUM_KINDS) for _ in range(int(row[L.HANDS + s * L.KINDS + kind]))]
        for s in range(n)
        if s != viewer
    ]
    deck = [NAMES[int(kind)] for kind in row[L.DECK : L.DECK + int(row[L.DECK_LEN])][::-1]]
    return ref.outcome(zones, deck)


def compiled_sampled(game: Game, viewer: int, count: int, seed: int = 0) -> Counter[Any]:
    rows, _ = rows_for(knowledge(game.state, viewer), seed, count)
    return Counter(row_outcome(row, viewer) for row in rows)


def test_plain_table_is_sampled_uniformly(monkeypatch):
    game = Game.from_dict(
        ref.tiny_table(
            3,
            hands=[{"Spear": 1}, {"Gub": 1}, {"Lure": 1}],
            deck_top=["Gub", "Letter B", "Flash Flood"],
            letters=["Letter G", "Letter U"],
        )
    )
    exact = ref.exact_worlds(game, 0, lambda zones: True)
    assert len(exact) == 18
    assert ref.chi2_fits(compiled_sampled(game, 0, 3000), exact)
    assert ref.chi2_fits(ref.sampled(game, 0, 3000), exact)

    # A wrong plan: the Events thrown in with the cards that may go to a hand.
    def events_anywhere(k: Knowledge) -> fd.WorldPlan:
        plan = real_plan(k)
        rest = np.concatenate([plan.rest, plan.letters, plan.events]).astype(np.int32)
        empty = np.zeros(0, dtype=np.int32)
        return dataclasses.replace(
            plan, rest=rest, letters=empty, events=empty, letter_cumulative=empty.astype(np.int64)
        )

    real_plan = fd.plan_worlds
    monkeypatch.setattr(fd, "plan_worlds", events_anywhere)
    wrong = compiled_sampled(game, 0, 3000)
    assert not ref.chi2_fits(wrong, exact)


def test_window_table_is_sampled_exactly(monkeypatch):
    # Seat 1 is asked, so it holds an answer; seat 2 is only queued, which the viewer (seat 0) can't see.
    game = ref._lure_window()
    exact = ref.exact_worlds(game, 0, lambda zones: ref._holds_answer(zones[0]))
    assert ref.chi2_fits(compiled_sampled(game, 0, 2500), exact)
    assert ref.chi2_fits(ref.sampled(game, 0, 2500), exact)
    # A sampler that ignores the window lets the asked seat go without an answer.
    with monkeypatch.context() as m:
        m.setattr(fd, "window_demands", lambda k: {})
        assert not ref.chi2_fits(compiled_sampled(game, 0, 2500), exact)
    # The earlier semantics, the queued seat made to hold an answer too: valid worlds, the wrong distribution.
    monkeypatch.setattr(fd, "window_demands", lambda k: {1: True, 2: True})
    both = compiled_sampled(game, 0, 2500)
    assert all(ref._holds_answer(list(o[0])) and ref._holds_answer(list(o[1])) for o in both)
    assert not ref.chi2_fits(both, exact)


def test_split_weights_matter():
    # Every split equally likely (a plausible shortcut) gives only valid worlds, but the wrong distribution.
    game = ref._lure_window()
    exact = ref.exact_worlds(game, 0, lambda zones: ref._holds_answer(zones[0]))
    plan = fd.plan_worlds(knowledge(game.state, 0))
    assert plan.demand_seats.tolist() == [1] and plan.other_seats.tolist() == [2]
    assert plan.split_weights.size > 1 and len(set(plan.split_weights.tolist())) > 1
    flat = dataclasses.replace(plan, split_weights=np.ones_like(plan.split_weights))
    rows, _ = fd.new_rows(2500)
    fd.sample_rows(flat, 0, rows, fd.new_rows(2500)[1])
    biased = Counter(row_outcome(row, 0) for row in rows)
    assert all(ref._holds_answer(list(o[0])) for o in biased)
    assert not ref.chi2_fits(biased, exact)


def test_seats_after_the_asked_one_are_not_constrained(monkeypatch):
    # Seat 1 is asked; seat 2 really holds no answer (the real queue is empty), but the viewer can't see
    # that: in its worlds seat 2's hand is uniform given seat 1 holds an answer, and the queue follows it.
    game = Game.from_dict(
        ref.tiny_table(
            3,
            hands=[{"Lure": 1}, {"Feather": 1, "Gub": 1}, {"Gub": 2}],
            deck_top=["Feather", "Letter B", "Flash Flood"],
            letters=["Letter G", "Letter U"],
        )
    )
    game.apply("Lure → seat 1")
    assert game.pending.actor == 1 and game.pending.queue == []
    exact = ref.exact_worlds(game, 0, lambda zones: ref._holds_answer(zones[0]))
    assert 0 < sum(p for o, p in exact.items() if ref._holds_answer(list(o[1]))) < 1
    rows, _ = rows_for(knowledge(game.state, 0), 0, 3000)
    assert ref.chi2_fits(Counter(row_outcome(row, 0) for row in rows), exact)
    assert ref.chi2_fits(ref.sampled(game, 0, 3000), exact)
    queues = Counter()
    for row in rows:
        queue = [int(x) for x in row[L.QUEUE : L.QUEUE + int(row[L.QUEUE_LEN])]]
        assert queue == ([2] if ref._holds_answer(list(row_outcome(row, 0)[1])) else [])
        queues[tuple(queue)] += 1
    assert len(queues) == 2
    # The earlier semantics (a seat after the asked one that is not queued holds no answer) is wrong now.
    monkeypatch.setattr(fd, "window_demands", lambda k: {1: True, 2: False})
    assert not ref.chi2_fits(compiled_sampled(game, 0, 3000), exact)


def test_hidden_keep_is_one_of_the_seats_cards_each_alike():
    # Seat 0 drew Traveling Merchant; seats 0 and 1 kept a card (the viewer, seat 2, does not know which)
    # and seat 2 is to choose. Each hidden keep is one of its seat's cards, every card alike.
    game = Game.from_dict(
        ref.tiny_table(
            3,
            hands=[{"Lure": 1, "Spear": 1}, {"Gub": 2, "Spear": 1}, {"Mushroom": 1, "Gub": 1}],
            deck_top=["Traveling Merchant", "Feather", "Letter B"],
            letters=["Letter G", "Letter U"],
            step="draw",
        )
    )
    game.apply("Draw")
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    assert game.pending.step is Step.KEEP and game.pending.actor == 2
    worlds = ref.exact_worlds(game, 2, lambda zones: True)
    exact: Counter[Any] = Counter()
    for world, p in worlds.items():
        for a in world[0]:
            for b in world[1]:
                exact[(world, KIND[a], KIND[b])] += p / (len(world[0]) * len(world[1]))

    def outcome(row: np.ndarray) -> tuple[Any, ...]:
        return (row_outcome(row, 2), int(row[L.MARKS]), int(row[L.MARKS + 1]))

    rows, _ = rows_for(knowledge(game.state, 2), 0, 3000)
    assert ref.chi2_fits(Counter(outcome(row) for row in rows), exact)
    reference: Counter[Any] = Counter()
    for i in range(3000):
        w = game.resample(2, seed=i)
        reference[(ref.world_outcome(w, 2), *w.state.pending.marks[:2])] += 1
    assert ref.chi2_fits(reference, exact)

    # Wrong: the keep drawn over the kinds in the hand, each kind alike.
    pick = np.random.default_rng(0)
    for row in rows:
        row[L.MARKS + 1] = pick.choice(np.flatnonzero(row[L.HANDS + L.KINDS : L.HANDS + 2 * L.KINDS]))
    assert not ref.chi2_fits(Counter(outcome(row) for row in rows), exact)


def homogeneous(a: Counter[Any], b: Counter[Any]) -> bool:
    """Whether two samples of equal size may come from one distribution (chi-square at the 0.1% level).

    Outcomes seen fewer than 10 times in both samples together are pooled into one cell.
    """
    assert sum(a.values()) == sum(b.values())
    cells = [(a[o], b[o]) for o in set(a) | set(b) if a[o] + b[o] >= 10]
    rare = (sum(a.values()) - sum(x for x, _ in cells), sum(b.values()) - sum(y for _, y in cells))
    if sum(rare):
        cells.append(rare)
    stat = sum((x - y) ** 2 / (x + y) for x, y in cells)
    return stat < ref.chi2_critical(len(cells) - 1)


def window_positions(num_players: int, seeds: range) -> list[Game]:
    """The first open window with someone still queued in each of some random games."""
    found = []
    for seed in seeds:
        for game in ref.random_positions(num_players, range(seed, seed + 1), every=10**9):
            if game.pending.step in (Step.CANCEL, Step.FLOP, Step.CURE) and game.pending.queue:
                found.append(game)
                break
    return found


def test_full_tables_agree_with_the_reference_sampler(monkeypatch):
    # Real mid-game windows at 4 and 5 players, seen by the seat whose play or draw opened them: the two
    # samplers must agree on how many answer cards each other seat holds and where the Letters lie.
    games = [*window_positions(4, range(300, 306))[:2], *window_positions(5, range(300, 306))[:1]]
    assert len(games) == 3
    count = 1500

    def stat(hands: list[list[int]], deck: list[int], viewer: int, kinds: list[int]) -> tuple[Any, ...]:
        answers = tuple(min(2, sum(hand[k] for k in kinds)) for s, hand in enumerate(hands) if s != viewer)
        letters = sum(1 for kind in deck[: len(deck) // 2] if kind in (Kind.LETTER_G, Kind.LETTER_U, Kind.LETTER_B))
        return (*answers, letters)

    def compiled(game: Game, kinds: list[int]) -> Counter[Any]:
        viewer = game.pending.by
        rows, _ = rows_for(knowledge(game.state, viewer), 7, count)
        out: Counter[Any] = Counter()
        for row in rows:
            n = int(row[L.NUM_PLAYERS])
            hands = [[int(x) for x in row[L.HANDS + s * L.KINDS : L.HANDS + (s + 1) * L.KINDS]] for s in range(n)]
            out[stat(hands, [int(x) for x in row[L.DECK : L.DECK + int(row[L.DECK_LEN])]], viewer, kinds)] += 1
        return out

    for game in games:
        viewer = game.pending.by
        kinds = [int(k) for k in det_answer_kinds(knowledge(game.state, viewer))]
        reference: Counter[Any] = Counter()
        for i in range(count):
            st = game.resample(viewer, seed=i).state
            reference[stat(st.hands, st.deck, viewer, kinds)] += 1
        assert homogeneous(compiled(game, kinds), reference), game.pending
    # A compiled sampler that ignores the windows differs from the reference.
    monkeypatch.setattr(fd, "window_demands", lambda k: {})
    game = games[0]
    kinds = [int(k) for k in det_answer_kinds(knowledge(game.state, game.pending.by))]
    reference = Counter()
    for i in range(count):
        st = game.resample(game.pending.by, seed=i).state
        reference[stat(st.hands, st.deck, game.pending.by, kinds)] += 1
    assert not homogeneous(compiled(game, kinds), reference)


# --- the Letter prior -----------------------------------------------------------------------------------------


def compiled_letters(game: Game, count: int) -> Counter[tuple[int, int]]:
    rows, _ = rows_for(knowledge(game.state, 0), 0, count)
    return Counter(ref.letter_outcome([int(x) for x in row[L.DECK : L.DECK + int(row[L.DECK_LEN])]]) for row in rows)


@pytest.mark.parametrize("placement", ["thirds", "uniform"])
def test_letters_follow_the_placement_prior(placement, monkeypatch):
    game = ref.letter_table(placement)
    exact = ref.exact_letter_posterior(placement, 2, 40, known={37, 38, 39})
    assert ref.chi2_fits(compiled_letters(game, 2500), exact)
    reference = Counter(ref.letter_outcome(game.resample(0, seed=i).state.deck) for i in range(2500))
    assert ref.chi2_fits(reference, exact)

    # The other option's posterior is the wrong one for this game.
    other = "uniform" if placement == "thirds" else "thirds"
    real = fd._letter_choices

    def wrong(k: Knowledge, hidden: int, missing: int) -> Any:
        return real(dataclasses.replace(k, options=RuleOptions(letter_placement=other)), hidden, missing)

    monkeypatch.setattr(fd, "_letter_choices", wrong)
    assert not ref.chi2_fits(compiled_letters(game, 2500), exact)


def test_thirds_with_a_known_letter_and_one_drawn():
    # The viewer scouted Letter G on top of a 2-player deck of 40; U was drawn. B lies below, by the posterior.
    d = position(
        2,
        hands=[{"Lure": 2}, {"Spear": 3}],
        sides=[{"free": 1}, {"free": 1}],
        letters=["Letter U"],
        discard={"Gub": 9, "Mushroom": 7, "Toad Rider": 4, "Velvet Moth": 2},
        deck_top=["Letter G", "Lure", "Gub"],
    )
    d["seen"][0]["top"] = ["Letter G", "Lure", "Gub"]
    game = Game.from_dict(d)
    plan = fd.plan_worlds(knowledge(game.state, 0))
    posterior = det.letter_posterior("thirds", 2, 40, 37, (39,), 1)
    assert posterior is not None
    assert np.array_equal(plan.letter_cells, posterior.cells)
    assert np.array_equal(plan.letter_cumulative, posterior.cumulative)
    rows, _ = rows_for(plan, 1, 3000)
    drawn = Counter(int(np.flatnonzero(row[L.DECK : L.DECK + 40] == int(Kind.LETTER_B))[0]) // 4 for row in rows)
    exact: Counter[int] = Counter()
    for cell, share in zip(posterior.cells[:, 0], np.diff(posterior.cumulative, prepend=0.0), strict=True):
        exact[int(cell) // 4] += float(share)
    assert ref.chi2_fits(drawn, {bin_: p for bin_, p in exact.items() if p > 1e-12})


@pytest.mark.parametrize("size", [2, 3, 4, 17, 61])
def test_the_compiled_put_back_is_the_references_to_the_bit(size):
    rng = np.random.default_rng(size)
    cube = rng.random((size + 2,) * 3) * det._increasing(3, size + 2)  # Letters stand at rising heights
    for p in (cube, cube[:size, :size, :size], np.zeros((size,) * 3)):  # a larger array read below size, a view
        assert np.array_equal(fd.compiled_put_back(p, size), det.put_back(p, size))
    fewer = rng.random((size, size)) * det._increasing(2, size)  # fewer Letters: the reference's own step
    assert np.array_equal(fd.compiled_put_back(fewer, size), det.put_back(fewer, size))


@pytest.mark.parametrize("letters", [1, 2, 3])
@pytest.mark.parametrize("hidden", [0, 1, 2, 3, 9, 40])
def test_the_compiled_ways_weights_are_the_references_to_the_bit(letters, hidden):
    rng = np.random.default_rng(hidden * 10 + letters)
    side = max(hidden, 1) + 3
    array = rng.random((side,) * letters) * det._increasing(letters, side)
    for p in (array, array[..., : side - 1]):  # a contiguous array, and a view of another's cells (strided)
        weights, running = fd.compiled_rising_weights(p, hidden)
        expected_weights, expected_running = det.rising_weights(p, hidden)
        assert np.array_equal(weights, expected_weights) and np.array_equal(running, expected_running)


def test_the_compiled_posterior_steps_give_the_references_posterior_to_the_bit():
    history = ((50, det.PUT_BACK), (51, det.PUT_BACK), (44, det.LETTER_DRAWN), (30, det.PUT_BACK))
    for args in ((2, 40, 37, (), 3, None), (4, 25, 25, (), 2, history), (2, 40, 37, (39,), 2, None)):
        reference = det.letter_posterior("thirds", *args, steps=det.REFERENCE_STEPS)
        compiled = det.letter_posterior("thirds", *args, steps=fd.COMPILED_STEPS)
        assert reference is not None and compiled is not None
        assert np.array_equal(compiled.cells, reference.cells)
        assert np.array_equal(compiled.cumulative, reference.cumulative)


def test_the_kernels_draw_the_reference_posterior():
    # The compiled sampler reads the reference's own arrays: each way's cells and the running sum of its probability.
    history = ((50, det.PUT_BACK), (51, det.PUT_BACK), (44, det.LETTER_DRAWN), (30, det.PUT_BACK))
    for args in ((2, 40, 37, (), 3, None), (4, 25, 25, (), 2, history)):
        posterior = det.letter_posterior("thirds", *args)
        assert posterior is not None
        cells, cumulative = fd.letter_ways(*args)
        assert np.array_equal(cells, posterior.cells) and np.array_equal(cumulative, posterior.cumulative)
        assert np.all(np.diff(cumulative) >= 0) and cumulative[-1] == pytest.approx(1, abs=1e-12)
    assert fd.letter_ways(2, 69, 69, (), 3, None)[1].size == 0  # nothing explains it: uniform


def test_letters_put_back_by_the_deal_agree_with_the_reference(monkeypatch):
    # Right after the deal at 6 players the top third's Letter was most likely dealt and put back anywhere
    # (P5): the compiled and reference samplers must agree on where the Letters lie, and a compiled sampler
    # that takes the Letters at uniform places must not.
    game = next(g for g in (Game(6, seed=s, record_log=False) for s in range(100)) if not g.state.letters)
    k = knowledge(game.state, 1)
    count = 3000

    def sixths(deck: list[int]) -> tuple[int, ...]:
        return tuple(sorted(i * 6 // len(deck) for i, kind in enumerate(deck) if kind in LETTERS))

    def compiled() -> Counter[Any]:
        rows, _ = rows_for(k, 3, count)
        return Counter(sixths([int(x) for x in row[L.DECK : L.DECK + int(row[L.DECK_LEN])]]) for row in rows)

    reference = Counter(sixths(det.sample_world(k, i).deck) for i in range(count))
    assert homogeneous(compiled(), reference)
    monkeypatch.setattr(fd, "_letter_choices", lambda *_: fd._NO_WAYS)
    assert not homogeneous(compiled(), reference)


def test_after_put_backs_both_samplers_follow_the_history():
    # A game followed through its put-backs: the compiled worlds and redealt decks agree with the reference's.
    game, _ = next(
        (g, h) for g, h in (tracked_game(3, seed) for seed in range(40)) if sum(w == det.PUT_BACK for _, w in h) >= 3
    )
    k = knowledge(game.state, 0)
    count = 2000

    def highest(deck: list[int]) -> int:
        """How deep the highest Letter lies, by fifths of the deck (5: none in the deck)."""
        cells = [i for i, kind in enumerate(deck) if kind in LETTERS]
        return (len(deck) - 1 - max(cells)) * 5 // len(deck) if cells else 5

    rows, _ = rows_for(k, 5, count)
    compiled = Counter(highest([int(x) for x in row[L.DECK : L.DECK + int(row[L.DECK_LEN])]]) for row in rows)
    reference = Counter(highest(det.sample_world(k, i).deck) for i in range(count))
    assert homogeneous(compiled, reference)
    row, rng = fd.new_rows(1)
    state_to_row(game.state, row[0], rng[0])
    redealt, rngs = fd.new_rows(count)
    fd.redeal_deck_rows(row[0], 0, 9, redealt, rngs)  # the row keeps the history
    compiled = Counter(highest([int(x) for x in r[L.DECK : L.DECK + int(r[L.DECK_LEN])]]) for r in redealt)
    reference = Counter(highest(det.redeal_deck(game.state, 0, i).deck) for i in range(count))
    assert homogeneous(compiled, reference)
    # Without the history the Letters are placed as if nothing was put back: another distribution.
    without = Counter(
        highest(det.sample_world(dataclasses.replace(k, deck_history=None), i).deck) for i in range(count)
    )
    assert not homogeneous(compiled, without)


@pytest.mark.parametrize("num_players", [2, 5])
def test_a_rows_history_is_the_reference_games_as_it_is_played(num_players):
    # (the differential tests compare every action's whole state, this history included: here, its cells read back)
    for seed in range(6):
        game = Game(num_players, seed=seed, record_log=False)
        rnd = random.Random(seed)
        row, rng = fd.new_rows(1)
        while not game.is_over:
            game.apply(rnd.choice(game.legal_actions()))
            state_to_row(game.state, row[0], rng[0])
            assert fd.row_history(row[0]) == tuple(game.deck_history)
        assert game.deck_history


def test_a_rows_history_past_its_bound_becomes_unknown_as_the_references_does():
    from gubs_env.fast.core.rules import insert_into_deck

    game = Game(2, seed=0, record_log=False)
    game.state.deck_history = [(62, det.PUT_BACK)] * L.HISTORY_KINDS  # room to spare: a row keeps it
    row, rng = fd.new_rows(1)
    state_to_row(game.state, row[0], rng[0])
    insert_into_deck(row[0], rng[0], int(Kind.GUB))
    assert fd.row_history(row[0]) == ((62, det.PUT_BACK),) * L.HISTORY_KINDS + ((62, det.PUT_BACK),)
    row[0, L.HISTORY_LEN] = MAX_DECK_EVENTS  # as full as a hand-made history can make it
    insert_into_deck(row[0], rng[0], int(Kind.GUB))
    assert fd.row_history(row[0]) is None


def tracked_game(num_players: int, seed: int, until: int = 20) -> tuple[Game, tuple[det.DeckEvent, ...]]:
    """A random game stopped at ``until`` cards in the deck or a second Letter laid, and its deck's events since."""
    game = Game(num_players, seed=seed, record_log=False)
    rnd = random.Random(seed)
    while len(game.state.letters) < 2 and len(game.state.deck) > until:
        game.apply(rnd.choice(game.legal_actions()))
    assert game.deck_history is not None
    return game, tuple(game.deck_history)


# --- property test --------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=hst.integers(2, 6),
    game_seed=hst.integers(0, 10_000),
    depth=hst.integers(0, 300),
    viewer=hst.integers(0, 5),
    seed=hst.integers(0, 2**64 - 1),
    placement=hst.sampled_from(["thirds", "uniform"]),
)
def test_sample_rows_property(num_players, game_seed, depth, viewer, seed, placement):
    game = ref.play_random(
        Game(num_players, seed=game_seed, letter_placement=placement, record_log=False), random.Random(game_seed), depth
    )
    viewer %= num_players
    check_rows(game, viewer, seed, worlds=3)
    k = knowledge(game.state, viewer)
    rows, rngs = rows_for(k, seed, 3)
    first, first_rngs = rows_for(k, seed, 1)
    assert np.array_equal(first[0], rows[0]) and np.array_equal(first_rngs[0], rngs[0])
