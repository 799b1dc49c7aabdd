"""docs/integrations.md's recipes run as written: Tianshou, TorchRL, AgileRL's DQN and multi-agent PPO, PufferLib
(slow: each trains or collects for seconds; their packages come with the ``integrations`` extra, which ``dev``
includes). The AgileRL and PufferLib recipes set ``on_illegal="raise"``, so a run that ends well chose no illegal
id. The RLlib recipe is in tests/rllib."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from tests.snippets import ROOT, blocks

pytestmark = pytest.mark.slow


def _block(word: str) -> str:
    (block,) = [b for b in blocks(ROOT / "docs" / "integrations.md") if b.language == "python" and word in b.code]
    return block.code


def _run(code: str, cwd) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("package, word", [("tianshou", "from tianshou"), ("torchrl", "from torchrl")])
def test_a_recipe_of_the_docs_runs(package: str, word: str, tmp_path) -> None:
    pytest.importorskip(package)
    assert _run(_block(word), tmp_path).strip()


def test_agilerls_dqn_trains_in_self_play_against_frozen_copies(tmp_path) -> None:
    pytest.importorskip("agilerl")
    out = _run(_block("from agilerl.algorithms.dqn"), tmp_path)
    decisions, games, wins = map(int, re.search(r"(\d+) learner decisions, (\d+) games, (\d+) won", out).groups())
    assert decisions == 4000 and 10 < games < 100 and 0 <= wins <= games


def test_agilerls_multi_agent_ppo_trains_on_the_parallel_view(tmp_path) -> None:
    pytest.importorskip("agilerl")
    out = _run(_block("MaskedIPPO("), tmp_path)
    assert int(re.search(r"trained on (\d+) steps", out).group(1)) >= 4096


def test_pufferlibs_emulation_steps_the_parallel_view_with_masked_sampling(tmp_path) -> None:
    pytest.importorskip("pufferlib")
    out = _run(_block("import pufferlib.emulation"), tmp_path)
    steps, decisions, ends = map(int, re.search(r"(\d+) game steps, (\d+) decisions, (\d+) games ended", out).groups())
    # one decision per game step, but for a game's step that starts its next game (PufferLib resets it then); the
    # games that ended at the last step (at most one per env, 8) have not been reset yet
    assert steps == 4000 and ends > 5 and steps - ends <= decisions <= steps - ends + 8


def test_masked_ippo_reads_numpy_masks_that_agilerls_ippo_refuses() -> None:
    """The one method MaskedIPPO mends: AgileRL's own fails on numpy masks (when a release mends it, this test fails
    and gubs_env.envs.agilerl_masks can go), the mended one stacks them per group as IPPO does."""
    pytest.importorskip("agilerl")
    from agilerl.algorithms import IPPO

    from gubs_env.envs.agilerl_masks import MaskedIPPO
    from gubs_env.envs.parallel import parallel_env

    env = parallel_env(3, mask_in_observation=False)
    _, infos = env.reset(seed=0)
    agents = env.possible_agents
    settings = {
        "observation_spaces": [env.observation_space(a) for a in agents],
        "action_spaces": [env.action_space(a) for a in agents],
        "agent_ids": agents,
    }
    with pytest.raises(ValueError, match="truth value of an array"):
        IPPO(**settings).extract_action_masks(infos)
    masks = MaskedIPPO(**settings).extract_action_masks(infos)
    assert list(masks) == ["player"]  # one group: player_0 ... player_2
    np.testing.assert_array_equal(masks["player"].numpy(), np.array([infos[a]["action_mask"] for a in agents]))
    assert MaskedIPPO(**settings).extract_action_masks({a: {} for a in agents}) == {"player": None}
