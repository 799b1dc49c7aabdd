"""Round-robin tournaments between agents: a payoff matrix with Wilson intervals and OpenSkill ratings.

Every ordered pair of distinct agents (A, B) is a *pairing*: A takes one seat and B fills every other seat,
so ``M[A][B]`` is A's win rate against a field of B. Each pairing plays the same seeded deals, and each
deal once with A at every seat, so the luck of the cards and of the seating cancels out (see
``docs/evaluation.md``). Games run in worker processes and are aggregated in a fixed order, so the results
do not depend on how many processes played them.

>>> result = run_tournament(["random", "heuristic"], num_players=2, deals=5, jobs=1)
>>> [(p.agent, p.opponent, p.games) for p in result.pairings]
[('random', 'heuristic', 10), ('heuristic', 'random', 10)]
"""

from __future__ import annotations

import csv
import html
import json
import math
import os
import re
import signal
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from agents.bots.base import Agent
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpec, AgentSpecError, SpecKind, index_of, parse_distinct
from agents.bots.threads import set_torch_threads
from agents.evaluate.matches import MatchResult, MeanInterval, play_game, wants_progress
from agents.evaluate.processes import worker_count
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.records.record import GameRecord
from gubs_env.support.progress import progress_bar

if TYPE_CHECKING:
    from agents.evaluate.luck import LuckEstimator, LuckSettings

CSV_NAME, JSON_NAME, PNG_NAME = "tournament.csv", "tournament.json", "tournament.png"
"""The files :meth:`TournamentResult.save` writes."""

RATING_MODEL = "openskill.models.PlackettLuce (defaults: mu 25, sigma 25/3, tau 25/300)"

_MAX_CHUNK = 64
"""Games per worker task at most: small enough for a smooth progress bar and an even load."""


@dataclass(frozen=True)
class GameOutcome:
    """The result of one tournament game, as the workers send it back."""

    pairing: int
    """Index into :attr:`TournamentResult.played`: which agent (A) played which field (B)."""
    deal: int
    """Deal index: the game was dealt with seed ``seed + deal``."""
    seat: int
    """A's seat; B filled every other seat."""
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    truncated: bool
    luck: tuple[float, ...] = ()
    """Each seat's luck (:mod:`agents.evaluate.luck`), when the tournament adjusts for it; else empty."""


@dataclass
class PairingResult(MatchResult):
    """How ``agent`` fared in one seat against ``opponent`` in every other seat."""

    opponent: str = ""
    players: int = 2
    mean_score: float = 0.0
    """The agent's mean final score."""
    mean_margin: float = 0.0
    """Mean of the agent's score minus the best score among the other seats."""

    def summary(self) -> str:
        """One line: ``2 players, A against B at every other seat: A: 49.0% wins [46.9%, 51.2%] over 2000 games``.

        With the luck adjustment, the adjusted win rate (and its interval's width over the plain one's) and the
        mean luck follow.
        """
        line = f"{self.players} players, {self.agent} against {self.opponent} at every other seat: {self}"
        if self.adjusted is not None and self.luck is not None:
            line += f"; luck-adjusted {_rate(self.adjusted)}{_ratio(self.width_ratio)}, luck {_points(self.luck)}"
        return line

    def to_row(self) -> dict[str, Any]:
        """The pairing as a flat CSV/JSON row."""
        low, high = self.interval
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "players": self.players,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 6),
            "ci_low": round(low, 6),
            "ci_high": round(high, 6),
            "mean_score": round(self.mean_score, 6),
            "mean_margin": round(self.mean_margin, 6),
            "truncated": self.truncated,
            **_luck_fields(self),
        }


def _luck_fields(p: PairingResult) -> dict[str, float]:
    """The luck adjustment's columns of a pairing's row (none when it was not adjusted)."""
    if p.adjusted is None or p.luck is None:
        return {}
    return {
        "adjusted_win_rate": round(p.adjusted.mean, 6),
        "adjusted_ci_low": round(p.adjusted.low, 6),
        "adjusted_ci_high": round(p.adjusted.high, 6),
        "luck_mean": round(p.luck.mean, 6),
        "luck_ci_low": round(p.luck.low, 6),
        "luck_ci_high": round(p.luck.high, 6),
    }


def _rate(value: MeanInterval) -> str:
    """``49.6% [47.9%, 51.3%]``."""
    return f"{value.mean:.1%} [{value.low:.1%}, {value.high:.1%}]"


def _ratio(ratio: float | None) -> str:
    """`` (0.66x as wide)`` (with a multiplication sign), or nothing."""
    return "" if ratio is None else f" ({ratio:.2f}× as wide)"


def _points(value: MeanInterval) -> str:
    """A mean luck in percentage points: ``+0.4 pts [-1.2, +2.0]``."""
    return f"{100 * value.mean:+.1f} pts [{100 * value.low:+.1f}, {100 * value.high:+.1f}]"


