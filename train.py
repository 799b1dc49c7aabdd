"""Self-play training entry point.

Training (MaskablePPO self-play with an opponent pool) is not part of this version yet; until it is, this
script says so and exits with status 2 instead of pretending to train.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Explain that training is not available yet."""
    print(
        "train.py: self-play training is not available in this version of gubs_env yet.\n"
        "The rules engine is: try `python -m gubs_env.bench` or `python -m gubs_env.demo`.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
