"""Luck-adjusted outcomes: each game's result less the luck of its chance events, for agents of any kind.

A game's result is mostly the draw. At every *chance step* (the deal, and each action after which a card nobody
had seen is known to someone, or after which the rules put a card at a random place of the deck) the estimator
records, for every seat, how much better that step's chance outcome left the seat than an average one:

    correction = V(the position after the step) - mean over re-dealt decks of V(the same step played from them)

where the re-dealt decks are the position before the step with every card no player has seen dealt again
(:func:`~gubs_env.fast.redeal_deck_rows`: the engine's own distribution, the Letters' placement prior
included), and ``V`` is any estimate of a seat's chance of winning. The adjusted outcome is the result (1 for a
win, shared or not, else 0) minus the sum of the game's corrections.

Why the mean stays honest: given everything the table has seen before a chance step, the real position is one
draw from the re-dealt distribution, and the step's action depends only on what its player has seen. So each
correction has expectation 0 whatever ``V`` is, and the adjusted outcome has the plain outcome's mean. A good
``V`` makes the corrections absorb most of the draw's effect, and the adjusted outcomes vary far less. A card
that someone has seen (a Scout's peek) is not dealt again: the play since the peek depended on it, and treating
its draw as chance would bias the estimate (tests/agents/test_luck.py catches that with an agent that acts on
its peeks).

It needs no agent's policy, only the deal and the actions: a game from a tournament or a saved record, played by
a model file, a class from a notebook or a person. It assumes agents see only what their seat may see (the
all-seeing search reads the deck, and is refused) and that the games follow the engine's chance distribution.
docs/luck.md has the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import numba as nb
import numpy as np

from agents.bots.names import CATALOGUE
from agents.bots.search.rollout import win_of
from agents.bots.search.value import FEATURES, ValueNet, leaf_features
from agents.bots.threads import one_blas_thread
from gubs_env.encoding.action_table import NUM_ACTIONS, describe_id, encode
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import Action, Game, action_from_dict
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.fast import (
    S_OVER,
    S_SCOUT,
    new_rows,
    redeal_deck_rows,
    reset_one,
    score,
    state_to_row,
    step_game,
    view_game,
    world_seed,
)
from gubs_env.fast import layout as L
from gubs_env.records.record import GameRecord

MAX_WORLDS = 4096
"""The most re-dealt decks a chance step may ask for."""
DEAL_STEP = -1
"""The step index :class:`GameLuck` gives the deal."""


class LuckError(ValueError):
    """A game the estimator cannot replay: an action that is not legal where the record plays it, or too few."""


@dataclass(frozen=True)
class LuckSettings:
    """How the corrections are estimated.

    Attributes:
        worlds: decks dealt again at each chance step; the expectation is their mean. More worlds cost time and
            remove the sampling noise this mean adds (it never biases the estimate). 8 worlds keep the adjustment's
            cost near the cost of playing networks' games at 2 players; 16 narrow the interval by about 4% at twice
            the adjustment's cost, worth it only for agents that play slowly, such as a search (docs/luck.md).
        seed: seeds the re-deals; a step's worlds depend on it, the deal's seed and the step's index only.
    """

    worlds: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or not 1 <= self.worlds <= MAX_WORLDS:
            raise ValueError(f"worlds must be an int from 1 to {MAX_WORLDS}, not {self.worlds!r:.40}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
            raise ValueError(f"seed must be an int from 0 to 2**32 - 1, not {self.seed!r:.40}")

    @classmethod
    def of(cls, adjust_luck: bool | LuckSettings) -> LuckSettings | None:
        """An ``adjust_luck`` argument as settings: True for the defaults, False for none.

        Raises:
            ValueError: anything else.
        """
        if isinstance(adjust_luck, LuckSettings):
            return adjust_luck
        if not isinstance(adjust_luck, bool):
            raise ValueError(f"adjust_luck must be a bool or a LuckSettings, not {adjust_luck!r:.60}")
        return cls() if adjust_luck else None


def luck_worlds(text: str) -> int:
    """``--luck-worlds`` of every command: a count :class:`LuckSettings` accepts (argparse's type)."""
    import argparse

    from gubs_env.support.cli import positive_int

    value = positive_int(text)
    if value > MAX_WORLDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_WORLDS}, not {value}")
    return value


class SeatValues(Protocol):
    """``V``: each seat's estimated chance of winning, for a stack of game rows of one table size."""

    def __call__(self, rows: np.ndarray, num_players: int) -> np.ndarray:
        """float64 ``(len(rows), num_players)``."""
        ...


