"""The browser game's server and API over plain HTTP (no browser): the game, and every request it must refuse."""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bots.base import Agent
from agents.play.table import BotPlayer
from agents.play.terminal import main as play_main
from agents.play.web.options import is_loopback
from agents.play.web.page import page_html
from agents.play.web.server import MAX_BODY, GameServer, parse_request
from agents.play.web.session import RequestError, WebGame
from gubs_env.engine import Game, Step
from gubs_env.records.record import GameRecord, replay
from tests.web_helpers import WINDOW_PLAYERS, WINDOWS, served, web_game, window_seed

SEED = 3


class Client:
    """Requests to a served game; every answer is ``(status, headers, body)`` with JSON bodies decoded."""

    def __init__(self, server: GameServer) -> None:
        self.host, self.port = str(server.server_address[0]), server.server_address[1]

    def request(
        self, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], Any]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            sent = {"Content-Type": "application/json"} if body is not None else {}
            sent.update(headers or {})
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            raw = response.read()
            kind = response.getheader("Content-Type", "")
            data = json.loads(raw) if kind.startswith("application/json") and raw else raw.decode()
            return response.status, dict(response.getheaders()), data
        finally:
            connection.close()

    def state(self) -> dict[str, Any]:
        status, _, data = self.request("GET", "/api/state")
        assert status == 200, data
        return data

    def act(self, token: object, choice: object) -> tuple[int, Any]:
        status, _, data = self.request("POST", "/api/action", json.dumps({"token": token, "choice": choice}))
        return status, data

    def raw(self, data: bytes) -> bytes:
        """Send ``data`` as the whole request on a socket; the answer as bytes."""
        with socket.create_connection((self.host, self.port), timeout=10) as sock:
            sock.sendall(data)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)


@pytest.fixture
def game():
    return web_game(SEED)


@pytest.fixture
def client(game):
    with served(game) as server:
        yield Client(server)


def game_snapshot(game) -> tuple[int, dict]:
    return game.token, game.game.to_dict()


# --- the page and the state -------------------------------------------------------------------------------


