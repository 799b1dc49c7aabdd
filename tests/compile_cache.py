"""Fill numba's cache before a parallel test run, each compiled unit once, over two processes.

Under ``pytest -n auto`` every worker imports the compiled engine and the compiled heuristic. With a cold cache
(a fresh clone) each worker would compile the same kernels for itself: about two and a half CPU minutes each,
which on 2 cores is most of the run. Compiled here first, in two processes at a time, the work is done once and
split: the engine's core beside the heuristic, then what builds on both (the vector env's loop beside the search's
playouts and whole-game play). Workers then load everything from the cache in about a second.

``tests/conftest.py`` calls :func:`warm_up` from the xdist controller when the cache is cold;
``python -m tests.compile_cache PART`` compiles one part of a stage (what each process runs).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _engine() -> None:
    from gubs_env.fast import FastGames

    games = FastGames(4, 3)
    games.reset()
    games.step(np.argmax(games.mask, axis=1))


def _heuristic() -> None:
    from agents.bots.heuristic import HeuristicAgent
    from agents.evaluate.matches import match

    match(HeuristicAgent(), HeuristicAgent(), 2, games=2, seed=0)


def _vector() -> None:
    from gubs_env.envs.vector import GubsVectorEnv

    vector = GubsVectorEnv(4, 2)
    vector.reset(seed=0)
    for _ in range(5):
        vector.step(np.argmax(vector.action_masks(), axis=1))


def _search_and_play() -> None:
    from agents.bots.registry import make_agent
    from agents.evaluate.matches import match
    from gubs_env.fast.play import play_games

    play_games(range(4), 3)
    match(make_agent("search:worlds=4,top=2"), make_agent("heuristic"), 2, games=1, seed=0)
    match(make_agent("ismcts:iterations=4"), make_agent("heuristic"), 2, games=1, seed=0)


STAGES: list[dict[str, Callable[[], None]]] = [
    {"engine": _engine, "heuristic": _heuristic},
    {"vector": _vector, "search_and_play": _search_and_play},
]
"""Stages run one after the other; the parts of a stage share no compiled function, so they run side by side.
The second stage's parts call the engine's and the heuristic's functions, which the first stage left cached."""


def is_cold() -> bool:
    """Whether the engine's step or the heuristic's decision would compile now (numba's index says so)."""
    from agents.bots.heuristic.decide import _decide
    from gubs_env.fast.kernels import step_kernel
    from gubs_env.support.compiling import is_cold as dispatcher_is_cold

    return dispatcher_is_cold(step_kernel) or dispatcher_is_cold(_decide)


def warm_up(report: Callable[[str], None]) -> None:
    """Compile every stage, its parts in parallel processes; ``report`` gets one line before and one after.

    A part that fails is reported and otherwise ignored: the tests then compile what they need themselves.
    """
    started = time.perf_counter()
    report("numba's cache is cold: compiling the engine and the heuristic once, in two processes (about 70 s)…")
    environment = dict(os.environ, GUBS_QUIET_COMPILE="1")
    for stage in STAGES:
        parts = [
            subprocess.Popen([sys.executable, "-m", "tests.compile_cache", name], cwd=ROOT, env=environment)
            for name in stage
        ]
        for name, part in zip(stage, parts, strict=True):
            if part.wait() != 0:
                report(f"compiling {name!r} ahead failed (status {part.returncode}); the tests compile it themselves")
    report(f"compiled in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    parts = {name: part for stage in STAGES for name, part in stage.items()}
    parts[sys.argv[1]]()
