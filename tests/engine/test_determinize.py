"""Determinization (docs/engine.md, "Determinization"): sampled worlds, the information state, no leaks.

The exact-distribution tests enumerate every world of a tiny hand-built table (or every outcome of
the deal's Letter placement) and compare the sampler against it with a chi-square test; each also
shows that a deliberately wrong sampler fails the same test.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from gubs_env.encoding.observation import encode
from gubs_env.engine import Game, Kind, Step
from gubs_env.engine.cards import CARDS, COPIES, EVENTS, LETTERS
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions import determinize as det
from gubs_env.engine.positions import position
from gubs_env.engine.positions.serialize import state_from_dict, state_to_dict
from gubs_env.engine.rules import cancel_answers, cure_answers, flop_answers
from gubs_env.engine.state import GameState

PLAYER_COUNTS = range(2, 7)
NAME = {spec.kind: spec.name for spec in CARDS}
KIND = {spec.name: spec.kind for spec in CARDS}


# --- helpers -------------------------------------------------------------------------------------


def play_random(game: Game, rnd: random.Random, steps: int | None = None) -> Game:
    """Random legal actions until the end, or for ``steps`` actions."""
    done = 0
    while not game.is_over and (steps is None or done < steps):
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])
        done += 1
    return game


def random_positions(num_players: int, seeds: range, every: int) -> Iterator[Game]:
    """Every ``every``-th position of random games, and every position that is not a draw or play step."""
    for seed in seeds:
        game = Game(num_players, seed=seed, record_log=False)
        rnd = random.Random(seed)
        count = 0
        while True:
            if game.pending.step not in (Step.DRAW, Step.PLAY) or count % every == 0:
                yield game.clone()
            if game.is_over:
                break
            play_random(game, rnd, 1)
            count += 1


def check_world(real: Game, viewer: int, seed: int, play_out: bool = False) -> Game:
    """Every property a sampled world must have for ``viewer``; returns the world."""
    world = real.resample(viewer, seed=seed)
    assert world.state.card_counts() == list(COPIES)  # all 70 cards, each in one place
    Game.from_dict(world.to_dict())  # a valid position: raises otherwise
    assert np.array_equal(encode(world.state, viewer), encode(real.state, viewer))
    assert world.render(viewer) == real.render(viewer)
    assert world.information_state(viewer) == real.information_state(viewer)
    assert world.current_player == real.current_player
    if real.current_player == viewer:
        assert world.legal_actions() == real.legal_actions()
    for hand in world.state.hands:
        assert not any(hand[k] for k in EVENTS)
    if play_out:
        play_random(world, random.Random(seed))
        assert world.is_over
        assert world.state.card_counts() == list(COPIES)
    return world


def built_positions() -> Iterator[Game]:
    """Hand-built tables through the rare decisions: discard, flop, cure, both Scouts, keep, Blindfold."""
    game = Game.from_dict(position(2, hands=[{"Gub": 5, "Lure": 4}, {"Spear": 1}], sides=[{"free": 1}] * 2))
    yield game.clone()
    game.apply("Go (end turn)")
    assert game.pending.step is Step.DISCARD
    yield game

    game = Game.from_dict(
        position(
            3,
            hands=[{"Gub": 1, "Feather": 1}, {"Age-Old Cure": 1, "Lure": 1}, {"Cricket Song": 1, "Gub": 2}],
            deck_top=["Gargok Plague"],
            step="draw",
        )
    )
    game.apply("Draw")
    assert game.pending.step is Step.FLOP
    yield game.clone()
    game.apply("Pass")
    assert game.pending.step is Step.CURE
    yield game.clone()
    game.apply(game.legal_actions()[-1])  # seat 1 keeps its hand
    assert game.pending.step is Step.CURE
    yield game

    for scout in ("Scout: look at the deck", "Scout → seat 1: look at a hand"):
        game = Game.from_dict(
            position(3, hands=[{"Scout": 1, "Gub": 1}, {"Gub": 2, "Lure": 1}, {"Lure": 2}], deck_top=["Lure", "Gub"])
        )
        game.apply(scout)
        yield game.clone()
        while game.pending.step is Step.SCOUT:
            game.apply(game.legal_actions()[0])
            yield game.clone()
        game.apply("Go (end turn)")
        yield game

    game = Game.from_dict(
        position(
            3,
            hands=[{"Gub": 1, "Velvet Moth": 1}, {"Lure": 1, "Spear": 1, "Gub": 1}, {"Mushroom": 2}],
            deck_top=["Traveling Merchant"],
            step="draw",
        )
    )
    game.apply("Draw")
    assert game.pending.step is Step.KEEP
    yield game.clone()
    game.apply(game.legal_actions()[0])
    yield game.clone()
    game.apply(game.legal_actions()[-1])
    assert game.pending.step is Step.KEEP and game.pending.actor == 2
    yield game

    game = Game.from_dict(
        position(
            4,
            hands=[{"Lure": 1}, {"Gub": 1}, {"Blindfold": 1, "Gub": 1}, {"Feather": 1}],
            sides=[{"free": 1}, {"free": 2}, {}, {}],
        )
    )
    game.apply("Lure → seat 1")
    assert game.pending.step is Step.CANCEL and game.pending.queue == [3]
    yield game

    # A second look at the deck (Cricket Song as Scout) while the first one's knowledge still holds.
    game = Game.from_dict(
        position(
            3,
            hands=[{"Scout": 1, "Cricket Song": 1}, {"Gub": 1}, {"Gub": 1}],
            deck_top=["Lure", "Letter G", "Feather", "Spear"],
        )
    )
    game.apply("Scout: look at the deck")
    game.apply("Scout: put Feather next")
    game.apply("Scout: put Lure next")
    game.apply("Cricket Song as Scout: look at the deck")
    assert game.pending.step is Step.SCOUT and game.state.seen_top[0]
    yield game.clone()
    game.apply(game.legal_actions()[-1])
    yield game


# --- sampled worlds look the same to the viewer ------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_sampled_worlds_look_the_same_to_the_viewer(num_players):
    steps: Counter[Step] = Counter()
    for i, game in enumerate(random_positions(num_players, range(4), every=7)):
        steps[game.pending.step] += 1
        viewers = {game.current_player if game.current_player is not None else 0, i % num_players}
        for viewer in viewers:
            check_world(game, viewer, seed=i, play_out=i % 15 == 0)
    assert steps[Step.PLAY] and steps[Step.DRAW] and steps[Step.OVER]


def test_every_kind_of_decision_is_sampled():
    found: dict[Step, list[Game]] = {step: [] for step in Step}
    for game in built_positions():
        found[game.pending.step].append(game)
    for num_players in PLAYER_COUNTS:
        for game in random_positions(num_players, range(100, 106), every=50):
            if len(found[game.pending.step]) < 12:
                found[game.pending.step].append(game)
    assert all(found[step] for step in Step), [step.name for step in Step if not found[step]]
    for games in found.values():
        for i, game in enumerate(games):
            for viewer in range(game.num_players):
                check_world(game, viewer, seed=31 * i + viewer, play_out=i < 2 and viewer == 0)


def _answers(hand: list[int], play: Any) -> bool:
    return bool(cancel_answers(hand, play) if play is not None else flop_answers(hand))


def test_window_seats_hold_their_answers():
    queues = set()
    for game in built_positions():
        pend = game.pending
        if pend.step not in (Step.CANCEL, Step.FLOP):
            continue
        for viewer in range(game.num_players):
            for seed in range(40):
                world = game.resample(viewer, seed=seed).state
                assert world.pending.actor == pend.actor
                for seat in [pend.actor, *world.pending.queue]:
                    assert _answers(world.hands[seat], pend.play), (seat, viewer)
                queues.add(tuple(world.pending.queue))
    assert len(queues) > 1  # the queue is rebuilt from each world's hands, not copied


def test_own_scout_and_keep_stay_as_they_are():
    for game in built_positions():
        pend = game.pending
        for viewer in range(game.num_players):
            world = game.resample(viewer, seed=viewer).state.pending
            if pend.step is Step.SCOUT and pend.by == viewer:
                assert (world.cards, world.placed) == (pend.cards, pend.placed)
            if pend.step is Step.KEEP:
                assert world.marks[viewer] == pend.marks[viewer]
                assert [m < 0 for m in world.marks] == [m < 0 for m in pend.marks]


def test_known_deck_top_is_kept_and_the_future_is_fresh():
    game = Game.from_dict(
        position(3, hands=[{"Scout": 1}, {"Gub": 1}, {"Gub": 1}], deck_top=["Lure", "Letter G", "Feather"])
    )
    game.apply("Scout: look at the deck")
    game.apply("Scout: put Letter G next")
    game.apply("Scout: put Feather next")
    assert game.state.seen_top[0] == [int(Kind.LETTER_G), int(Kind.FEATHER), int(Kind.LURE)]
    for seed in range(30):
        world = game.resample(0, seed=seed)
        assert world.to_dict()["deck"][:3] == ["Letter G", "Feather", "Lure"]
        assert world.to_dict()["rng"] != game.to_dict()["rng"]
    other = {tuple(game.resample(1, seed=s).to_dict()["deck"][:3]) for s in range(30)}
    assert len(other) > 1  # seat 1 did not see the top


def test_resample_is_a_function_of_the_seed():
    game = play_random(Game(4, seed=5), random.Random(5), 40)
    assert game.resample(2, seed=9).to_dict() == game.resample(2, seed=9).to_dict()
    worlds = {str(game.resample(2, seed=s).to_dict()["hands"]) for s in range(10)}
    assert len(worlds) > 1
    game.resample(2)  # fresh entropy works too


@pytest.mark.parametrize("bad", [-1, 4, 1.0, True, "0"])
def test_bad_viewer_is_refused(bad):
    game = Game(4, seed=0)
    with pytest.raises(ValueError):
        game.resample(bad)
    with pytest.raises(ValueError):
        game.information_state(bad)


def test_bad_seed_is_refused():
    with pytest.raises(ValueError):
        Game(2, seed=0).resample(0, seed=-3)


# --- no leak -------------------------------------------------------------------------------------


def _valid(st: GameState) -> GameState | None:
    try:
        return state_from_dict(state_to_dict(st))
    except ValueError:
        return None


def requeue(st: GameState) -> GameState:
    """Rebuild the queue of an open window or keep round from the hands, as the engine builds it."""
    pend = st.pending
    n = st.num_players
    tests = {
        Step.CANCEL: lambda h: cancel_answers(h, pend.play),
        Step.FLOP: flop_answers,
        Step.CURE: cure_answers,
        Step.KEEP: lambda h: sum(h) >= 2,
    }
    if pend.step in tests:
        later = ((pend.by + i) % n for i in range((pend.actor - pend.by) % n + 1, n))
        pend.queue = [seat for seat in later if tests[pend.step](st.hands[seat])]
    return st


def hidden_variants(game: Game, viewer: int, rnd: random.Random) -> Iterator[GameState]:
    """Valid states that differ from ``game`` only in what ``viewer`` can't see."""
    st = game.state
    pend = st.pending
    keep = max(len(t) for t in st.seen_top)
    if pend.step is Step.SCOUT:
        keep = max(keep, len(pend.cards) + len(pend.placed))
    other = st.copy()
    bottom = other.deck[: len(other.deck) - keep]
    rnd.shuffle(bottom)
    other.deck[: len(bottom)] = bottom
    other.rng = np.random.default_rng(rnd.randrange(10**6))  # the real future is not for the viewer
    yield other
    seats = [s for s in range(st.num_players) if s != viewer and any(st.hands[s])]
    pairs = list(itertools.permutations(seats, 2))
    for a, b in rnd.sample(pairs, min(2, len(pairs))):
        other = st.copy()
        ka = rnd.choice([k for k, n in enumerate(other.hands[a]) if n])
        kb = rnd.choice([k for k, n in enumerate(other.hands[b]) if n])
        other.hands[a][ka] -= 1
        other.hands[b][ka] += 1
        other.hands[b][kb] -= 1
        other.hands[a][kb] += 1
        for seen in other.seen_hand:
            if seen is not None and seen[0] != viewer and other.seen_hand[viewer] is not seen:
                seen[1][:] = other.hands[seen[0]]
        valid = _valid(requeue(other))
        if valid is not None:
            yield valid
    if any(bottom) and any(st.hands[s] for s in seats):
        # A hidden card between an opponent's hand and the hidden deck (Events stay in the deck).
        other = st.copy()
        s = rnd.choice([s for s in seats if any(st.hands[s])])
        k = rnd.choice([k for k, n in enumerate(other.hands[s]) if n])
        for i, d in enumerate(other.deck[: len(other.deck) - keep]):
            if d not in EVENTS and d != k:
                other.hands[s][k] -= 1
                other.hands[s][d] += 1
                other.deck[i] = k
                valid = _valid(requeue(other))
                if valid is not None:
                    yield valid
                break


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_what_the_viewer_cannot_see_does_not_reach_the_world(num_players):
    rnd = random.Random(num_players)
    tried = 0
    games = [*random_positions(num_players, range(200, 202), every=9), *built_positions()]
    for i, game in enumerate(games):
        for viewer in range(game.num_players):
            key = game.information_state(viewer)
            world = game.resample(viewer, seed=i).to_dict()
            for variant in hidden_variants(game, viewer, rnd):
                other = Game.from_state(variant)  # the same public past (the state keeps it): only hidden cards differ
                assert other.information_state(viewer) == key
                assert other.resample(viewer, seed=i).to_dict() == world
                tried += 1
    assert tried > 100


