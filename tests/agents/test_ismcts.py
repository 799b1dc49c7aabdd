"""Information-set MCTS: its settings, what its tree counts, what it may see, and that it plays every decision."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.bots.heuristic.decide import heuristic_scores
from agents.bots.registry import AgentSpecError, make_agent
from agents.bots.search import ISMCTSAgent, ISMCTSSettings
from agents.evaluate.matches import play_game
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game, Step
from gubs_env.engine.positions.build import position
from tests.agents.test_search import _hidden_swapped, _midgame


def test_settings_parse_and_print_back():
    assert ISMCTSSettings.parse("c=0.25,iterations=40") == ISMCTSSettings(iterations=40, c=0.25)
    settings = ISMCTSSettings(iterations=7, c=1.5)
    assert settings.spec() == "ismcts:iterations=7,c=1.5"
    assert ISMCTSSettings.parse(settings.spec().partition(":")[2]) == settings
    agent = make_agent("ismcts:iterations=9")
    assert isinstance(agent, ISMCTSAgent) and agent.settings == ISMCTSSettings(iterations=9)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("iterations=0", "iterations must be int from 1"),
        ("iterations=2.5", "whole number"),
        ("c=-1", "c must be float from 0"),
        ("c=inf", "c must be float"),
        ("worlds=8", "unknown ismcts setting 'worlds=8': use iterations, c"),
        ("iterations=8,iterations=9", "given twice"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(text, words):
    with pytest.raises(AgentSpecError, match=words):
        make_agent(f"ismcts:{text}")


def test_it_needs_the_game_not_an_observation():
    with pytest.raises(TypeError, match="game=game"):
        ISMCTSAgent(0).act(np.zeros(512, dtype=np.float32), np.ones(356, dtype=np.int8))


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_every_iteration_passes_through_one_legal_root_id(num_players):
    game = _midgame(num_players, seed=num_players)
    seat = game.current_player
    legal = set(ActionCodec(num_players).ids(game.legal_actions(), seat))
    visits = ISMCTSAgent(0, ISMCTSSettings(iterations=64)).root_visits(game, seat, 5)
    assert visits.sum() == 64
    assert set(np.flatnonzero(visits)) <= legal
    again = ISMCTSAgent(1, ISMCTSSettings(iterations=64)).root_visits(game, seat, 5)
    assert np.array_equal(visits, again)  # the tree depends on the position and the seed alone


def test_one_iteration_plays_the_heuristics_choice():
    codec = ActionCodec(3)
    checked = 0
    for seed in range(30):
        game = _midgame(3, seed=seed)
        seat = game.current_player
        ids = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        scores = heuristic_scores(encode(game.state, seat), ids)
        if np.sort(scores)[-1] - np.sort(scores)[-2] < 1e-6:
            continue  # a tie is split by the tie-break generator
        visits = ISMCTSAgent(0, ISMCTSSettings(iterations=1)).root_visits(game, seat, seed)
        assert int(np.argmax(visits)) == int(ids[np.argmax(scores)])
        checked += 1
    assert checked >= 10


def _last_draw_with_a_spear(num_players: int) -> Game:
    """Seat 0 holds a Spear, every seat one Free Gub; the deck is the last Letter: the next draw ends the game."""
    hands = [{"Spear": 1}] + [{}] * (num_players - 1)
    sides = [{"free": 1}] * num_players
    rest = Counter(position(num_players, hands=hands, sides=sides)["deck"])
    for letter in ("Letter G", "Letter U", "Letter B"):
        del rest[letter]
    return Game.from_dict(
        position(
            num_players,
            hands=hands,
            sides=sides,
            deck_top=["Letter B"],
            letters=["Letter G", "Letter U"],
            discard=dict(rest),
        )
    )


@pytest.mark.parametrize("num_players", [2, 3])
def test_it_spears_another_seats_gub_not_its_own(num_players):
    game = _last_draw_with_a_spear(num_players)
    codec = ActionCodec(num_players)
    by_text = {str(a): i for a, i in zip(game.legal_actions(), codec.ids(game.legal_actions(), 0), strict=True)}
    own, theirs, go = (
        by_text[t] for t in ("Spear → seat 0: kill a Free Gub", "Spear → seat 1: kill a Free Gub", "Go (end turn)")
    )
    visits = ISMCTSAgent(0, ISMCTSSettings(iterations=100)).root_visits(game, 0, 3)
    assert visits[own] > 0 and visits[go] > 0  # every root id is tried...
    assert visits[theirs] > 3 * max(visits[own], visits[go])  # ...and the one that wins for the decider kept
    assert ISMCTSAgent(0, ISMCTSSettings(iterations=100)).act_in_game(game, codec) != own


def test_its_choice_depends_only_on_what_its_seat_knows():
    checked = 0
    for seed in range(12):
        game = _midgame(3, seed=seed, wanted=2)
        seat = game.current_player
        other = _hidden_swapped(game, seat)
        if other.to_dict() == game.to_dict() or other.information_state(seat) != game.information_state(seat):
            continue
        visits = [ISMCTSAgent(0, ISMCTSSettings(iterations=24)).root_visits(g, seat, seed) for g in (game, other)]
        assert np.array_equal(visits[0], visits[1])
        checked += 1
    assert checked >= 5


class _StepRecorder(ISMCTSAgent):
    """Records the kinds of decision it was asked to search."""

    def __init__(self, seed: int, settings: ISMCTSSettings) -> None:
        super().__init__(seed, settings)
        self.steps: set[Step] = set()

    def root_visits(self, game: Game, seat: int, seed: int) -> np.ndarray:
        self.steps.add(game.pending.step)
        return super().root_visits(game, seat, seed)


def test_it_plays_legal_games_at_every_table_size_in_and_out_of_turn():
    steps: set[Step] = set()
    for players in range(2, 7):
        searcher = _StepRecorder(players, ISMCTSSettings(iterations=8))
        table_ = [searcher] + [make_agent("heuristic", seed=s) for s in range(1, players)]
        game = play_game(table_, players)  # an illegal id would raise here
        assert game.is_over and searcher.decision_seconds
        steps |= searcher.steps
    assert {Step.DRAW, Step.PLAY} <= steps, steps