def test_the_page_is_one_inline_document_with_a_nonce_policy(client: Client) -> None:
    status, headers, page = client.request("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    policy = headers["Content-Security-Policy"]
    match = re.search(r"'nonce-([\w-]+)'", policy)
    assert match is not None
    nonce = match.group(1)
    assert f'<script nonce="{nonce}">' in page and "default-src 'none'" in policy
    assert headers["Cache-Control"] == "no-store" and headers["X-Content-Type-Options"] == "nosniff"
    assert "http://" not in page and "https://" not in page and "src=" not in page  # nothing fetched from elsewhere
    assert client.request("GET", "/")[1]["Content-Security-Policy"] != policy  # a fresh nonce per page


def test_page_html_refuses_a_nonce_that_could_break_the_attribute() -> None:
    with pytest.raises(ValueError):
        page_html('x"><script>alert(1)</script>')


def test_the_state_shows_the_humans_decision_as_the_legal_actions(client: Client, game) -> None:
    state = client.state()
    assert state["token"] == 0 and state["your_turn"] and state["seat"] == 0
    assert state["choices"] == [str(a) for a in game.game.legal_actions()]
    assert state["svg"].startswith("<svg") and "seen by seat 0" in state["svg"]
    assert state["decision"].startswith("Your turn") and not state["over"]
    assert state["names"] == ["seat 0 (you)", "seat 1 (random)"]


def test_an_action_moves_the_game_and_the_bots_until_the_human_decides_again(client: Client, game) -> None:
    status, state = client.act(0, client.state()["choices"].index("Decline to draw"))
    assert status == 200 and state["token"] == 1 and state["your_turn"]  # now the play step
    status, state = client.act(1, state["choices"].index("Go (end turn)"))
    assert status == 200 and state["token"] > 2  # the human's action, then the bot's moves
    assert state["your_turn"] and game.game.current_player == 0
    assert state["news"][0].endswith("seat 0 ends the turn") and any("seat 1" in line for line in state["news"])
    assert state["log"][1:] == state["news"]  # since the last decision: the human's own, then the bot's turn


def test_the_bots_move_one_per_delay_as_the_page_polls(tmp_path: Path) -> None:
    now = [0.0]
    game = web_game(SEED, human=1, delay=0.5, clock=lambda: now[0])
    assert game.state()["token"] == 1 and game.game.current_player == 0  # one move is due at once
    assert game.state()["token"] == 1  # no time has passed
    now[0] = 0.49
    assert game.state()["token"] == 1
    now[0] = 0.5
    state = game.state()
    assert state["token"] == 2 and state["poll_s"] == 0.5
    assert state["your_turn"] == (game.game.current_player == 1)
    assert state["decision"].startswith("Your turn" if state["your_turn"] else "Waiting for seat 0 (random)")


def test_a_whole_game_through_the_api_with_an_interrupt_window_answered(tmp_path: Path) -> None:
    record_file = tmp_path / "game.json"
    game = web_game(window_seed(), players=WINDOW_PLAYERS, record_path=record_file)
    windows = 0
    with served(game) as server:
        client = Client(server)
        state = client.state()
        while not state["over"]:
            windows += game.game.pending.step in WINDOWS
            status, state = client.act(state["token"], 0)
            assert status == 200, state
        assert windows >= 1
        assert state["result"] and state["winners"] == game.game.winners() and state["choices"] == []
        assert client.act(state["token"], 0)[0] == 409  # nothing is left to choose
        status, headers, data = client.request("GET", "/api/record")
    assert status == 200 and "attachment" in headers["Content-Disposition"]
    assert replay(GameRecord.from_dict(data)).to_dict() == game.game.to_dict()
    assert state["saved"].startswith("Record saved to") and GameRecord.load(record_file).to_dict() == data


# --- refusals: each gets an error and changes nothing ----------------------------------------------------


@pytest.mark.parametrize(
    ("token", "choice", "status"),
    [
        (1, 0, 409),  # a token from the future
        (-1, 0, 409),
        (0, -1, 400),
        (0, 2, 400),  # two legal actions: 0 and 1
        (0, 10**30, 400),
        (0, True, 400),
        (True, 0, 400),
        (0, 0.0, 400),
        (0, "0", 400),
        ("0", 0, 400),
        (0, None, 400),
        (None, None, 400),
        (0, [0], 400),
        (0, {"i": 0}, 400),
    ],
)
def test_an_illegal_or_malformed_action_is_refused(client: Client, game, token, choice, status) -> None:
    before = game_snapshot(game)
    got, data = client.act(token, choice)
    assert got == status and data["error"]
    assert game_snapshot(game) == before


def test_a_replayed_click_is_refused_as_stale(client: Client, game) -> None:
    assert client.act(0, 0)[0] == 200
    before = game_snapshot(game)
    status, data = client.act(0, 0)
    assert status == 409 and "older page" in data["error"]
    assert game_snapshot(game) == before


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b"not json",
        b'{"token": 0, "choice": 0} trailing',
        b'{"token": 0, "choice": NaN}',
        b'{"token": Infinity, "choice": 0}',
        b'{"token": 0, "token": 0, "choice": 0}',
        b'{"token": 0}',
        b'{"token": 0, "choice": 0, "extra": 1}',
        b"[0, 0]",
        b'"token"',
        b"null",
        b'{"token": 0, "choice": 0}\xff',
        b"\xef\xbb\xbf\xff\xfe",
        b"[" * 500 + b"]" * 500,
    ],
)
def test_a_body_that_is_not_the_expected_strict_json_is_refused(client: Client, game, body: bytes) -> None:
    before = game_snapshot(game)
    status, _, data = client.request("POST", "/api/action", body)
    assert status == 400 and data["error"]
    assert game_snapshot(game) == before


@pytest.mark.parametrize("body", [b"", b"{", b'{"": 1}'])
def test_parse_request_raises_request_error(body: bytes) -> None:
    with pytest.raises(RequestError):
        parse_request(body, {"token"})


def test_a_huge_body_is_refused_unread(client: Client, game) -> None:
    before = game_snapshot(game)
    status, _, data = client.request("POST", "/api/action", b"{" + b" " * (MAX_BODY * 50) + b"}")
    assert status == 413 and data["error"]
    answer = client.raw(
        f"POST /api/action HTTP/1.1\r\nHost: {client.host}:{client.port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 999999999\r\n\r\n{".encode()
    )
    assert answer.startswith(b"HTTP/1.0 413")
    assert game_snapshot(game) == before


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content-Length": "abc"}, 400),
        ({"Content-Length": "-5"}, 400),
        ({"Content-Length": ""}, 400),
        ({"Transfer-Encoding": "chunked"}, 411),
    ],
)
def test_a_bad_length_is_refused(client: Client, game, headers: dict[str, str], status: int) -> None:
    before = game_snapshot(game)
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    answer = client.raw(
        f"POST /api/action HTTP/1.1\r\nHost: {client.host}:{client.port}\r\n"
        f"Content-Type: application/json\r\n{lines}\r\n".encode()
    )
    assert answer.startswith(f"HTTP/1.0 {status}".encode()), answer[:80]
    assert game_snapshot(game) == before