@dataclass(frozen=True)
class AgentRating:
    """An agent's OpenSkill rating after every game of the tournament, and its rank.

    Agents share a rank where a result between them runs against their ratings' order (:func:`agreeing_ranks`).
    """

    agent: str
    mu: float
    sigma: float
    rank: int = 0
    """1 for the best; agents whose order the results do not support share the rank of the highest of them."""

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 * sigma`` that ranks the agents."""
        return self.mu - 3 * self.sigma


@dataclass
class TournamentResult:
    """Everything a tournament measured; ``str()`` gives the plain-text report."""

    agents: list[str]
    num_players: int
    deals: int
    seed: int
    rule_options: dict[str, Any]
    played: list[tuple[int, int]]
    """The pairings that were played, as (A, B) indices into :attr:`agents`; at 2 players only A < B."""
    games: list[GameOutcome]
    """Every game in the fixed order (pairing, deal, seat) that ratings and statistics use."""
    pairings: list[PairingResult]
    """One row per ordered pair of distinct agents, ordered by agent then opponent."""
    ratings: list[AgentRating] = field(default_factory=list)
    """Best first (highest ordinal)."""
    luck: LuckSettings | None = None
    """How the luck was measured, when the tournament adjusted for it (:mod:`agents.evaluate.luck`)."""

    @property
    def games_per_pairing(self) -> int:
        """``deals * num_players``: every deal once with the agent at each seat."""
        return self.deals * self.num_players

    def matrix(self) -> list[list[float | None]]:
        """``matrix()[i][j]``: the win rate of ``agents[i]`` against a field of ``agents[j]`` (None when i == j)."""
        rates = {(p.agent, p.opponent): p.win_rate for p in self.pairings}
        return [[rates.get((a, b)) for b in self.agents] for a in self.agents]

    def table(self) -> str:
        """The plain-text report: pairings with intervals, the payoff matrix and the ratings."""
        header = (
            f"{len(self.agents)} agents, {self.num_players} players, seed {self.seed}: {self.deals} deals per pairing, "
            f"each played with the agent at every seat ({self.games_per_pairing} games per pairing, "
            f"{len(self.games)} games in all)"
        )
        return "\n\n".join([header, self._pairing_table(), self._matrix_table(), self._rating_table()])

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        best = f", best {self.ratings[0].agent} (ordinal {self.ratings[0].ordinal:.2f})" if self.ratings else ""
        return (
            f"<TournamentResult {len(self.agents)} agents, {self.num_players} players, {len(self.games)} games{best}>"
        )

    def _repr_html_(self) -> str:
        """Jupyter shows the payoff matrix (coloured by win rate) and the ratings as HTML tables."""
        return _html_report(self)

    def _pairing_table(self) -> str:
        adjusted = self.luck is not None
        rows = [_pairing_cells(p, adjusted) for p in self.pairings]
        headers = ["agent", "opponent", "games", "win rate", "95% interval"]
        if adjusted:
            headers += ["luck-adjusted", "95% interval", "width", "mean luck"]
        headers += ["mean score", "mean margin", "truncated"]
        title = "Pairings (the agent in one seat, the opponent in every other seat"
        if adjusted:
            title += "; luck-adjusted: each game's result less its luck, docs/luck.md"
        return title + "):\n" + _columns(headers, rows)

    def _matrix_table(self) -> str:
        cells = [["—" if v is None else f"{v:.1%}" for v in row] for row in self.matrix()]
        rows = [[agent, *row] for agent, row in zip(self.agents, cells, strict=True)]
        title = (
            f"Payoff matrix (row agent's win rate against a field of the column agent; "
            f"chance is {1 / self.num_players:.1%}):\n"
        )
        return title + _columns(["", *self.agents], rows)

    def _rating_table(self) -> str:
        rows = [
            [_rank_text(r, self.ratings), r.agent, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}"]
            for r in self.ratings
        ]
        title = "Ratings (OpenSkill Plackett-Luce over every game; ordinal = mu - 3 sigma):\n"
        table = title + _columns(["rank", "agent", "mu", "sigma", "ordinal"], rows)
        if disputed := self.disputed_order():
            table += (
                "\n= shared rank: the ratings order these agents, but results between them run the other way ("
                + "; ".join(disputed)
                + "): read their pairings instead"
            )
        return table

    def disputed_order(self) -> list[str]:
        """The results that run against the ratings' order, as text (``"b won 51.2% against a, a 48.8% against b"``)."""
        rates = {(p.agent, p.opponent): p.win_rate for p in self.pairings}
        order = [r.agent for r in self.ratings]
        return [
            f"{below} won {rates[below, above]:.1%} against {above}, {above} {rates[above, below]:.1%} against {below}"
            for i, above in enumerate(order)
            for below in order[i + 1 :]
            if _beats(rates, below, above)
        ]

    def to_dict(self) -> dict[str, Any]:
        """Config, agents, pairings, payoff matrix and ratings as JSON-ready data."""
        return {
            "config": {
                "agents": self.agents,
                "num_players": self.num_players,
                "deals": self.deals,
                "deal_seeds": [self.seed, self.seed + self.deals - 1],
                "games_per_pairing": self.games_per_pairing,
                "games_played": len(self.games),
                "seed": self.seed,
                "rule_options": self.rule_options,
                "rating_model": RATING_MODEL,
                "luck": None if self.luck is None else asdict(self.luck),
            },
            "agents": self.agents,
            "pairings": [p.to_row() for p in self.pairings],
            "matrix": self.matrix(),
            "ratings": [{**asdict(r), "ordinal": r.ordinal} for r in self.ratings],
        }

    def to_csv(self, path: str | Path) -> Path:
        """Write one row per pairing (columns of :meth:`PairingResult.to_row`)."""
        path = Path(path)
        rows = [p.to_row() for p in self.pairings]
        columns = list(dict.fromkeys(key for row in rows for key in row))  # a pairing that was not adjusted: blanks
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        return path

    def to_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    def plot(self, path: str | Path) -> Path:
        """Draw the payoff heatmap (annotated with percentages) and the ratings (mu ± sigma) to a PNG.

        Long specs (``package.module:Class``, model paths) are labelled by their last part when that stays
        unambiguous.
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        k = len(self.agents)
        labels = _plot_labels(self.agents)
        adjusted = self.luck is not None
        width = 7 + 1.5 * k + (5 if adjusted else 0)
        fig = Figure(figsize=(width, max(2.5 + 0.8 * k, 1.5 + 0.35 * len(self.pairings))), layout="constrained")
        FigureCanvasAgg(fig)  # the Agg canvas renders without a display and leaves pyplot's backend alone
        panels = fig.subplots(1, 3 if adjusted else 2, width_ratios=[k + 1.5, 4, 5][: 3 if adjusted else 2])
        self._draw_matrix(fig, panels[0], labels)
        self._draw_ratings(panels[1], labels)
        if adjusted:
            self._draw_adjusted(panels[2], labels)
        fig.savefig(path, dpi=120)
        return Path(path)

    def _draw_adjusted(self, ax: Any, labels: dict[str, str]) -> None:
        """Each pairing's plain and luck-adjusted win rate with their 95% intervals, one above the other."""
        for i, p in enumerate(self.pairings):
            low, high = p.interval
            spread = [[max(0.0, p.win_rate - low)], [max(0.0, high - p.win_rate)]]  # a Wilson end can round past
            ax.errorbar(p.win_rate, i - 0.15, xerr=spread, fmt="o", color="grey", capsize=3,
                        label="plain" if i == 0 else None)  # fmt: skip
            if p.adjusted is not None:
                a = p.adjusted
                ax.errorbar(a.mean, i + 0.15, xerr=[[a.mean - a.low], [a.high - a.mean]], fmt="o", color="tab:blue",
                            capsize=3, label="luck-adjusted" if i == 0 else None)  # fmt: skip
        names = [f"{labels[p.agent]} vs {labels[p.opponent]}" for p in self.pairings]
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.axvline(1 / self.num_players, color="black", lw=0.6, ls=":")
        ax.set_xlabel("win rate (95% intervals; dotted: chance)")
        ax.set_title("plain and luck-adjusted win rates")
        ax.legend(loc="best", fontsize=8)
        ax.grid(axis="x", alpha=0.3)

    def _draw_matrix(self, fig: Any, ax: Any, labels: dict[str, str]) -> None:
        values = [[math.nan if v is None else v for v in row] for row in self.matrix()]
        image = ax.imshow(values, cmap="RdYlGn", vmin=0, vmax=1)
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                text, colour = ("—", "grey") if math.isnan(value) else (f"{value:.1%}", "black")
                if abs(value - 0.5) > 0.3:
                    colour = "white"  # readable on the dark ends of the colour map
                ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=9)
        names = [labels[a] for a in self.agents]
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("field (every other seat)")
        ax.set_ylabel("agent (one seat)")
        ax.set_title(f"win rate, {self.num_players} players, {self.games_per_pairing} games per cell")
        fig.colorbar(image, ax=ax, shrink=0.8)

    def _draw_ratings(self, ax: Any, labels: dict[str, str]) -> None:
        names = [labels[r.agent] for r in self.ratings]
        ax.barh(names, [r.mu for r in self.ratings], xerr=[r.sigma for r in self.ratings], capsize=4, color="tab:blue")
        ax.invert_yaxis()  # best first, at the top
        ax.set_xlabel("OpenSkill mu (error bars: ± sigma)")
        ax.set_title("ratings, best first")
        ax.grid(axis="x", alpha=0.3)

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write tournament.csv, tournament.json and tournament.png into ``out_dir`` (created if needed)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        return [self.to_csv(out / CSV_NAME), self.to_json(out / JSON_NAME), self.plot(out / PNG_NAME)]


