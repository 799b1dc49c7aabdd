"""The self-play loop compiled: one learner per game, its opponents played inside compiled code where they can be.

:class:`SelfPlayLoop` drives the games of a :class:`~gubs_env.fast.FastGames` batch for a self-play environment
(:class:`gubs_env.envs.vector.GubsVectorEnv`). One call of :meth:`SelfPlayLoop.run` applies the learners' (or the
waiting opponents') actions, then plays on inside compiled code, game by game: a decision with a single legal id
is played for any opponent, a random opponent draws from its own generator, and an episode that ends is recorded
and, when asked, replaced by the next one (its learner seat and deal drawn from the game's episode generator). A
game stops when it waits on its learner (:data:`WAITS_LEARNER`), on an opponent that lives in Python
(:data:`WAITS_OPPONENT`: a heuristic, a network) or, when episodes are not replaced in the kernel, on a new
episode (:data:`WAITS_EPISODE`). Only then are its acting seat's mask and observation written.

The draws are those of :class:`gubs_env.envs.selfplay.SelfPlayEnv` (numpy's generator, reproduced bit for bit by
:mod:`gubs_env.fast.core.rng`): per episode, each random opponent's seed (when the loop seeds them), then the
learner's seat (unless fixed) and the deal's seed, dealt again until the learner has a decision; a random opponent
plays ``legal[rng.integers(len(legal))]`` over its ascending legal ids, as ``RandomOpponent`` does.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS
from gubs_env.fast import kernels
from gubs_env.fast.batch import FastGames
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.observe import encode
from gubs_env.fast.core.rng import RNG_WORDS, integers, next_uint64, seed_pcg64
from gubs_env.fast.core.rules import advance, legal_mask, score, winners_into
from gubs_env.fast.kernels import S_OVER, _write_view, reset_one

WAITS_LEARNER, WAITS_OPPONENT, WAITS_EPISODE = 0, 1, 2
"""What a game waits on after :meth:`SelfPlayLoop.run` (``SelfPlayLoop.status``)."""
RANDOM_SEAT, CALLER_SEAT = 0, 1
"""How an opponent seat is played (``SelfPlayLoop.kinds``): in the kernel, uniformly at random, or by a caller."""
OPPONENTS = MAX_PLAYERS - 1
"""Opponent slots per game, clockwise from the learner: slot ``j`` sits ``j + 1`` seats after it."""
_SEED_BOUND = 2**31
"""Random opponents' seeds are drawn below this, as ``SelfPlayEnv`` draws them."""


@nb.njit(cache=True, inline="always")
def _sort(ids: np.ndarray, count: int) -> None:
    """Sort ``ids[:count]`` ascending (a few dozen at most): the order of ``np.flatnonzero(mask)``."""
    for k in range(1, count):
        value = ids[k]
        j = k - 1
        while j >= 0 and ids[j] > value:
            ids[j + 1] = ids[j]
            j -= 1
        ids[j + 1] = value


@nb.njit(cache=True)
def _deal(
    g: np.ndarray, r: np.ndarray, episode: np.ndarray, fixed_seat: int, players: int, turns: int, uniform: int
) -> int:
    """Draw the learner's seat (unless fixed) and the deal from the episode generator; deal. Returns the seat."""
    seat = fixed_seat if fixed_seat >= 0 else integers(episode, players)
    seed = next_uint64(episode) >> np.uint64(1)  # Generator.integers(2**63): one 64-bit draw, no rejection
    reset_one(g, r, seed, players, turns, uniform)
    return seat


@nb.njit(cache=True)
def _record_end(g: np.ndarray, i: int, learner: int, won: np.ndarray, out: tuple) -> None:
    """Keep what the learner sees and gets at the end of game ``i``'s episode."""
    ended, reward, terminated, truncated, final_obs, final_scores, final_winners, final_learner = out
    ended[i] = True
    final_learner[i] = learner
    won[:] = 0
    cut = g[L.TRUNCATED] != 0
    truncated[i] = cut
    terminated[i] = not cut
    if not cut:
        winners_into(g, won)
    reward[i] = 0.0 if cut else (1.0 if won[learner] else -1.0)
    for s in range(MAX_PLAYERS):
        final_scores[i, s] = score(g, s) if s < g[L.NUM_PLAYERS] else 0
        final_winners[i, s] = won[s] != 0
    encode(g, np.int64(learner), final_obs[i])


