"""The compiled batch engine: the same game as :mod:`gubs_env.engine`, thousands of games per call.

Needs numba (``pip install -e ".[fast]"``). The reference engine never imports this package; it stays the
readable specification that ``tests/fast`` checks this engine against, action by action. See docs/fast.md.

This module is the engine's public face: code outside ``gubs_env.fast`` imports from here, never from its
modules (``core``, ``kernels``, ``batch``, ...), which may change with any commit (``tests/test_architecture.py``
holds the ``agents`` package to it). It offers, in two layers:

* **Games**, for Python callers: :class:`FastGames` (a batch), :class:`FastGame` (one game), :func:`play_games`
  (whole games with their :class:`Outcomes`), :func:`sample_legal`, :data:`RANDOM`, :data:`SKIP`,
  :func:`max_threads` and :func:`set_threads`. Every argument is checked before any kernel runs.
  :class:`SelfPlayTables` is the self-play core every training loop plays on: each slot's table size, its stream
  of games (the learner's seat and the deal) and steps.
* **Rows**, for code that runs its own compiled loops over games (search bots, evaluations, data for networks).
  One game is an ``int32`` row (:mod:`layout <gubs_env.fast.core.layout>`: where each fact sits, ``layout.ROW``
  cells; :data:`S_OVER` and the other ``S_*`` codes are the values of its ``layout.STEP`` cell) and its generator a
  ``uint64`` row of :data:`RNG_WORDS`. The functions below are numba-compiled and may be called from numba code;
  they check nothing, so rows must come from this engine and ids must be legal:

  - a game: :func:`reset_one` deals one, :func:`advance` applies an id, :func:`step_game` applies one and writes
    the next legal ids, :func:`view_game` writes them only, :func:`legal_mask` lists them; :func:`encode` writes a
    seat's observation; :func:`score`, :func:`winners_into` and :func:`hand_size` read it;
  - the generator: :func:`seed_pcg64`, :func:`next_uint64`, :func:`integers` (numpy's ``default_rng``, bit for
    bit), :func:`state_to_numpy` and :func:`state_from_numpy`;
  - worlds (Python): :func:`new_rows`, :func:`sample_rows` (a seat's knowledge), :func:`redeal_rows` and
    :func:`redeal_deck_rows` (re-deals), :func:`state_to_row` (a reference ``GameState``), :func:`row_history` (the
    deck's history since the deal a row keeps); compiled helpers :func:`world_seed`, :func:`seed_futures`,
    :func:`can_answer` and :func:`rebuild_queue`.
"""

import os

# numba's OpenMP threads spin between parallel calls by default; on a machine whose cores are busy (shared
# machines, a learner in the same process) the spinning thread takes the core the caller needs, and a
# two-thread batch step ran 10x slower than one thread. Sleeping threads cost a few microseconds per call
# instead. A value set by the user wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from gubs_env.engine import IllegalActionError
from gubs_env.fast import cache  # noqa: F401  (first: it stamps the cache of every kernel defined below)
from gubs_env.fast.batch import SKIP, FastGames
from gubs_env.fast.boundary import max_threads
from gubs_env.fast.convert import row_history, state_to_row
from gubs_env.fast.core import layout
from gubs_env.fast.core.observe import encode
from gubs_env.fast.core.rng import RNG_WORDS, integers, next_uint64, seed_pcg64, state_from_numpy, state_to_numpy
from gubs_env.fast.core.rules import advance, hand_size, legal_mask, score, winners_into
from gubs_env.fast.core.tables import (
    S_CANCEL,
    S_CURE,
    S_DISCARD,
    S_DRAW,
    S_FLOP,
    S_KEEP,
    S_OVER,
    S_PLAY,
    S_RETREAT,
    S_RING,
    S_SCOUT,
)
from gubs_env.fast.determinize import (
    can_answer,
    new_rows,
    rebuild_queue,
    redeal_deck_rows,
    redeal_rows,
    sample_rows,
    seed_futures,
    world_seed,
)
from gubs_env.fast.kernels import reset_one, step_game, view_game
from gubs_env.fast.play import RANDOM, Outcomes, play_games, sample_legal, set_threads
from gubs_env.fast.selfplay import SelfPlayTables
from gubs_env.fast.single import FastGame

__all__ = [
    "RANDOM",
    "RNG_WORDS",
    "SKIP",
    "S_CANCEL",
    "S_CURE",
    "S_DISCARD",
    "S_DRAW",
    "S_FLOP",
    "S_KEEP",
    "S_OVER",
    "S_PLAY",
    "S_RETREAT",
    "S_RING",
    "S_SCOUT",
    "FastGame",
    "FastGames",
    "IllegalActionError",
    "Outcomes",
    "SelfPlayTables",
    "advance",
    "can_answer",
    "encode",
    "hand_size",
    "integers",
    "layout",
    "legal_mask",
    "max_threads",
    "new_rows",
    "next_uint64",
    "play_games",
    "rebuild_queue",
    "redeal_deck_rows",
    "redeal_rows",
    "reset_one",
    "row_history",
    "sample_legal",
    "sample_rows",
    "score",
    "seed_futures",
    "seed_pcg64",
    "set_threads",
    "state_from_numpy",
    "state_to_numpy",
    "state_to_row",
    "step_game",
    "view_game",
    "winners_into",
    "world_seed",
]