def run_tournament(
    agents: Sequence[AgentSpec | str],
    num_players: int = 2,
    deals: int = 1000,
    seed: int = 0,
    jobs: int | None = None,
    progress: bool | None = None,
    records_dir: str | Path | None = None,
    allow_all_seeing: bool = False,
    fields: Sequence[AgentSpec | str] | None = None,
    adjust_luck: bool | LuckSettings = False,
    **rule_options: Any,
) -> TournamentResult:
    """Play every agent against a field of every other agent (or of each of ``fields``) and rate them all.

    Each pairing (A, B) plays deals ``seed, seed + 1, …, seed + deals - 1``, each deal once with A at every
    seat, so a pairing is ``deals * num_players`` games and every pairing sees the same deals. At 2 players
    the pairings (A, B) and (B, A) are the same games: they are played once and give both rows. Agents are
    reset before each game with a seed derived from the deal and their seat, and every seat gets its own
    agent instance, so a game depends only on (pairing, deal, seat).

    Ratings use OpenSkill's Plackett-Luce model, updated game by game in the fixed order (pairing, deal,
    seat). Every seat is its own one-player team; seats are ranked by result, winners first (a shared win
    is a tie), then by final score (equal scores tie; a truncated game has no winners, so only scores
    count). When one agent fills several seats, each copy is rated from the agent's current rating and the
    agent's new mu and sigma are the averages over its copies. The ratings are reported best first by
    ordinal, ``mu - 3 * sigma``.

    Args:
        agents: two or more distinct agent specs, as text or parsed (see :mod:`agents.bots.spec`); the results name
            each by its text as given (stripped), or a parsed one by its canonical text.
        num_players: seats per game.
        deals: seeded deals per pairing.
        seed: the first deal's seed.
        jobs: worker processes (None: one per core; 1: play in this process). Results do not depend on it.
        progress: show a tqdm bar over games (None: when stderr is a terminal).
        records_dir: save every game there as a JSON :class:`~gubs_env.records.record.GameRecord` (slower: the game
            keeps its log).
        allow_all_seeing: admit the all-seeing search (``search-all-seeing``), which reads every hidden card; for
            measurements such as the ladder only.
        fields: play only the pairings whose field (every seat but the agent's) is one of these agents, all
            of them in ``agents`` (None: every pairing). Measuring a costly agent against baselines then skips
            the tables where it fills every other seat; the payoff matrix shows the skipped cells as None.
        adjust_luck: also measure each game's luck and give every pairing its luck-adjusted win rate and mean
            luck (:mod:`agents.evaluate.luck`; True for the default :class:`~agents.evaluate.luck.LuckSettings`).
            The same win rate from fewer games; pairings with ``search-all-seeing`` are not adjusted (it decides
            from the deck's hidden cards).
        **rule_options: rule options for every game (see :class:`gubs_env.engine.options.RuleOptions`).

    Returns:
        The pairings, payoff matrix and ratings.

    Raises:
        ValueError: fewer than two agents, duplicates, a field that is not among the agents, or a bad count,
            seed or rule option.
        agents.bots.spec.AgentSpecError: a spec that names no agent, or two specs naming the same agent (raised
            before any game is played; it is a ValueError).
    """
    specs, parsed = _check_config(agents, num_players, deals, seed, jobs, rule_options)
    field_indices = _field_indices(parsed, fields)
    from agents.evaluate.luck import LuckSettings

    luck = LuckSettings.of(adjust_luck)
    runner = _GameRunner(specs, parsed, num_players, rule_options, records_dir, allow_all_seeing, luck)
    for spec in specs:
        runner.agent(spec, 0)  # builds each agent once here, so a bad spec fails before any game or file
    played = _played_pairings(len(specs), num_players, field_indices)
    tasks = [(p, d, s) for p in range(len(played)) for d in range(deals) for s in range(num_players)]
    if records_dir is not None:
        Path(records_dir).mkdir(parents=True, exist_ok=True)
    outcomes = _play_all(runner, played, tasks, seed, _jobs_for(parsed, jobs), progress)
    pairings = _pairing_results(specs, num_players, played, outcomes)
    return TournamentResult(
        agents=specs,
        num_players=num_players,
        deals=deals,
        seed=seed,
        rule_options=dict(rule_options),
        played=played,
        games=outcomes,
        pairings=pairings,
        ratings=_ratings(specs, num_players, played, outcomes, pairings),
        luck=luck,
    )


