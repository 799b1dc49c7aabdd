"""docs/integrations.md's RLlib recipe runs as written: RLlib's own PettingZooEnv and action-masking module on
``gubs_env.env()`` through the project's adapter. Also the adapter itself, without Ray."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import gubs_env
from gubs_env.envs.adapters import RLlibObservations
from tests.snippets import ROOT, blocks

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_adapter_renames_the_keys_and_changes_nothing_else():
    plain, renamed = gubs_env.env(num_players=3), RLlibObservations(gubs_env.env(num_players=3))
    plain.reset(seed=5)
    renamed.reset(seed=5)
    rng = np.random.default_rng(0)
    for agent in renamed.agent_iter():
        ours, reward, terminated, truncated, _ = renamed.last()
        theirs, their_reward = plain.last()[:2]
        assert renamed.observation_space(agent).contains(ours) and reward == their_reward
        np.testing.assert_array_equal(ours["observations"], theirs["observation"])
        np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"].astype(np.float32))
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(ours["action_mask"])))
        renamed.step(action)
        plain.step(action)
    assert renamed.unwrapped.game.winners() == plain.unwrapped.game.winners()


def test_the_rllib_recipe_of_the_docs_runs(tmp_path):
    (block,) = [b for b in blocks(ROOT / "docs" / "integrations.md") if "import ray" in b.code]
    done = subprocess.run(
        [sys.executable, "-c", block.code], capture_output=True, text=True, timeout=600, cwd=tmp_path,
        # a Ray of its own: this session's test cluster may be running, and ray.init() would join it
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "RAY_ADDRESS": "local"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert float(done.stdout.strip().splitlines()[-1]) > 0  # the policy's entropy after one update
