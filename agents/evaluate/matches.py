"""Head-to-head evaluation: seat-rotated games between agents, win rates with Wilson intervals.

Games run on an :class:`~gubs_env.encoding.id_table.IdTable` (no environment wrappers), with each agent seeing
exactly what the environments would show it: on the compiled engine (:mod:`gubs_env.fast`) when numba is installed
and no log is kept, else on the reference engine. Both give the same game for the same deal and choices
(``tests/fast``), so results do not depend on which one ran. Tournaments (:mod:`agents.evaluate.tournament`) are
built on these games.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.bots.base import Agent
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.id_table import IdTable, ReferenceTable
from gubs_env.engine import Game
from gubs_env.envs.engines import AUTO, check_engine, open_table
from gubs_env.support.progress import is_terminal, progress_bar

if TYPE_CHECKING:
    from agents.evaluate.luck import LuckSettings


def wilson_interval(wins: float, games: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for the default ``z``)."""
    if games <= 0:
        raise ValueError("the interval needs at least one game")
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


MIN_DEALS = 20
"""Fewer deals than this give no deal-clustered interval: their spread is too unsure to stand in for the games'."""


def deal_clustered_interval(
    results: Sequence[float], deals: Sequence[int], z: float = 1.96
) -> tuple[float, float] | None:
    """A win rate's interval that counts each deal's games as one unit (a cluster-robust interval).

    The games of one deal are not independent: its cards favour some seats for every rotation. The variance of the
    rate over games is estimated from the deals' own sums (the cluster-robust sandwich, ``C / (C - 1)`` times the
    sum over deals of (wins - rate x games) squared, over games squared); the games then count as the number of
    independent games with that variance (``rate (1 - rate) / variance``, more than the games where the rotations
    of a deal cancel, fewer where they move together), and the interval is Wilson's at that count, so it stays
    within 0 and 1.

    Returns:
        The interval, or None with fewer than :data:`MIN_DEALS` deals or a rate of 0 or 1 (where no spread can be
        measured: Wilson's over games stands).
    """
    if len(set(deals)) < MIN_DEALS:
        return None
    rate = math.fsum(results) / len(results)
    variance = (MeanInterval.of(results, z, deals).width / (2 * z)) ** 2  # the rate's, over deals
    if rate in (0.0, 1.0) or variance <= 0.0:
        return None
    effective = rate * (1 - rate) / variance
    return wilson_interval(rate * effective, effective, z)


@dataclass(frozen=True)
class MeanInterval:
    """A mean of per-game values with its 95% normal interval (mean ± 1.96 standard errors)."""

    mean: float
    low: float
    high: float

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    @classmethod
    def of(cls, values: Sequence[float], z: float = 1.96, units: Sequence[int] | None = None) -> MeanInterval:
        """The mean of ``values`` (at least two) and its interval, from their sample standard deviation.

        With ``units`` (one per value, such as each game's deal) the values of a unit count as one: the standard
        error is the cluster-robust one, from the units' sums, as :func:`deal_clustered_interval` takes it; with
        fewer than :data:`MIN_DEALS` units, as there, the values count as independent.
        """
        if len(values) < 2:
            raise ValueError("the interval needs at least two games")
        mean = math.fsum(values) / len(values)
        sums: dict[int, float] = {}
        counts: dict[int, int] = {}
        for value, unit in zip(values, units, strict=True) if units is not None else ():
            sums[unit] = sums.get(unit, 0.0) + value
            counts[unit] = counts.get(unit, 0) + 1
        if len(sums) < MIN_DEALS:
            spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
            return cls.around(mean, z * spread / math.sqrt(len(values)))
        clusters = len(sums)
        spread = math.fsum((sums[u] - mean * counts[u]) ** 2 for u in sums) * clusters / (clusters - 1)
        return cls.around(mean, z * math.sqrt(spread) / len(values))

    @classmethod
    def around(cls, mean: float, half: float) -> MeanInterval:
        """``mean`` ± ``half``."""
        return cls(mean, mean - half, mean + half)

    @classmethod
    def adjusted_rate(
        cls, adjusted: Sequence[float], results: Sequence[float], z: float = 1.96, units: Sequence[int] | None = None
    ) -> MeanInterval:
        """A win rate measured by per-game ``adjusted`` values (each result less its luck), with a bounded interval.

        The adjusted values are not 0 or 1, so the normal interval of their mean can reach below 0 or above 1, and
        has no width when every value is alike (every game won, no luck measured). Instead the adjusted values'
        variance as a share of the plain ``results``' variance (the design effect) turns the ``n`` games into
        ``n / share`` effective games, and the interval is Wilson's at the mean (clipped to [0, 1]) over that
        many: always within [0, 1], and as narrow as the luck's share of the variance allows. Where the results do
        not vary (every game won or lost) the share cannot be measured, and no games are saved: the interval is
        the plain one's. The share is at least :data:`LEAST_VARIANCE_SHARE`. With ``units`` (each game's deal) both
        variances are the cluster-robust ones, and the plain rate's games are counted as
        :func:`deal_clustered_interval` counts them, so that the two intervals are measured alike.

        Raises:
            ValueError: fewer than two games, or not as many adjusted values as results.
        """
        if len(adjusted) != len(results):
            raise ValueError("one adjusted value per result")
        spread, plain = cls.of(adjusted, z, units), cls.of(results, z, units)
        mean = min(1.0, max(0.0, spread.mean))
        share = (spread.width / plain.width) ** 2 if plain.width > 0 else 1.0
        games = float(len(results))
        if units is not None and plain.width > 0:  # the independent games the plain rate's variance is worth
            games = plain.mean * (1 - plain.mean) / (plain.width / (2 * z)) ** 2
        effective = games / max(share, LEAST_VARIANCE_SHARE)
        low, high = wilson_interval(mean * effective, effective, z)
        return cls(mean, min(low, mean), max(high, mean))