def test_a_post_without_a_length_is_refused(client: Client, game) -> None:
    host = f"{client.host}:{client.port}"
    answer = client.raw(f"POST /api/action HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 411")


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_that_is_not_sent_as_json_is_refused(client: Client, game, kind: str) -> None:
    before = game_snapshot(game)
    status, _, data = client.request("POST", "/api/action", '{"token": 0, "choice": 0}', {"Content-Type": kind})
    assert status == 415 and data["error"]
    assert game_snapshot(game) == before


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "HEAD"])
def test_methods_other_than_get_and_post_are_refused(client: Client, game, method: str) -> None:
    before = game_snapshot(game)
    status, headers, _ = client.request(method, "/api/action", '{"token": 0, "choice": 0}')
    assert status == 405 and headers["Allow"] == "GET, POST"
    assert game_snapshot(game) == before


def test_an_unknown_method_or_a_garbage_request_line_gets_a_json_error(client: Client) -> None:
    answer = client.raw(b"BREW /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 501") and b"application/json" in answer and b"<" not in answer
    answer = client.raw(b"\x00\x01garbage<script>\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 400") and b"<script" not in answer and b"garbage" not in answer


@pytest.mark.parametrize(
    "path",
    ["/index.html", "/api", "/api/state/", "/../../etc/passwd", "/web/page.py", "/<script>alert(1)</script>"],
)
def test_unknown_paths_are_404_and_serve_no_file(client: Client, path: str) -> None:
    for method, body in (("GET", None), ("POST", "{}")):
        status, headers, data = client.request(method, path, body)
        assert status == 404 and headers["Content-Type"].startswith("application/json")
        assert "<" not in json.dumps(data) and "passwd" not in json.dumps(data)  # nothing reflected


def test_a_foreign_host_header_or_origin_is_refused(client: Client, game) -> None:
    before = game_snapshot(game)
    status, _, data = client.request("GET", "/api/state", headers={"Host": "evil.example:80"})
    assert status == 403 and data["error"]
    body = '{"token": 0, "choice": 0}'
    status, _, _ = client.request("POST", "/api/action", body, {"Origin": "http://evil.example"})
    assert status == 403
    assert game_snapshot(game) == before
    same_origin = {"Origin": f"http://{client.host}:{client.port}"}
    assert client.request("POST", "/api/action", body, same_origin)[0] == 200


def test_is_loopback() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.5.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.com")


# --- records --------------------------------------------------------------------------------------------------


def test_save_without_a_record_file_is_refused(client: Client) -> None:
    status, _, data = client.request("POST", "/api/save", "{}")
    assert status == 409 and "--record" in data["error"]
    assert client.request("POST", "/api/save", '{"path": "/etc/passwd"}')[0] == 400  # no path from the page


def test_save_writes_the_game_so_far_to_the_record_file(tmp_path: Path) -> None:
    record_file = tmp_path / "sub" / "game.json"
    game = web_game(SEED, record_path=record_file)
    with served(game) as server:
        client = Client(server)
        client.act(0, 0)
        status, _, data = client.request("POST", "/api/save", "{}")
    assert status == 200 and str(record_file) in data["saved"]
    assert replay(GameRecord.load(record_file)).to_dict() == game.game.to_dict()


def test_a_record_file_that_cannot_be_written_is_an_error_not_a_crash(tmp_path: Path) -> None:
    game = web_game(SEED, record_path=tmp_path)  # a folder
    with served(game) as server:
        status, _, data = Client(server).request("POST", "/api/save", "{}")
    assert status == 500 and data["error"].startswith("error: cannot save")


