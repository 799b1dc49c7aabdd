"""A scripted OpenAI-compatible chat server for the tests: ``python -m tests.llm_server --port-file FILE``.

It answers ``POST /v1/chat/completions`` as a real server would (the ``openai`` client cannot tell it from one), with
a behaviour chosen by the request's ``model``, and counts what it served (``GET /stats``). It runs in a process of
its own, so that a test can kill it mid-tournament and start it again on the same port.

Models (every choice depends on the request's messages alone, so a game replayed gets the same answers):

- ``legal``: a listed legal move, its text or its number, after some reasoning and a ``FINAL ANSWER:`` line;
  with no listed moves, ``Go (end turn)``.
- ``bare``: the move's text alone, no marker (for ``reasoning=none``).
- ``illegal``: ``FINAL ANSWER: Fly away`` (no such move); ``number``: ``FINAL ANSWER: 999``.
- ``unparsable``: reasoning without an answer line; ``empty``: an empty reply; ``null``: no content at all.
- ``long``: 60,000 characters of reasoning, then a legal move.
- ``sometimes``: an illegal answer to a decision's first request, a legal one to its retry.
- ``slow``: every fourth request waits longer than the client's time-out (``--slow`` seconds) before answering.
- ``ratelimit``: every second request is refused with 429 (``retry-after-ms`` 10).
- ``error``: every third request fails with 500, every fifth with 503.
- ``garbage``: every second request gets a 200 whose body is not a chat completion.
- ``refuse``: 401, with an error message that quotes a key.
- ``down``: 503, always.

Tokens are counted as characters divided by 4 (at least 1), so a test can add them up exactly.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LEAKED_KEY = "sk-test-THISKEYMUSTNEVERSHOW-0123456789"
"""What the ``refuse`` model's error quotes: a test checks that no output repeats it."""


class Script:
    """The server's state: counters per model, and when to die."""

    def __init__(self, die_after: int | None, slow: float) -> None:
        self.lock = threading.Lock()
        self.requests: dict[str, int] = {}
        self.answered: dict[str, int] = {}
        self.tokens_in: dict[str, int] = {}
        self.tokens_out: dict[str, int] = {}
        self.total = 0
        self.die_after = die_after
        self.slow = slow

    def count(self, model: str) -> int:
        """Count one request of ``model``; its number for that model, from 1."""
        with self.lock:
            self.total += 1
            self.requests[model] = self.requests.get(model, 0) + 1
            return self.requests[model]

    def answer(self, model: str, tokens_in: int, tokens_out: int) -> None:
        with self.lock:
            self.answered[model] = self.answered.get(model, 0) + 1
            self.tokens_in[model] = self.tokens_in.get(model, 0) + tokens_in
            self.tokens_out[model] = self.tokens_out.get(model, 0) + tokens_out

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "total": self.total,
                "requests": self.requests,
                "answered": self.answered,
                "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out,
            }


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def listed_moves(text: str) -> list[str]:
    """The moves the last message lists (``1. Draw``), in order."""
    _, found, listing = text.rpartition("Your legal moves:\n")
    return re.findall(r"^\d+\. (.+)$", listing, flags=re.MULTILINE) if found else []


def pick(text: str, moves: list[str]) -> tuple[int, str]:
    """A move chosen by the message's hash: its number and its text."""
    digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    index = digest % len(moves)
    return index + 1, moves[index]


def reply_for(model: str, number: int, messages: list[dict[str, Any]]) -> str | None:
    """The scripted reply of ``model`` to its ``number``-th request."""
    last = str(messages[-1].get("content", "")) if messages else ""
    decision = next((str(m["content"]) for m in reversed(messages) if "Your hand:" in str(m.get("content"))), last)
    moves = listed_moves(decision)
    if moves:
        place, text = pick(decision, moves)
        legal = text if place % 2 else str(place)
    else:
        legal = "Go (end turn)"
    retrying = "can't be played" in last
    answers = {
        "legal": f"Let me think. The table looks fine.\nFINAL ANSWER: {legal}",
        "bare": legal,
        "illegal": "FINAL ANSWER: Fly away",
        "number": "FINAL ANSWER: 999",
        "unparsable": "I would rather not say.\nIt is a hard choice.",
        "empty": "",
        "null": None,
        "long": "hmm " * 15_000 + f"\nFINAL ANSWER: {legal}",
        "sometimes": f"FINAL ANSWER: {legal}" if retrying else "FINAL ANSWER: Fly away",
    }
    return answers.get(model, f"FINAL ANSWER: {legal}")


class Handler(BaseHTTPRequestHandler):
    """One request (the server's ``script`` attribute holds the state)."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # the base class's name
        """Quiet: the tests read the stats, not a log."""

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up waiting (slow script)
            self.wfile.write(body)

    def do_GET(self) -> None:  # the name http.server calls
        if self.path.rstrip("/") == "/stats":
            self._send(200, json.dumps(self.server.script.stats()).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:  # the name http.server calls
        script: Script = self.server.script
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        model = str(request.get("model", ""))
        number = script.count(model)
        if script.die_after is not None and script.total > script.die_after:
            os._exit(0)  # the server dies mid-tournament: this request gets no answer at all
        if model == "down":
            return self._send(503, b'{"error": {"message": "overloaded"}}')
        if model == "refuse":
            message = {"error": {"message": f"Incorrect API key provided: {LEAKED_KEY}", "type": "auth"}}
            return self._send(401, json.dumps(message).encode())
        if model == "ratelimit" and number % 2 == 0:
            return self._send(429, b'{"error": {"message": "slow down"}}', {"retry-after-ms": "10"})
        if model == "error" and (number % 3 == 0 or number % 5 == 0):
            status = 500 if number % 3 == 0 else 503
            return self._send(status, b'{"error": {"message": "internal"}}', {"retry-after-ms": "10"})
        if model == "garbage" and number % 2 == 0:
            return self._send(200, b'{"id": "x", "object": "chat.completion", "choices": "none"' + b"}")
        if model == "slow" and number % 4 == 0:
            time.sleep(script.slow)
        messages = request.get("messages") or []
        text = reply_for(model, number, messages)
        prompt = sum(tokens(str(m.get("content", ""))) for m in messages)
        completion = tokens(text or "")
        script.answer(model, prompt, completion)
        body = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }
        return self._send(200, json.dumps(body).encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.llm_server")
    parser.add_argument("--port", type=int, default=0, help="the port (0: any free one)")
    parser.add_argument("--port-file", required=True, help="where to write the port once listening")
    parser.add_argument("--die-after", type=int, help="exit without answering the request after this many")
    parser.add_argument("--slow", type=float, default=1.0, help="seconds a slow answer takes")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.script = Script(args.die_after, args.slow)  # type: ignore[attr-defined]
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
