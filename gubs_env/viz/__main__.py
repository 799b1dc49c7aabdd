"""``python -m gubs_env.viz``: write an SVG picture of a table after some random legal actions."""

import sys

from gubs_env.support.cli import run_command
from gubs_env.viz.svg import main

if __name__ == "__main__":  # spawned worker processes import this module again: they must not run the command
    sys.exit(run_command(main))
