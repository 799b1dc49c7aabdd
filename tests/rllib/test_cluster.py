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

from agents.training.core.league import League
from agents.training.core.runs import RUN_FILE, RunState, commit_checkpoint, verified_checkpoint_folder
from agents.training.rllib import selfplay
from tests.rllib.conftest import RUNNER_RESOURCE
from tests.rllib.test_training import TINY, build, tiny_config

# RLlib registers its env wrapper with gymnasium again for every algorithm built in one process
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

ROOT = Path(__file__).resolve().parents[2]
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import the tests


def runner_facts(env_runner) -> dict:
    """Where an env runner lives and which snapshots it holds."""
    from agents.training.rllib import selfplay as remote_selfplay

    slots = list(remote_selfplay.ACTIVE_SNAPSHOTS)
    return {
        "node": ray.get_runtime_context().get_node_id(),
        "pid": os.getpid(),
        "slots": slots,
        "weights": {slot: env_runner.module[slot].get_state() for slot in slots},
        "draws": list(remote_selfplay.SNAPSHOT_WEIGHTS),
    }


def remote_facts(algorithm) -> list[dict]:
    return algorithm.env_runner_group.foreach_env_runner(runner_facts, local_env_runner=False)


def second_node(cluster) -> str:
    return cluster.list_all_nodes()[1].node_id


def test_env_runner_on_second_node_killed_then_training_goes_on_and_resumes(ray_cluster, tmp_path):
    config = tiny_config("--env-runners", "1", "--eval-every", "1000000", "--snapshot-every", "1")
    on_second_node = {RUNNER_RESOURCE: 1}
    algorithm = build(config, runner_resources=on_second_node)
    try:
        facts = remote_facts(algorithm)
        assert [f["node"] for f in facts] == [second_node(ray_cluster)]
        algorithm.train()
        os.kill(facts[0]["pid"], signal.SIGKILL)
        trained_on = []
        # the iteration that meets the dead runner, then on until its replacement is up: a restart takes seconds on
        # a quiet machine and close to a minute on a busy one, so the wait is long and ends as soon as it is back
        give_up = time.monotonic() + 300
        while time.monotonic() < give_up:
            result = algorithm.train()
            trained_on.append(result["learners"]["main"]["num_module_steps_trained"])
            if algorithm.env_runner_group.num_healthy_remote_workers() == 1 and len(trained_on) >= 2:
                break
            time.sleep(0.5)
        assert algorithm.env_runner_group.num_healthy_remote_workers() == 1
        print("iterations until the env runner was back:", len(trained_on), trained_on)
        after = remote_facts(algorithm)
        assert after[0]["pid"] != facts[0]["pid"] and after[0]["node"] == second_node(ray_cluster)
        assert after[0]["slots"] == selfplay.ACTIVE_SNAPSHOTS and after[0]["slots"]
        learner = algorithm.learner_group.get_weights(module_ids=after[0]["slots"])
        for slot, weights in after[0]["weights"].items():
            for key, value in weights.items():
                np.testing.assert_array_equal(np.asarray(value), np.asarray(learner[slot][key]))
        # resume: what the checkpoint holds comes back after more training moved on, snapshots included
        state = RunState(
            backend="rllib", iterations=len(trained_on) + 1, snapshots=list(selfplay.ACTIVE_SNAPSHOTS), timesteps=1
        )
        commit_checkpoint(tmp_path, state, lambda path: algorithm.save_to_path(str(path.resolve())))
        saved = algorithm.learner_group.get_weights(module_ids=["main"])["main"]
        algorithm.train()
        committed = RunState.load(tmp_path / RUN_FILE)
        algorithm.restore_from_path(str(verified_checkpoint_folder(tmp_path, committed).resolve()))
        selfplay.push_snapshots(algorithm, committed.snapshots)
        restored = algorithm.learner_group.get_weights(module_ids=["main"])["main"]
        for key, value in saved.items():
            np.testing.assert_array_equal(np.asarray(value), np.asarray(restored[key]))
        assert remote_facts(algorithm)[0]["slots"] == state.snapshots
        # the league: the second node's env runner tallies its episodes, and takes the driver's drawing weights
        league = League()
        for _ in range(10):
            algorithm.train()
            selfplay.update_league(algorithm, league)
            if league.records:
                break
        assert league.seats.get("snapshots") and sum(league.shares().values()) == pytest.approx(1.0)
        assert remote_facts(algorithm)[0]["draws"] == league.weights(selfplay.ACTIVE_SNAPSHOTS)
    finally:
        algorithm.stop()


@pytest.mark.soak
def test_command_line_joins_the_cluster_address_with_two_env_runners(ray_cluster, tmp_path):
    # a separate driver process, as on a real cluster: it joins by address and ships the project's code
    out = tmp_path / "run"
    common = [sys.executable, "train.py", "--backend", "rllib", *TINY, "--out", str(out), "--env-runners", "2"]
    common += ["--address", ray_cluster.address, "--snapshot-every", "150"]
    for extra in (["--iterations", "4", "--eval-every", "2"], ["--iterations", "6", "--resume"]):
        done = subprocess.run([*common, *extra], capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "resuming" in done.stdout
    state = RunState.load(out / RUN_FILE)
    assert state.iterations == 6 and len(state.snapshots) >= 2
    assert (out / "policy.npz").is_file()
