"""The self-play core: the batch of games every training loop of the project plays, and its compiled loop.

**The core.** A :class:`SelfPlayTables` is one :class:`~gubs_env.fast.FastGames` batch with the rules every
self-play loop shares, written once:

* **table sizes**: slot ``i`` plays the table size of the run's slot ``first + i``
  (:meth:`~gubs_env.engine.players.TableSizes.per_slot`), game after game;
* **each slot's stream of games**: a generator per slot (numpy's ``default_rng(seed)``, reproduced bit for bit in
  compiled code) draws, for every new game, the learner's seat and then the deal's seed (:func:`draw_game`), as
  :func:`gubs_env.envs.selfplay.next_game` draws them for ``SelfPlayEnv``. A run seeds slot ``i`` with
  ``seed + i`` (as Gymnasium's vector envs seed their envs), so every backend that seeds alike plays the same
  sizes, seats and deals;
* **steps**: one id per slot, :data:`~gubs_env.fast.SKIP` for a slot that does not act; :meth:`SelfPlayTables.step`
  answers the slots whose game ended with it, and a slot whose game is over does not act again until it is dealt;
* **forced decisions**: :meth:`SelfPlayTables.forced` names the running games whose decision has a single legal id.

Who plays a seat other than the learner's is the caller's: the native backend asks its policy, the compiled
heuristic or a uniform draw; RLlib's runner asks the modules its mapping names; the vector env asks its opponents.

**The compiled loop.** :class:`SelfPlayLoop` drives a core's games for a self-play environment
(:class:`gubs_env.envs.vector.GubsVectorEnv`, which sb3 trains on). One call of :meth:`SelfPlayLoop.run` applies the
learners' (or the waiting opponents') actions, then plays on inside compiled code, game by game: a decision with a
single legal id is played for any opponent, a random opponent draws from its own generator, and an episode that
ends is recorded and, when asked, replaced by the next one of the slot's stream. A game stops when it waits on its
learner (:data:`WAITS_LEARNER`), on an opponent that lives in Python (:data:`WAITS_OPPONENT`: a heuristic, a
network) or, when episodes are not replaced in the kernel, on a new episode (:data:`WAITS_EPISODE`). Only then are
its acting seat's mask and observation written.

The loop's draws are those of :class:`gubs_env.envs.selfplay.SelfPlayEnv`: per episode, each random opponent's seed
(when the loop seeds them), then the slot's next game (:func:`draw_game`), dealt again until the learner has a
decision; a random opponent plays ``legal[rng.integers(len(legal))]`` over its ascending legal ids, as
``RandomOpponent`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numba as nb
import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS
from gubs_env.engine.players import TableSizes
from gubs_env.fast import kernels
from gubs_env.fast.batch import SKIP, FastGames
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
def draw_game(stream: np.ndarray, players: int, fixed_seat: int) -> tuple[int, np.uint64]:
    """A slot's next game from its stream: the learner's seat (unless ``fixed_seat`` >= 0), then the deal's seed.

    The seat is ``Generator.integers(players)`` and the seed ``Generator.integers(2**63)`` (one 64-bit draw, no
    rejection), in that order: what :func:`gubs_env.envs.selfplay.next_game` draws from a numpy generator.
    """
    seat = fixed_seat if fixed_seat >= 0 else integers(stream, players)
    return seat, next_uint64(stream) >> np.uint64(1)


@nb.njit(cache=True)
def _draw_games(
    streams: np.ndarray, slots: np.ndarray, players: np.ndarray, seats: np.ndarray, deals: np.ndarray
) -> None:
    """:func:`draw_game` for each of ``slots`` (no fixed seat), into ``seats`` and ``deals``."""
    for slot in slots:
        seats[slot], deals[slot] = draw_game(streams[slot], players[slot], -1)


@nb.njit(cache=True)
def _deal(
    g: np.ndarray, r: np.ndarray, i: int, core: tuple, fixed_seat: int, players: int, turns: int, uniform: int
) -> None:
    """Draw game ``i``'s next game from its stream (:func:`draw_game`) and deal it."""
    streams, seats, deals = core
    seats[i], deals[i] = draw_game(streams[i], players, fixed_seat)
    reset_one(g, r, deals[i], players, turns, uniform)


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
    core: tuple,
    fixed: np.ndarray,
    opponents: tuple,
    settings: tuple,
    status: np.ndarray,
    waiting_slot: np.ndarray,
    out: tuple,
) -> None:
    """Advance every game until it waits on its learner, on a caller-side opponent, or on a new episode.

    ``games``: the batch's (states, rngs, actor, mask, legal, obs). ``actions``: per game an id for its acting
    seat, or -1. ``starts``: per game, 1 to begin a new episode first. ``core``: the core's (streams, learner
    seats, deals). ``fixed``: the learner's fixed seat per game, or -1.
    ``opponents``: (kind per slot, generator per slot). ``settings``: (seed random opponents
    at each episode, replace ended episodes here, max turns, letter placement). ``status`` and
    ``waiting_slot``: what each game waits on, and which opponent slot when an opponent. ``out``: where
    ended episodes are recorded (ended, reward, terminated, truncated, final obs, scores, winners, seat).
    """
    states, rngs, actor, mask, legal, obs = games
    streams, learner, _ = core
    kinds, opponent_rngs = opponents
    seed_randoms, autoreset, turns, uniform = settings
    no_ids = np.empty(0, dtype=np.int64)
    no_mask = np.empty(0, dtype=np.int8)
    for i in nb.prange(states.shape[0]):
        g, r = states[i], rngs[i]
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
                        seed_pcg64(opponent_rngs[i, j], np.uint64(integers(streams[i], _SEED_BOUND)))
                _deal(g, r, i, core, np.int64(fixed[i]), n, np.int64(turns), np.int64(uniform))
                start, dealing = False, True
            if g[L.STEP] == S_OVER:
                if dealing:  # over before the learner's first decision: dealt again, as SelfPlayEnv does
                    _deal(g, r, i, core, np.int64(fixed[i]), n, np.int64(turns), np.int64(uniform))
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