def test_hidden_keep_choice_and_other_scout_do_not_reach_the_world():
    tried = 0
    for game in built_positions():
        pend = game.pending
        if pend.step is Step.KEEP and pend.marks[0] >= 0:
            other = game.clone()
            other.state.pending.marks[0] = next(
                k for k, n in enumerate(other.state.hands[0]) if n and k != pend.marks[0]
            )
            for viewer in (1, 2):
                assert other.information_state(viewer) == game.information_state(viewer)
                assert other.resample(viewer, seed=3).to_dict() == game.resample(viewer, seed=3).to_dict()
            assert other.information_state(0) != game.information_state(0)
            tried += 1
        if pend.step is Step.SCOUT and pend.by == 0:
            # The scouting seat's block in another order, with another card of it placed first.
            other_state = game.clone().state
            block = other_state.deck[-3:]
            other_state.deck[-3:] = block[::-1]
            other_state.pending.cards = sorted(other_state.pending.cards + other_state.pending.placed)
            other_state.pending.placed = [other_state.pending.cards.pop()] if pend.placed else []
            variant = _valid(other_state)
            if variant is None:
                continue
            other = Game.from_state(variant)
            for viewer in (1, 2):
                assert other.information_state(viewer) == game.information_state(viewer)
                assert other.resample(viewer, seed=3).to_dict() == game.resample(viewer, seed=3).to_dict()
            tried += 1
    assert tried >= 3


