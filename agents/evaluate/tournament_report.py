"""A tournament's results as a reader or a program wants them: a text report, CSV, JSON, a PNG and HTML.

:class:`TournamentReport` gives :class:`~agents.evaluate.tournament.TournamentResult` its payoff matrix, its text
report (``str(result)``), its notebook view and its files (:meth:`TournamentReport.save`); a pairing's row and line
are :class:`PairingResult`'s. The files' layout is documented in docs/evaluation.md, and a tournament of the same
games writes the same bytes.
"""

from __future__ import annotations

import csv
import html
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.matches import MatchResult, MeanInterval
from agents.evaluate.ratings import RATING_MODEL, AgentRating, beats

if TYPE_CHECKING:
    from agents.evaluate.luck import LuckSettings

CSV_NAME, JSON_NAME, PNG_NAME = "tournament.csv", "tournament.json", "tournament.png"
"""The files :meth:`TournamentReport.save` writes."""
GAMES_CSV_NAME = "games.csv"
"""The per-game file :meth:`TournamentReport.save` adds when an agent reports what its games cost (a model's usage)."""
USAGE_SHOWN = ("calls", "tokens_in", "tokens_out", "seconds", "retries", "fallbacks", "forfeits")
"""The usage columns of the reports, in order (``forfeits`` counts the games with ``forfeited`` true)."""


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
            "deals": self.deals,
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


