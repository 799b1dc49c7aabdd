"""The browser game in Chromium: a whole game played by clicking, reloads, refused requests, bots' delay."""

from __future__ import annotations

from pathlib import Path

from agents.play.web.server import MAX_BODY
from gubs_env.records.record import GameRecord, replay
from tests.web_helpers import WINDOW_PLAYERS, WINDOWS, served, web_game, window_seed

WINDOW_WORDS = ("Cancel it, or pass?", "flop it back into the deck, or pass?", "keep your hand, or pass?")
"""How the page words the decision in each interrupt window (agents.play.terminal.decision_text)."""

FETCH = """async ([path, method, body, type]) => {
  const headers = type ? {"Content-Type": type} : {};
  const response = await fetch(path, {method, headers, body});
  return [response.status, await response.text()];
}"""
"""Sends a request from inside the page, as a script on it could."""


def token_of(page) -> int:
    return int(page.get_attribute("body", "data-token"))


def wait_for_decision(page) -> None:
    page.wait_for_selector("button.choice, body[data-over='true']")


def click_choice(page, index: int = 0) -> None:
    """Click a choice and wait until the page shows the state after it."""
    before = token_of(page)
    page.locator("button.choice").nth(index).click()
    page.wait_for_selector(f"body:not([data-token='{before}'])")
    wait_for_decision(page)


def test_a_whole_game_by_clicking_with_a_window_answered_and_a_reload(page_and_log, tmp_path: Path) -> None:
    page, log = page_and_log
    game = web_game(window_seed(), players=WINDOW_PLAYERS, record_path=tmp_path / "game.json")
    with served(game) as server:
        page.goto(server.url)
        wait_for_decision(page)
        windows_answered = clicks = 0
        while page.get_attribute("body", "data-over") != "true":
            buttons = page.locator("button.choice")
            assert buttons.all_inner_texts() == [str(a) for a in game.game.legal_actions()]  # only legal choices
            if game.game.pending.step in WINDOWS:
                assert any(words in page.inner_text("#decision") for words in WINDOW_WORDS)
                windows_answered += 1
            if clicks == 5:  # a reload mid-game finds the game where it was
                token, choices = token_of(page), buttons.all_inner_texts()
                page.reload()
                wait_for_decision(page)
                assert token_of(page) == token and page.locator("button.choice").all_inner_texts() == choices
            click_choice(page)
            clicks += 1
        assert windows_answered >= 1 and clicks > 20
        assert page.inner_text("#result").startswith("Game over.") and "Scores:" in page.inner_text("#result")
        assert page.locator("button.choice").count() == 0
        assert "Record saved to" in page.inner_text("#saved")
    assert replay(GameRecord.load(tmp_path / "game.json")).to_dict() == game.game.to_dict()
    assert all(url.startswith(server.url) for url in log.requests)


def test_bad_requests_get_an_error_and_change_nothing(page_and_log) -> None:
    page, _ = page_and_log
    game = web_game(window_seed(), players=WINDOW_PLAYERS)
    with served(game) as server:
        page.goto(server.url)
        wait_for_decision(page)
        click_choice(page)
        token, position = token_of(page), game.game.to_dict()

        # a button tampered with: an index outside the legal list, then a stale token
        page.locator("button.choice").first.evaluate("(button) => { button.dataset.choice = '99'; }")
        page.locator("button.choice").first.click()
        page.wait_for_selector("#error:not([hidden])")
        assert "no choice 99" in page.inner_text("#error")
        page.wait_for_selector("button.choice:not([disabled])")  # the page shows the game again, unchanged
        page.locator("button.choice").first.evaluate("(button) => { button.dataset.token = '0'; }")
        page.locator("button.choice").first.click()
        page.locator("#error", has_text="older page").wait_for()
        assert token_of(page) == token and game.game.to_dict() == position

        # requests a script on the page could send
        def action(choice: int, at: int = token, again: str = "") -> str:
            return f'{{"token": {at}, "choice": {choice}{again}}}'

        refused = [
            ("/api/action", "POST", "{not json", "application/json", 400),
            ("/api/action", "POST", action(0, again=', "choice": 1'), "application/json", 400),
            ("/api/action", "POST", action(99), "application/json", 400),
            ("/api/action", "POST", action(0, at=0), "application/json", 409),
            ("/api/action", "POST", action(0), "text/plain", 415),
            ("/api/action", "POST", "[" + " " * MAX_BODY * 4 + "]", "application/json", 413),
            ("/api/action", "PUT", action(0), "application/json", 405),
            ("/api/action", "DELETE", None, None, 405),
            ("/api/nothing", "GET", None, None, 404),
            ("/api/state", "POST", "{}", "application/json", 404),
        ]
        for path, method, body, kind, status in refused:
            got, text = page.evaluate(FETCH, [path, method, body, kind])
            assert got == status and '"error"' in text, (path, method, body, got, text)
        assert token_of(page) == token and game.game.to_dict() == position
        click_choice(page)  # and the game goes on
        assert token_of(page) > token and page.is_hidden("#error")


def test_the_bots_moves_show_one_by_one_with_a_delay(page_and_log) -> None:
    page, _ = page_and_log
    now = [0.0]  # the server's clock, moved by the test: a bot moves only when its delay has passed
    game = web_game(3, human=1, delay=0.2, clock=lambda: now[0])
    with served(game) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-token='1']")  # the first move was due at once
        assert page.inner_text("#decision").startswith("Waiting for seat 0") and page.locator("#news li").count() == 1
        page.wait_for_timeout(500)  # the page polls meanwhile; no time passes for the server, so no move is due
        assert token_of(page) == 1 and page.locator("button.choice").count() == 0
        while game.game.current_player != 1:
            token = token_of(page)
            now[0] += 0.2
            page.wait_for_selector(f"body:not([data-token='{token}'])")
            assert token_of(page) == token + 1  # one move per delay
        page.wait_for_selector("button.choice")
        assert page.inner_text("#decision").startswith("Your turn") and page.locator("#news li").count() == game.token


def test_a_lost_connection_loses_nothing(page_and_log) -> None:
    page, _ = page_and_log
    game = web_game(3)
    with served(game) as server:
        port = server.server_address[1]
        page.goto(server.url)
        wait_for_decision(page)
        click_choice(page)
        token = token_of(page)
    # the server is gone: a click fails, the page says so and keeps trying
    page.locator("button.choice").first.click()
    page.locator("#error", has_text="connection to the game server is lost").wait_for()
    assert game.token == token
    with served(game, port=port):  # back on the same address: the page finds the game where it was
        page.wait_for_selector("#error", state="hidden")
        page.wait_for_selector("button.choice:not([disabled])")
        assert token_of(page) == token
        click_choice(page)
        assert token_of(page) > token