def test_what_the_viewer_sees_changes_the_key():
    game = play_random(Game(3, seed=11), random.Random(11), 30)
    st = game.state
    viewer = 0
    key = game.information_state(viewer)

    def changed(edit: Callable[[GameState], Any]) -> str:
        other = st.copy()
        edit(other)
        return det.information_state(other, viewer)

    def swap_with_opponent(s: GameState) -> None:
        mine = next(k for k, n in enumerate(s.hands[viewer]) if n)
        theirs = next(k for k, n in enumerate(s.hands[1]) if n and k != mine)
        s.hands[viewer][mine] -= 1
        s.hands[viewer][theirs] += 1
        s.hands[1][theirs] -= 1
        s.hands[1][mine] += 1

    def deck_to_discard(s: GameState) -> None:
        s.discard[Kind.GUB] += 1
        s.deck.remove(Kind.GUB)

    def free_gub(s: GameState) -> None:
        s.sides[2].free += 1
        s.deck.remove(Kind.GUB)

    def opponent_hand_size(s: GameState) -> None:
        s.hands[1][Kind.GUB] += 1
        s.deck.remove(Kind.GUB)

    def scouted_top(s: GameState) -> None:
        s.seen_top[viewer] = s.deck[-1:-3:-1]

    def someone_else_scouted(s: GameState) -> None:
        s.seen_top[2] = s.deck[-1:-2:-1]

    def declined(s: GameState) -> None:
        s.declined[1] = not s.declined[1]

    for edit in (swap_with_opponent, deck_to_discard, free_gub, opponent_hand_size, scouted_top, declined):
        assert changed(edit) != key, edit.__name__
    assert changed(someone_else_scouted) != key  # who scouted how far is public, not what they saw
    assert changed(lambda s: s.seen_top.__setitem__(2, s.deck[-1:-2:-1])) == changed(
        lambda s: s.seen_top.__setitem__(2, [int(Kind.ELDER)])
    )


