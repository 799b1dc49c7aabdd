"""Shared helpers for tests: set a table, act by text, read zones."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gubs_env.engine import Game
from gubs_env.engine.positions import position

FLOAT32: dict[str, float] = {"rel": 1e-5, "abs": 1e-6}
"""``pytest.approx``'s tolerance for a float32 result of a few operations (``approx(x, **FLOAT32)``).

float32 keeps about 7 digits (machine epsilon 1.2e-7), and numpy's and torch's vector kernels (BLAS, the SIMD
``exp`` and ``tanh``) are chosen per processor, so the last digits of a float32 result differ between CPUs. A
float32 result is never compared exactly, nor with ``approx``'s default absolute tolerance of 1e-12.
"""
NETWORK: dict[str, float] = {"rtol": 1e-4, "atol": 1e-4}
"""``np.testing.assert_allclose``'s tolerance for a network's outputs computed two ways (numpy and torch, batched
and one by one): a 256-wide float32 dot product sums terms larger than its result in an order each BLAS chooses."""


def float32_sum(terms: int, magnitude: float = 1.0) -> dict[str, float]:
    """``pytest.approx``'s tolerance for a sum of ``terms`` float32 values of at most ``magnitude``, in any order.

    Each value carries up to half an ulp of rounding (6e-8 of its magnitude), and so may each addition: ``terms``
    of each bound the error by ``terms * magnitude * 1.2e-7``, doubled for margin.
    """
    return {"rel": 1e-5, "abs": 2.4e-7 * max(terms, 1) * magnitude}


def games_under_way(players: int, most_moves: int, seeds: range = range(3)) -> Iterator[Game]:
    """Per seed, a game dealt with it after 5 to ``most_moves`` random legal moves (a game that ended is skipped)."""
    import numpy as np

    for seed in seeds:
        game = Game(players, seed=seed, record_log=False)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(5, most_moves))):
            game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
            if game.is_over:
                break
        if not game.is_over:
            yield game


def one_world(game: Game) -> tuple[Any, Any]:
    """``game`` as the search's worlds hold it: one compiled row and its generator, its true deck order kept."""
    import numpy as np

    from gubs_env.fast import layout, state_to_row

    world = np.empty((1, layout.ROW), dtype=np.int32)
    world_rng = np.empty((1, 6), dtype=np.uint64)
    state_to_row(game.state, world[0], world_rng[0])
    return world, world_rng


def playout_value(final: Game, seat: int) -> float:
    """What the search's playouts score a finished game for ``seat``: its share of the win, plus the margin's weight."""
    from agents.bots.search.rollout import MARGIN_WEIGHT

    won = final.winners()
    share = (1 / len(won) if seat in won else 0.0) if not final.truncated else 0.0
    margin = final.scores()[seat] - max(s for i, s in enumerate(final.scores()) if i != seat)
    return share + MARGIN_WEIGHT * margin


def table(**kwargs: Any) -> Game:
    """A game at a hand-set position (see gubs_env.engine.positions.position)."""
    return Game.from_dict(position(**kwargs))


def act(game: Game, *texts: str) -> Game:
    """Apply actions given by their readable text, in order."""
    for text in texts:
        game.apply(text)
    return game


def legal_texts(game: Game) -> list[str]:
    """The legal actions as text."""
    return [str(a) for a in game.legal_actions()]


def zones(game: Game) -> dict[str, Any]:
    """The public and private zones of the state dict (everything but rng, options and seen)."""
    d = game.to_dict()
    return {k: d[k] for k in ("deck", "discard", "letters", "hands", "sides")}


def side(
    free: int = 0,
    elder: bool = False,
    protected: dict[str, int] | None = None,
    spouted: int = 0,
    rings: list[str] | None = None,
) -> dict[str, Any]:
    """A side dict as to_dict() writes it."""
    return {"free": free, "elder": elder, "protected": protected or {}, "spouted": spouted, "rings": rings or []}
