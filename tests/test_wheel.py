"""A wheel built from the repository works outside the checkout: its data files are in it, its commands start.

Slow (it builds and installs the package): run with ``python -m pytest -m slow tests/test_wheel.py``. The wheel is
installed with ``--no-deps`` into a virtual environment that sees this interpreter's packages (torch, numba, ...),
and the commands run in an empty folder, so nothing is read from the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_the_wheel_installs_and_runs_the_quick_starts_outside_the_checkout(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-w", str(wheels)],
        tmp_path,
    )
    (wheel,) = wheels.glob("gubs_env-*.whl")
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel), "-q"], tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = _run(
        [str(python), "-c", "import agents, gubs_env; print(agents.__file__, gubs_env.__file__)"], outside, env
    )
    assert str(ROOT) not in where.stdout and "site-packages" in where.stdout
    # the shipped models load from the wheel; the README's notebook snippet and a benchmark run
    snippet = (
        "import gubs_env\n"
        "from agents import make_agent\n"
        "env = gubs_env.env(num_players=3)\n"
        "env.reset(seed=0)\n"
        "specs = ('gubs-net', 'selfplay-2p', 'heuristic-tuned')\n"
        "bots = dict(zip(env.agents, [make_agent(s, seed=0) for s in specs]))\n"
        "for agent in env.agent_iter():\n"
        "    obs, reward, terminated, truncated, info = env.last()\n"
        "    env.step(None if terminated or truncated else bots[agent].act(obs['observation'], obs['action_mask']))\n"
        "print('winners', env.unwrapped.game.winners())\n"
    )
    assert "winners" in _run([str(python), "-c", snippet], outside, env).stdout
    scripts = tmp_path / "venv" / "bin"
    _run(
        [
            str(scripts / "gubs-eval"),
            "gubs-net",
            "random",
            "--players",
            "2",
            "--games",
            "8",
            "--no-progress",
            "--out",
            str(outside / "results"),
        ],
        outside,
        env,
    )
    assert (outside / "results" / "tournament.json").is_file()
    run = outside / "runs" / "quick"
    _run(
        [
            str(scripts / "gubs-train"),
            "--steps",
            "4096",
            "--imitate-games",
            "10",
            "--eval-games",
            "4",
            "--no-progress",
            "--out",
            str(run),
        ],
        outside,
        env,
    )
    assert (run / "policy.npz").is_file()
