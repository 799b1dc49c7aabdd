"""``python -m agents.recipes.search_nets``: the search's value network and hand model, fitted on compiled games.

The command is :func:`agents.recipes.search_nets.fitting.main`.
"""

from agents.recipes.search_nets.fitting import main
from gubs_env.support.cli import run_command

if __name__ == "__main__":
    raise SystemExit(run_command(main))