@nb.njit(cache=True, parallel=True)
def selfplay_kernel(
    games: tuple,
    actions: np.ndarray,
    starts: np.ndarray,
    seats: tuple,
    opponents: tuple,
    settings: tuple,
    status: np.ndarray,
    waiting_slot: np.ndarray,
    out: tuple,
) -> None:
    """Advance every game until it waits on its learner, on a caller-side opponent, or on a new episode.

    ``games``: the batch's (states, rngs, actor, mask, legal, obs). ``actions``: per game an id for its acting
    seat, or -1. ``starts``: per game, 1 to begin a new episode first. ``seats``: (learner, fixed seat or -1).
    ``opponents``: (kind per slot, generator per slot, episode generator). ``settings``: (seed random opponents
    at each episode, replace ended episodes here, max turns, letter placement). ``status`` and
    ``waiting_slot``: what each game waits on, and which opponent slot when an opponent. ``out``: where
    ended episodes are recorded (ended, reward, terminated, truncated, final obs, scores, winners, seat).
    """
    states, rngs, actor, mask, legal, obs = games
    learner, fixed = seats
    kinds, opponent_rngs, episode_rngs = opponents
    seed_randoms, autoreset, turns, uniform = settings
    no_ids = np.empty(0, dtype=np.int64)
    no_mask = np.empty(0, dtype=np.int8)
    for i in nb.prange(states.shape[0]):
        g, r, episode = states[i], rngs[i], episode_rngs[i]
        n = np.int64(g[L.NUM_PLAYERS])
        start = starts[i] != 0
        if not start and actions[i] < 0:
            continue  # nothing to do: the game keeps waiting
        ids = np.empty(NUM_ACTIONS, dtype=np.int64)
        won = np.zeros(MAX_PLAYERS, dtype=np.int64)
        dealing = False
        if not start:
            advance(g, r, np.int64(actions[i]))
        while True:
            if start:
                if seed_randoms:
                    for j in range(n - 1):
                        seed_pcg64(opponent_rngs[i, j], np.uint64(integers(episode, _SEED_BOUND)))
                learner[i] = _deal(g, r, episode, np.int64(fixed[i]), n, np.int64(turns), np.int64(uniform))
                start, dealing = False, True
            if g[L.STEP] == S_OVER:
                if dealing:  # over before the learner's first decision: dealt again, as SelfPlayEnv does
                    learner[i] = _deal(g, r, episode, np.int64(fixed[i]), n, np.int64(turns), np.int64(uniform))
                    continue
                _record_end(g, i, np.int64(learner[i]), won, out)
                if autoreset:
                    start = True
                    continue
                status[i] = WAITS_EPISODE
                break
            seat = np.int64(g[L.ACTOR])
            if seat == learner[i]:
                status[i] = WAITS_LEARNER
                break
            count = legal_mask(g, no_mask, ids)
            if count == 1:
                advance(g, r, ids[0])
                continue
            slot = (seat - learner[i]) % n - 1
            if kinds[i, slot] == RANDOM_SEAT:
                _sort(ids, count)
                advance(g, r, ids[integers(opponent_rngs[i, slot], count)])
                continue
            status[i] = WAITS_OPPONENT
            waiting_slot[i] = slot
            break
        _write_view(g, actor, mask, legal, obs, np.int64(i), no_ids)


