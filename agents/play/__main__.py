"""``python -m agents.play``: play Gubs against bots in the terminal or the browser (:mod:`agents.play.terminal`)."""

import sys

from agents.play.terminal import main
from gubs_env.support.cli import run_command

sys.exit(run_command(main))