class TournamentReport:
    """The views and files of a tournament's results, mixed into :class:`~agents.evaluate.tournament.TournamentResult`.

    It reads the results' fields (declared here, defined by the result) and writes nothing else.
    """

    agents: list[str]
    num_players: int
    deals: int
    seed: int
    rule_options: dict[str, Any]
    games: Sequence[Any]
    pairings: list[PairingResult]
    ratings: list[AgentRating]
    luck: LuckSettings | None
    played: list[tuple[int, int]]
    sequential: Any

    @property
    def games_per_pairing(self) -> int:
        """``deals * num_players``: every deal once with the agent at each seat."""
        return self.deals * self.num_players

    def shared_fields(self, agent: str, other: str) -> list[str]:
        """The agents that both ``agent`` and ``other`` played against, neither of them, in the tournament's order."""
        return [
            name
            for name in self.agents
            if name not in (agent, other) and self.pairing_of(agent, name) and self.pairing_of(other, name)
        ]

    def pairing_of(self, agent: str, field: str) -> tuple[int, bool] | None:
        """The index of the pairing in which ``agent`` played against ``field``, and whether the agent was its field.

        At 2 players a pairing (field, agent) is the same games as (agent, field), from the other seat.
        """
        a, f = self.agents.index(agent), self.agents.index(field)
        for index, pair in enumerate(self.played):
            if pair == (a, f):
                return index, False
            if self.num_players == 2 and pair == (f, a):
                return index, True
        return None

    def seat_games(self, agent: str, fields: Sequence[str]) -> list[list[tuple[Any, int]]]:
        """The agent's games against each field with its seat in them, one list per field in deal order.

        Raises:
            ValueError: a field the agent did not play against.
        """
        found = []
        for field in fields:
            pairing = self.pairing_of(agent, field)
            if pairing is None:
                raise ValueError(f"{agent} did not play against a field of {field}")
            index, swapped = pairing
            found.append([(g, 1 - g.seat if swapped else g.seat) for g in self.games if g.pairing == index])
        return found

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
        parts = [header, self._pairing_table(), self._matrix_table(), self._rating_table()]
        if self.has_usage:
            parts.append(self._usage_table())
        if self.sequential is not None:
            parts.append(self.sequential.summary())
        return "\n\n".join(parts)

    # --- what the agents that report it spent (a language model's calls and tokens) ---------------------------

    @property
    def has_usage(self) -> bool:
        """Whether some game's agents reported their usage."""
        return any(getattr(game, "usage", ()) for game in self.games)

    def seat_usage(self) -> list[tuple[Any, int, str, dict[str, Any]]]:
        """Every seat that reported its usage: ``(game, seat, agent, usage)``, in the games' order."""
        found = []
        for game in self.games:
            usage = getattr(game, "usage", ())
            for seat, spent in enumerate(usage):
                if spent is not None:
                    found.append((game, seat, self._agent_at(game, seat), spent))
        return found

    def _agent_at(self, game: Any, seat: int) -> str:
        agent, field = self.played[game.pairing]
        return self.agents[agent if seat == game.seat else field]

    def usage_by_agent(self) -> dict[str, dict[str, float]]:
        """Per agent that reported it: its games (seats) and the totals of :data:`USAGE_SHOWN`."""
        totals: dict[str, dict[str, float]] = {}
        for _, _, agent, spent in self.seat_usage():
            total = totals.setdefault(agent, {"games": 0, **dict.fromkeys(USAGE_SHOWN, 0.0)})
            total["games"] += 1
            for key in USAGE_SHOWN:
                total[key] += float(spent.get("forfeited", False)) if key == "forfeits" else float(spent.get(key, 0))
        return totals

    def _usage_table(self) -> str:
        rows = []
        for agent, total in self.usage_by_agent().items():
            games = int(total["games"])
            per_game = [f"{total[key] / games:,.1f}" for key in USAGE_SHOWN]
            rows.append([agent, str(games), *per_game, f"{int(total['tokens_in']):,}", f"{int(total['tokens_out']):,}"])
        headers = ["agent", "games", *(f"{key} a game" for key in USAGE_SHOWN), "tokens in, all", "tokens out, all"]
        title = (
            "Model usage (per game at one seat: calls answered, tokens as the server counted them, seconds waiting, "
            "answers retried, moves played by the fallback, games forfeited; docs/llm.md):\n"
        )
        return title + _columns(headers, rows)

    def __str__(self) -> str:
        return self.table()

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
        if any(p.deal_interval is not None for p in self.pairings):
            title += "; a 95% interval counts each deal's games as one unit"
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
            if beats(rates, below, above)
        ]

    def to_dict(self) -> dict[str, Any]:
        """Config, agents, pairings, payoff matrix and ratings as JSON-ready data.

        With usage reported, also each agent's totals (``usage``) and each seat's counts per game (``game_usage``);
        in the sequential mode, its report (``sequential``).
        """
        extra: dict[str, Any] = {}
        if self.has_usage:
            extra["usage"] = self.usage_by_agent()
            extra["game_usage"] = [
                {"pairing": g.pairing, "deal": g.deal, "seat": seat, "agent": agent, **spent}
                for g, seat, agent, spent in self.seat_usage()
            ]
        if self.sequential is not None:
            extra["sequential"] = self.sequential.to_dict()
        return extra | {
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
        """Write one row per pairing (columns of :meth:`PairingResult.to_row`; with usage, the agent's totals)."""
        path = Path(path)
        rows = [p.to_row() | self._pairing_usage(p) for p in self.pairings]
        columns = list(dict.fromkeys(key for row in rows for key in row))  # a pairing that was not adjusted: blanks
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        return path

    def _pairing_usage(self, pairing: PairingResult) -> dict[str, float]:
        """The usage of the pairing's agent over its games in it (none when no game reported usage)."""
        if not self.has_usage:
            return {}
        total = dict.fromkeys(USAGE_SHOWN, 0.0)
        for g, seat, agent, spent in self.seat_usage():
            opponent = self.agents[self.played[g.pairing][1] if seat == g.seat else self.played[g.pairing][0]]
            if agent == pairing.agent and opponent == pairing.opponent:
                for key in USAGE_SHOWN:
                    total[key] += float(spent.get("forfeited", False)) if key == "forfeits" else spent.get(key, 0)
        return {f"usage_{key}": round(value, 3) for key, value in total.items()}

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
        if self.has_usage:  # what the models cost, beside the results it bought
            spent = "; ".join(
                f"{labels.get(agent, agent)}: {int(t['calls']):,} calls, {int(t['tokens_in']):,} tokens in, "
                f"{int(t['tokens_out']):,} out, {t['retries'] / t['games']:.1f} retries and "
                f"{t['fallbacks'] / t['games']:.1f} fallbacks a game"
                for agent, t in self.usage_by_agent().items()
            )
            fig.suptitle(f"model usage: {spent}", fontsize=8)
        fig.savefig(path, dpi=120)
        return Path(path)

    def _draw_adjusted(self, ax: Any, labels: dict[str, str]) -> None:
        """Each pairing's plain and luck-adjusted win rate with their 95% intervals, one above the other."""
        for i, p in enumerate(self.pairings):
            low, high = p.interval
            spread = [[max(0.0, p.win_rate - low)], [max(0.0, high - p.win_rate)]]  # an interval's end can round past
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

    def games_to_csv(self, path: str | Path) -> Path:
        """Write one row per game and seat that reported its usage: the game, the agent, its result and its counts."""
        path = Path(path)
        rows = [
            {
                "pairing": g.pairing,
                "deal": g.deal,
                "seat": seat,
                "agent": agent,
                "won": int(seat in g.winners),
                "score": g.scores[seat],
                **spent,
            }
            for g, seat, agent, spent in self.seat_usage()
        ]
        columns = list(dict.fromkeys(key for row in rows for key in row))
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        return path

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write tournament.csv, tournament.json and tournament.png into ``out_dir`` (created if needed).

        With usage reported, also games.csv (:meth:`games_to_csv`).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        saved = [self.to_csv(out / CSV_NAME), self.to_json(out / JSON_NAME), self.plot(out / PNG_NAME)]
        if self.has_usage:
            saved.append(self.games_to_csv(out / GAMES_CSV_NAME))
        return saved


def _rank_text(rating: AgentRating, ratings: list[AgentRating]) -> str:
    """The rank as shown: ``"2"``, or ``"2="`` when other agents share it."""
    shared = sum(r.rank == rating.rank for r in ratings) > 1
    return f"{rating.rank}=" if shared else str(rating.rank)


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


def _html_report(result: TournamentReport) -> str:
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
        + _html_usage(result)
        + "</div>"
    )


def _html_usage(result: TournamentReport) -> str:
    """The agents' usage per game as an HTML table (nothing when no agent reported it)."""
    if not result.has_usage:
        return ""
    rows = [_html_row(["agent", "games", *USAGE_SHOWN], "th")]
    for agent, total in result.usage_by_agent().items():
        games = total["games"]
        means = [f"{total[key] / games:,.1f}" for key in USAGE_SHOWN]
        rows.append(_html_row([html.escape(agent), str(int(games)), *means]))
    table = '<table style="border-collapse:collapse">{}</table>'.format("".join(rows))
    return "<p><b>Model usage</b> a game at one seat:</p>" + table


def _rate_colour(rate: float) -> str:
    """A pale red (0%) to pale green (100%) background for a win rate."""
    red, green = round(255 - 90 * rate), round(165 + 90 * rate)
    return f"rgb({red},{green},170)"
