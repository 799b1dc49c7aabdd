"""``python -m agents.recipes.expert``: decisions labelled by the search, for expert iteration.

The command is :func:`agents.recipes.expert.labels.main`.
"""

from agents.recipes.expert.labels import main
from gubs_env.support.cli import run_command

if __name__ == "__main__":
    raise SystemExit(run_command(main))