LEAST_VARIANCE_SHARE = 0.01
"""The adjusted variance is taken to be at least this share of the plain one (a tenth of the plain interval's width):
a luck estimate that seems to explain nearly all of a match's variance is more likely a small sample's accident."""


@dataclass
class MatchResult:
    """How one agent fared over a match."""

    agent: str
    games: int
    wins: int
    """Games in which the agent was among the winners (a shared win counts)."""
    truncated: int
    adjusted: MeanInterval | None = None
    """The luck-adjusted win rate with its 95% interval (:mod:`agents.evaluate.luck`; None when not measured)."""
    luck: MeanInterval | None = None
    """The agent's mean luck with its 95% interval: it contains 0 when the adjustment is honest."""
    deals: int | None = None
    """How many deals the games were dealt from, when :meth:`measure_deals` took each deal's games as one unit."""
    deal_interval: tuple[float, float] | None = None
    """The win rate's 95% interval with each deal's games as one unit (:func:`deal_clustered_interval`)."""

    @property
    def win_rate(self) -> float:
        """Wins per game."""
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% interval: over deals when :meth:`measure_deals` set one, else Wilson's over games."""
        return self.deal_interval or wilson_interval(self.wins, self.games)

    def measure_deals(self, results: Sequence[float], deals: Sequence[int]) -> None:
        """Take each deal's games (its seat rotations) as one unit of the interval: ``results[k]`` is 1 for a win."""
        self.deals = len(set(deals))
        self.deal_interval = deal_clustered_interval(results, deals)

    def measure_luck(self, results: Sequence[float], luck: Sequence[float], deals: Sequence[int]) -> None:
        """Set :attr:`adjusted` and :attr:`luck` from each game's result (1 for a win), luck and deal.

        The luck is scaled on the odd deals' games for the even deals' and the other way round
        (:func:`agents.evaluate.luck.luck_scales`); both intervals take each deal's games as one unit, as the plain
        rate's does (:meth:`measure_deals`). At least two deals.
        """
        from agents.evaluate.luck import adjusted_results

        adjusted = adjusted_results(results, luck, [deal % 2 for deal in deals])
        self.adjusted = MeanInterval.adjusted_rate(adjusted, results, units=deals)
        self.luck = MeanInterval.of(luck, units=deals)

    @property
    def width_ratio(self) -> float | None:
        """The adjusted interval's width over the plain one's (None without the adjustment).

        Its square is about the share of the games the adjusted rate needs for the plain rate's confidence.
        """
        low, high = self.interval
        if self.adjusted is None or high <= low:
            return None
        return self.adjusted.width / (high - low)

    def __str__(self) -> str:
        low, high = self.interval
        games = f"{self.games} game" + ("" if self.games == 1 else "s")
        if self.deal_interval is not None:
            games += f" ({self.deals} deals as units)"
        return f"{self.agent}: {self.win_rate:.1%} wins [{low:.1%}, {high:.1%}] over {games}"


def play_game(
    table: Sequence[Agent],
    seed: int,
    codec: ActionCodec | None = None,
    *,
    record_log: bool = False,
    engine: str = AUTO,
    played: list[int] | None = None,
    **rule_options,
) -> Game:
    """One game dealt with ``seed``, ``table[seat]`` playing each seat; returns the finished game.

    Each agent is reset with ``seed * 101 + seat`` first, so the game depends only on the deal and the seating.
    An agent that decides from the game itself (``needs_game``, the search bots) is asked through
    :meth:`~agents.bots.base.Agent.act_in_game`, on the reference engine. ``record_log`` keeps the game's log
    (needed for a :class:`~gubs_env.records.record.GameRecord`; slower, and only the reference engine keeps
    one; an agent that reads the log, ``needs_log``, keeps it too). ``played``, when given, gets every action id in
    order (what :mod:`agents.evaluate.luck` replays).
    ``engine`` is one of :data:`~gubs_env.envs.engines.ENGINE_CHOICES`; the compiled engine plays the same
    game about 1.4 times as fast when a heuristic agent is at the table (the agents' own time is the rest).

    Raises:
        ValueError: an unknown engine, or ``engine="fast"`` with an agent that decides from the game itself.
    """
    check_engine(engine)
    for i, agent in enumerate(table):
        agent.reset(seed * 101 + i)
    searching = any(agent.needs_game for agent in table)
    if searching and engine == "fast":
        raise ValueError("an agent at this table decides from the game itself: it plays on the reference engine")
    n = len(table)
    record_log = record_log or any(agent.needs_log for agent in table)
    ids: IdTable
    if record_log or searching:  # only the reference engine keeps a log and is a Game to search
        ids = ReferenceTable(n, seed, record_log=record_log, **rule_options)
    else:
        ids = open_table(engine, n, seed, **rule_options)
    ask = _asking_the_game(table, ids, codec or ActionCodec(n)) if searching else _asking_the_agents(table, ids)
    while (seat := ids.actor) >= 0:
        action_id = ask(seat)
        ids.step(action_id)
        if played is not None:
            played.append(int(action_id))
    return ids.game  # the finished position: the table's own game, or the compiled engine's as a reference game


