"""Shared by the browser game's tests: a served game, and a deal where the human meets an interrupt window."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.bots.registry import make_agent
from agents.play.table import BotPlayer
from agents.play.web.server import GameServer
from agents.play.web.session import WebGame
from gubs_env.engine import Game, Step

WINDOWS = (Step.CANCEL, Step.FLOP, Step.CURE)
"""The decisions taken out of turn: interrupt windows."""
WINDOW_PLAYERS = 3
"""The table size of :func:`window_seed`'s games: the human decides less often than at two (shorter tests)."""
FIRST_SEEDS = (11, *range(100))
"""Seeds tried in order by :func:`window_seed`; 11 was found to work (45 decisions) when the tests were written."""


def web_game(
    seed: int, *, players: int = 2, human: int = 0, delay: float = 0.0, record_path: Path | None = None, clock=None
) -> WebGame:
    """A fresh game with ``random`` bots at every seat but ``human``, built as ``play --web`` builds them."""
    specs: list[str | None] = ["random"] * players
    specs[human] = None
    bots = {s: BotPlayer(make_agent("random", seed=seed * 101 + s), players) for s in range(players) if s != human}
    extra = {"clock": clock} if clock is not None else {}
    return WebGame(
        Game(players, seed=seed), human, bots, specs, seed=seed, delay=delay, record_path=record_path, **extra
    )


@functools.cache
def window_seed() -> int:
    """A seed where the human at seat 0 of :data:`WINDOW_PLAYERS`, always taking choice 0, meets a window."""
    for seed in FIRST_SEEDS:
        game = web_game(seed, players=WINDOW_PLAYERS)
        while not game.game.is_over:
            if game.game.pending.step in WINDOWS:
                return seed
            game.act(game.token, 0)
    raise AssertionError("no seed gave the human an interrupt window")


@contextmanager
def served(game: WebGame, port: int = 0, host: str = "127.0.0.1", **options: Any) -> Iterator[GameServer]:
    """``game`` served on a loopback port (default: a free one) for the duration of the block.

    ``options`` go to :class:`GameServer` (``deadline_s``, ``max_connections``).
    """
    server = GameServer((host, port), game, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