class NetworkValue:
    """``V`` from a value network on :func:`~agents.bots.search.value.leaf_features` (every hand, no deck order).

    A finished game is worth its result (1 to each winner). In an unfinished one the network estimates each seat's
    chance from that seat's side, and the estimates are scaled to add up to 1: one of the seats wins, and the
    network's errors common to every seat (a turn passing, a window opening) cancel. That halves the noise ``V``
    adds where nothing was drawn (docs/luck.md).

    Args:
        net: the network; None: the shipped judge of each game's table size (:func:`shipped_luck_value`).
    """

    def __init__(self, net: ValueNet | None = None) -> None:
        self.net = net

    def __call__(self, rows: np.ndarray, num_players: int) -> np.ndarray:
        """float64 ``(len(rows), num_players)``: each seat's chance of winning in each row."""
        net = self.net if self.net is not None else shipped_luck_value(num_players)

        def estimates(features: np.ndarray) -> np.ndarray:
            with one_blas_thread():  # tournaments run a process per core: more BLAS threads would only contend
                return net.values(features)

        return _seat_chances(rows, num_players, estimates)


class ObservationValue:
    """``V`` from any estimate of a seat's outcome read from that seat's observation alone (a critic).

    ``outcome(observations)`` maps float32 ``(k, 512)`` observations to each one's expected final reward (+1 a win,
    -1 a loss); ``(v + 1) / 2`` is the seat's chance, and the seats' chances are scaled to add up to 1, as
    :class:`NetworkValue`'s are. A finished game is worth its result. A self-play run's own critic judges the luck
    this way, with no network fitted on anyone else's games; as long as ``outcome`` stays one function while a
    batch's luck is measured, each correction keeps mean 0 whatever it estimates.

    ``outcome`` is asked once per distinct observation of an unfinished row. Most rows of a chance step repeat one:
    a seat that saw nothing of a re-dealt card has the same view in every world (about 62% of the rows at 2
    players, 72% at 4), and a critic's forward pass is most of the cost.
    """

    def __init__(self, outcome: Callable[[np.ndarray], np.ndarray]) -> None:
        self.outcome = outcome

    def __call__(self, rows: np.ndarray, num_players: int) -> np.ndarray:
        """float64 ``(len(rows), num_players)``: each seat's chance of winning in each row."""
        return _seat_chances(rows, num_players, self._estimates)

    def _estimates(self, features: np.ndarray) -> np.ndarray:
        # a seat's value features begin with its observation (leaf_features): the critic reads that part alone
        return (self._each_outcome(features[:, :OBS_SIZE]) + 1) / 2

    def _each_outcome(self, observations: np.ndarray) -> np.ndarray:
        """float64 ``outcome`` of every observation, computed on the distinct ones only."""
        with one_blas_thread():  # the grouping's product is small: more BLAS threads would only wait on each other
            first, inverse = _distinct_rows(observations)
        return np.asarray(self.outcome(observations[first]), dtype=np.float64)[inverse]


def _seat_chances(rows: np.ndarray, num_players: int, estimates: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Each seat's chance in each row: a finished row's results, an unfinished one's ``estimates`` scaled to sum 1.

    ``estimates`` maps the value features of the unfinished rows' seats (:func:`leaf_features`, row by row, seat by
    seat) to each seat's estimated chance; it is not asked about finished rows.
    """
    features = np.empty((len(rows) * num_players, FEATURES), dtype=np.float32)
    results = np.empty((len(rows), num_players), dtype=np.float64)
    open_rows = _features_and_results(rows, num_players, features, results)
    chances = np.ones((len(rows), num_players))  # a finished row's stand-in: its results replace it below
    if open_rows.any():
        values = estimates(features[np.repeat(open_rows, num_players)])
        chances[open_rows] = np.clip(values, 1e-6, 1.0).reshape(-1, num_players)
    chances /= chances.sum(axis=1, keepdims=True)
    return np.where(open_rows[:, None], chances, results)


_ROW_KEY = np.random.default_rng(0).random(OBS_SIZE).astype(np.float32)
"""Weights that turn an observation into one number: distinct observations almost never share it."""


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The index of each distinct row's first copy, and each row's distinct row: ``rows[first][inverse] == rows``.

    Rows are grouped by a weighted sum (fast), then checked; where two distinct rows share a sum, they are grouped by
    their bytes instead (exact, a few times slower).
    """
    _, first, inverse = np.unique(rows @ _ROW_KEY, return_index=True, return_inverse=True)
    if not np.array_equal(rows[first][inverse], rows):
        keys = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


