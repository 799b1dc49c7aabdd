"""Whole games on the compiled engine, many at once: the native backend's rollouts and every evaluation's matches.

:meth:`SelfPlayGames.play` plays one game in each slot of the self-play core's batch
(:class:`~gubs_env.fast.SelfPlayTables`) to its end: the next game of each slot's stream
(:meth:`SelfPlayGames.deal_next`, training) or given deals (evaluations). Each seat is played by the policy
(:data:`~agents.training.core.seating.POLICY`: the network being trained, or the one evaluated) or by the player
the :class:`~agents.training.core.seating.Seating` gave it. Per round, every unfinished game advances by one
decision:

* a decision with a single legal id is played at once and is **not** a sample: nothing can be learnt from it, and
  leaving it out changes neither the episode's end nor any seat's reward (the game is the same game);
* a policy seat's decision is asked of ``decide`` for all such games in one call, and becomes a sample: the
  observation, the mask, the id chosen and whatever ``decide`` returns with it (log-probability, value);
* every other seat is asked of the seating, each player once for all the games waiting on it.

Samples carry their trajectory, ``slot * MAX_PLAYERS + seat``: one trajectory per seat and game, in time order.
When a game ends, each seat's reward (+1 for every winner, -1 for every other seat, 0 for all at the turn limit)
is that trajectory's return. Whole games only: the batch's advantages never bootstrap across an unfinished game,
and the batch splits into halves by game for :func:`~agents.training.core.diagnostics.agreement`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.training.core.seating import POLICY, Seating
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.fast import SKIP, SelfPlayTables

Decide = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``decide(observations, masks) -> (ids, log_probs, values)`` for a stack of policy decisions."""


@dataclass
class Batch:
    """The policy's decisions in a batch of whole games, in the order they were taken.

    Attributes:
        obs: float32 ``(S, 512)``; masks: int8 ``(S, 356)``; actions: int64 ``(S,)``.
        log_probs, values: float32 ``(S,)``, what ``decide`` returned with each action.
        trajectory: int64 ``(S,)``, ``slot * MAX_PLAYERS + seat``.
        moves: int64 ``(S,)``, the index of the sample's decision among its game's decisions (forced ones
            included): where it comes in the game's action ids (``play``'s ``history``).
        returns: float32 ``(S,)``, the final reward of the sample's seat in its game.
        last: bool ``(S,)``, the trajectory's last sample.
        games: how many games were played; decisions: how many decisions they took in all (forced ones included);
            policy_decisions: how many of them the policy's seats took (forced ones included): a run's timesteps.
        seat_rewards: float32 ``(games, MAX_PLAYERS)``, every seat's final reward (0 past the table size).
        rewards: float32 ``(S,)``, a reward the sample's seat gets after this decision and before its next one, on
            top of the final reward (the luck adjustment's, :mod:`agents.training.native.luck_returns`); zeros
            unless a run sets them.
    """

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    log_probs: np.ndarray
    values: np.ndarray
    trajectory: np.ndarray
    moves: np.ndarray
    returns: np.ndarray
    last: np.ndarray
    games: int
    decisions: int
    policy_decisions: int
    seat_rewards: np.ndarray
    rewards: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def only(self, keep: np.ndarray) -> Batch:
        """The same games with only the samples where ``keep`` is true."""
        return Batch(
            obs=self.obs[keep],
            masks=self.masks[keep],
            actions=self.actions[keep],
            log_probs=self.log_probs[keep],
            values=self.values[keep],
            trajectory=self.trajectory[keep],
            moves=self.moves[keep],
            returns=self.returns[keep],
            last=self.last[keep],
            games=self.games,
            decisions=self.decisions,
            policy_decisions=self.policy_decisions,
            seat_rewards=self.seat_rewards,
            rewards=self.rewards[keep],
        )

    @property
    def seat(self) -> np.ndarray:
        """The seat of each sample."""
        return self.trajectory % MAX_PLAYERS

    @property
    def game(self) -> np.ndarray:
        """The slot (game) of each sample."""
        return self.trajectory // MAX_PLAYERS


