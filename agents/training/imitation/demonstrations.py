"""Warm start by imitation: teach a fresh policy to choose what a teacher agent chooses, before self-play.

Reinforcement learning from scratch settles early on a simple way of playing; starting from the heuristic's
choices gives PPO a strong policy to improve on instead. The value head is fitted too, to the discounted
outcome each decision led to: PPO's first updates follow the critic's advantages, and a critic that starts
from nothing turns them into noise that pulls the copied policy away from the teacher.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic import HeuristicAgent
from agents.bots.heuristic.tables import TABLES, HeuristicTables
from agents.training.core.config import WARM_START_LEARNING_RATE
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.support.progress import progress_bar


@dataclass
class Demonstrations:
    """Decisions of a teacher: observations (float16 to halve the memory), masks, the ids it chose and returns."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    """The deciding seat's discounted reward: +1 win, -1 loss, 0 truncation, discounted per own later decision."""
    games: int = field(default=0, kw_only=True)
    """How many games the decisions come from (0: not counted, as for search labels)."""

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    teacher: Agent,
    player_counts: list[int],
    games: int,
    seed: int = 0,
    progress: bool = True,
    gamma: float = 0.995,
    deadline: float | None = None,
) -> Demonstrations:
    """Play ``games`` games with the teacher at every seat (table sizes in turn) and record every decision.

    With a ``deadline`` (a ``time.perf_counter`` value) no new game is started once it has passed, so fewer games
    may be played (at least one; :attr:`Demonstrations.games` says how many): a run's time budget bounds its warm
    start.

    Game ``g`` is dealt with seed ``seed + g`` and the teacher is reset with that seed before it. ``gamma``
    discounts the returns as the learner's environment does: once per decision of the same seat. A
    :class:`HeuristicAgent` itself (not a subclass) plays all the games at once on the compiled engine, with the
    compiled heuristic: the same games and the same decisions as one game at a time on the reference engine.
    """
    if type(teacher) is HeuristicAgent:
        return _collect_compiled(player_counts, games, seed, progress, gamma, teacher.tables, deadline=deadline)
    observations, masks, actions, returns = [], [], [], []
    codecs = {n: ActionCodec(n) for n in player_counts}
    played = 0
    for g in progress_bar(range(games), desc="demonstrations", unit="game", disable=not progress, leave=False):
        if played and _past(deadline):
            break
        played += 1
        n = player_counts[g % len(player_counts)]
        game = Game(n, seed=seed + g, record_log=False)
        teacher.reset(seed + g)
        seats = []
        while not game.is_over:
            seat = game.current_player
            assert seat is not None  # a game that is not over has a seat to move
            mask = codecs[n].mask(game.legal_actions(), seat)
            observation = encode(game.state, seat)
            action = teacher.act(observation, mask)
            observations.append(observation.astype(np.float16))
            masks.append(mask.astype(bool))
            actions.append(action)
            seats.append(seat)
            game.apply(codecs[n].action(action, seat))
        returns += _discounted_outcomes(game, seats, gamma)
    return Demonstrations(
        np.stack(observations),
        np.stack(masks),
        np.array(actions, dtype=np.int64),
        np.array(returns, dtype=np.float32),
        games=played,
    )


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _collect_compiled(
    player_counts: list[int],
    games: int,
    seed: int,
    progress: bool,
    gamma: float,
    tables: HeuristicTables = TABLES,
    batch: int = 128,
    deadline: float | None = None,
) -> Demonstrations:
    """:func:`collect` for the heuristic teacher: ``batch`` games at a time, each step one compiled decision for all.

    Each game has its own tie-breaking generator, seeded as ``HeuristicAgent.reset(seed + g)`` seeds the teacher's,
    and the decisions are put back in the reference order (game by game, in play) before the returns are taken.
    """
    from agents.bots.heuristic.decide import heuristic_actions
    from gubs_env.engine.cards import MAX_PLAYERS
    from gubs_env.fast import RNG_WORDS, FastGames, seed_pcg64

    observations, masks, actions, game_ids, seats = [], [], [], [], []
    outcomes = np.zeros((games, MAX_PLAYERS), dtype=np.float64)
    bar = progress_bar(total=games, desc="demonstrations", unit="game", disable=not progress, leave=False)
    played = 0
    for start in range(0, games, batch):
        if played and _past(deadline):
            break
        ids = np.arange(start, min(start + batch, games), dtype=np.int64)
        played = int(ids[-1]) + 1
        table = FastGames(len(ids))
        table.reset(seed + ids, [player_counts[g % len(player_counts)] for g in ids])
        rngs = np.zeros((len(ids), RNG_WORDS), dtype=np.uint64)
        for row, g in enumerate(ids):
            seed_pcg64(rngs[row], np.uint64(seed + g))
        chosen = np.zeros(len(ids), dtype=np.int64)
        step = np.full(len(ids), -1, dtype=np.int64)
        rows = np.flatnonzero(table.actor >= 0)
        bar.update(len(ids) - len(rows))  # deals that end before anyone decides
        while rows.size:
            heuristic_actions(table.obs, table.mask, rows, rows, rngs, chosen, tables)
            observations.append(table.obs[rows].astype(np.float16))
            masks.append(table.mask[rows].astype(bool))
            actions.append(chosen[rows])
            game_ids.append(ids[rows])
            seats.append(table.actor[rows])
            step[:] = -1
            step[rows] = chosen[rows]
            table.step(step)
            ended = rows[table.actor[rows] < 0]
            outcomes[ids[ended]] = table.rewards[ended]  # +1 each winner, -1 the others, all 0 when truncated
            bar.update(len(ended))
            rows = rows[table.actor[rows] >= 0]
    bar.close()
    game_of = np.concatenate(game_ids)
    order = np.argsort(game_of, kind="stable")  # game by game, each game's decisions in the order played
    game_of = game_of[order]
    seat_of = np.concatenate(seats)[order]
    returns = outcomes[game_of, seat_of] * gamma ** _later_own_decisions(game_of * MAX_PLAYERS + seat_of)
    return Demonstrations(
        np.concatenate(observations)[order],
        np.concatenate(masks)[order],
        np.concatenate(actions)[order],
        returns.astype(np.float32),
        games=played,
    )