class ConstantValue:
    """``V`` that is the same everywhere: every correction is 0, so the adjusted outcome is the plain one."""

    def __init__(self, value: float = 0.5) -> None:
        self.value = value

    def __call__(self, rows: np.ndarray, num_players: int) -> np.ndarray:
        """float64 ``(len(rows), num_players)``, every entry the constant."""
        return np.full((len(rows), num_players), self.value)


SIZE_JUDGES = {2: "luck-value-2p"}
"""The table sizes with a judge of their own (a catalogue name), fitted on that size's games alone; every other size
is judged by ``luck-value``, fitted on games of every size from 2 to 6 (docs/luck.md, "The judges")."""


def shipped_luck_value(num_players: int | None = None) -> ValueNet:
    """The shipped judge of games at ``num_players`` (None: the one of every size), read once per process as data."""
    return _shipped_judge(SIZE_JUDGES.get(num_players or 0, "luck-value"))


@cache
def _shipped_judge(name: str) -> ValueNet:
    return ValueNet.load(CATALOGUE[name].path)


@dataclass(frozen=True)
class GameLuck:
    """One game's chance steps and their corrections.

    Attributes:
        steps: the index of each chance step's action in the game (:data:`DEAL_STEP` for the deal).
        corrections: float64 ``(len(steps), num_players)``: each step's correction for each seat.
        results: float64 ``(num_players,)``: 1 for each winner (a shared win too), else 0.
        scores: each seat's final score.
        truncated: whether the game was cut at the turn limit (no winner).
    """

    steps: tuple[int, ...]
    corrections: np.ndarray
    results: np.ndarray
    scores: tuple[int, ...] = ()
    truncated: bool = False

    @property
    def luck(self) -> np.ndarray:
        """float64 ``(num_players,)``: each seat's luck, the sum of its corrections."""
        return self.corrections.sum(axis=0)

    @property
    def adjusted(self) -> np.ndarray:
        """float64 ``(num_players,)``: each seat's result less its luck."""
        return self.results - self.luck


