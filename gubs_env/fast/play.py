"""Whole games in compiled code, with their outcomes, and random legal ids for a batch.

>>> import numpy as np
>>> from gubs_env.fast import play_games
>>> outcomes = play_games(np.arange(100), num_players=3)  # every seat a uniformly random player
>>> outcomes.scores.shape, outcomes.winners.shape, outcomes.decisions.shape
((100, 6), (100, 6), (100,))
>>> bool(outcomes.winners[~outcomes.truncated].any(axis=1).all())  # every finished game has a winner
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.fast import kernels
from gubs_env.fast.boundary import bounded, brief_value, check_threads, describe, writable_out
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.rng import RNG_WORDS

RANDOM = "random"
"""A seat of :func:`play_games` played by the compiled random player."""

Policy = Callable[[np.ndarray, np.ndarray], Any]
"""A batched player: ``(observations, masks) -> ids``, float32 ``(k, 512)`` and int8 ``(k, 356)`` in, ``k`` ids out."""

Seat = str | Policy
"""Who plays a seat of :func:`play_games`: :data:`RANDOM` or a :data:`Policy`."""

BATCH = 1024
"""Games :func:`play_games` keeps in play at once: what a policy is asked about in one call, at most."""


@dataclass(frozen=True)
class Outcomes:
    """What :func:`play_games` played, one row per seed (in the order of the seeds)."""

    scores: np.ndarray
    """int64 ``(N, 6)``: the points of each seat at the end (0 for seats a game does not have)."""
    winners: np.ndarray
    """bool ``(N, 6)``: the winning seats (ties share the win; none in a truncated game)."""
    decisions: np.ndarray
    """int64 ``(N,)``: the decisions (applied actions) of each game."""
    turns: np.ndarray
    """int64 ``(N,)``: the turn number at the end (``max_turns + 1`` in a truncated game)."""
    truncated: np.ndarray
    """bool ``(N,)``: whether the game was cut at the turn limit."""


def play_games(
    seeds: Sequence[int] | np.ndarray,
    num_players: int = 2,
    *,
    seats: Sequence[Seat] | None = None,
    threads: int = 1,
    batch: int = BATCH,
    **rule_options: Any,
) -> Outcomes:
    """Play one whole game per seed and return the outcomes; random seats play entirely in compiled code.

    Game ``j`` is dealt as ``Game(num_players, seed=seeds[j])``. A random seat chooses uniformly among the legal
    ids with a SplitMix64 generator seeded by the same seed (one draw per random decision), so a game depends only
    on its seed and on what the policies choose. A policy seat is asked, in one call per policy and round, about
    every game (at most ``batch``) that waits on a seat it plays; one callable given for several seats is asked
    once for all of them.

    Args:
        seeds: one int in ``[0, 2**64)`` per game.
        num_players: 2 to 6.
        seats: one entry per seat, :data:`RANDOM` or a :data:`Policy` (``None``: every seat random). A policy
            gets copies of the observations and masks of the seat to act, and returns one legal id per row (a
            sequence or a 1-d integer array).
        threads: threads for the compiled play (1 to :func:`~gubs_env.fast.max_threads`); results never depend
            on it.
        batch: games in play at once (a policy's largest call).
        **rule_options: rule options for every game (:class:`~gubs_env.engine.options.RuleOptions`).

    Returns:
        The :class:`Outcomes`.

    Raises:
        ValueError: bad seeds, player count, seats, thread count, batch or rule option; a policy's answer that
            is not one integer per row.
        IllegalActionError: (a ``ValueError``) a policy chose an id that is not legal; the message names the seat.
    """
    seed_array = bounded(seeds, None, "seeds", 0, _U64, np.uint64)
    players = check_player_count(num_players)
    options = RuleOptions.from_dict(dict(rule_options))
    policies, random_seat = _seat_plan(seats, players)
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be an int >= 1, not {brief_value(batch)}")
    set_threads(threads)
    table = _Table(seed_array, players, options, int(batch))
    while table.play(random_seat):
        table.actions[:] = -1
        for policy, its_seats in policies:
            table.ask(policy, its_seats)
    return table.outcomes()


class _Table:
    """The arrays of one :func:`play_games` call: the slots' games and every game's outcome."""

    def __init__(self, seeds: np.ndarray, players: int, options: RuleOptions, batch: int) -> None:
        games = seeds.shape[0]
        slots = max(1, min(games, batch))
        self.seeds = seeds
        uniform = LETTER_PLACEMENTS.index(options.letter_placement)
        self.setup = np.array([players, options.max_turns, uniform], dtype=np.int64)
        """What every game is dealt with: players, max turns, uniform Letters (int64, as the kernel takes it)."""
        self.states = np.zeros((slots, L.ROW), dtype=np.int32)
        self.rngs = np.zeros((slots, RNG_WORDS), dtype=np.uint64)
        self.choosers = np.zeros(slots, dtype=np.uint64)
        self.slot_game = np.full(slots, -1, dtype=np.int64)
        self.actions = np.full(slots, -1, dtype=np.int64)
        self.waiting = np.full(slots, -1, dtype=np.int64)
        self.mask = np.zeros((slots, NUM_ACTIONS), dtype=np.int8)
        self.obs = np.zeros((slots, OBS_SIZE), dtype=np.float32)
        self.results = np.zeros((games, 3), dtype=np.int64)
        self.scores = np.zeros((games, MAX_PLAYERS), dtype=np.int64)
        self.winners = np.zeros((games, MAX_PLAYERS), dtype=np.int64)
        first = np.arange(min(slots, games), dtype=np.int64)  # slot i starts with game i
        kernels.warm_up("whole games", (kernels.reset_kernel, kernels.play_kernel), _exercise_play)
        players_of = np.full(first.shape[0], players, dtype=np.int64)
        kernels.reset_kernel(self.states, self.rngs, first, seeds[first], players_of, self.setup[1], self.setup[2])
        self.choosers[first] = seeds[first]
        self.slot_game[first] = first

    def play(self, random_seat: np.ndarray) -> bool:
        """Apply the policies' actions and play every slot on until it waits on a policy or is done.

        Returns whether some slot waits on a policy.
        """
        kernels.play_kernel(
            self.states,
            self.rngs,
            self.choosers,
            self.slot_game,
            self.seeds,
            self.setup,
            random_seat,
            self.actions,
            self.waiting,
            self.mask,
            self.obs,
            self.results,
            self.scores,
            self.winners,
        )
        return bool((self.waiting >= 0).any())

    def ask(self, policy: Policy, seats: list[int]) -> None:
        """The policy's ids for the slots waiting on one of its ``seats``, checked, into :attr:`actions`."""
        rows = np.flatnonzero(np.isin(self.waiting, seats))
        if rows.shape[0] == 0:
            return
        masks = self.mask[rows]
        answer = policy(self.obs[rows], masks)
        ids = bounded(answer, rows.shape[0], "a policy's ids", -(2**63), 2**63 - 1, np.int64)
        legal = (ids >= 0) & (ids < NUM_ACTIONS)
        legal[legal] = masks[np.flatnonzero(legal), ids[legal]] != 0
        if not legal.all():
            k = int(np.argmin(legal))
            seat, game = int(self.waiting[rows[k]]), int(self.slot_game[rows[k]])
            raise IllegalActionError(
                f"the policy at seat {seat} chose id {int(ids[k])} in game {game}, where the legal ids are "
                f"{np.flatnonzero(masks[k]).tolist()}"
            )
        self.actions[rows] = ids

    def outcomes(self) -> Outcomes:
        """The outcomes once every game is over."""
        return Outcomes(
            scores=self.scores,
            winners=self.winners.astype(bool),
            decisions=self.results[:, 0].copy(),
            turns=self.results[:, 1].copy(),
            truncated=self.results[:, 2].astype(bool),
        )


def _seat_plan(seats: Sequence[Seat] | None, players: int) -> tuple[list[tuple[Policy, list[int]]], np.ndarray]:
    """Each distinct policy with the seats it plays, and 1 per random seat (int8, one per possible seat)."""
    random_seat = np.zeros(MAX_PLAYERS, dtype=np.int8)
    if seats is None:
        random_seat[:players] = 1
        return [], random_seat
    if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence) or len(seats) != players:
        raise ValueError(f"seats must be a list of {players} entries ('random' or a policy), not {describe(seats)}")
    policies: list[tuple[Policy, list[int]]] = []
    for seat, who in enumerate(seats):
        if isinstance(who, str) and who == RANDOM:
            random_seat[seat] = 1
        elif callable(who) and not isinstance(who, str):
            same = next((entry for entry in policies if entry[0] is who), None)
            if same is None:
                policies.append((who, [seat]))
            else:
                same[1].append(seat)
        else:
            raise ValueError(f"seats[{seat}] must be {RANDOM!r} or a policy callable, not {describe(who)}")
    return policies, random_seat


