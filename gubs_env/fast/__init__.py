"""The compiled batch engine: the same game as :mod:`gubs_env.engine`, thousands of games per call.

Needs numba (``pip install -e ".[fast]"``). The reference engine never imports this package; it stays the
readable specification that ``tests/fast`` checks this engine against, action by action. See docs/fast.md.
"""

import os

# numba's OpenMP threads spin between parallel calls by default; on a machine whose cores are busy (shared
# machines, a learner in the same process) the spinning thread takes the core the caller needs, and a
# two-thread batch step ran 10x slower than one thread. Sleeping threads cost a few microseconds per call
# instead. A value set by the user wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from gubs_env.engine import IllegalActionError
from gubs_env.fast.batch import SKIP, FastGames
from gubs_env.fast.boundary import max_threads
from gubs_env.fast.play import RANDOM, Outcomes, play_games, sample_legal
from gubs_env.fast.single import FastGame

__all__ = [
    "RANDOM",
    "SKIP",
    "FastGame",
    "FastGames",
    "IllegalActionError",
    "Outcomes",
    "max_threads",
    "play_games",
    "sample_legal",
]
