"""``python train.py``: train a Gubs bot by self-play (about 10 minutes on 2 cores; ``--help`` lists the flags).

The sb3 trainer is :mod:`agents.training.main`; ``--backend rllib`` hands the other arguments to
:mod:`agents.rllib.train` (docs/rllib.md). This file only chooses between them.
"""

from __future__ import annotations

import sys

from gubs_env.support.cli import CommandParser, run_command


def main(argv: list[str] | None = None) -> int:
    """Run the chosen backend on the rest of the arguments and return the exit status."""
    backend, rest = _backend(sys.argv[1:] if argv is None else list(argv))
    if backend == "rllib":
        from agents.rllib.train import main as rllib_main

        return rllib_main(rest)
    from agents.training.main import main as sb3_main

    return sb3_main(rest)


def _backend(argv: list[str]) -> tuple[str, list[str]]:
    """``--backend`` (sb3, the default, or rllib) and the rest of the arguments.

    A bad value is the project's one-line error (status 2). Abbreviations are off: ``--ba`` or ``--b`` must
    reach the backend's own parser (``--batch-size``), not be taken for ``--backend`` here.
    """
    parser = CommandParser(prog="python train.py", add_help=False, allow_abbrev=False)
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3")
    known, rest = parser.parse_known_args(argv)
    return known.backend, rest


if __name__ == "__main__":
    sys.exit(run_command(main))
