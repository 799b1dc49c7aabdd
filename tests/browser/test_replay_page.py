"""The replay page in Chromium: stepping with buttons, keys and the slider; views; hostile record texts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gubs_env.engine import Game
from gubs_env.records.record import GameRecord
from gubs_env.viz.replay_html import write_replay_html

SEED = 11
HOSTILE_NAME = "</script><script>window.pwned = 1</script><!--"
"""A player name that would end the data block early if it were not escaped."""


def played_game() -> Game:
    game = Game(2, seed=SEED)
    chooser = random.Random(SEED)
    while not game.is_over:
        game.apply(chooser.choice(game.legal_actions()))
    return game


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> tuple[Path, Game]:
    game = played_game()
    record = GameRecord.from_game(game, SEED, [HOSTILE_NAME, "random <b>bot</b>"])
    path = write_replay_html(record, tmp_path_factory.mktemp("replay") / "replay.html", view=0)
    return path, game


def turns_by_step(game: Game) -> list[int]:
    """The turn shown at each step: before each action, then after the last."""
    return [entry.turn for entry in game.log] + [game.state.turn]


def open_replay(page_and_log, replay_file):
    page, log = page_and_log
    path, game = replay_file
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='true']")
    return page, log, game


def step_of(page) -> int:
    return int(page.get_attribute("body", "data-step"))


def svg_title(page) -> str:
    return page.locator("#table svg > title").text_content()


def test_steps_forward_and_back_with_buttons_keys_and_slider(page_and_log, replay_file) -> None:
    page, log, game = open_replay(page_and_log, replay_file)
    last = len(game.log)
    turns = turns_by_step(game)
    assert page.inner_text("#counter") == f"Step 0 of {last}" and page.inner_text("#last-action") == "The deal."
    assert page.is_disabled("#back") and page.is_disabled("#first") and page.is_hidden("#result")
    for _ in range(3):
        page.click("#forward")
    assert step_of(page) == 3 and page.locator("#log li").count() == 3
    page.click("#back")
    assert step_of(page) == 2 and page.inner_text("#counter") == f"Step 2 of {last}"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert step_of(page) == 3 and f"turn {turns[3]}," in svg_title(page)
    page.keyboard.press("End")
    assert step_of(page) == last and page.is_visible("#result") and page.is_disabled("#forward")
    assert "Winner" in page.inner_text("#result") or "nobody wins" in page.inner_text("#result")
    page.keyboard.press("ArrowRight")  # already at the end: stays
    assert step_of(page) == last
    page.keyboard.press("Home")
    assert step_of(page) == 0
    page.click("#last")
    assert step_of(page) == last and page.locator("#log li").count() == last
    assert f"turn {turns[last]}," in svg_title(page)
    page.click("#first")
    assert step_of(page) == 0
    page.locator("#slider").fill("7")
    assert step_of(page) == 7 and page.inner_text("#counter") == f"Step 7 of {last}"
    assert log.requests == [replay_file[0].as_uri()]  # nothing fetched: the page is self-contained


def test_hostile_record_texts_stay_text(page_and_log, replay_file) -> None:
    page, _, _ = open_replay(page_and_log, replay_file)
    assert page.evaluate("() => window.pwned") is None
    assert HOSTILE_NAME in page.inner_text("#seats") and "random <b>bot</b>" in page.inner_text("#seats")
    assert page.locator("#seats b").count() == 0
    page.keyboard.press("End")
    assert HOSTILE_NAME in page.inner_text("#log")


def hand_cards_drawn(page, seat: int) -> tuple[int, int]:
    """In the picture: cards drawn face up in ``seat``'s panel, and card backs there."""
    panel = page.locator(f"#table svg g.seat[data-seat='{seat}']")
    return panel.locator("g.card").count(), panel.locator("g.card-back").count()


def test_a_seats_view_hides_the_other_hand_and_the_all_seeing_view_shows_it(page_and_log, replay_file) -> None:
    page, _, _ = open_replay(page_and_log, replay_file)
    assert page.input_value("#view") == "0"  # --seat 0 chose the first view
    dealt = Game(2, seed=SEED)  # the table at step 0
    kinds_in_hand = sum(1 for count in dealt.state.hands[1] if count)
    assert kinds_in_hand > 0
    faces_for_0, backs_for_0 = hand_cards_drawn(page, 1)
    assert backs_for_0 >= 1 and "seen by seat 0" in svg_title(page)
    page.select_option("#view", "all")
    faces_for_all, backs_for_all = hand_cards_drawn(page, 1)
    assert backs_for_all == 0 and faces_for_all == faces_for_0 + kinds_in_hand
    assert "all-seeing" in svg_title(page) and page.get_attribute("body", "data-view") == "all"
    page.select_option("#view", "1")
    assert hand_cards_drawn(page, 1) == (faces_for_all, 0)
    assert hand_cards_drawn(page, 0)[1] >= 1  # now seat 0's hand is the hidden one


def test_the_log_shows_private_facts_only_to_their_seat(page_and_log, replay_file) -> None:
    page, _, game = open_replay(page_and_log, replay_file)
    step = next(i for i, e in enumerate(game.log, 1) if e.actor == 1 and any(f.seen_by == 1 for f in e.facts))
    page.locator("#slider").fill(str(step))
    page.select_option("#view", "1")
    assert "you draw" in page.inner_text("#last-action")
    page.select_option("#view", "0")
    seen_by_0 = page.inner_text("#last-action")
    assert "you draw" not in seen_by_0 and "seat 1 draws a card" in seen_by_0
    page.select_option("#view", "all")
    assert "(seat 1 only) you draw" in page.inner_text("#last-action")
