"""``python train.py`` (or ``gubs-train``): train a Gubs bot (about 10 minutes on 2 cores; ``--help`` lists the flags).

The flags become one :class:`agents.training.TrainingConfig`, trained by :func:`agents.training.train` on the
backend ``--backend`` names (sb3 here, or rllib: docs/rllib.md). From Python, call ``train`` directly. The command
itself is :mod:`agents.training.command`.
"""

from __future__ import annotations

import sys

from agents.training.command import script

if __name__ == "__main__":
    sys.exit(script())
