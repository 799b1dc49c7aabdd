"""The engine stands alone: importing it pulls in no RL library."""

import subprocess
import sys


def test_engine_imports_no_rl_library():
    code = (
        "import sys, gubs_env, gubs_env.engine, gubs_env.engine.positions, gubs_env.engine.render\n"
        "g = gubs_env.Game(3, seed=1); g.apply(g.legal_actions()[0]); g.render(0)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'gymnasium', 'pettingzoo', 'torch',"
        " 'stable_baselines3', 'sb3_contrib'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_engine_has_no_global_random_state():
    import random

    import numpy as np

    from gubs_env import Game

    random.seed(1)
    np.random.seed(1)
    first = Game(4, seed=9).to_dict()
    random.seed(2)
    np.random.seed(2)
    assert Game(4, seed=9).to_dict() == first
