"""The line that announces a cold compile: printed once when numba's cache lacks the code, never when it has it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
import numba as nb


@nb.njit(cache=True)
def twice(x):
    return {body}
"""

CALLER = """
import sys

import tiny
from gubs_env.support.compiling import announce_compiling

first = announce_compiling([tiny.twice], "the tiny kernel", 3)
tiny.twice(2)
again = announce_compiling([tiny.twice], "the tiny kernel", 3)  # once per process, and it is compiled now
print(first, again)
"""


def _run(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]))
    environment.pop("GUBS_QUIET_COMPILE", None)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", CALLER], cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def test_a_cold_cache_is_announced_once_and_a_warm_one_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(MODULE.format(body="2 * x"), encoding="utf-8")
    cold = _run(tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["True", "False"]
    assert cold.stderr.count("compiling the tiny kernel once (about 3 s; cached afterwards)") == 1
    warm = _run(tmp_path)
    assert warm.stdout.split() == ["False", "False"] and "compiling" not in warm.stderr
    # a changed source makes numba's cache stale: compiled again, so announced again
    (tmp_path / "tiny.py").write_text(MODULE.format(body="x + x  # changed"), encoding="utf-8")
    os.utime(tmp_path / "tiny.py", (1, 1))
    stale = _run(tmp_path)
    assert stale.stdout.split() == ["True", "False"]
    quiet = _run(tmp_path, GUBS_QUIET_COMPILE="1")
    assert "compiling" not in quiet.stderr


def test_a_plain_function_is_never_cold() -> None:
    from gubs_env.support.compiling import is_cold

    assert not is_cold(len)


def test_the_engine_announces_the_kernels_a_batch_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    from gubs_env.fast import FastGames, kernels

    asked: list[list[object]] = []
    monkeypatch.setattr(kernels, "_checked", set())
    monkeypatch.setattr(kernels, "announce_compiling", lambda d, what, seconds: asked.append(list(d)))
    games = FastGames(2, num_players=2)
    games.reset(seeds=[0, 1])
    games.step(np.zeros(2, dtype=np.int64))
    games.reset(seeds=[2, 3])
    assert asked == [[kernels.reset_kernel, kernels.step_kernel], [kernels.check_kernel]]


def test_the_vector_env_asks_only_about_kernels_it_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel the env never calls (the batch's action check) stays cold, and must not be announced at every run."""
    import gymnasium as gym

    import gubs_env  # noqa: F401  # registers Gubs-v0
    from gubs_env.fast import kernels, selfplay

    asked: list[object] = []
    monkeypatch.setattr(kernels, "_checked", set())
    monkeypatch.setattr(kernels, "announce_compiling", lambda d, what, seconds: asked.extend(d))
    envs = gym.make_vec("Gubs-v0", num_envs=2, vectorization_mode="vector_entry_point")
    _, info = envs.reset(seed=0)
    for _ in range(3):
        _, _, _, _, info = envs.step(info["action_mask"].argmax(axis=1))
    assert kernels.check_kernel not in asked
    assert set(asked) == {kernels.reset_kernel, kernels.step_kernel, selfplay.selfplay_kernel}


def test_the_heuristic_announces_its_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.bots.heuristic import HeuristicAgent, decide
    from gubs_env.envs.selfplay import SelfPlayEnv

    asked: list[str] = []
    monkeypatch.setattr(decide, "_announce_pending", True)
    monkeypatch.setattr(decide, "announce_compiling", lambda d, what, seconds: asked.append(what))
    env = SelfPlayEnv(num_players=2)
    observation, _ = env.reset(seed=0)
    agent = HeuristicAgent(0)
    agent.act(observation, env.action_masks())
    agent.act(observation, env.action_masks())
    assert asked == ["the heuristic bot"]