def test_every_fact_of_the_record_is_in_the_key():
    # The world is built from the record alone, so a key that dropped a field of the record would let
    # two different records (two different world distributions) share one information state.
    game = play_random(Game(3, seed=2), random.Random(2), 25)
    k = det.knowledge(game.state, 1)
    lure = next(a for a in Game.from_dict(position(hands=[{"Lure": 1}, {}], sides=[{}, {"free": 1}])).legal_actions())

    special = {
        "sides": ((k.sides[0][0] + 1, *k.sides[0][1:]), *k.sides[1:]),
        "seen_hand": (0, (1,) * 32) if k.seen_hand is None else (k.seen_hand[0], (9,) * 32),
        "play": lure if k.play is None else None,
        "event": int(Kind.LETTER_G) if k.event is None else None,
        "scout_cards": (0,) if k.scout_cards is None else None,
        "scout_placed": (0,) if k.scout_placed is None else None,
        "deck_history": ((40, det.PUT_BACK),) if k.deck_history is None else None,
    }

    def other(value: Any) -> Any:
        if isinstance(value, bool):
            return not value
        if isinstance(value, Step):
            return Step((value + 1) % len(Step))
        if isinstance(value, int):
            return value + 1
        if isinstance(value, RuleOptions):
            return RuleOptions("uniform" if value.letter_placement == "thirds" else "thirds", value.max_turns)
        assert isinstance(value, tuple)
        return (*value, 0)

    for f in dataclasses.fields(det.Knowledge):
        value = special[f.name] if f.name in special else other(getattr(k, f.name))
        changed = dataclasses.replace(k, **{f.name: value})
        assert changed.key() != k.key(), f.name


