"""No prompt ever holds a card its seat could not know.

Games are replayed at 2 to 6 players through interrupt windows, Scouts of hands and of the deck, Smahl Thief's steals,
Traveling Merchant rounds and cards put back into the deck. At every decision, the message the language-model agent
would send is built twice: from the real game, and from a look-alike in which everything the seat can't see is
different: the position is a world drawn from the seat's knowledge (other hands, the deck's order, other seats'
hidden choices dealt afresh), and in the log every fact only another seat saw, and every hidden choice of another
seat (a card kept, a card put back by a Scout), is replaced. The two messages must be the same, character for
character: whatever reaches a prompt, the seat could know.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from agents.bots.llm.prompt import decision_message, system_message
from agents.bots.llm.settings import LLMSettings
from gubs_env.engine import Game, LogEntry, Op, Use
from gubs_env.engine.actions import make
from gubs_env.engine.cards import Kind
from gubs_env.engine.log import Fact
from gubs_env.engine.state import PUT_BACK

SETTINGS = (LLMSettings(model="m"), LLMSettings(model="m", moves="unlisted"))


def scrambled_entry(entry: LogEntry, viewer: int) -> LogEntry:
    """The entry as another game might have logged it, for all ``viewer`` can tell."""
    facts = tuple(
        fact if fact.seen_by in (None, viewer) else Fact(fact.seen_by, "a secret of seat {}: {}", (fact.seen_by, "x"))
        for fact in entry.facts
    )
    action = entry.action
    if entry.actor != viewer and action.op in (Op.KEEP, Op.PLACE):  # a choice only its maker saw
        other = Kind.GUB if action.detail is not Kind.GUB else Kind.LURE
        action = make(action.op, detail=other)
    return LogEntry(entry.turn, entry.actor, action, facts)


def lookalike(game: Game, viewer: int, seed: int) -> Game:
    """A game ``viewer`` can't tell from ``game``: its world, and its log with every hidden fact changed."""
    other = game.resample(viewer, seed=seed)
    other.record_log = True
    other.log[:] = [scrambled_entry(entry, viewer) for entry in game.log]
    return other


def play(num_players: int, seed: int, seen: Counter[str]) -> int:
    """A random game: the prompt at every decision checked against a look-alike's; returns the decisions checked."""
    game, rnd = Game(num_players, seed=seed), random.Random(seed)
    checked = 0
    while not game.is_over:
        viewer = game.current_player
        assert viewer is not None
        other = lookalike(game, viewer, seed=rnd.randrange(2**32))
        assert other.information_state(viewer) == game.information_state(viewer)
        for settings in SETTINGS:
            assert decision_message(other, viewer, settings) == decision_message(game, viewer, settings)
        checked += 1
        seen[game.pending.step.name] += 1
        action = rnd.choice(game.legal_actions())
        if action.use in (Use.SCOUT_HAND, Use.SCOUT_DECK, Use.STEAL):
            seen[action.use.name] += 1
        game.apply(action)
    seen["put back"] += sum(what == PUT_BACK for _, what in game.deck_history or ())
    return checked


def check(games: int) -> Counter[str]:
    seen: Counter[str] = Counter()
    for i in range(games):
        play(2 + i % 5, 500 + i, seen)
    needed = {"CANCEL", "FLOP", "CURE", "KEEP", "SCOUT", "RING", "RETREAT", "SCOUT_HAND", "STEAL"}
    assert needed | {"SCOUT_DECK", "put back"} <= set(seen), needed - set(seen)
    return seen


def test_no_prompt_holds_a_card_its_seat_could_not_know():
    check(25)


@pytest.mark.slow
def test_no_prompt_holds_a_card_its_seat_could_not_know_over_many_games():
    check(400)


def test_the_look_alike_would_catch_a_leak():
    # The check is not blind: a message that told another seat's hand, or the log's private facts, would differ.
    game, rnd = Game(3, seed=2), random.Random(2)
    caught = Counter()
    while not game.is_over:
        viewer = game.current_player
        assert viewer is not None
        other = lookalike(game, viewer, seed=1)
        neighbour = (viewer + 1) % 3
        caught["hand"] += game.state.hands[neighbour] != other.state.hands[neighbour]
        caught["log"] += [e.view(neighbour) for e in game.log] != [e.view(neighbour) for e in other.log]
        game.apply(rnd.choice(game.legal_actions()))
    assert caught["hand"] > 10 and caught["log"] > 10
    assert "Your hand" not in system_message(SETTINGS[0])  # the rules hold no position at all
