"""``python -m agents.evaluate``: see :mod:`agents.evaluate.command`."""

import sys

from agents.evaluate.command import script

if __name__ == "__main__":  # spawned worker processes import this module again: they must not run the command
    sys.exit(script())