def sample_legal(mask: np.ndarray, chooser: np.ndarray, out: np.ndarray, *, threads: int = 1) -> None:
    """Write a uniformly random legal id per row of ``mask`` into ``out`` (-1 for an empty mask).

    ``chooser`` is a ``uint64`` array, one state per row, advanced in place (seed it with anything).

    Args:
        mask: int8 ``(N, 356)``, C-contiguous; every non-zero entry is a legal id (so a mask of 0/1, the
            engine's, and any other int8 values agree on which ids are legal). Only read: it may be read-only.
        chooser: uint64 ``(N,)``, writable and C-contiguous.
        out: int64 ``(N,)``, writable and C-contiguous.
        threads: threads for the kernel (1 to :func:`~gubs_env.fast.max_threads`).

    Raises:
        ValueError: an array of another type, shape, layout or writability, or a bad thread count; nothing is
            written.
    """
    if (
        not isinstance(mask, np.ndarray)
        or mask.dtype != np.int8
        or mask.ndim != 2
        or mask.shape[1] != NUM_ACTIONS
        or not mask.flags.c_contiguous
    ):
        raise ValueError(f"mask must be a C-contiguous int8 array of shape (N, {NUM_ACTIONS}), not {describe(mask)}")
    rows = mask.shape[0]
    states = writable_out(chooser, (rows,), np.uint64, "chooser")
    ids = writable_out(out, (rows,), np.int64, "out")
    set_threads(threads)
    kernels.warm_up("random legal ids", (kernels.sample_kernel,), _exercise_sampling)
    # The kernel is compiled for a writable mask (the batch's own); a read-only one is copied rather than
    # compiled for, which would stall this call while numba compiles a second version of the kernel.
    source = mask if type(mask) is np.ndarray else mask.view(np.ndarray)
    kernels.sample_kernel(source if source.flags.writeable else np.array(source), states, ids)


def set_threads(threads: Any) -> None:
    """Check ``threads`` and let the next parallel kernel of this thread use that many."""
    nb.set_num_threads(check_threads(threads))


_U64 = 2**64 - 1


def _exercise_play() -> None:
    """The whole-game kernels once: one random game."""
    play_games(np.zeros(1, dtype=np.uint64), 2)


def _exercise_sampling() -> None:
    """The sampling kernel once."""
    sample_legal(np.ones((1, NUM_ACTIONS), dtype=np.int8), np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.int64))
