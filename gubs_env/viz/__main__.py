"""``python -m gubs_env.viz``: write an SVG picture of a table after some random legal actions."""

import sys

from gubs_env.support.cli import run_command
from gubs_env.viz.svg import main

sys.exit(run_command(main))