# --- exact distributions -------------------------------------------------------------------------

Z_999 = 3.0902
"""The standard normal quantile for 0.999: chi-square tests reject at the 0.1% level."""


def chi2_critical(dof: int) -> float:
    """The 0.999 quantile of chi-square with ``dof`` degrees of freedom (Wilson-Hilferty)."""
    h = 2 / (9 * dof)
    return dof * (1 - h + Z_999 * math.sqrt(h)) ** 3


def test_chi2_critical_matches_tables():
    # Published 0.999 quantiles.
    for dof, table in ((5, 20.515), (10, 29.588), (30, 59.703), (100, 149.449)):
        assert abs(chi2_critical(dof) - table) / table < 0.02


def chi2_fits(samples: Counter[Any], exact: dict[Any, float]) -> bool:
    """Whether the samples fit the exact distribution (nothing outside its support, chi-square below 0.999)."""
    if any(outcome not in exact for outcome in samples):
        return False
    total = sum(samples.values())
    stat = sum((samples[o] - total * p) ** 2 / (total * p) for o, p in exact.items())
    return stat < chi2_critical(len(exact) - 1)


def tiny_table(
    num_players: int, hands: list[dict[str, int]], deck_top: list[str], letters: list[str], **kwargs: Any
) -> dict[str, Any]:
    """A table whose deck is exactly ``deck_top``: every card placed nowhere else is in the discard pile."""
    sides = [{"free": 1}] * num_players
    placed = Counter({"Gub": num_players})
    for zone in [*hands, Counter(deck_top), Counter(letters)]:
        placed.update(zone)
    discard = {spec.name: spec.copies - placed[spec.name] for spec in CARDS if spec.copies > placed[spec.name]}
    assert not any(NAME[k] in discard for k in LETTERS)
    return position(
        num_players, hands=hands, sides=sides, deck_top=deck_top, letters=letters, discard=discard, **kwargs
    )