def _check_config(
    agents: Sequence[AgentSpec | str | Any],
    num_players: int,
    deals: int,
    seed: int,
    jobs: int | None,
    rule_options: dict[str, Any],
) -> tuple[list[str], list[AgentSpec]]:
    """The agents' names and parsed specs, once all is valid.

    A name is the text as given (stripped), else the parsed spec's canonical text (an object's name).
    """
    if isinstance(agents, str):
        raise ValueError("agents is a list of specs, not one string")
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {len(agents)}")
    parsed = parse_distinct(agents)  # two texts naming one agent (search, search:worlds=512) are refused too
    specs = [_label(agent, spec, True) for agent, spec in zip(agents, parsed, strict=True)]
    if len(set(specs)) < len(specs):  # two objects of one name: their specs tell them apart
        specs = [_label(agent, spec, False) for agent, spec in zip(agents, parsed, strict=True)]
    check_player_count(num_players)
    checks = [
        (deals, 1, math.inf, "deals"),
        (seed, 0, math.inf, "seed"),
        (1 if jobs is None else jobs, 1, math.inf, "jobs"),
    ]
    for value, low, high, name in checks:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            span = f"at least {low}" if high == math.inf else f"from {low} to {high}"
            raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
    if "games" in rule_options:  # the command line's --games: a likely slip, answered with the right keyword
        games = rule_options["games"]
        same = f"deals={math.ceil(games / num_players)}" if isinstance(games, int) and games > 0 else "deals=N"
        raise ValueError(
            f"run_tournament counts deals, not games: {same} plays what --games {games!r} plays on the command line "
            f"at {num_players} players (each deal once with the agent at every seat)"
        )
    RuleOptions.from_dict(rule_options)  # rejects bad rule options before any work
    return specs, parsed