class SelfPlayTables:
    """``num_slots`` games on the compiled engine, slot ``i`` at the table size of the run's slot ``first + i``.

    Args:
        num_slots: games played side by side.
        sizes: the run's table sizes.
        first: the run's number of this batch's first slot (an RLlib env runner's offset among the runners).
        threads: the compiled engine's threads.
        rule_options: engine rule options for every game.

    Each slot's stream starts from the operating system's entropy; :meth:`seed_streams` seeds it.

    Raises:
        ValueError: a bad slot count, first slot or rule option.
    """

    def __init__(
        self,
        num_slots: int,
        sizes: TableSizes,
        *,
        first: int = 0,
        threads: int = 1,
        rule_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.players = sizes.per_slot(num_slots, first)
        """The table size of each slot's games."""
        self.games = FastGames(num_slots, threads=threads, **dict(rule_options or {}))
        # placeholders until the first deal: each slot keeps its table size from here on
        self.games.reset(np.zeros(num_slots, dtype=np.uint64), self.players)
        self.over = np.ones(num_slots, dtype=np.bool_)
        """Per slot, whether its game has ended (by the rules or by :meth:`end`) or was never dealt."""
        self.streams = np.zeros((num_slots, RNG_WORDS), dtype=np.uint64)
        """Per slot, the generator of its games (numpy's PCG64 state): what :meth:`deal_next` draws from."""
        self.seats = np.zeros(num_slots, dtype=np.int64)
        """Per slot, the learner's seat in its game (drawn with the game)."""
        self.deals = np.zeros(num_slots, dtype=np.uint64)
        """Per slot, its game's deal (``Game(seed=...)``'s seed)."""
        self._slots = np.arange(num_slots, dtype=np.int64)
        self.seed_streams(self._slots, np.random.SeedSequence().generate_state(num_slots, dtype=np.uint64))

    @property
    def num_slots(self) -> int:
        """Games played side by side."""
        return self.games.num_games

    @property
    def actor(self) -> np.ndarray:
        """int64 ``(num_slots,)``: the seat that must decide in each slot, -1 where the game is over."""
        return np.where(self.over, -1, self.games.actor)

    def seed_streams(self, slots: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Start the stream of each of ``slots`` as ``np.random.default_rng(seed)`` (seeds below 2**64)."""
        for slot, seed in zip(np.asarray(slots).tolist(), np.asarray(seeds, dtype=np.uint64).tolist(), strict=True):
            seed_pcg64(self.streams[slot], np.uint64(seed))

    def deal_next(self, slots: Sequence[int] | np.ndarray) -> np.ndarray:
        """Deal each of ``slots`` the next game of its stream (:func:`draw_game`); returns their learner seats."""
        rows = np.asarray(slots, dtype=np.int64)
        kernels.warm_up("self-play deals", (draw_game, _draw_games), self._exercise)
        _draw_games(self.streams, rows, self.players, self.seats, self.deals)
        self.deal(rows, self.deals[rows])
        return self.seats[rows].copy()

    def deal(self, slots: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal game ``seeds[k]`` in slot ``slots[k]`` (distinct slots); the other slots are left as they are."""
        rows = np.asarray(slots, dtype=np.int64)
        deals = np.asarray(seeds, dtype=np.uint64)
        if rows.size == self.num_slots and np.array_equal(rows, self._slots):
            self.games.reset(deals, self.players)  # every slot: one call
        else:
            self.games.reset_games(rows, deals)
        self.deals[rows] = deals
        self.over[rows] = False

    def legal(self, actions: np.ndarray) -> np.ndarray:
        """Per slot, whether ``actions`` (ids in range, :data:`SKIP` where a slot does not act) is legal there."""
        acting = (actions != SKIP) & ~self.over
        ok = np.zeros(self.num_slots, dtype=np.bool_)
        ok[acting] = self.games.mask[acting, actions[acting]] > 0
        return ok

    def forced(self) -> np.ndarray:
        """The running games whose decision has a single legal id: bool ``(num_slots,)``."""
        return ~self.over & (self.games.mask.sum(axis=1, dtype=np.int64) == 1)

    def forced_ids(self, rows: np.ndarray) -> np.ndarray:
        """The one legal id of each forced game in ``rows``."""
        return np.argmax(self.games.mask[rows], axis=1)

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Apply one legal id per acting slot (:data:`SKIP` elsewhere); returns the slots whose game ended now.

        Raises:
            ValueError: an id for a slot whose game is over. Nothing changes.
        """
        acting = actions != SKIP
        if (acting & self.over).any():
            raise ValueError(f"slot {int(np.argmax(acting & self.over))}: its game is over; deal it again first")
        if acting.any():
            self.games.step(actions)
        ended = np.flatnonzero(acting & (self.games.actor < 0))
        self.over[ended] = True
        return ended

    def end(self, slots: Sequence[int] | np.ndarray) -> None:
        """Mark the games of ``slots`` over without a step (a caller's own ending: RLlib's illegal id)."""
        self.over[np.asarray(slots, dtype=np.int64)] = True

    @staticmethod
    def _exercise() -> None:
        streams = np.zeros((1, RNG_WORDS), dtype=np.uint64)
        seed_pcg64(streams[0], np.uint64(0))
        _draw_games(
            streams,
            np.zeros(1, dtype=np.int64),
            np.full(1, 2, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.uint64),
        )


class SelfPlayLoop:
    """The compiled self-play loop over a core's games: one learner per game, its opponents around it.

    Args:
        core: the games (dealt from each slot's stream by the loop itself) and where the loop keeps each slot's
            learner seat and deal (the core's ``seats`` and ``deals``). The core's ``over`` flags, ``step`` and
            ``deal_next`` belong to the loops that step games from Python; this one deals and steps in compiled
            code and leaves the flags alone.

    Attributes (one row per game, all writable by the caller between runs):
        learner: int64, the learner's seat of the current episode (the core's ``seats``).
        fixed_seat: int64, the learner's seat for every episode, or -1 to draw it at each episode.
        kinds: int8 ``(N, 5)``, per opponent slot :data:`RANDOM_SEAT` or :data:`CALLER_SEAT`.
        opponent_rngs: uint64 ``(N, 5, 6)``, the random opponents' generators (numpy's PCG64 states).
        status: int8, what the game waits on after :meth:`run`; ``waiting_slot``: int64, which opponent slot
            when it waits on an opponent.
        ended, reward, terminated, truncated, final_obs, final_scores, final_winners, final_learner: the episodes
            that ended since :meth:`clear_ends` (at most one per game and step): the learner's end reward, the
            flags, its last observation, the scores, the winners and the learner's seat.
    """

    def __init__(self, core: SelfPlayTables) -> None:
        n = core.num_slots
        self.core = core
        self.games = core.games
        self.learner = core.seats
        self.fixed_seat = np.full(n, -1, dtype=np.int64)
        self.waiting_slot = np.zeros(n, dtype=np.int64)
        self.kinds = np.full((n, OPPONENTS), RANDOM_SEAT, dtype=np.int8)
        self.opponent_rngs = np.zeros((n, OPPONENTS, RNG_WORDS), dtype=np.uint64)
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
            (self.core.streams, self.core.seats, self.core.deals),
            self.fixed_seat,
            (self.kinds, self.opponent_rngs),
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
    core = SelfPlayTables(2, TableSizes.of(2))
    core.seed_streams(np.arange(2), np.arange(2))
    loop = SelfPlayLoop(core)
    loop.seed_opponent(0, 0, 0)
    loop.run(np.full(2, -1, dtype=np.int64), np.ones(2, dtype=np.int8), seed_randoms=True, autoreset=True)
