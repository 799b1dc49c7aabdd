"""docs/integrations.md's Tianshou and TorchRL recipes run as written (slow: each trains or collects for seconds;
their packages come with the ``integrations`` extra, which ``dev`` includes). The RLlib recipe is in tests/rllib."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.snippets import ROOT, blocks

pytestmark = pytest.mark.slow


def _block(word: str) -> str:
    (block,) = [b for b in blocks(ROOT / "docs" / "integrations.md") if b.language == "python" and word in b.code]
    return block.code


@pytest.mark.parametrize("package, word", [("tianshou", "from tianshou"), ("torchrl", "from torchrl")])
def test_a_recipe_of_the_docs_runs(package: str, word: str, tmp_path) -> None:
    pytest.importorskip(package)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _block(word)], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()