def _label(agent: Any, spec: AgentSpec, own_name: bool) -> str:
    """An agent's name in the results: its text as given, else its spec's text.

    With ``own_name``, an object or class given in Python is named by its own ``name`` when it has one.
    """
    if isinstance(agent, str):
        return agent.strip()
    name = getattr(agent, "name", None)
    if own_name and not isinstance(agent, AgentSpec) and isinstance(name, str) and name.strip() not in ("", Agent.name):
        return name.strip()
    return str(spec)


def _jobs_for(parsed: list[AgentSpec], jobs: int | None) -> int | None:
    """``jobs``, or 1 with a note when an agent is a Python object that a worker process cannot build."""
    here = [str(spec) for spec in parsed if spec.kind is SpecKind.OBJECT]
    if here and jobs != 1:
        print(
            f"note: {', '.join(here)} only exists in this process (an instance, or a class a worker cannot import): "
            "the tournament plays here, on one core",
            file=sys.stderr,
        )
        return 1
    return jobs


def _field_indices(parsed: list[AgentSpec], fields: Sequence[AgentSpec | str] | None) -> set[int]:
    """The indices of the agents that may fill a field (all of them when ``fields`` is None).

    A field is matched to an agent as a parsed spec, so ``search:top=4,worlds=64`` finds ``search:worlds=64,top=4``.
    """
    if fields is None:
        return set(range(len(parsed)))
    if isinstance(fields, str):
        raise ValueError("fields is a list of specs, not one string")
    found = {str(field).strip(): index_of(field, parsed) for field in fields}
    unknown = [field for field, index in found.items() if index is None]
    if unknown or not found:
        agents = ", ".join(map(str, parsed))
        raise ValueError(f"a field must be one of the agents ({agents}), not {', '.join(unknown) or 'none'}")
    return {index for index in found.values() if index is not None}


def _played_pairings(k: int, num_players: int, fields: set[int]) -> list[tuple[int, int]]:
    """Ordered pairs (agent, field) of distinct agents whose field is in ``fields``.

    At 2 players (A, B) and (B, A) seat the same two, so only A < B is played, when either may be a field.
    """
    if num_players == 2:
        return [(a, b) for a in range(k) for b in range(a + 1, k) if a in fields or b in fields]
    return [(a, b) for a in range(k) for b in range(k) if a != b and b in fields]