def _asking_the_agents(table: Sequence[Agent], ids: IdTable) -> Callable[[int], int]:
    """Each seat's agent asked with what the environments would show it (the mask is its own copy to keep)."""
    return lambda seat: table[seat].act(ids.observation(seat), ids.action_mask())


def _asking_the_game(table: Sequence[Agent], ids: IdTable, codec: ActionCodec) -> Callable[[int], int]:
    """Each seat's agent asked with the reference game itself, as the search bots decide."""
    return lambda seat: table[seat].act_in_game(ids.game, codec)


def wants_progress(progress: bool | None) -> bool:
    """``progress``, or for None whether stderr is a terminal: a bar helps a person and only clutters a log file."""
    return progress if progress is not None else is_terminal(sys.stderr)


AgentLike = Any
"""An agent as a spec (text or a parsed :class:`~agents.bots.spec.AgentSpec`) or an :class:`Agent` subclass."""


def _built(value: Agent | AgentLike, seed: int) -> Agent:
    """``value`` itself when it is an agent, else the agent its spec or class builds, seeded with ``seed``.

    Raises:
        agents.bots.spec.AgentSpecError: a spec or class that builds no agent.
    """
    if isinstance(value, Agent):
        return value
    from agents.bots.registry import make_agent
    from agents.bots.spec import AgentSpec

    return make_agent(AgentSpec.of(value), seed=seed)


def match(
    agent: Agent | AgentLike,
    opponent: Agent | AgentLike | Sequence[Agent | AgentLike],
    num_players: int = 2,
    games: int = 1000,
    seed: int = 0,
    progress: bool | None = None,
    adjust_luck: bool | LuckSettings = False,
    **rule_options,
) -> MatchResult:
    """``agent`` against ``num_players - 1`` opponents, each deal replayed with the agent at every seat.

    Game ``g`` is dealt with seed ``seed + g // num_players`` and seats the agent at ``g % num_players``, so
    the luck of the deal cancels across seatings (exactly when ``games`` is a multiple of ``num_players``).
    ``opponent`` is one agent for every other seat or a list of ``num_players - 1`` agents. An agent may also be
    given as a spec (``"heuristic"``, a parsed :class:`~agents.bots.spec.AgentSpec`) or an agent class: it is
    built here (one per seat for an opponent). ``progress``: a bar
    over the games on stderr (None, the default: when stderr is a terminal; a thousand games take a minute).
    ``adjust_luck`` also gives the luck-adjusted win rate and the mean luck (:mod:`agents.evaluate.luck`; True for
    the default settings).
    """
    agent = _built(agent, 0)
    if isinstance(opponent, Sequence) and not isinstance(opponent, str):
        others = [_built(other, seat) for seat, other in enumerate(opponent, 1)]
    elif isinstance(opponent, Agent):
        others = [opponent] * (num_players - 1)
    else:
        others = [_built(opponent, seat) for seat in range(1, num_players)]
    if len(others) != num_players - 1:
        raise ValueError(f"need {num_players - 1} opponents, got {len(others)}")
    codec = ActionCodec(num_players)
    truncated = 0
    estimator: LuckEstimator | None = None
    if adjust_luck is not False:
        from agents.evaluate.luck import LuckEstimator, LuckSettings

        estimator = LuckEstimator(LuckSettings.of(adjust_luck))
    won, results, luck = [], [], []
    label = f"{agent.name} vs {others[0].name}"
    for g in progress_bar(range(games), desc=label, unit="game", disable=not wants_progress(progress), leave=False):
        seat = g % num_players
        table = [*others[:seat], agent, *others[seat:]]
        ids: list[int] | None = None if estimator is None else []
        game = play_game(table, seed + g // num_players, codec, played=ids, **rule_options)
        won.append(float(seat in game.winners()))
        truncated += game.truncated
        if estimator is not None and ids is not None:
            measured = estimator.game(num_players, seed + g // num_players, ids, **rule_options)
            results.append(float(measured.results[seat]))
            luck.append(float(measured.luck[seat]))
    result = MatchResult(agent.name, games, int(sum(won)), truncated)
    result.measure_deals(won, [g // num_players for g in range(games)])
    if estimator is not None and games > 1:
        result.measure_luck(results, luck, [g // num_players for g in range(games)])
    return result
