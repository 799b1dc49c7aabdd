"""The reference engine, the environments and the engine benchmark's reference rows never import numba."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "modules",
    ["gubs_env.engine", "gubs_env.encoding.observation, gubs_env.encoding.action_table", "benchmarks.engine_speed"],
)
def test_reference_side_does_not_import_numba(modules: str) -> None:
    code = f"import sys, {modules}; print('numba' in sys.modules, 'gubs_env.fast' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.split() == ["False", "False"]


def test_fast_engine_leaves_a_users_thread_policy_alone() -> None:
    code = (
        "import os; os.environ['OMP_WAIT_POLICY'] = 'ACTIVE'; import gubs_env.fast; "
        "print(os.environ['OMP_WAIT_POLICY'])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "ACTIVE"