def _later_own_decisions(keys: np.ndarray) -> np.ndarray:
    """Per decision (``keys``: one value per game and seat, in the order played), how many of the same key follow."""
    by_key = np.argsort(keys, kind="stable")
    sorted_keys = keys[by_key]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, len(keys)])
    rank = np.arange(len(keys)) - np.repeat(starts, sizes)
    later = np.empty(len(keys), dtype=np.int64)
    later[by_key] = np.repeat(sizes, sizes) - 1 - rank
    return later


def _discounted_outcomes(game: Game, seats: list[int], gamma: float) -> list[float]:
    """Per decision, in order: the deciding seat's final reward discounted by its own decisions still to come."""
    winners = game.winners()
    outcome = [0.0 if game.truncated else (1.0 if s in winners else -1.0) for s in range(game.num_players)]
    later = [0] * game.num_players
    out = [0.0] * len(seats)
    for i in range(len(seats) - 1, -1, -1):
        seat = seats[i]
        out[i] = outcome[seat] * gamma ** later[seat]
        later[seat] += 1
    return out


@dataclass(frozen=True)
class Fitted:
    """What :func:`fit` did: the mean policy loss of each epoch (the last one partial when cut), and how far it got."""

    losses: list[float]
    epochs: float
    """Epochs fitted: ``planned`` unless the deadline cut the fit, then a fraction (at least one batch)."""
    planned: int

    @property
    def cut(self) -> bool:
        """Whether the deadline stopped the fit before its planned epochs."""
        return self.epochs < self.planned


BATCHES_BETWEEN_CALLS = 16
"""How often :func:`fit` calls ``between`` (a thread-count check), in batches."""


def fit(
    parameters: Iterable[Any],
    heads: Callable[[Any], tuple[Any, Any]],
    data: Demonstrations,
    epochs: int = 4,
    batch_size: int = 512,
    seed: int = 0,
    progress: bool = True,
    learning_rate: float = WARM_START_LEARNING_RATE,
    deadline: float | None = None,
    between: Callable[[], object] | None = None,
) -> Fitted:
    """Fit a network's policy to the demonstrations (cross-entropy over the legal ids) and its value to their returns.

    ``heads`` maps a batch of observations (a float32 tensor) to the policy's logits and the values, on either
    backend's network; ``parameters`` are what Adam updates, and the batches go to their device (a GPU's too).
    With a ``deadline`` (a ``time.perf_counter`` value) the fit stops at the first check past it, after at least one
    batch: a run's time budget bounds its warm start. ``between`` is called every few batches (the learner's
    thread count follows the machine's load there).
    """
    import torch

    parameters = list(parameters)
    device = parameters[0].device if parameters else torch.device("cpu")

    def tensor(array: np.ndarray, dtype: Any = None) -> Any:
        return torch.as_tensor(array, dtype=dtype).to(device)

    optimizer = torch.optim.Adam(parameters, lr=learning_rate)
    rng = np.random.default_rng(seed)
    per_epoch = max(1, -(-len(data) // batch_size))
    losses: list[float] = []
    done = 0  # batches fitted
    bar = progress_bar(total=epochs * per_epoch, desc="imitation", unit="batch", disable=not progress, leave=False)
    for _ in range(epochs):
        order = rng.permutation(len(data))
        total, seen = 0.0, 0
        for start in range(0, len(order), batch_size):
            if done and _past(deadline):
                break
            if between is not None and done % BATCHES_BETWEEN_CALLS == 0:
                between()
            batch = order[start : start + batch_size]
            observations = tensor(data.observations[batch], torch.float32)
            masks = tensor(data.masks[batch])
            logits, values = heads(observations)
            logits = logits.masked_fill(~masks, -1e9)  # only legal ids compete, as at play time
            loss = torch.nn.functional.cross_entropy(logits, tensor(data.actions[batch]))
            value_loss = torch.nn.functional.mse_loss(values, tensor(data.returns[batch]))
            optimizer.zero_grad()
            (loss + value_loss).backward()
            optimizer.step()
            total, seen, done = total + loss.item() * len(batch), seen + len(batch), done + 1
            bar.update()
        if seen:
            losses.append(total / seen)
        if seen < len(order):
            break
    bar.close()
    return Fitted(losses, done / per_epoch, epochs)