def exact_worlds(game: Game, viewer: int, accept: Callable[[list[list[str]]], bool]) -> dict[Any, float]:
    """Every world of a tiny table by brute force: the hidden cards, labelled, in every arrangement."""
    d = game.to_dict()
    seats = [s for s in range(game.num_players) if s != viewer]
    sizes = [sum(d["hands"][s].values()) for s in seats]
    cards = [name for s in seats for name, n in d["hands"][s].items() for _ in range(n)] + d["deck"]
    counts: Counter[Any] = Counter()
    for order in itertools.permutations(cards):
        zones, at = [], 0
        for size in sizes:
            zones.append(list(order[at : at + size]))
            at += size
        deck = list(order[at:])
        if any(KIND[c] in EVENTS for z in zones for c in z):
            continue
        if not accept(zones):
            continue
        counts[outcome(zones, deck)] += 1
    total = sum(counts.values())
    return {o: n / total for o, n in counts.items()}


def outcome(zones: list[list[str]], deck: list[str]) -> tuple[Any, ...]:
    return (*(tuple(sorted(z)) for z in zones), tuple(deck))


def world_outcome(world: Game, viewer: int) -> tuple[Any, ...]:
    d = world.to_dict()
    zones = [sorted(n for n, c in d["hands"][s].items() for _ in range(c)) for s in range(world.num_players)]
    return outcome([z for s, z in enumerate(zones) if s != viewer], d["deck"])


def sampled(game: Game, viewer: int, count: int, seed: int = 0) -> Counter[Any]:
    return Counter(world_outcome(game.resample(viewer, seed=seed * 10**6 + i), viewer) for i in range(count))


def test_plain_table_is_sampled_uniformly(monkeypatch):
    game = Game.from_dict(
        tiny_table(
            3,
            hands=[{"Spear": 1}, {"Gub": 1}, {"Lure": 1}],
            deck_top=["Gub", "Letter B", "Flash Flood"],
            letters=["Letter G", "Letter U"],
        )
    )
    exact = exact_worlds(game, 0, lambda zones: True)
    assert len(exact) == 18
    assert chi2_fits(sampled(game, 0, 3000), exact)

    def events_anywhere(k, seed=None):  # a wrong sampler: the hidden cards shuffled with no rule at all
        rnd = random.Random(seed)
        st = real_sample(k, seed)
        cards = [kind for s in (1, 2) for kind, n in enumerate(st.hands[s]) for _ in range(n)] + st.deck
        rnd.shuffle(cards)
        for s in (1, 2):
            st.hands[s] = [0] * len(st.hands[s])
        st.hands[1][cards[0]] += 1
        st.hands[2][cards[1]] += 1
        st.deck = cards[2:]
        return st

    real_sample = det.sample_world
    monkeypatch.setattr(det, "sample_world", events_anywhere)
    assert not chi2_fits(sampled(game, 0, 3000), exact)


def _lure_window() -> Game:
    """Seat 0 lures from seat 1; seats 1 and 2 both hold an answer (hands of 2, deck of 3)."""
    game = Game.from_dict(
        tiny_table(
            3,
            hands=[{"Lure": 1}, {"Feather": 1, "Gub": 1}, {"Cricket Song": 1, "Gub": 1}],
            deck_top=["Feather", "Letter B", "Flash Flood"],
            letters=["Letter G", "Letter U"],
        )
    )
    game.apply("Lure → seat 1")
    assert game.pending.step is Step.CANCEL and game.pending.actor == 1 and game.pending.queue == [2]
    return game


def _holds_answer(zone: list[str]) -> bool:
    return any(c in ("Feather", "Cricket Song", "Blindfold") for c in zone)


