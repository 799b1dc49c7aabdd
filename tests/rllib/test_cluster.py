"""Training on a two-node cluster: env runners on the second node, one killed mid-training, resume.

The default run keeps it short (one env runner, a few tiny iterations); the soak test runs the command line
against the cluster's address with two env runners, shipping the code as on a real cluster.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray
from ray import cloudpickle

from agents.training.core.runs import RUN_FILE, RunState, commit_checkpoint, verified_checkpoint_folder
from agents.training.rllib.backend import RllibBackend
from tests.rllib.conftest import RUNNER_RESOURCE
from tests.rllib.test_training import SNAPSHOT, TINY, tiny_config

# RLlib registers its env wrapper with gymnasium again for every algorithm built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

ROOT = Path(__file__).resolve().parents[2]
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import the tests


def runner_facts(env_runner) -> dict:
    """Where an env runner lives and the league it holds."""
    seating = env_runner._tables.seating
    return {
        "node": ray.get_runtime_context().get_node_id(),
        "pid": os.getpid(),
        "snapshots": [name for name, _ in seating.snapshots],
        "first layer": [weights.layers[0][0].sum() for _, weights in seating.snapshots],
        "draws": list(seating.draw_weights),
    }


def remote_facts(backend: RllibBackend) -> list[dict]:
    return backend.algorithm.env_runner_group.foreach_env_runner(runner_facts, local_env_runner=False)


def second_node(cluster) -> str:
    return cluster.list_all_nodes()[1].node_id


def on_the_second_node(config) -> RllibBackend:
    """The backend of ``config``, its env runner placed on the second node."""
    from agents.training.rllib import backend

    built = backend.build_config

    def placed(config):
        return built(config).env_runners(custom_resources_per_env_runner={RUNNER_RESOURCE: 1})

    original, backend.build_config = backend.build_config, placed
    try:
        return RllibBackend(config)
    finally:
        backend.build_config = original


def test_env_runner_on_second_node_killed_then_training_goes_on_and_resumes(ray_cluster, tmp_path):
    config = tiny_config("--env-runners", "1", "--self-share", "0.5")
    backend = on_the_second_node(config)
    try:
        league = [("step_000000001.npz", SNAPSHOT), ("step_000000002.npz", SNAPSHOT)]
        backend.set_league(league, [1.0, 0.5])
        facts = remote_facts(backend)
        assert [f["node"] for f in facts] == [second_node(ray_cluster)]
        assert facts[0]["snapshots"] == ["step_000000001.npz", "step_000000002.npz"] and facts[0]["draws"] == [1, 0.5]
        backend.iterate()
        os.kill(facts[0]["pid"], signal.SIGKILL)
        trained = 0
        # the iteration that meets the dead runner, then on until its replacement is up: a restart takes seconds on
        # a quiet machine and close to a minute on a busy one, so the wait is long and ends as soon as it is back
        give_up = time.monotonic() + 300
        while time.monotonic() < give_up:
            backend.iterate()
            trained += 1
            if backend.algorithm.env_runner_group.num_healthy_remote_workers() == 1 and trained >= 2:
                break
            time.sleep(0.5)
        after = remote_facts(backend)
        assert after[0]["pid"] != facts[0]["pid"] and after[0]["node"] == second_node(ray_cluster)
        assert after[0]["snapshots"] == facts[0]["snapshots"] and after[0]["draws"] == facts[0]["draws"]
        assert np.allclose(after[0]["first layer"], facts[0]["first layer"])  # the league the algorithm keeps
        for _ in range(4):  # the restarted runner plays the league's seats and hands its games back
            step = backend.iterate()
            if any(label.startswith("snapshot:") for game in step.games for label in game.labels):
                break
        assert any(label.startswith("snapshot:") for game in step.games for label in game.labels)
        # resume: what the checkpoint holds comes back after more training moved on
        commit_checkpoint(tmp_path, RunState(backend="rllib", timesteps=1), backend.save)
        saved = backend.policy()
        backend.iterate()
        backend.load(verified_checkpoint_folder(tmp_path, RunState.load(tmp_path / RUN_FILE)))
        for (weight, bias), (again, again_bias) in zip(saved.layers, backend.policy().layers, strict=True):
            np.testing.assert_array_equal(weight, again)
            np.testing.assert_array_equal(bias, again_bias)
    finally:
        backend.close()


@pytest.mark.soak
def test_command_line_joins_the_cluster_address_with_two_env_runners(ray_cluster, tmp_path):
    # a separate driver process, as on a real cluster: it joins by address and ships the project's code
    out = tmp_path / "run"
    common = [sys.executable, "train.py", *TINY, "--out", str(out), "--env-runners", "2"]
    common += ["--address", ray_cluster.address, "--self-share", "0.5", "--snapshot-every", "150"]
    for extra in (["--iterations", "4", "--eval-every", "2"], ["--iterations", "6", "--resume"]):
        done = subprocess.run([*common, *extra], capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "resuming" in done.stdout
    state = RunState.load(out / RUN_FILE)
    assert state.iterations == 6 and len(state.snapshots) >= 2
    assert (out / "policy.npz").is_file()
