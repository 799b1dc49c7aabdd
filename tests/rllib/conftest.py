"""One small two-node Ray cluster for every test of this folder that needs Ray (started once: it is slow)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

RUNNER_RESOURCE = "gubs_runner_node"
"""A custom resource only the second node has: env runners that ask for it are placed there."""


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[object]:
    """A head node and a second node, joined by ``ray.init``; shut down after the session."""
    pytest.importorskip("ray.rllib")
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2, "include_dashboard": False},
    )
    cluster.add_node(num_cpus=2, resources={RUNNER_RESOURCE: 2})
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