# --- the command line -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "8000"],
        ["--host", "127.0.0.1"],
        ["--web", "--watch"],
        ["--web", "--port", "70000"],
        ["--web", "--port", "-1"],
        ["--web", "--port", "http"],
        ["--web", "--host", "evil host"],
        ["--web", "--host", "<script>"],
        ["--web", "--host", ""],
        ["--web", "--bots", "nobody"],
        ["--web", "--players", "3", "--bots", "random", "random", "random"],
        ["--web", "--seat", "2"],
    ],
)
def test_bad_web_command_lines_exit_2(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        play_main(argv)
    assert stop.value.code == 2
    assert "error" in capsys.readouterr().err


def test_a_port_in_use_exits_1(capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = play_main(["--web", "--port", str(port), "--bots", "random", "--seed", "1"])
    assert code == 1 and "error: cannot listen" in capsys.readouterr().err


def test_the_command_serves_the_game_and_saves_the_record_on_ctrl_c(tmp_path: Path) -> None:
    record_file = tmp_path / "game.json"
    argv = ["--web", "--port", "0", "--bots", "random", "--seed", "5", "--delay", "0", "--record", str(record_file)]
    command = [sys.executable, "-m", "agents.play", *argv]
    # a suite started in the background by a shell inherits SIGINT ignored, and so would the server: give it Ctrl-C
    restore_ctrl_c = functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL)
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=restore_ctrl_c
    )
    assert server.stdout is not None
    try:
        lines = [server.stdout.readline(), server.stdout.readline()]
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", lines[1])
        assert url, lines
        connection = http.client.HTTPConnection("127.0.0.1", int(url.group(1)), timeout=10)
        connection.request("GET", "/api/state")
        state = json.loads(connection.getresponse().read())
        assert state["token"] == 0 and state["your_turn"]
        connection.close()
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "Record saved to" in out and "Traceback" not in err
    assert GameRecord.load(record_file).players == ["human", "random"]


def test_the_human_is_asked_in_windows_only_when_holding_an_answer() -> None:
    game = web_game(window_seed(), players=WINDOW_PLAYERS)
    while not game.game.is_over:
        if game.game.pending.step in WINDOWS:
            state = game.state()
            assert state["your_turn"] and len(state["choices"]) >= 2  # an answer and passing
            assert game.game.pending.step is not Step.OVER
        game.act(game.token, 0)


def test_web_game_refuses_seats_bots_and_delays_that_do_not_fit() -> None:
    from agents.play.web.session import WebGame
    from gubs_env.engine import Game

    bot = web_game(SEED).bots[1]
    with pytest.raises(ValueError, match="human's seat"):
        WebGame(Game(2, seed=1), 2, {1: bot}, [None, "random"], seed=1)
    with pytest.raises(ValueError, match="needs a bot"):
        WebGame(Game(2, seed=1), 0, {}, [None, "random"], seed=1)
    with pytest.raises(ValueError, match="delay"):
        WebGame(Game(2, seed=1), 0, {1: bot}, [None, "random"], seed=1, delay=-1.0)
    with pytest.raises(ValueError, match="record_log"):
        WebGame(Game(2, seed=1, record_log=False), 0, {1: bot}, [None, "random"], seed=1)


# --- hostile clients and failing bots: the server keeps serving, its terminal shows no traceback -----------


def _length_request(client: Client, length_line: bytes) -> bytes:
    return client.raw(
        f"POST /api/action HTTP/1.1\r\nHost: {client.host}:{client.port}\r\nContent-Type: application/json\r\n".encode()
        + length_line
        + b'\r\n\r\n{"token": 0, "choice": 0}'
    )


@pytest.mark.parametrize(
    "length_line",
    [
        b"Content-Length: \xb2",  # a superscript two: isdigit() says yes, int() says no
        b"Content-Length: \xb9\xb3",
        b"Content-Length: 2\xb2",
        b"Content-Length: \xd9\xa3",  # an Arabic-Indic three, sent as UTF-8 (read as two Latin-1 characters)
        b"Content-Length: +25",
        b"Content-Length: 0x19",
        b"Content-Length: 25 25",
        b"Content-Length: 2_5",
        b"Content-Length: 1234567890",
        b"Content-Length: 25\r\nContent-Length: 25",  # two lengths: refused, whatever they say
        b"Content-Length: 25\r\nContent-Length: 3",
    ],
)
def test_a_length_that_is_not_ascii_digits_or_not_one_is_refused(
    client: Client, game, length_line: bytes, capsys
) -> None:
    before = game_snapshot(game)
    answer = _length_request(client, length_line)
    assert answer.startswith((b"HTTP/1.0 400", b"HTTP/1.0 413")), answer[:80]
    assert b"application/json" in answer
    assert game_snapshot(game) == before
    assert client.state()["token"] == before[0]  # and the server goes on
    assert "Traceback" not in capsys.readouterr().err