class _Samples:
    """Growable sample arrays, kept between batches so that a run allocates them once."""

    def __init__(self, capacity: int) -> None:
        self.size = 0
        self.obs = np.zeros((capacity, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((capacity, NUM_ACTIONS), dtype=np.int8)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.log_probs = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.trajectory = np.zeros(capacity, dtype=np.int64)
        self.moves = np.zeros(capacity, dtype=np.int64)

    def reserve(self, extra: int) -> None:
        need = self.size + extra
        if need <= self.obs.shape[0]:
            return
        capacity = max(need, 2 * self.obs.shape[0])
        for name in ("obs", "masks", "actions", "log_probs", "values", "trajectory", "moves"):
            old = getattr(self, name)
            grown = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            grown[: self.size] = old[: self.size]
            setattr(self, name, grown)


class SelfPlayGames:
    """A batch of whole games on the self-play core, each seat played by the policy or by the seating's player.

    Args:
        seating: who plays each seat of each slot's game (its slots are this batch's games).
        sizes: the table sizes (one, a list, or a ``TableSizes``), dealt to the slots by the core's rule
            (:meth:`~gubs_env.engine.players.TableSizes.per_slot`): this is how one batch mixes sizes, and a list
            of one size per slot gives each slot its own.
        threads: the compiled engine's threads.
        record: keep the policy's decisions as samples (False for evaluations, which need only the outcomes).

    Raises:
        ValueError: a table size the game does not allow.
    """

    def __init__(
        self, seating: Seating, sizes: TableSizes | int | Sequence[int], threads: int = 1, record: bool = True
    ) -> None:
        self.seating = seating
        self.tables = SelfPlayTables(len(seating.players), TableSizes.of(sizes), threads=threads)
        self.record = record
        self._samples = _Samples(self.num_games * 64 if record else 0)
        self._round = 0

    @property
    def num_games(self) -> int:
        """Games per batch."""
        return self.tables.num_slots

    @property
    def players(self) -> np.ndarray:
        """The table size of each slot."""
        return self.tables.players

    def deal_next(self) -> np.ndarray:
        """Deal every slot the next game of its stream and seat its players; returns each game's learner seat."""
        slots = np.arange(self.num_games)
        learners = self.tables.deal_next(slots)
        self.seating.seat(slots, self.players, learners, self.tables.deals)
        return learners

    def deal(self, seeds: np.ndarray, policy_seats: np.ndarray) -> None:
        """Deal slot ``k`` the game ``seeds[k]`` with the policy at ``policy_seats[k]``, and seat the others."""
        slots = np.arange(self.num_games)
        self.tables.deal(slots, seeds)
        self.seating.seat(slots, self.players, policy_seats, self.tables.deals)

    def play(self, decide: Decide, forced_samples: bool = False, history: list[list[int]] | None = None) -> Batch:
        """Play every dealt game to its end; returns the policy seats' decisions.

        Args:
            decide: the policy, asked once per round for all the games waiting on a policy seat.
            forced_samples: ask the policy at its forced decisions too, and keep them as samples (for comparison:
                they carry no policy gradient, only noise in the batch's statistics).
            history: when given, ``num_games`` empty lists: each gets its game's action ids in order (what the luck
                adjustment replays, :mod:`agents.evaluate.luck`).
        """
        tables, n = self.tables, self.num_games
        self._samples.size = 0
        seat_rewards = np.zeros((n, MAX_PLAYERS), dtype=np.float32)
        slots = np.arange(n, dtype=np.int64)
        actions = np.full(n, SKIP, dtype=np.int64)
        decisions = policy_decisions = 0
        self._round = 0  # every running game takes one decision a round: the round is the decision's index in it
        while True:
            actor = tables.actor
            live = actor >= 0
            if not live.any():
                break
            actions[:] = SKIP
            seats = np.maximum(actor, 0)
            policy = self.seating.plays(slots, seats) == POLICY
            forced = tables.forced()
            if forced_samples:
                forced &= ~policy
            actions[forced] = tables.forced_ids(np.flatnonzero(forced))
            asked = live & ~forced
            others = np.flatnonzero(asked & ~policy)
            if others.size:
                games = tables.games
                actions[others] = self.seating.act(games.obs[others], games.mask[others], others, seats[others])
            policy_rows = np.flatnonzero(asked & policy)
            if policy_rows.size:
                self._ask_policy(policy_rows, actor[policy_rows], decide, actions)
            decisions += int(live.sum())
            policy_decisions += int((live & policy).sum())
            if history is not None:
                for slot in np.flatnonzero(live):
                    history[slot].append(int(actions[slot]))
            ended = tables.step(actions)
            seat_rewards[ended] = tables.games.rewards[ended]
            self._round += 1
        return self._batch(seat_rewards, decisions, policy_decisions)

    def _ask_policy(self, rows: np.ndarray, seats: np.ndarray, decide: Decide, actions: np.ndarray) -> None:
        samples, games = self._samples, self.tables.games
        if not self.record:
            actions[rows] = decide(games.obs[rows], games.mask[rows])[0]
            return
        k = rows.size
        samples.reserve(k)
        start, stop = samples.size, samples.size + k
        obs, masks = samples.obs[start:stop], samples.masks[start:stop]
        np.take(games.obs, rows, axis=0, out=obs)
        np.take(games.mask, rows, axis=0, out=masks)
        ids, log_probs, values = decide(obs, masks)
        actions[rows] = ids
        samples.actions[start:stop] = ids
        samples.log_probs[start:stop] = log_probs
        samples.values[start:stop] = values
        samples.trajectory[start:stop] = rows * MAX_PLAYERS + seats
        samples.moves[start:stop] = self._round
        samples.size = stop

    def _batch(self, seat_rewards: np.ndarray, decisions: int, policy_decisions: int) -> Batch:
        s = self._samples
        size = s.size
        trajectory = s.trajectory[:size].copy()
        returns = seat_rewards.reshape(-1)[trajectory]
        last = np.zeros(size, dtype=np.bool_)
        # a trajectory's last sample is the last occurrence of its id
        _, first_of_reversed = np.unique(trajectory[::-1], return_index=True)
        last[size - 1 - first_of_reversed] = True
        return Batch(
            obs=s.obs[:size],
            masks=s.masks[:size],
            actions=s.actions[:size].copy(),
            log_probs=s.log_probs[:size].copy(),
            values=s.values[:size].copy(),
            trajectory=trajectory,
            moves=s.moves[:size].copy(),
            returns=returns.astype(np.float32),
            last=last,
            games=self.num_games,
            decisions=decisions,
            policy_decisions=policy_decisions,
            seat_rewards=seat_rewards,
            rewards=np.zeros(size, dtype=np.float32),
        )
