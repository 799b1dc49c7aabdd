"""``python -m agents.recipes.tune_heuristic``: the heuristic's weights tuned by CMA-ES.

The command is :func:`agents.recipes.tune_heuristic.tuning.main`.
"""

from agents.recipes.tune_heuristic.tuning import main
from gubs_env.support.cli import run_command

if __name__ == "__main__":
    raise SystemExit(run_command(main))
