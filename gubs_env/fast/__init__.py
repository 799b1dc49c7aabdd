"""The compiled batch engine: the same game as :mod:`gubs_env.engine`, thousands of games per call.

Needs numba (``pip install -e ".[fast]"``). The reference engine never imports this package; it stays the
readable specification that ``tests/fast`` checks this engine against, action by action. See docs/fast.md.
"""

from gubs_env.engine import IllegalActionError
from gubs_env.fast.batch import SKIP, FastGames, max_threads
from gubs_env.fast.play import random_games, sample_legal

__all__ = ["SKIP", "FastGames", "IllegalActionError", "max_threads", "random_games", "sample_legal"]