class LuckEstimator:
    """Replays games and measures the luck of each seat (see the module's docstring).

    Args:
        settings: the number of re-dealt worlds per chance step and their seed.
        value: ``V`` (default: :class:`NetworkValue` with the shipped judges).
    """

    def __init__(self, settings: LuckSettings | None = None, value: SeatValues | None = None) -> None:
        self.settings = settings or LuckSettings()
        self.value = value if value is not None else NetworkValue()
        self._legal = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def game(self, num_players: int, seed: int, actions: Iterable[Action | int], **rule_options: Any) -> GameLuck:
        """The luck of the game dealt with ``seed`` and played with ``actions`` (engine actions or action ids).

        The game is replayed on the compiled engine, which plays the reference engine's games exactly.

        Raises:
            LuckError: an action that is not legal where it is played, or a game the actions do not finish.
            ValueError: a bad player count, seed or rule option.
        """
        start = Game(num_players, seed=seed, record_log=False, **rule_options)
        return self._replay(start, actions, seed, with_deal=True)

    def continuation(self, position: Game, actions: Iterable[Action | int], seed: int = 0) -> GameLuck:
        """The luck of ``actions`` played from ``position`` to the end: its chance steps only, no deal.

        ``seed`` stands for the deal in the worlds' seeds (any int: positions of one game should share it).

        Raises:
            LuckError: as :meth:`game`.
        """
        return self._replay(position, actions, seed, with_deal=False)

    def _replay(self, start: Game, actions: Iterable[Action | int], seed: int, with_deal: bool) -> GameLuck:
        """The chance steps of ``actions`` from ``start`` (and the deal's, ``with_deal``) and their corrections."""
        num_players, worlds = start.num_players, self.settings.worlds
        row, rng = new_rows(1)
        state_to_row(start.state, row[0], rng[0])
        ids = self._ids(row[0], rng[0], list(actions))
        g, r = row[0], rng[0]
        befores = np.empty((len(ids), L.ROW), dtype=np.int32)
        afters = np.empty_like(befores)
        at = np.empty(len(ids), dtype=np.int64)
        count = _chance_steps(g, r, ids, self._legal, befores, afters, at)
        if count < 0:
            index = -count - 1
            if g[L.STEP] == S_OVER:
                raise LuckError(f"action {index} comes after the game's end")
            raise LuckError(f"action {index} ({describe_id(int(ids[index]))}) is not legal where it is played")
        if g[L.STEP] != S_OVER:
            raise LuckError("the actions end before the game does")
        results = np.array([win_of(g, seat) for seat in range(num_players)])
        scores, truncated = tuple(int(score(g, seat)) for seat in range(num_players)), bool(g[L.TRUNCATED])
        blocks = count + int(with_deal)
        if blocks == 0:
            return GameLuck((), np.zeros((0, num_players)), results, scores, truncated)
        rows, rngs = new_rows(blocks * (worlds + 1))
        base = np.random.SeedSequence([self.settings.seed, seed & (2**63 - 1)]).generate_state(1, np.uint64)[0]
        if with_deal:
            state_to_row(start.state, rows[0], rngs[0])
            self._deal_rows(rows[: worlds + 1], rngs[: worlds + 1], start.state.options, base)
        for c in range(count):
            block = slice((c + with_deal) * (worlds + 1), (c + with_deal + 1) * (worlds + 1))
            rows[block.start] = afters[c]
            world_rows, world_rngs = rows[block.start + 1 : block.stop], rngs[block.start + 1 : block.stop]
            # the Letters follow the deck's history the row keeps (the position's own, for a continuation)
            redeal_deck_rows(befores[c], _known_top(befores[c]), int(world_seed(base, int(at[c]), 0)), world_rows,
                             world_rngs)  # fmt: skip
            if not _step_all(world_rows, world_rngs, int(ids[at[c]]), self._legal):
                raise LuckError(f"action {at[c]} is not legal in a re-dealt world (the game is not one of this engine)")
        values = self.value(rows, num_players).reshape(blocks, worlds + 1, num_players)
        steps = ((DEAL_STEP,) if with_deal else ()) + tuple(int(i) for i in at[:count])
        return GameLuck(steps, values[:, 0] - values[:, 1:].mean(axis=1), results, scores, truncated)

    def _ids(self, g: np.ndarray, r: np.ndarray, actions: list[Action | int]) -> np.ndarray:
        """The actions as ids (engine actions are encoded for their actor, found by playing them on a copy)."""
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in actions):
            ids = np.array(actions, dtype=np.int64)
            bad = np.flatnonzero((ids < 0) | (ids >= NUM_ACTIONS))
            if bad.size:
                raise LuckError(f"action {bad[0]} is not an action id from 0 to {NUM_ACTIONS - 1}")
            return ids
        g, r = g.copy(), r.copy()
        ids = np.empty(len(actions), dtype=np.int64)
        for index, given in enumerate(actions):
            actor = view_game(g, self._legal)
            if actor < 0:
                raise LuckError(f"action {index} comes after the game's end")
            ids[index] = _action_id(given, int(actor), int(g[L.NUM_PLAYERS]), index)
            if not self._legal[ids[index]]:
                raise LuckError(f"action {index} ({describe_id(int(ids[index]))}) is not legal where it is played")
            step_game(g, r, int(ids[index]), self._legal)
        return ids

    def record(self, record: GameRecord) -> GameLuck:
        """The luck of a saved game (checked as data when it was read; its actions are replayed, never run)."""
        actions = [action_from_dict(data) for data in record.actions]  # from_dict checked that each one reads
        return self.game(record.num_players, record.seed, actions, **record.options)

    def _deal_rows(self, rows: np.ndarray, rngs: np.ndarray, options: RuleOptions, base: np.uint64) -> None:
        """The deal's worlds: fresh deals of the same table in ``rows[1:]`` (row 0 is the real deal's)."""
        uniform = LETTER_PLACEMENTS.index(options.letter_placement)
        for w in range(1, rows.shape[0]):
            deal = np.uint64(world_seed(base, w, 1))
            reset_one(rows[w], rngs[w], deal, int(rows[0, L.NUM_PLAYERS]), options.max_turns, uniform)


def _action_id(given: Action | int, actor: int, num_players: int, index: int) -> int:
    """An engine action or an action id, as an id of the action space."""
    if isinstance(given, Action):
        return encode(given, actor, num_players)
    if isinstance(given, (int, np.integer)) and not isinstance(given, bool) and 0 <= given < NUM_ACTIONS:
        return int(given)
    raise LuckError(f"action {index} is neither an engine action nor an action id from 0 to {NUM_ACTIONS - 1}")