class _GameRunner:
    """Plays tournament games: the agents (one instance per spec and seat) and the table's settings.

    Separate instances per seat keep an agent's generator and any per-game memory to one seat, so a game is
    the same whichever process plays it and whatever that process played before.
    """

    def __init__(
        self,
        specs: list[str],
        parsed: list[AgentSpec],
        num_players: int,
        rule_options: dict[str, Any],
        records_dir: str | Path | None,
        allow_all_seeing: bool = False,
        luck: LuckSettings | None = None,
    ) -> None:
        self.specs = specs
        self.parsed = dict(zip(specs, parsed, strict=True))
        """Each agent's parsed spec, by its name: what builds it."""
        self.luck = luck
        self._estimator: LuckEstimator | None = None
        self._reads_the_deck = {name for name, spec in self.parsed.items() if spec.reads_the_deck}
        self.allow_all_seeing = allow_all_seeing
        self.num_players = num_players
        self.rule_options = rule_options
        self.records_dir = None if records_dir is None else Path(records_dir)
        self.codec = ActionCodec(num_players)
        self._agents: dict[tuple[str, int], Agent] = {}

    def agent(self, spec: str, seat: int) -> Agent:
        """The instance of ``spec`` that plays ``seat`` (built on first use)."""
        if (spec, seat) not in self._agents:
            self._agents[spec, seat] = make_agent(self.parsed[spec], seed=seat, allow_all_seeing=self.allow_all_seeing)
        return self._agents[spec, seat]

    def build_all(self) -> None:
        """Build every agent for every seat now (worker start-up), rather than during the first games."""
        for spec in self.specs:
            for seat in range(self.num_players):
                self.agent(spec, seat)

    def play(self, played: list[tuple[int, int]], pairing: int, deal: int, seat: int, seed: int) -> GameOutcome:
        """Play one game: agent A of ``played[pairing]`` at ``seat``, B everywhere else, dealt with ``seed + deal``."""
        specs = _table_specs(self.specs, self.num_players, played[pairing], seat)
        table = [self.agent(spec, s) for s, spec in enumerate(specs)]
        measured = self.luck is not None and not self._reads_the_deck.intersection(specs)
        ids: list[int] | None = [] if measured else None
        game = play_game(
            table, seed + deal, self.codec, record_log=self.records_dir is not None, played=ids, **self.rule_options
        )
        if self.records_dir is not None:
            name = _record_name(played, pairing, self.specs, deal, seat)
            GameRecord.from_game(game, seed + deal, specs).save(self.records_dir / name)
        luck = () if ids is None else tuple(self._luck(seed + deal, ids))
        return GameOutcome(pairing, deal, seat, tuple(game.scores()), tuple(game.winners()), game.truncated, luck)

    def _luck(self, deal_seed: int, ids: list[int]) -> list[float]:
        """Each seat's luck in the game dealt with ``deal_seed`` and played with ``ids``."""
        if self._estimator is None:
            from agents.evaluate.luck import LuckEstimator

            self._estimator = LuckEstimator(self.luck)
        measured = self._estimator.game(self.num_players, deal_seed, ids, **self.rule_options)
        return [float(x) for x in measured.luck]


def _table_specs(specs: list[str], num_players: int, pair: tuple[int, int], seat: int) -> list[str]:
    table = [specs[pair[1]]] * num_players
    table[seat] = specs[pair[0]]
    return table


def _record_name(played: list[tuple[int, int]], pairing: int, specs: list[str], deal: int, seat: int) -> str:
    """``p00-random-vs-heuristic-deal0003-seat1.json``: the pairing index keeps sanitised names apart."""
    a, b = (re.sub(r"[^A-Za-z0-9._-]+", "-", specs[i]).strip("-.") for i in played[pairing])
    return f"p{pairing:02d}-{a}-vs-{b}-deal{deal:04d}-seat{seat}.json"


# --- playing: in this process or in workers ------------------------------------------------------------

_worker: _GameRunner | None = None
"""The worker process's runner, set by :func:`_init_worker`."""


def _play_all(
    runner: _GameRunner,
    played: list[tuple[int, int]],
    tasks: list[tuple[int, int, int]],
    seed: int,
    jobs: int | None,
    progress: bool | None,
) -> list[GameOutcome]:
    jobs = jobs or _cpu_count()
    size = max(1, min(_MAX_CHUNK, math.ceil(len(tasks) / (4 * jobs))))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    if len(chunks) > 1:
        jobs = worker_count(jobs, "run_tournament")
    with progress_bar(total=len(tasks), desc="tournament", unit="game", disable=not wants_progress(progress)) as bar:
        if jobs == 1 or len(chunks) == 1:
            results = []
            for chunk in chunks:
                results.append([runner.play(played, *task, seed) for task in chunk])
                bar.update(len(chunk))
        else:
            results = _play_in_workers(runner, played, chunks, seed, min(jobs, len(chunks)), bar)
    return [outcome for chunk in results for outcome in chunk]


def _play_in_workers(
    runner: _GameRunner,
    played: list[tuple[int, int]],
    chunks: list[list[tuple[int, int, int]]],
    seed: int,
    jobs: int,
    bar: tqdm,
) -> list[list[GameOutcome]]:
    """Chunks in worker processes; the results come back in the chunks' order whatever order they finish in."""
    import multiprocessing

    # spawn, not fork: forking a process whose torch (or other) threads are running can deadlock the children
    context = multiprocessing.get_context("spawn")
    init_args = (
        runner.specs,
        list(runner.parsed.values()),
        runner.num_players,
        runner.rule_options,
        runner.records_dir,
        runner.allow_all_seeing,
        runner.luck,
    )
    executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=init_args)
    try:
        futures = [executor.submit(_play_chunk, played, chunk, seed) for chunk in chunks]
        for future in as_completed(futures):
            bar.update(len(future.result()))
        return [future.result() for future in futures]
    finally:
        executor.shutdown(cancel_futures=True)


def _init_worker(
    specs: list[str],
    parsed: list[AgentSpec],
    num_players: int,
    rule_options: dict[str, Any],
    records_dir: Path | None,
    allow_all_seeing: bool,
    luck: LuckSettings | None,
) -> None:
    global _worker
    # Ctrl-C reaches the whole process group: the parent stops the pool; a worker would only print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = _GameRunner(specs, parsed, num_players, rule_options, records_dir, allow_all_seeing, luck)
    _worker.build_all()
    limit_torch_threads()


