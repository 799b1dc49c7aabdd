"""The browser game's HTTP server: one page and a small JSON API over a :class:`~agents.play.web.session.WebGame`.

Routes (anything else is 404; methods other than GET and POST are 405)::

    GET  /             the page
    GET  /api/state    the game as the human sees it (bots make the moves that are due first)
    GET  /api/record   the game so far as a JSON record, to download
    POST /api/action   {"token": <int>, "choice": <int>}: take one of the legal actions shown with that token
    POST /api/save     {}: write the record to the --record file

Every request is checked before it reaches the game: the Host header must name this server when it listens on
the loopback address (so another site cannot reach it through DNS rebinding), a POST must come from this page's
origin when the browser says where it comes from, carry ``Content-Type: application/json`` and a
``Content-Length`` of at most :data:`MAX_BODY` bytes, and its body must be strict JSON (no NaN, no repeated
keys) with exactly the expected keys. A refusal is a JSON ``{"error": ...}`` with a 4xx status, and changes
nothing. No file is served from disk.

Whatever a client or a bot does, the terminal of the person playing shows no traceback: a client that hangs up
or stalls is dropped without a word, each connection is held at most :data:`CONNECTION_DEADLINE_S` seconds
and at most :data:`MAX_CONNECTIONS` at once, a bot that fails stops the game with the reason on the page
(:mod:`agents.play.web.session`), and anything else that goes wrong answers 500 and prints one line.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import re
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from agents.play.table import DEFAULT_DELAY, set_table
from agents.play.web.options import DEFAULT_HOST, DEFAULT_PORT, address_is_loopback
from agents.play.web.page import page_html
from agents.play.web.session import RequestError, WebGame
from gubs_env.support import strict_json
from gubs_env.support.cli import EXIT_FAILURE

MAX_BODY = 1024
"""The largest request body accepted, in bytes (an action needs about 30)."""
REQUEST_TIMEOUT_S = 10
"""A client that sends nothing for this long is dropped."""
CONNECTION_DEADLINE_S = 20.0
"""A connection still open this long after it was accepted is closed, however slowly its client keeps sending:
one byte every few seconds would otherwise hold a thread for ever, each byte renewing :data:`REQUEST_TIMEOUT_S`."""
MAX_CONNECTIONS = 64
"""Connections served at once; one more is closed unanswered (a page polls on one connection at a time)."""
JSON_TYPE = "application/json"
_DIGITS = re.compile(r"[0-9]{1,9}")
"""A Content-Length: ASCII digits only (``str.isdigit`` takes "²" too, which ``int`` refuses), below a gigabyte."""


class GameServer(ThreadingHTTPServer):
    """A threaded HTTP server holding one :class:`WebGame`.

    Args:
        address: ``(host, port)`` to listen on; port 0 picks a free port (see :attr:`url`).
        game: the game to serve.
        quiet: do not log each request to stderr.
        deadline_s: seconds a connection may stay open (:data:`CONNECTION_DEADLINE_S`).
        max_connections: connections served at once (:data:`MAX_CONNECTIONS`).
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        game: WebGame,
        *,
        quiet: bool = True,
        deadline_s: float = CONNECTION_DEADLINE_S,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        host = address[0]
        if ":" in host:  # an IPv6 address
            self.address_family = socket.AF_INET6
        self.connection_deadline_s = deadline_s
        self._slots = threading.BoundedSemaphore(max_connections)
        self._holding: set[int] = set()
        """The connections (by ``id``) that hold a slot: each gives its slot back once, whoever gets there first."""
        self._holding_lock = threading.Lock()
        super().__init__(address, GameHandler)
        self.game = game
        self.quiet = quiet
        self.host = host
        self.port = int(self.server_address[1])
        # decided from the address the socket is bound to, not from how it was written: 127.1, 2130706433,
        # ::ffff:127.0.0.1 and localhost. all end up on loopback, and must all keep the Host check on
        self.loopback = address_is_loopback(str(self.server_address[0]))
        """Whether the server listens on this machine only: then the Host header must name it."""
        in_url = f"[{host}]" if ":" in host else host
        local = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, in_url)  # every address: this machine's works
        self.url = f"http://{local}:{self.port}/"

    def host_allowed(self, header: str) -> bool:
        """Whether a request's Host header may reach the game.

        Beyond this machine, any. On loopback only this server's port at a loopback address (``127.0.0.1``,
        ``[::1]``, ...), ``localhost`` or the host it was started with: a page of another site that had its
        name point at 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
        """
        if not self.loopback:
            return True
        name, port = _split_host(header)
        if port != self.port and not (port is None and self.port == 80):
            return False
        name = name.lower()
        return name in {self.host.lower(), "localhost", "localhost."} or address_is_loopback(name)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a thread of its own, unless :data:`MAX_CONNECTIONS` are served already."""
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # closed unanswered: a flood must not start a thread per connection
            return
        with self._holding_lock:
            self._holding.add(id(request))
        try:
            super().process_request(request, client_address)
        except BaseException:
            # no thread started, or one did and an interrupt (Ctrl-C) came after: the slot is given back once
            self._free_slot(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection (in its thread), then free its slot."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._free_slot(request)

    def _free_slot(self, request: Any) -> None:
        """Give ``request``'s slot back, if it still holds one (a second call does nothing)."""
        with self._holding_lock:
            if id(request) not in self._holding:
                return
            self._holding.discard(id(request))
        self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report an error that escaped a request in one line; a client that hung up or stalled, not at all.

        The base class prints a traceback, on the terminal of the person playing: a closed tab mid-poll
        (ConnectionResetError, BrokenPipeError) is no error of theirs.
        """
        error = sys.exc_info()[1]
        if error is None or client_gone(error):
            return
        report(error)


def client_gone(error: BaseException) -> bool:
    """Whether ``error`` is the connection failing (the client hung up or stalled), not the server."""
    if isinstance(error, ConnectionError | TimeoutError):  # reset, broken pipe, aborted; a read timed out
        return True
    # a socket shut at its deadline, or closed under a read or write
    return isinstance(error, OSError) and error.errno in (errno.ENOTCONN, errno.EBADF, errno.ESHUTDOWN)


def report(error: BaseException) -> None:
    """One line on stderr for an error while answering a request (never a traceback)."""
    lines = str(error).strip().splitlines()
    detail = f": {lines[0][:200]}" if lines else ""
    with contextlib.suppress(OSError, ValueError):  # stderr itself gone: nowhere left to say it
        print(f"web server: error while answering a request: {type(error).__name__}{detail}", file=sys.stderr)


def _split_host(header: str) -> tuple[str, int | None]:
    """A Host header as ``(name, port)``; the port is None when absent, -1 when it is no port number."""
    if header.startswith("["):  # [IPv6]:port
        end = header.find("]")
        if end < 0:
            return header, -1
        name, rest = header[1:end], header[end + 1 :]
        if not rest:
            return name, None
        if not rest.startswith(":"):
            return name, -1
        port_text = rest[1:]
    else:
        name, colon, port_text = header.rpartition(":")
        if not colon:
            return header, None
    return name, int(port_text) if _DIGITS.fullmatch(port_text) else -1


class GameHandler(BaseHTTPRequestHandler):
    """Answers one request (see the module docstring for the routes and the checks)."""

    server: GameServer
    server_version = "gubs-web"
    default_request_version = "HTTP/1.0"  # so even a garbled request line gets a status line and headers
    timeout = REQUEST_TIMEOUT_S

    # --- routing ------------------------------------------------------------------------------------------

    def setup(self) -> None:
        """Start the connection's deadline: past it the socket is shut, and the thread serving it ends."""
        super().setup()
        self.connection.settimeout(min(REQUEST_TIMEOUT_S, self.server.connection_deadline_s))
        self._deadline = threading.Timer(self.server.connection_deadline_s, self._hang_up)
        self._deadline.daemon = True
        self._deadline.start()

    def finish(self) -> None:
        """Close the connection's files and stop its deadline."""
        try:
            super().finish()
        finally:
            self._deadline.cancel()

    def _hang_up(self) -> None:
        # shutting the socket wakes the read or write the thread is blocked in, which then fails quietly
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def do_GET(self) -> None:
        """Serve the page, the state or the record."""
        routes = {"/": self._send_page, "/api/state": self._send_state, "/api/record": self._send_record}
        self._answer(routes)

    def do_POST(self) -> None:
        """Take an action or save the record."""
        self._answer({"/api/action": self._take_action, "/api/save": self._save_record})

    def _answer(self, routes: dict[str, Callable[[], None]]) -> None:
        """Check the request's origin, then answer it with its route; a refusal or a failure becomes JSON."""
        if not self._host_ok():
            return
        route = routes.get(self.path.split("?", 1)[0])  # a query string is ignored; the path must match exactly
        try:
            if route is None:
                self._send_json({"error": "there is no such page"}, HTTPStatus.NOT_FOUND)
            else:
                route()
        except RequestError as err:
            self._send_json({"error": str(err)}, err.status)
        except Exception as err:  # a bug: the page is told, the terminal gets one line, the server goes on
            if client_gone(err):
                raise  # the server drops the connection without a word (GameServer.handle_error)
            report(err)
            self.close_connection = True
            self._send_json({"error": "the server failed to answer (its terminal says why)"}, 500)

    def _send_state(self) -> None:
        self._send_json(self.server.game.state())

    def _take_action(self) -> None:
        request = self._read_json({"token", "choice"})
        self._send_json(self.server.game.act(request["token"], request["choice"]))

    def _save_record(self) -> None:
        self._read_json(set())
        self._send_json({"saved": self.server.game.save()})

    def _refuse_method(self) -> None:
        self._send_json(
            {"error": f"method {self.command} is not allowed: use GET or POST"},
            HTTPStatus.METHOD_NOT_ALLOWED,
            {"Allow": "GET, POST"},
        )

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = do_HEAD = _refuse_method

    # --- checks -------------------------------------------------------------------------------------------

    def _host_ok(self) -> bool:
        """Refuse a Host header naming another server, and a POST from another origin; False when refused."""
        host = self.headers.get("Host", "")
        if len(self.headers.get_all("Host", [])) > 1 or not self.server.host_allowed(host):
            self._send_json({"error": "this server answers only for its own address"}, HTTPStatus.FORBIDDEN)
            return False
        origin = self.headers.get("Origin")
        if self.command == "POST" and origin is not None and origin != f"http://{host}":
            self._send_json({"error": "requests from other sites are refused"}, HTTPStatus.FORBIDDEN)
            return False
        return True

    def _read_json(self, keys: set[str]) -> dict[str, Any]:
        """The request body: a strict JSON object with exactly ``keys``.

        Raises:
            RequestError: wrong content type, no or bad length, too big, not JSON, or not the expected keys.
        """
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != JSON_TYPE:
            raise RequestError(f"send the request as {JSON_TYPE}", HTTPStatus.UNSUPPORTED_MEDIA_TYPE)
        length = content_length(self.headers)
        if length > MAX_BODY:
            self.close_connection = True  # the unread body must not be taken for the next request
            raise RequestError(f"the body is {length} bytes; at most {MAX_BODY} are accepted", 413)
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True
            raise RequestError("the body did not arrive in time", HTTPStatus.REQUEST_TIMEOUT) from None
        if len(body) != length:
            self.close_connection = True
            raise RequestError("the body is shorter than its Content-Length")
        return parse_request(body, keys)

    # --- answers ------------------------------------------------------------------------------------------

    def _send_page(self) -> None:
        nonce = secrets.token_urlsafe(18)
        policy = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; img-src data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        headers = {"Content-Security-Policy": policy}
        self._send(page_html(nonce).encode(), "text/html; charset=utf-8", HTTPStatus.OK, headers)

    def _send_record(self) -> None:
        record = self.server.game.record()
        name = f"gubs-seed-{record.seed}.json"
        body = (json.dumps(record.to_dict(), indent=1) + "\n").encode()
        self._send(body, "application/json", HTTPStatus.OK, {"Content-Disposition": f'attachment; filename="{name}"'})

    def _send_json(
        self, data: dict[str, Any], status: int = HTTPStatus.OK, headers: dict[str, str] | None = None
    ) -> None:
        self._send(json.dumps(data).encode(), "application/json; charset=utf-8", status, headers or {})

    def _send(self, body: bytes, kind: str, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        if "Content-Security-Policy" not in headers:  # a JSON answer opened as a page runs and loads nothing
            self.send_header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer the base class's own refusals (bad request line, unknown method, ...) in JSON, never as HTML.

        Its message is left out: it quotes the request, and nothing a client sends is echoed back.
        """
        self.close_connection = True
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._send_json({"error": f"{phrase} (a malformed or unsupported request)"}, code)

    def version_string(self) -> str:
        """The Server header: the name only, no Python version."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        """Log a request to stderr, unless the server is quiet."""
        if not self.server.quiet:
            super().log_message(format, *args)


def content_length(headers: Message) -> int:
    """The length a request's headers give its body: one ``Content-Length`` of ASCII digits, no chunks.

    The one place the server reads a length, so no header can reach ``int`` unchecked.

    Raises:
        RequestError: chunked, no length, several lengths, or one that is not a whole number below a gigabyte.
    """
    if headers.get("Transfer-Encoding") is not None:
        raise RequestError("send the body with a Content-Length, not in chunks", HTTPStatus.LENGTH_REQUIRED)
    lengths = headers.get_all("Content-Length", [])
    if not lengths:
        raise RequestError("a Content-Length is required", HTTPStatus.LENGTH_REQUIRED)
    if len(lengths) > 1:  # which one a proxy would believe is anyone's guess: refuse them all
        raise RequestError("send one Content-Length, not several")
    text = str(lengths[0]).strip()
    if not _DIGITS.fullmatch(text):
        raise RequestError("the Content-Length must be a whole number of bytes, in ASCII digits")
    return int(text)


def parse_request(body: bytes, keys: set[str]) -> dict[str, Any]:
    """A request body as a JSON object with exactly ``keys``.

    Strict: UTF-8 only; no NaN or Infinity; no key given twice; nothing before or after the object.

    Raises:
        RequestError: the body is anything else (the message says what is wrong).
    """
    try:
        data = strict_json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise RequestError(f"the body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise RequestError(f"the body must be a JSON object, not {type(data).__name__}")
    if set(data) != keys:
        expected = ", ".join(sorted(keys)) or "no keys"
        raise RequestError(f"the body must have exactly these keys: {expected}")
    return data


def run_web(parser: argparse.ArgumentParser, args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Serve the game the play command's ``args`` describe until Ctrl-C; returns the exit status.

    Bad bot specs and seats are parser errors (exit status 2), as in the terminal game; a port that cannot be
    opened is exit status 1.
    """
    out = out or sys.stdout
    specs, seed, bots, game = set_table(parser, args)
    human = specs.index(None)
    delay = args.delay if args.delay is not None else DEFAULT_DELAY
    web_game = WebGame(game, human, bots, specs, seed=seed, delay=delay, record_path=args.record)
    host = args.host if args.host is not None else DEFAULT_HOST
    port = args.port if args.port is not None else DEFAULT_PORT
    try:
        server = GameServer((host, port), web_game)
    except OSError as err:
        print(f"{parser.prog}: error: cannot listen on {host} port {port}: {err.strerror or err}", file=sys.stderr)
        return EXIT_FAILURE
    if not server.loopback:  # from the address bound, however it was written
        print(f"warning: listening on {host}: anyone who can reach this address can play your seat", file=out)
    print(f"Gubs, {args.players} players, seed {seed}, you at seat {human}.", file=out)
    print(f"Open {server.url} in a browser to play; Ctrl-C stops the server.", file=out, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nServer stopped.", file=out)
    finally:
        server.server_close()
    return _closing_words(web_game, seed, out)


def _closing_words(web_game: WebGame, seed: int, out: TextIO) -> int:
    """Print how the game stands and save the record if asked (once more when the game was left early)."""
    game = web_game.game
    print("The game is over." if game.is_over else f"The game was left on turn {game.state.turn}.", file=out)
    print(f"Seed: {seed} (play this deal again with --seed {seed})", file=out)
    if web_game.record_path is None:
        return 0
    try:
        print(web_game.save(), file=out)
    except RequestError as err:
        print(str(err), file=out)
        return 1
    return 0