@nb.njit(cache=True)
def _known_top(g: np.ndarray) -> int:
    """How many cards on top of the deck some player knows (a Scout's peek, kept until a card is put back at random)."""
    known = 0
    for seat in range(g[L.NUM_PLAYERS]):
        known = max(known, g[L.SEEN_TOP_LEN + seat])
    if g[L.STEP] == S_SCOUT:  # the block the scouting player is placing is still on top
        known = max(known, g[L.CARDS_LEN] + g[L.PLACED_LEN])
    return known


@nb.njit(cache=True)
def _is_chance_step(before: np.ndarray, before_rng: np.ndarray, after: np.ndarray, after_rng: np.ndarray) -> bool:
    """A card nobody had seen became known, or the rules drew from the random generator (a card put back at random)."""
    if after[L.DECK_LEN] - _known_top(after) < before[L.DECK_LEN] - _known_top(before):
        return True
    return bool(np.any(before_rng != after_rng))


@nb.njit(cache=True)
def _chance_steps(
    g: np.ndarray,
    r: np.ndarray,
    ids: np.ndarray,
    legal: np.ndarray,
    befores: np.ndarray,
    afters: np.ndarray,
    at: np.ndarray,
) -> int:
    """Play ``ids`` in row ``g``, keeping each chance step's rows before and after it and its action's index.

    Returns how many chance steps there were, or ``-(i + 1)`` when id ``i`` is not legal where it comes (the game
    may be over by then).
    """
    before_rng = np.empty_like(r)
    count = 0
    view_game(g, legal)
    for i in range(ids.size):
        a = ids[i]
        if legal[a] == 0:
            return -(i + 1)
        befores[count] = g
        before_rng[:] = r
        step_game(g, r, a, legal)
        if _is_chance_step(befores[count], before_rng, g, r):
            afters[count] = g
            at[count] = i
            count += 1
    return count


@nb.njit(cache=True)
def _step_all(rows: np.ndarray, rngs: np.ndarray, action_id: int, legal: np.ndarray) -> bool:
    """Play ``action_id`` in every row; False (rows left part-played) when it is not legal in one."""
    for w in range(rows.shape[0]):
        view_game(rows[w], legal)
        if legal[action_id] == 0:
            return False
        step_game(rows[w], rngs[w], action_id, legal)
    return True


@nb.njit(cache=True)
def _features_and_results(rows: np.ndarray, n: int, features: np.ndarray, results: np.ndarray) -> np.ndarray:
    """Every seat's value features of every row, and each finished row's results; which rows are unfinished."""
    open_rows = np.zeros(rows.shape[0], dtype=np.bool_)
    for w in range(rows.shape[0]):
        open_rows[w] = rows[w, L.STEP] != S_OVER
        for seat in range(n):
            leaf_features(rows[w], seat, features[w * n + seat])
            results[w, seat] = win_of(rows[w], seat)
    return open_rows


# --- from each game's luck to an estimate ------------------------------------------------------------------------


def luck_scales(results: Sequence[float], luck: Sequence[float], folds: Sequence[int]) -> list[float]:
    """The share of each game's luck to subtract: fitted on the other fold's games (two folds, 0 and 1).

    ``V`` knows the game, not the agents: against a weak agent the draws matter less than ``V`` says (a random
    player wastes a good card), and subtracting all of the luck would add noise. The share that removes the most
    variance is the regression slope of the result on the luck; it is fitted on one fold (games of the even deals,
    say) and applied to the other, so no game's scale depends on its own luck and every adjusted result keeps the
    plain result's expectation. Clipped to [0, 2]; 0 where a fold's luck does not vary (a constant ``V``).
    """
    x, y, fold = (np.asarray(v, dtype=np.float64) for v in (luck, results, folds))
    slope = [0.0, 0.0]
    for f in (0, 1):
        xs, ys = x[fold == f], y[fold == f]
        spread = float(np.var(xs)) if xs.size > 1 else 0.0
        if spread > 1e-12:
            slope[f] = float(np.clip(np.mean((xs - xs.mean()) * (ys - ys.mean())) / spread, 0.0, 2.0))
    return [slope[1 - int(f)] for f in fold]


def adjusted_results(results: Sequence[float], luck: Sequence[float], folds: Sequence[int]) -> list[float]:
    """Each game's result less its scaled luck (:func:`luck_scales`)."""
    scales = luck_scales(results, luck, folds)
    return [float(r - s * x) for r, s, x in zip(results, scales, luck, strict=True)]