def _play_chunk(played: list[tuple[int, int]], chunk: list[tuple[int, int, int]], seed: int) -> list[GameOutcome]:
    assert _worker is not None, "the worker initializer did not run"
    limit_torch_threads()  # again, for agents that import torch only when they first act
    return [_worker.play(played, *task, seed) for task in chunk]


def limit_torch_threads() -> None:
    """One torch thread per worker: the workers already use every core, more threads only contend.

    Only once torch is loaded: importing it just to set this would cost every worker seconds for agents
    that never touch it.
    """
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        set_torch_threads(1)


def _cpu_count() -> int:
    counter = getattr(os, "process_cpu_count", os.cpu_count)  # Python 3.13+ respects CPU affinity
    return counter() or 1


# --- statistics and ratings --------------------------------------------------------------------------------


def _pairing_results(
    specs: list[str], num_players: int, played: list[tuple[int, int]], outcomes: list[GameOutcome]
) -> list[PairingResult]:
    """One row per ordered pair; at 2 players the games of (A, B) also give (B, A), from B's seat."""
    by_pairing: dict[int, list[GameOutcome]] = {p: [] for p in range(len(played))}
    for outcome in outcomes:
        by_pairing[outcome.pairing].append(outcome)
    rows = {}
    for p, (a, b) in enumerate(played):
        games = by_pairing[p]
        rows[a, b] = _pairing_stats(specs[a], specs[b], num_players, [(g, g.seat) for g in games])
        if num_players == 2:
            rows[b, a] = _pairing_stats(specs[b], specs[a], num_players, [(g, 1 - g.seat) for g in games])
    return [rows[key] for key in sorted(rows)]


def _pairing_stats(agent: str, opponent: str, num_players: int, seats: list[tuple[GameOutcome, int]]) -> PairingResult:
    scores = [g.scores[s] for g, s in seats]
    margins = [g.scores[s] - max(v for i, v in enumerate(g.scores) if i != s) for g, s in seats]
    result = PairingResult(
        agent=agent,
        games=len(seats),
        wins=sum(s in g.winners for g, s in seats),
        truncated=sum(g.truncated for g, _ in seats),
        opponent=opponent,
        players=num_players,
        mean_score=sum(scores) / len(seats),
        mean_margin=sum(margins) / len(seats),
    )
    if len(seats) > 1 and all(g.luck for g, _ in seats):
        results = [float(s in g.winners) for g, s in seats]
        result.measure_luck(results, [g.luck[s] for g, s in seats], [g.deal % 2 for g, _ in seats])
    return result


