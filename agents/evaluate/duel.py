"""Heuristic weight sets against each other: whole seat-rotated matches in one compiled call.

A match between two weight sets of the heuristic (:mod:`~agents.bots.heuristic.weights_file`) needs no Python
per decision: the compiled engine deals and plays every game, and the compiled heuristic decides every seat
with its own set's tables, several thousand games a second per core. The games are exactly those of
:func:`agents.evaluate.matches.match` between two :class:`~agents.bots.heuristic.HeuristicAgent` s: game ``j`` is
dealt as ``Game(n, seed)`` and seat ``s`` splits ties with the generator ``HeuristicAgent.reset(seed * 101 + s)``
seeds (tests/agents/test_duel.py plays both). Tuning the weights (:mod:`agents.recipes.tune_heuristic`) is
built on it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.bots.heuristic.decide import choose_among, new_scratch
from agents.bots.heuristic.tables import TABLES, HeuristicTables
from agents.bots.search.rollout import legal_ids
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.fast import RNG_WORDS, S_OVER, advance, encode, reset_one, seed_pcg64, set_threads, winners_into
from gubs_env.fast import layout as L
from gubs_env.support.compiling import announce_compiling

COMPILE_SECONDS = 80
"""About how long the match kernel takes to compile from nothing on 2 cores, for the announcement."""


@nb.njit(cache=True, parallel=True)
def _play_kernel(
    seeds: np.ndarray,
    players: int,
    who: np.ndarray,
    floats: np.ndarray,
    ti: np.ndarray,
    max_turns: int,
    uniform: int,
    shares: np.ndarray,
) -> None:
    """Game ``j``: dealt from ``seeds[j]``, seat ``s`` decided with ``floats[who[j, s]]``; its win shares."""
    for j in nb.prange(seeds.shape[0]):
        g = np.empty(L.ROW, dtype=np.int32)
        r = np.empty(RNG_WORDS, dtype=np.uint64)
        ties = np.empty((players, RNG_WORDS), dtype=np.uint64)
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        raw, c, f, ids, scores = new_scratch()
        reset_one(g, r, seeds[j], players, max_turns, uniform)
        for s in range(players):
            seed_pcg64(ties[s], seeds[j] * np.uint64(101) + np.uint64(s))  # as play_game resets each agent
        while g[L.STEP] != S_OVER:
            count = legal_ids(g, mask, ids)
            a = ids[0]
            if count > 1:
                s = g[L.ACTOR]
                encode(g, s, obs)
                a = choose_among(obs, ids, count, ties[s], ti, floats[who[j, s]], raw, c, f, scores)
            advance(g, r, a)
        won = np.zeros(L.SEATS, dtype=np.int64)
        winners_into(g, won)
        k = 0
        for s in range(players):
            k += won[s]
        for s in range(players):
            shares[j, s] = won[s] / k if k > 0 and g[L.TRUNCATED] == 0 else 0.0


def rotated_shares(
    candidates: list[HeuristicTables],
    num_players: int,
    deals: int,
    seed: int = 0,
    opponent: HeuristicTables = TABLES,
    threads: int = 1,
    **rule_options: object,
) -> np.ndarray:
    """Each candidate in one seat against ``opponent`` at every other seat, every deal at every seat.

    Deal ``d`` is dealt with seed ``seed + d``; every candidate plays the same deals. Returns float64
    ``(len(candidates), deals * num_players)``: the candidate's share of each game's win (1/k among k winners,
    0 in a truncated game), game ``d * num_players + s`` seating it at ``s``.

    Raises:
        ValueError: a bad player count, deal count, seed, thread count or rule option.
    """
    players = check_player_count(num_players)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be an int >= 1, not {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63 // 101 - deals:
        raise ValueError(f"seed must be an int from 0 to {2**63 // 101 - deals - 1}, not {seed!r}")
    options = RuleOptions.from_dict(dict(rule_options))
    set_threads(threads)
    games = deals * players
    per_game = np.repeat(np.arange(seed, seed + deals, dtype=np.uint64), players)
    seat = np.arange(games) % players
    who = np.zeros((len(candidates) * games, players), dtype=np.int64)  # table 0: the opponent
    for k in range(len(candidates)):
        who[np.arange(k * games, (k + 1) * games), seat] = k + 1
    floats = np.stack([opponent.floats, *(c.floats for c in candidates)])
    shares = np.zeros((len(candidates) * games, players), dtype=np.float64)
    announce_compiling([_play_kernel], "the heuristic's compiled matches", COMPILE_SECONDS)
    uniform = LETTER_PLACEMENTS.index(options.letter_placement)
    seeds = np.tile(per_game, len(candidates))
    _play_kernel(seeds, players, who, floats, TABLES.ints, options.max_turns, uniform, shares)
    return shares[np.arange(shares.shape[0]), np.tile(seat, len(candidates))].reshape(len(candidates), games)
