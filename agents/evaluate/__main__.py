"""``python -m agents.evaluate``: see :mod:`agents.evaluate.command`."""

import sys

from agents.evaluate.command import main
from gubs_env.support.cli import run_command

sys.exit(run_command(main))
