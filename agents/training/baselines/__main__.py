"""``python -m agents.training.baselines``: the self-play baselines from scratch, their curves and summary.

The command is :func:`agents.training.baselines.runs.main`.
"""

from agents.training.baselines.runs import main
from gubs_env.support.cli import run_command

if __name__ == "__main__":
    raise SystemExit(run_command(main))