def test_content_length_reads_one_length_of_ascii_digits() -> None:
    from email.message import Message

    from agents.play.web.server import content_length

    def headers(*lengths: str) -> Message:
        message = Message()
        for length in lengths:
            message["Content-Length"] = length
        return message

    assert content_length(headers("25")) == 25 and content_length(headers("0")) == 0
    for bad in [("²",), ("٣",), ("-1",), ("",), ("1" * 10,), ("1", "1")]:
        with pytest.raises(RequestError):
            content_length(headers(*bad))


def _hang_up_abruptly(client: Client, data: bytes) -> None:
    """Send ``data``, then close with a reset (SO_LINGER 0), as a closed tab or a killed browser does."""
    sock = socket.create_connection((client.host, client.port), timeout=5)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    if data:
        sock.sendall(data)
    sock.close()


def _hang_ups(client: Client, count: int) -> None:
    host = f"Host: {client.host}:{client.port}\r\n"
    requests = [
        f"GET /api/state HTTP/1.1\r\n{host}\r\n".encode(),  # the answer is written to a reset connection
        b"GET /api/sta",  # the request line cut short
        f"POST /api/action HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 25\r\n\r\n{{".encode(),
        f"GET / HTTP/1.1\r\n{host}\r\n".encode(),  # the page: the largest answer
        b"",
    ]
    for i in range(count):
        _hang_up_abruptly(client, requests[i % len(requests)])


def _wait_for_threads(baseline: int, seconds: float = 10.0) -> None:
    """Wait (bounded) until the server's request threads have ended."""
    end = time.monotonic() + seconds
    while threading.active_count() > baseline and time.monotonic() < end:
        time.sleep(0.05)


def test_clients_that_hang_up_mid_request_are_dropped_without_a_word(capsys) -> None:
    game = web_game(SEED)
    baseline = threading.active_count()
    with served(game) as server:
        client = Client(server)
        before = game_snapshot(game)
        _hang_ups(client, 60)
        _wait_for_threads(baseline + 1)  # the serving thread stays
        assert client.state()["token"] == before[0]
    assert game_snapshot(game) == before
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err[:500]


def test_a_slow_client_is_dropped_at_the_connection_deadline(capsys) -> None:
    with served(web_game(SEED), deadline_s=1.0) as server:
        client = Client(server)
        sock = socket.create_connection((client.host, client.port), timeout=0.2)
        start, closed_after = time.monotonic(), None
        try:
            for byte in b"GET /api/state HTTP/1.1\r\nHost: x" * 4:  # one byte at a time, each in time
                if time.monotonic() - start > 6:
                    break
                try:
                    sock.send(bytes([byte]))
                    if sock.recv(1024) == b"":
                        closed_after = time.monotonic() - start
                        break
                except TimeoutError:
                    continue
                except OSError:  # reset: closed
                    closed_after = time.monotonic() - start
                    break
        finally:
            sock.close()
        assert closed_after is not None and closed_after < 3.0, closed_after
        assert client.state()["token"] == 0  # the server goes on
    assert "Traceback" not in capsys.readouterr().err


def test_connections_beyond_the_cap_are_closed_unanswered() -> None:
    with served(web_game(SEED), max_connections=2, deadline_s=5.0) as server:
        client = Client(server)
        idle = [socket.create_connection((client.host, client.port), timeout=5) for _ in range(2)]
        try:
            time.sleep(0.2)  # both accepted, each holding its thread
            with socket.create_connection((client.host, client.port), timeout=3) as extra:
                extra.sendall(f"GET /api/state HTTP/1.1\r\nHost: {client.host}:{client.port}\r\n\r\n".encode())
                with contextlib.suppress(ConnectionResetError):  # closed without an answer, or reset
                    assert extra.recv(1024) == b""
        finally:
            for sock in idle:
                sock.close()
        end = time.monotonic() + 5
        while True:  # the slots are free again once the idle connections' threads have ended
            try:
                assert client.state()["token"] == 0
                break
            except (AssertionError, OSError, http.client.HTTPException):
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)