def test_window_table_is_sampled_exactly(monkeypatch):
    game = _lure_window()
    exact = exact_worlds(game, 0, lambda zones: _holds_answer(zones[0]))
    # Seat 1 is asked, so it holds an answer; seat 2 is only queued, which seat 0 can't see. Of seat 1's
    # two cards from 3 answers and 2 Gubs, both are answers 3 times in 10 unconditioned, 3 in 9 given one.
    assert math.isclose(sum(p for o, p in exact.items() if all(_holds_answer([c]) for c in o[0])), 1 / 3)
    assert chi2_fits(sampled(game, 0, 2500), exact)

    # A sampler that ignores the window lets the asked seat go without an answer.
    with monkeypatch.context() as m:
        m.setattr(det, "window_demands", lambda k: {})
        assert not chi2_fits(sampled(game, 0, 2500), exact)

    # A plausible shortcut: give the asked seat one answer first, then deal the rest uniformly. Every
    # world it makes is valid, but seat 1 holds two answers half the time, not a third of it.
    def one_answer_first(k, unknown, room, free_deck, events, hands, rnd):
        kinds = [int(x) for x in det._answer_kinds(k)]
        for seat, needs in det.window_demands(k).items():
            if needs and seat != k.viewer:
                kind = rnd.choice([x for x in kinds for _ in range(unknown[x])])
                hands[seat][kind] += 1
                room[seat] -= 1
                unknown[kind] -= 1
        return []

    monkeypatch.setattr(det, "_place_answers", one_answer_first)
    biased = sampled(game, 0, 2500)
    assert all(_holds_answer(list(o[0])) for o in biased)
    assert not chi2_fits(biased, exact)


def test_the_queue_of_a_window_is_not_leaked():
    game = _lure_window()
    assert game.pending.queue == [2]
    other = game.clone().state  # seat 2's Cricket Song swapped for seat 1's Gub: seat 2 can't answer
    other.hands[2][Kind.CRICKET_SONG] -= 1
    other.hands[1][Kind.CRICKET_SONG] += 1
    other.hands[1][Kind.GUB] -= 1
    other.hands[2][Kind.GUB] += 1
    other.pending.queue = []
    variant = Game.from_state(other)
    assert variant.information_state(0) == game.information_state(0)
    assert variant.resample(0, seed=4).to_dict() == game.resample(0, seed=4).to_dict()
    assert variant.information_state(1) != game.information_state(1)


# --- the Letter prior ----------------------------------------------------------------------------


def letter_table(placement: str) -> Game:
    """Two players, 28 cards gone from the 68-card deck, Letter U laid, the viewer knows the top 3."""
    d = position(
        2,
        hands=[{"Lure": 2}, {"Spear": 3}],
        sides=[{"free": 1}, {"free": 1}],
        letters=["Letter U"],
        discard={"Gub": 9, "Mushroom": 7, "Toad Rider": 4, "Velvet Moth": 2},
        deck_top=["Feather", "Lure", "Gub"],
        options={"letter_placement": placement},
    )
    d["seen"][0]["top"] = ["Feather", "Lure", "Gub"]
    game = Game.from_dict(d)
    assert len(game.state.deck) == 40
    return game


BIN = 8


