"""Reprs for notebooks (Game, its views, log entries, tournament results) and the texts of the log and the table."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from agents.evaluate.ratings import AgentRating
from agents.evaluate.tournament import TournamentResult
from agents.evaluate.tournament_report import PairingResult
from gubs_env.demo import main as demo_main
from gubs_env.engine import Game
from gubs_env.engine.cards import CARDS, COPIES
from gubs_env.engine.log import Count, GubsFrom
from gubs_env.engine.render import outcome_text
from gubs_env.viz.svg import TableView
from tests.helpers import act, table


def finished(players: int = 3, seed: int = 0, **options: Any) -> Game:
    game = Game(players, seed=seed, **options)
    chooser = random.Random(seed)
    while not game.is_over:
        game.apply(chooser.choice(game.legal_actions()))
    return game


def texts(game: Game) -> list[str]:
    return [text for entry in game.log for text in entry.view(None)]


# --- Game, its views and its finished texts -------------------------------------------------------------


def test_a_game_in_progress_says_whose_decision_it_is() -> None:
    assert repr(Game(3, seed=1)) == "<Game 3 players, turn 1, draw step for seat 0>"


def test_a_finished_game_says_it_is_over_with_winners_and_scores() -> None:
    game = next(g for g in (finished(3, s) for s in range(30)) if len(g.winners()) == 1)
    (winner,) = game.winners()
    scores = ", ".join(map(str, game.scores()))
    points = game.scores()[winner]
    assert repr(game) == (
        f"<Game 3 players, over at turn {game.state.turn}: seat {winner} wins with {points} "
        f"point{'s' * (points != 1)} (scores {scores})>"
    )


def test_a_truncated_game_says_it_has_no_winner() -> None:
    game = finished(2, 0, max_turns=3)
    assert game.truncated
    assert "stopped at the turn limit, no winner" in repr(game)
    assert "Game over: stopped at the turn limit, no winner" in game.render()


def test_a_shared_win_names_every_winner() -> None:
    game = table(num_players=3, sides=[{"free": 2}, {"free": 2}, {"free": 1}], hands=[{}, {}, {}])
    game.state.pending.step = type(game.state.pending.step).OVER
    assert outcome_text(game.state) == "seats 0 and 1 share the win with 2 points (scores 2, 2, 1)"


def test_render_of_a_finished_game_says_game_over_and_nobody_is_to_play() -> None:
    game = finished(3, 2)
    text = game.render(0)
    assert "to play" not in text and "Waiting for" not in text
    assert text.splitlines()[0].startswith(f"Turn {game.state.turn} - game over - deck ")
    assert text.splitlines()[-1] == f"Game over: {outcome_text(game.state)}."


def test_render_names_an_empty_hand_and_counts_cards_in_the_singular() -> None:
    game = table(hands=[{}, {"Lure": 1}])
    text = game.render(0)
    assert "Your hand: none" in text and "hand 1 card" in text and "hand 0 cards" in text


def parse_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    return root


def test_jupyter_shows_a_game_as_its_all_seeing_picture() -> None:
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    svg = game._repr_svg_()
    parse_svg(svg)
    assert "Lure" in svg and "Feather" in svg


def test_a_view_shows_one_seats_picture_and_follows_the_game() -> None:
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    view = game.view(0)
    assert isinstance(view, TableView)
    svg = view._repr_svg_()
    parse_svg(svg)
    assert "Lure" in svg and "Feather" not in svg
    assert repr(view) == game.render(0)
    act(game, "Lure → seat 1")
    assert "seat 0 plays Lure → seat 1" in view._repr_svg_()


@pytest.mark.parametrize("seat", [-1, 2, True, "0", 0.0])
def test_a_view_of_a_seat_that_does_not_exist_is_refused(seat: object) -> None:
    with pytest.raises(ValueError, match="viewer"):
        Game(2, seed=0).view(seat)  # type: ignore[arg-type]


def test_save_svg_writes_the_viewers_picture(tmp_path) -> None:
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 1}])
    path = game.save_svg(tmp_path / "seat1.svg", viewer=1)
    svg = path.read_text(encoding="utf-8")
    parse_svg(svg)
    assert "Feather" in svg and "Lure" not in svg
    assert game.view(0).save(tmp_path / "seat0.svg").read_text(encoding="utf-8").count("Lure") > 0


# --- log entries --------------------------------------------------------------------------------------


def test_a_log_entry_reads_as_one_short_line_with_private_facts_marked() -> None:
    game = table(step="draw", deck_top=["Scout"])
    entry = game.apply("Draw")
    assert repr(entry) == "<turn 1, seat 0: Draw — seat 0 draws a card; [seat 0 only] you draw Scout>"


def test_a_log_entry_without_facts_ends_after_its_action() -> None:
    game = table(hands=[{"Single Ring": 1}, {}], sides=[{}, {"free": 2}])
    act(game, "Single Ring: trap Free Gubs")
    entry = game.log[-1]
    assert repr(entry).startswith("<turn 1, seat 0: Single Ring: trap Free Gubs — seat 0 plays")
    pick = game.apply("Ring: take a Free Gub from seat 1")
    assert "— seat 0's Single Ring traps 1 Gub from seat 1" in repr(pick)


# --- counted words in the facts ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "words"),
    [
        (Count(0, "card"), "0 cards"),
        (Count(1, "card"), "1 card"),
        (Count(2, "Gub"), "2 Gubs"),
        (Count(1, "Free Gub"), "1 Free Gub"),
        (Count(3, "Toad Rider"), "3 Toad Riders"),
        (Count(2, "mouse", "mice"), "2 mice"),
    ],
)
def test_counts_take_the_singular_only_for_one(count: Count, words: str) -> None:
    assert count.words() == words


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ((1,), "1 Gub from seat 1"),
        ((2, 2), "2 Gubs from seat 2"),
        ((3, 0, 3), "1 Gub from seat 0 and 2 from seat 3"),
        ((2, 0, 1), "1 Gub from seat 0, 1 from seat 1 and 1 from seat 2"),
        ((), "no Gub"),
    ],
)
def test_ring_picks_are_told_seat_by_seat(seats: tuple[int, ...], words: str) -> None:
    assert GubsFrom(seats).words() == words


def test_a_single_ring_traps_one_gub() -> None:
    game = table(hands=[{"Single Ring": 1}, {}], sides=[{}, {"free": 2}])
    act(game, "Single Ring: trap Free Gubs", "Ring: take a Free Gub from seat 1")
    assert "seat 0's Single Ring traps 1 Gub from seat 1" in texts(game)


def test_a_triple_ring_tells_how_many_gubs_came_from_each_seat() -> None:
    game = table(num_players=3, hands=[{"Triple Ring": 1}, {}, {}], sides=[{"free": 1}, {"free": 2}, {"free": 1}])
    act(
        game,
        "Triple Ring: trap Free Gubs",
        "Ring: take a Free Gub from seat 2",
        "Ring: take a Free Gub from seat 1",
        "Ring: take a Free Gub from seat 1",
    )
    assert "seat 0's Triple Ring traps 2 Gubs from seat 1 and 1 from seat 2" in texts(game)


def test_haki_flute_on_a_single_ring_frees_one_gub() -> None:
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{}, {"rings": ["Single Ring"]}])
    act(game, "Haki Flute → Single Ring")
    assert "seat 0 shatters the Single Ring of seat 1 and frees 1 Gub" in texts(game)


def test_super_lure_of_one_gub_says_one_gub() -> None:
    game = table(hands=[{"Super Lure": 1}, {}], sides=[{}, {"free": 1}])
    act(game, "Super Lure → seat 1")
    assert "seat 0 lures 1 Gub from seat 1" in texts(game)


def test_a_retreat_of_one_card_says_one_card() -> None:
    game = table(hands=[{"Retreat": 1}, {}], sides=[{"free": 2}, {}])
    act(game, "Retreat: retreat", "Retreat: take a Free Gub", "Retreat: done")
    assert "seat 0 retreats 1 card to their hand" in texts(game)


def draw_event(event: str, **kwargs: Any) -> Game:
    game = table(step="draw", deck_top=[event], **kwargs)
    return act(game, "Draw")


def test_flash_flood_of_one_gub_is_singular() -> None:
    game = draw_event("Flash Flood", sides=[{"free": 1}, {}])
    assert "1 Free Gub is washed back into the deck" in texts(game)


def test_rumor_of_wasps_of_one_toad_rider_is_singular() -> None:
    game = draw_event("Rumor of Wasps", sides=[{}, {"protected": {"Toad Rider": 1}}])
    assert "1 Toad Rider and its Gub goes back into the deck" in texts(game)


def test_gargok_plague_counts_a_one_card_hand_in_the_singular() -> None:
    game = draw_event("Gargok Plague", hands=[{}, {"Lure": 1}])
    assert "seat 1's hand (1 card) goes into the deck" in texts(game)


def test_traveling_merchant_passes_one_card_in_the_singular() -> None:
    game = draw_event("Traveling Merchant", hands=[{"Lure": 1, "Gub": 1}, {"Spear": 1, "Scout": 1}])
    while game.pending.step.name == "KEEP":
        game.apply(game.legal_actions()[0])
    assert "seat 0 passes 1 card to seat 1" in texts(game)


def test_scout_on_a_one_card_deck_puts_the_top_card_back() -> None:
    placed = {"Scout": 1, "Letter G": 1, "Letter U": 1, "Letter B": 1}  # Letter B is the deck's one card
    discard = {spec.name: COPIES[spec.kind] - placed.get(spec.name, 0) for spec in CARDS}
    game = table(
        hands=[{"Scout": 1}, {}], letters=["Letter G", "Letter U"], discard={k: n for k, n in discard.items() if n}
    )
    assert len(game.state.deck) == 1
    act(game, "Scout: look at the deck")
    assert "seat 0 puts the top card back" in texts(game)


def test_no_fact_in_random_games_counts_one_thing_in_the_plural() -> None:
    for seed in range(12):
        game = finished(2 + seed % 5, seed)
        for text in texts(game):
            assert not re.search(r"\b1 (Free |Toad )?(cards|Gubs|Riders)\b", text), text
            assert "seats" not in text or " and " in text, text


def test_the_demo_never_ends_a_line_with_an_empty_arrow(capsys) -> None:
    assert demo_main(["--players", "3", "--seed", "3", "--seat", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and not any(line.rstrip().endswith("->") for line in lines)


# --- tournament results --------------------------------------------------------------------------------


def small_result(names: list[str]) -> TournamentResult:
    pairings = [
        PairingResult(agent=names[0], games=10, wins=7, truncated=0, opponent=names[1]),
        PairingResult(agent=names[1], games=10, wins=3, truncated=0, opponent=names[0]),
    ]
    return TournamentResult(
        agents=names,
        num_players=2,
        deals=5,
        seed=0,
        rule_options={},
        played=[(0, 1)],
        games=[],
        pairings=pairings,
        ratings=[AgentRating(names[0], 27.0, 2.0), AgentRating(names[1], 23.0, 2.0)],
    )


def test_a_tournament_result_repr_is_one_short_line() -> None:
    result = small_result(["heuristic", "random"])
    assert repr(result) == "<TournamentResult 2 agents, 2 players, 0 games, best heuristic (ordinal 21.00)>"


def test_a_tournament_result_shows_as_html_tables_with_escaped_names() -> None:
    result = small_result(["my<agent>&co", "random"])
    page = result._repr_html_()
    assert "my&lt;agent&gt;&amp;co" in page and "<agent>" not in page
    assert "70.0%" in page and "30.0%" in page and page.count("<table") == 2