def test_an_interrupt_after_a_connections_thread_started_gives_its_slot_back_once(monkeypatch) -> None:
    """Ctrl-C can land in the accepting thread just after it started a connection's thread: both then free the
    slot, and a second release would raise inside the interrupt (the server then hung instead of stopping)."""
    import socketserver

    started = threading.Event()

    def start_then_interrupt(self, request, client_address):
        thread = threading.Thread(target=lambda: (self.process_request_thread(request, client_address), started.set()))
        thread.start()
        thread.join(timeout=10)
        raise KeyboardInterrupt

    server = GameServer(("127.0.0.1", 0), web_game(SEED), max_connections=1)
    try:
        monkeypatch.setattr(socketserver.ThreadingMixIn, "process_request", start_then_interrupt)
        left, right = socket.socketpair()
        right.close()  # the connection's thread finds the client gone at once
        with pytest.raises(KeyboardInterrupt):
            server.process_request(left, ("127.0.0.1", 1))
        assert started.is_set()
        assert server._slots.acquire(blocking=False)  # the one slot is free, and was released only once
        server._slots.release()
    finally:
        server.server_close()


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f.1", "::ffff:127.0.0.1", "localhost", "localhost."])
def test_every_spelling_of_loopback_keeps_the_host_check(host: str, capsys) -> None:
    assert is_loopback(host) or host == "localhost."  # localhost. resolves only where there is a resolver
    try:
        server_cm = served(web_game(SEED), host=host)
        server = server_cm.__enter__()
    except OSError:
        pytest.skip(f"{host} cannot be bound here")
    try:
        assert server.loopback
        client = Client(server)
        port = server.port
        assert client.request("GET", "/api/state", headers={"Host": f"127.0.0.1:{port}"})[0] == 200
        assert client.request("GET", "/api/state", headers={"Host": f"localhost:{port}"})[0] == 200
        assert client.request("GET", "/api/state", headers={"Host": f"{host}:{port}"})[0] == 200
        for foreign in [f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", f"[::1:{port}", ""]:
            status, _, data = client.request("GET", "/api/state", headers={"Host": foreign})
            assert status == 403 and data["error"], foreign
    finally:
        server_cm.__exit__(None, None, None)
    assert "Traceback" not in capsys.readouterr().err


def test_the_server_decides_loopback_from_the_address_it_is_bound_to() -> None:
    from agents.play.web.options import address_is_loopback

    assert address_is_loopback("127.0.0.1") and address_is_loopback("::1") and address_is_loopback("::ffff:127.0.0.9")
    assert not address_is_loopback("0.0.0.0") and not address_is_loopback("::ffff:10.0.0.1")
    assert not address_is_loopback("localhost") and not address_is_loopback("")  # numeric only
    assert not is_loopback("::") and not is_loopback("no-such-host.invalid") and not is_loopback("10.0.0.1")
    with served(web_game(SEED), host="0.0.0.0") as server:
        assert not server.loopback and server.host_allowed("evil.example:80")  # beyond this machine: any host


def test_two_host_headers_are_refused(client: Client, game) -> None:
    host = f"{client.host}:{client.port}"
    answer = client.raw(f"GET /api/state HTTP/1.1\r\nHost: {host}\r\nHost: evil.example\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 403")


class _Raises(Agent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise RuntimeError("lost my cards\nand a second line")


class _Illegal(Agent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask == 0)[0])  # an id the mask forbids


class _OutOfRange(Agent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return 10**12


class _NotANumber(Agent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return None  # type: ignore[return-value]


class _Exits(Agent):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        sys.exit(0)


def _game_with_bot(agent: Agent) -> WebGame:
    bots = {1: BotPlayer(agent, 2)}
    return WebGame(Game(2, seed=SEED), 0, bots, [None, "broken"], seed=SEED, delay=0.0)


def _act_until_the_bot_is_asked(client: Client) -> dict[str, Any]:
    for _ in range(200):  # bounded: the human's turn ends within a few choices
        state = client.state()
        if state["bot_error"] or not state["your_turn"]:
            return state
        status, state = client.act(state["token"], len(state["choices"]) - 1)  # the last choice: often Go
        assert status == 200, state
    raise AssertionError("the bot was never asked")


@pytest.mark.parametrize(
    ("agent", "said"),
    [
        (_Raises(), "failed to choose: RuntimeError: lost my cards"),
        (_Illegal(), "chose an action that is not legal now"),
        (_OutOfRange(), "failed to choose: ValueError: action id 1000000000000 is outside"),
        (_NotANumber(), "failed to choose: TypeError"),
        (_Exits(), "failed to choose: SystemExit"),
    ],
)
def test_a_bot_that_fails_stops_the_game_with_the_reason_on_the_page(agent: Agent, said: str, capsys) -> None:
    game = _game_with_bot(agent)
    with served(game) as server:
        client = Client(server)
        state = _act_until_the_bot_is_asked(client)
        assert said in state["bot_error"] and "\n" not in state["bot_error"], state["bot_error"]
        assert not state["your_turn"] and state["choices"] == [] and "stopped" in state["decision"]
        before = game_snapshot(game)
        for _ in range(5):  # every later poll answers, the same, and asks the bot no more
            assert client.state()["bot_error"] == state["bot_error"]
        status, data = client.act(state["token"], 0)
        assert status == 409 and "the game is stopped" in data["error"]
        status, _, record = client.request("GET", "/api/record")
        assert status == 200 and record["players"] == ["human", "broken"]
        assert game_snapshot(game) == before
    assert "Traceback" not in capsys.readouterr().err


def test_the_page_shows_a_bot_error_and_stops_polling() -> None:
    page = page_html("n0nce")
    assert 'id="bot-error"' in page and "state.bot_error" in page
    assert "!state.bot_error) pollTimer" in page


def test_a_failure_while_answering_is_a_500_and_one_line(client: Client, game, monkeypatch, capsys) -> None:
    monkeypatch.setattr(game, "state", lambda: _raise(RuntimeError("a bug\nover two lines")))
    status, _, data = client.request("GET", "/api/state")
    assert status == 500 and data["error"]
    assert "bug" not in data["error"]  # nothing of the server's insides goes to the page
    monkeypatch.undo()
    assert client.state()["token"] == 0  # the server goes on
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "RuntimeError: a bug" in err


def _raise(error: Exception) -> None:
    raise error


BOT_MODULE = """
import numpy as np
from agents.bots.base import Agent

class FailsSoon(Agent):
    def act(self, observation, action_mask):
        raise RuntimeError("this bot gives up")
"""


def test_the_web_command_keeps_a_quiet_terminal_whatever_clients_and_bots_do(tmp_path: Path) -> None:
    (tmp_path / "failing_bot.py").write_text(BOT_MODULE)
    argv = ["--web", "--port", "0", "--bots", "failing_bot:FailsSoon", "--seed", "5", "--delay", "0"]
    restore_ctrl_c = functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{Path(__file__).resolve().parents[1]}"}
    server = subprocess.Popen(
        [sys.executable, "-m", "agents.play", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_ctrl_c,
        env=env,
        cwd=tmp_path,
    )
    assert server.stdout is not None
    try:
        lines = [server.stdout.readline(), server.stdout.readline()]
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", lines[1])
        assert url, lines
        client = Client.__new__(Client)
        client.host, client.port = "127.0.0.1", int(url.group(1))
        _hang_ups(client, 60)
        state = _act_until_the_bot_is_asked(client)
        assert "this bot gives up" in state["bot_error"]
        _hang_ups(client, 10)
        assert client.state()["bot_error"] == state["bot_error"]
        for garbage in [b"\x00\x01garbage\r\n\r\n", b"POST /api/action HTTP/1.1\r\nContent-Length: \xb2\r\n\r\n"]:
            client.raw(garbage)
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert err == "", err[:2000]  # not a traceback, not a line
    assert "The game was left on turn" in out


@pytest.mark.parametrize(("host", "warned"), [("127.1", False), ("2130706433", False), ("0.0.0.0", True)])
def test_the_warning_about_other_machines_follows_the_bound_address(
    host: str, warned: bool, monkeypatch, capsys
) -> None:
    def stop_at_once(self: GameServer, poll_interval: float = 0.5) -> None:
        raise KeyboardInterrupt  # as Ctrl-C would, once the server listens

    monkeypatch.setattr(GameServer, "serve_forever", stop_at_once)
    code = play_main(["--web", "--host", host, "--port", "0", "--bots", "random", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert ("warning: listening on" in out) is warned, out