def _ratings(
    specs: list[str],
    num_players: int,
    played: list[tuple[int, int]],
    outcomes: list[GameOutcome],
    pairings: list[PairingResult],
) -> list[AgentRating]:
    """OpenSkill Plackett-Luce ratings over every game in order (see :func:`run_tournament`), with agreeing ranks."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {spec: (model.rating().mu, model.rating().sigma) for spec in specs}
    for game in outcomes:
        table = _table_specs(specs, num_players, played[game.pairing], game.seat)
        # a fresh rating object per seat: openskill conflates the same object given at two seats
        teams = [[model.rating(mu=current[s][0], sigma=current[s][1], name=s)] for s in table]
        updated = model.rate(teams, ranks=[float(rank) for rank in _ranks(game)])  # openskill types ranks as floats
        for spec in set(table):
            copies = [team[0] for team, s in zip(updated, table, strict=True) if s == spec]
            current[spec] = (_mean(c.mu for c in copies), _mean(c.sigma for c in copies))
    ratings = sorted((AgentRating(spec, mu, sigma) for spec, (mu, sigma) in current.items()), key=lambda r: -r.ordinal)
    rates = {(p.agent, p.opponent): p.win_rate for p in pairings}
    ranks = agreeing_ranks([r.agent for r in ratings], rates)
    return [replace(r, rank=rank) for r, rank in zip(ratings, ranks, strict=True)]


def _beats(rates: dict[tuple[str, str], float], a: str, b: str) -> bool:
    """Whether ``a`` did better against a field of ``b`` than ``b`` against a field of ``a``."""
    return (a, b) in rates and (b, a) in rates and rates[a, b] > rates[b, a]


def agreeing_ranks(order: list[str], rates: dict[tuple[str, str], float]) -> list[int]:
    """Rank numbers for agents listed best first, such that no rank contradicts a result between two agents.

    Sequential ratings (OpenSkill's updates game by game) can order two agents against their own head-to-head
    results: an agent that won 49% against random play can be rated above it. Wherever an agent below did better
    against one above it than the other way round (``rates[(a, b)]``: a's win rate against a field of b), both,
    and every agent between them, share the rank of the highest of them. The order is kept; the ranks only say
    where it is settled.
    """
    reach = list(range(len(order)))  # the lowest position each agent's results tie it to
    for i, above in enumerate(order):
        for j in range(i + 1, len(order)):
            if _beats(rates, order[j], above):
                reach[i] = j
    ranks, rank, end = [], 1, -1
    for k in range(len(order)):
        if k > end:  # a new group starts here
            rank = k + 1
        end = max(end, reach[k])
        ranks.append(rank)
    return ranks


def _rank_text(rating: AgentRating, ratings: list[AgentRating]) -> str:
    """The rank as shown: ``"2"``, or ``"2="`` when other agents share it."""
    shared = sum(r.rank == rating.rank for r in ratings) > 1
    return f"{rating.rank}=" if shared else str(rating.rank)


def _ranks(game: GameOutcome) -> list[int]:
    """Dense ranks, 0 best: winners first, then by score; equal results share a rank."""
    keys = [(seat not in game.winners, -score) for seat, score in enumerate(game.scores)]
    order = sorted(set(keys))
    return [order.index(key) for key in keys]


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values)


def _pairing_cells(p: PairingResult, adjusted: bool) -> list[str]:
    low, high = p.interval
    cells = [p.agent, p.opponent, str(p.games), f"{p.win_rate:.1%}", f"[{low:.1%}, {high:.1%}]"]
    if adjusted and p.adjusted is not None and p.luck is not None:
        ratio = "" if p.width_ratio is None else f"{p.width_ratio:.2f}×"
        cells += [f"{p.adjusted.mean:.1%}", f"[{p.adjusted.low:.1%}, {p.adjusted.high:.1%}]", ratio, _points(p.luck)]
    elif adjusted:
        cells += ["—", "", "", "(reads the deck)"]
    return [*cells, f"{p.mean_score:.2f}", f"{p.mean_margin:+.2f}", str(p.truncated)]


def _plot_labels(specs: list[str]) -> dict[str, str]:
    """Each spec's :func:`_short_label`, or the specs themselves when two short labels would clash."""
    short = {spec: _short_label(spec) for spec in specs}
    return short if len(set(short.values())) == len(specs) else {spec: spec for spec in specs}


def _short_label(name: str) -> str:
    """The spec's :attr:`~agents.bots.spec.AgentSpec.short_name`, or ``name`` itself when it is no spec.

    A result read from a file, or made by hand, may name its agents anything.
    """
    try:
        return AgentSpec.parse(name).short_name
    except AgentSpecError:
        return name


def _columns(headers: list[str], rows: list[list[str]]) -> str:
    """Left-aligned text columns two spaces apart."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [
        "  ".join(str(cell).ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in [headers, *rows]
    ]
    return "\n".join(lines)


_CELL = "padding:3px 8px;border:1px solid #ddd;text-align:right"


def _html_row(cells: list[str], tag: str = "td", style: str = "") -> str:
    return "<tr>" + "".join(f'<{tag} style="{_CELL}{style}">{c}</{tag}>' for c in cells) + "</tr>"


def _html_report(result: TournamentResult) -> str:
    """The payoff matrix and the ratings as two small HTML tables (agent names escaped)."""
    labels = _plot_labels(result.agents)
    names = [html.escape(labels[a]) for a in result.agents]
    matrix = [_html_row(["", *names], "th")]
    for name, values in zip(names, result.matrix(), strict=True):
        cells = "".join(
            f'<td style="{_CELL};color:#999">—</td>'
            if v is None
            else f'<td style="{_CELL};background:{_rate_colour(v)}">{v:.1%}</td>'
            for v in values
        )
        matrix.append(f'<tr><th style="{_CELL}">{name}</th>{cells}</tr>')
    ratings = [_html_row(["rank", "agent", "mu", "sigma", "ordinal"], "th")] + [
        _html_row(
            [
                _rank_text(r, result.ratings),
                html.escape(labels[r.agent]),
                f"{r.mu:.2f}",
                f"{r.sigma:.2f}",
                f"{r.ordinal:.2f}",
            ]
        )
        for r in result.ratings
    ]
    caption = (
        f"{len(result.agents)} agents, {result.num_players} players, {result.games_per_pairing} games per pairing "
        f"({len(result.games)} in all); chance is {1 / result.num_players:.1%}"
    )
    table = '<table style="border-collapse:collapse">{}</table>'
    return (
        f"<div><p>{html.escape(caption)}</p>"
        "<p><b>Win rate</b> of the row agent in one seat against a field of the column agent:</p>"
        + table.format("".join(matrix))
        + "<p><b>Ratings</b> (OpenSkill, best first; ordinal = mu - 3 sigma):</p>"
        + table.format("".join(ratings))
        + "</div>"
    )


def _rate_colour(rate: float) -> str:
    """A pale red (0%) to pale green (100%) background for a win rate."""
    red, green = round(255 - 90 * rate), round(165 + 90 * rate)
    return f"rgb({red},{green},170)"