def letter_outcome(deck_bottom_first: list[int]) -> tuple[int, int]:
    return (deck_bottom_first.index(Kind.LETTER_G) // BIN, deck_bottom_first.index(Kind.LETTER_B) // BIN)


def exact_letter_posterior(placement: str, num_players: int, deck_size: int, known: set[int]) -> dict[Any, float]:
    """Where Letters G and B lie (binned), exactly: U was drawn, G and B lie among the cells not in ``known``.

    Thirds: the posterior's own probabilities (``letter_posterior``, which tests/engine/test_letter_posterior.py
    checks against brute-force enumeration), each way's two cells given to G and B either way round. Uniform: every
    pair of distinct hidden cells alike.
    """
    hidden = deck_size - len(known)
    assert known == set(range(hidden, deck_size))
    counts: Counter[tuple[int, int]] = Counter()
    if placement == "thirds":
        posterior = det.letter_posterior("thirds", num_players, deck_size, hidden, (), 2)
        assert posterior is not None
        shares = np.diff(posterior.cumulative, prepend=0.0)
        ways = [(tuple(int(x) for x in cells), float(w)) for cells, w in zip(posterior.cells, shares, strict=True)]
    else:
        ways = [(pair, 1.0) for pair in itertools.combinations(range(hidden), 2)]
    for (g, b), w in ways:
        counts[(g // BIN, b // BIN)] += w
        counts[(b // BIN, g // BIN)] += w
    total = sum(counts.values())
    return {o: n / total for o, n in counts.items()}


@pytest.mark.parametrize("placement", ["thirds", "uniform"])
def test_letters_follow_the_placement_prior(placement, monkeypatch):
    game = letter_table(placement)
    exact = exact_letter_posterior(placement, 2, 40, known={37, 38, 39})
    samples = Counter(letter_outcome(game.resample(0, seed=i).state.deck) for i in range(2500))
    assert chi2_fits(samples, exact)

    # The other option's posterior is the wrong one for this game.
    other = "uniform" if placement == "thirds" else "thirds"
    real = det.letter_slots
    monkeypatch.setattr(det, "letter_slots", lambda _p, *args, **kwargs: real(other, *args, **kwargs))
    samples = Counter(letter_outcome(game.resample(0, seed=i).state.deck) for i in range(2500))
    assert not chi2_fits(samples, exact)


def test_a_letter_below_which_a_card_is_put_back_moves_up():
    # One Letter at cell 10 of a deck of 30: a card put back lands at one of 31 places, 11 of them at or below it.
    p = np.zeros(70)
    p[10] = 1.0
    moved = det.put_back(p, 30)
    assert (
        moved[11] == pytest.approx(11 / 31) and moved[10] == pytest.approx(20 / 31) and moved.sum() == pytest.approx(1)
    )
    # A Letter put back into that deck of 30 with no Letter in it: each of the 31 places alike.
    assert det.put_back_letter(np.array(1.0), 30)[:31] == pytest.approx(np.full(31, 1 / 31))


def _letters_by_sixth(worlds: Iterator[GameState]) -> list[float]:
    """Letters per game in each sixth of the deck, bottom first."""
    counts, games = [0] * 6, 0
    for st in worlds:
        games += 1
        for i, kind in enumerate(st.deck):
            if kind in LETTERS:
                counts[i * 6 // len(st.deck)] += 1
    return [c / games for c in counts]


def test_letter_model_matches_real_deals():
    # Right after the deal at 6 players, the real Letters are spread about evenly (the deal put most
    # of the top third's Letter back at random); the sampler's must be too.
    games = [Game(6, seed=s, record_log=False) for s in range(1200)]
    real = _letters_by_sixth(g.state for g in games)
    model = _letters_by_sixth(g.resample(1, seed=s).state for s, g in enumerate(games))
    assert max(abs(a - b) for a, b in zip(real, model, strict=True)) < 0.12, (real, model)

    # Forgetting the deal pins the top third's Letter to the 3 places its third keeps.
    forgot = det.seen_letters(det.placement_prior("thirds", 6), 64, 46, 46, (), 3, drawn_unrecorded=True)
    assert forgot is not None
    rnd = random.Random(0)
    wrong = [0.0] * 6
    for _ in range(1200):
        way = bisect.bisect_right(forgot.cumulative, rnd.random())
        for cell in forgot.cells[way]:
            wrong[int(cell) * 6 // 46] += 1 / 1200
    assert max(abs(a - b) for a, b in zip(real, wrong, strict=True)) > 0.3, (real, wrong)


# --- property test -------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=hst.integers(2, 6),
    game_seed=hst.integers(0, 10_000),
    depth=hst.integers(0, 300),
    viewer=hst.integers(0, 5),
    seed=hst.integers(0, 2**64),
    placement=hst.sampled_from(["thirds", "uniform"]),
)
def test_resample_property(num_players, game_seed, depth, viewer, seed, placement):
    game = play_random(Game(num_players, seed=game_seed, letter_placement=placement), random.Random(game_seed), depth)
    viewer %= num_players
    world = check_world(game, viewer, seed)
    assert game.resample(viewer, seed=seed).to_dict() == world.to_dict()
    assert det.sample_world(det.knowledge(game.state, viewer), seed).deck == world.state.deck
