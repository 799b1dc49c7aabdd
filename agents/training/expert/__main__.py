"""``python -m agents.training.expert``: decisions labelled by the search, for expert iteration.

The command is :func:`agents.training.expert.labels.main`.
"""

from agents.training.expert.labels import main
from gubs_env.support.cli import run_command

if __name__ == "__main__":
    raise SystemExit(run_command(main))