class SelfPlayLoop:
    """The per-game tables of the compiled self-play loop over one :class:`FastGames` batch.

    Args:
        games: the batch (its table sizes set by its ``reset``); the loop writes its positions and views.

    Attributes (one row per game, all writable by the caller between runs):
        learner: int64, the learner's seat of the current episode.
        fixed_seat: int64, the learner's seat for every episode, or -1 to draw it at each episode.
        kinds: int8 ``(N, 5)``, per opponent slot :data:`RANDOM_SEAT` or :data:`CALLER_SEAT`.
        opponent_rngs: uint64 ``(N, 5, 6)``, the random opponents' generators (numpy's PCG64 states).
        episode_rngs: uint64 ``(N, 6)``, the generators of seats and deals.
        status: int8, what the game waits on after :meth:`run`; ``waiting_slot``: int64, which opponent slot
            when it waits on an opponent.
        ended, reward, terminated, truncated, final_obs, final_scores, final_winners, final_learner: the episodes
            that ended since :meth:`clear_ends` (at most one per game and step): the learner's end reward, the
            flags, its last observation, the scores, the winners and the learner's seat.
    """

    def __init__(self, games: FastGames) -> None:
        n = games.num_games
        self.games = games
        self.learner = np.zeros(n, dtype=np.int64)
        self.fixed_seat = np.full(n, -1, dtype=np.int64)
        self.waiting_slot = np.zeros(n, dtype=np.int64)
        self.kinds = np.full((n, OPPONENTS), RANDOM_SEAT, dtype=np.int8)
        self.opponent_rngs = np.zeros((n, OPPONENTS, RNG_WORDS), dtype=np.uint64)
        self.episode_rngs = np.zeros((n, RNG_WORDS), dtype=np.uint64)
        self.status = np.full(n, WAITS_EPISODE, dtype=np.int8)
        self.ended = np.zeros(n, dtype=np.bool_)
        self.reward = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.final_obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.final_scores = np.zeros((n, MAX_PLAYERS), dtype=np.int64)
        self.final_winners = np.zeros((n, MAX_PLAYERS), dtype=np.bool_)
        self.final_learner = np.zeros(n, dtype=np.int64)

    def clear_ends(self) -> None:
        """Forget the recorded ends (before a step)."""
        self.ended.fill(False)
        self.reward.fill(0.0)
        self.terminated.fill(False)
        self.truncated.fill(False)

    def illegal(self, actions: np.ndarray, skipped: np.ndarray) -> np.ndarray:
        """Per game, whether ``actions`` (int64 ids in the action space) is not legal for its acting seat now.

        Read from the engine's own copy of the masks, which no caller can write; ``skipped`` games count as legal.
        """
        rows = np.arange(actions.shape[0])
        return (self.games._legal[rows, actions] == 0) & ~skipped

    def seed_episodes(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Start the episode generators of ``rows`` as ``np.random.default_rng(seed)`` (seeds < 2**64)."""
        for i, seed in zip(rows.tolist(), seeds.tolist(), strict=True):
            seed_pcg64(self.episode_rngs[i], np.uint64(seed))

    def seed_opponent(self, game: int, slot: int, seed: int) -> None:
        """Start the generator of a random opponent as ``np.random.default_rng(seed)``."""
        seed_pcg64(self.opponent_rngs[game, slot], np.uint64(seed))

    def run(self, actions: np.ndarray, starts: np.ndarray, *, seed_randoms: bool, autoreset: bool) -> None:
        """Apply the actions, begin the episodes asked for, and play until every game waits (:data:`WAITS_LEARNER`).

        Args:
            actions: int64, per game the acting seat's id (already checked legal), or -1 (a game with -1 and no
                start is left as it is).
            starts: int8, per game 1 to begin a new episode (its action is then ignored).
            seed_randoms: seed each random opponent's generator from the episode generator at every episode.
            autoreset: begin the next episode of a game at once when one ends (else it waits on a new episode).
        """
        games = self.games
        # the loop is the batch's own kernel in all but name: it writes the engine's arrays as FastGames.step does
        games._use_threads()
        kernels.warm_up("the self-play loop", (selfplay_kernel, seed_pcg64), _exercise_loop)
        options = games.options
        selfplay_kernel(
            (games._states, games._rngs, games._actor, games._mask, games._legal, games._obs),
            actions,
            starts,
            (self.learner, self.fixed_seat),
            (self.kinds, self.opponent_rngs, self.episode_rngs),
            (seed_randoms, autoreset, options.max_turns, LETTER_PLACEMENTS.index(options.letter_placement)),
            self.status,
            self.waiting_slot,
            (
                self.ended,
                self.reward,
                self.terminated,
                self.truncated,
                self.final_obs,
                self.final_scores,
                self.final_winners,
                self.final_learner,
            ),
        )


def _exercise_loop() -> None:
    """The loop's kernels once, over a tiny batch: episodes seeded, begun and played up to the learners."""
    games = FastGames(2, 2)
    games.reset(np.arange(2, dtype=np.uint64))
    loop = SelfPlayLoop(games)
    loop.seed_episodes(np.arange(2), np.arange(2, dtype=np.uint64))
    loop.seed_opponent(0, 0, 0)
    loop.run(np.full(2, -1, dtype=np.int64), np.ones(2, dtype=np.int8), seed_randoms=True, autoreset=True)
