"""``python -m agents.play``: play Gubs against bots in the terminal or the browser (:mod:`agents.play.terminal`)."""

import sys

from agents.play.terminal import script

if __name__ == "__main__":  # spawned worker processes import this module again: they must not run the command
    sys.exit(script())
