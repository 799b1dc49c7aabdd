"""``python -m agents.evaluate.audit``: how often bots blunder, per 1,000 choices, with 95% intervals.

Each audited bot plays seat-rotated games (deal ``seed + g // N`` with the bot at seat ``g % N``, as
:func:`~agents.evaluate.matches.match` seats it) against ``--opponent`` at every other seat: the heuristic by default,
``self`` for copies of the bot itself. At each of its choices (decisions with two or more legal actions) every kind
of :mod:`agents.evaluate.blunders` is checked against the position and the chosen action. Games run on the reference
engine, whose position the detectors read; bots that search the game (``needs_game``) are asked as in any match.

>>> [audit] = run_audit(["random"], num_players=2, games=2, progress=False)
>>> audit.games, audit.choices > 0, sorted(audit.blunders) == sorted(KIND_NAMES)
(2, True, True)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from agents.bots.base import Agent
from agents.bots.spec import AgentSpec
from agents.evaluate.blunders import BLUNDER_KINDS, KIND_NAMES, blunders, chances
from agents.evaluate.matches import play_game, wants_progress, wilson_interval
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Action, Game
from gubs_env.support.cli import (
    EXIT_OK,
    CommandParser,
    add_deal_arguments,
    add_progress_argument,
    failure,
    non_negative_int,
    run_command,
)
from gubs_env.support.progress import progress_bar

PROG = "python -m agents.evaluate.audit"
SELF = "self"
"""The ``--opponent`` value that seats copies of the audited bot at the other seats."""
ANY = "any"
"""The column of choices with at least one blunder of any kind."""


@dataclass
class Audit:
    """What one bot did at its choices over a set of games."""

    agent: str
    players: int
    against: str
    games: int = 0
    wins: int = 0
    """Games the bot was among the winners of (a shared win counts)."""
    choices: int = 0
    """Decisions of the bot with two or more legal actions."""
    blunders: dict[str, int] = field(default_factory=lambda: dict.fromkeys((*KIND_NAMES, ANY), 0))
    """Per kind (and :data:`ANY`), the choices that committed it."""
    chances: dict[str, int] = field(default_factory=lambda: dict.fromkeys((*KIND_NAMES, ANY), 0))
    """Per kind (and :data:`ANY`), the choices where some legal action would have committed it."""
    examples: list[str] = field(default_factory=list)
    """The first flagged choices, as ``deal D, seat S, turn T: action [kinds]``, to replay and look at."""

    def record(self, game: Game, action: Action, deal: int, keep_examples: int) -> None:
        """Count the choice ``action`` at ``game``'s current decision (nothing for a forced decision)."""
        if len(game.legal_actions()) < 2:
            return
        self.choices += 1
        committed = blunders(game, action)
        possible = chances(game)
        for name in committed:
            self.blunders[name] += 1
        for name in possible:
            self.chances[name] += 1
        self.blunders[ANY] += bool(committed)
        self.chances[ANY] += bool(possible)
        if committed and len(self.examples) < keep_examples:
            where = f"deal {deal}, seat {game.current_player}, turn {game.state.turn}"
            self.examples.append(f"{where}: {action} [{', '.join(committed)}]")

    def per_thousand(self, kind: str) -> tuple[float, float, float]:
        """Blunders of ``kind`` (or :data:`ANY`) per 1,000 choices, with the 95% Wilson interval."""
        if self.choices == 0:
            return math.nan, math.nan, math.nan
        count = self.blunders[kind]
        low, high = wilson_interval(count, self.choices)
        return 1000 * count / self.choices, 1000 * low, 1000 * high


class _Audited(Agent):
    """The audited bot, wrapped so that each of its choices is checked before the game applies it."""

    needs_game = True  # the detectors read the reference engine's position, so the table plays on it

    def __init__(self, bot: Agent, audit: Audit, keep_examples: int) -> None:
        super().__init__()
        self.bot = bot
        self.audit = audit
        self.keep_examples = keep_examples
        self.deal = 0
        """The deal being played, for the examples."""
        self.name = bot.name

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """The bot's own choice from an observation (unused: the table asks through :meth:`act_in_game`)."""
        return self.bot.act(observation, action_mask)

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The bot's choice, counted first; an illegal one is left for the game to refuse."""
        chosen = self.bot.act_in_game(game, codec)
        seat = game.current_player
        assert seat is not None  # a finished game asks nobody
        action = codec.action(chosen, seat)
        if game.is_legal(action):
            self.audit.record(game, action, self.deal, self.keep_examples)
        return chosen

    def reset(self, seed: int | None = None) -> None:
        """Reseed the bot itself."""
        self.bot.reset(seed)


def audit_agent(
    bot: Agent,
    opponents: Sequence[Agent],
    games: int,
    seed: int = 0,
    *,
    against: str = "",
    keep_examples: int = 0,
    bar: tqdm | None = None,
) -> Audit:
    """Audit ``bot`` over ``games`` seat-rotated games against ``opponents`` (one agent per other seat).

    Args:
        bot: the audited agent.
        opponents: the agents at the other seats, in seat order from the bot's next seat.
        games: games to play; game ``g`` deals ``seed + g // N`` and seats the bot at ``g % N``.
        seed: the first deal's seed.
        against: how the opponents are named in the result.
        keep_examples: how many flagged choices to keep as text.
        bar: a progress bar to advance by one per game.

    Returns:
        The counts over every choice of ``bot``.
    """
    players = len(opponents) + 1
    audit = Audit(bot.name, players, against or ", ".join(o.name for o in opponents))
    audited = _Audited(bot, audit, keep_examples)
    codec = ActionCodec(players)
    for g in range(games):
        seat, audited.deal = g % players, seed + g // players
        table = [*opponents[:seat], audited, *opponents[seat:]]
        game = play_game(table, audited.deal, codec, engine="reference")
        audit.games += 1
        audit.wins += seat in game.winners()
        if bar is not None:
            bar.update()
    return audit


def build_tables(
    specs: Sequence[AgentSpec | str], num_players: int, against: AgentSpec | str = "heuristic"
) -> list[tuple[Agent, list[Agent]]]:
    """Each audited bot with its opponents, built from specs (``against`` may be :data:`SELF`).

    Raises:
        AgentSpecError: a spec names no agent.
    """
    from agents.bots.registry import make_agent

    opponent = None if against == SELF else AgentSpec.of(against)
    tables = []
    for text in specs:
        spec = AgentSpec.of(text)
        other = spec if opponent is None else opponent
        bot = make_agent(spec, seed=0, allow_all_seeing=True)
        tables.append((bot, [make_agent(other, seed=s, allow_all_seeing=True) for s in range(1, num_players)]))
    return tables


def run_audit(
    specs: Sequence[AgentSpec | str],
    num_players: int = 2,
    games: int = 200,
    seed: int = 0,
    against: AgentSpec | str = "heuristic",
    keep_examples: int = 0,
    progress: bool | None = None,
) -> list[Audit]:
    """Audit every bot of ``specs`` against ``against`` (see :func:`audit_agent`).

    Raises:
        AgentSpecError: a spec names no agent (before any game is played).
    """
    tables = build_tables(specs, num_players, against)
    return audit_tables(tables, games, seed, str(against), keep_examples, progress)


def audit_tables(
    tables: Sequence[tuple[Agent, list[Agent]]],
    games: int,
    seed: int = 0,
    against: str = "heuristic",
    keep_examples: int = 0,
    progress: bool | None = None,
) -> list[Audit]:
    """Audit each bot of ``tables`` (from :func:`build_tables`) in turn, with one progress bar over all the games."""
    audits = []
    shown = wants_progress(progress)
    with progress_bar(total=games * len(tables), unit="game", desc="auditing", disable=not shown) as bar:
        for bot, opponents in tables:
            bar.set_description(f"auditing {bot.name}")
            audits.append(
                audit_agent(bot, opponents, games, seed, against=against, keep_examples=keep_examples, bar=bar)
            )
    return audits


def _rate_cell(audit: Audit, kind: str) -> str:
    rate, low, high = audit.per_thousand(kind)
    return f"{rate:.2f} [{low:.2f}, {high:.2f}]"


def _chance_cell(audit: Audit, kind: str) -> str:
    taken, chances = audit.blunders[kind], audit.chances[kind]
    share = f" ({taken / chances:.0%})" if chances else ""
    return f"{taken:,} / {chances:,}{share}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def rates_table(audits: Sequence[Audit]) -> str:
    """Blunders per 1,000 choices with 95% intervals, one row per bot, as Markdown."""
    head = ["agent", "players", "games", "win rate", "choices", *KIND_NAMES, ANY]
    rows = [
        [
            a.agent,
            str(a.players),
            str(a.games),
            f"{a.wins / a.games:.1%}" if a.games else "—",
            f"{a.choices:,}",
            *(_rate_cell(a, kind) for kind in (*KIND_NAMES, ANY)),
        ]
        for a in audits
    ]
    return _table(head, rows)


def chances_table(audits: Sequence[Audit]) -> str:
    """Per bot and kind: blunders taken / choices where the blunder was open, as Markdown."""
    rows = [[a.agent, str(a.players), *(_chance_cell(a, kind) for kind in (*KIND_NAMES, ANY))] for a in audits]
    return _table(["agent", "players", *KIND_NAMES, ANY], rows)


def report(audits: Sequence[Audit]) -> str:
    """The full report: what was played, both tables, the kinds' meanings and any examples."""
    first = audits[0]
    lines = [
        f"{first.players} players, each bot in one seat against {first.against} at every other seat, "
        f"{first.games} games per bot (each deal once with the bot at every seat).",
        "",
        "Blunders per 1,000 choices (decisions with two or more legal actions), 95% Wilson intervals:",
        rates_table(audits),
        "",
        "Blunders taken / chances (choices where some legal action was that blunder):",
        chances_table(audits),
        "",
        *(f"- {kind.name}: {kind.summary}" for kind in BLUNDER_KINDS),
    ]
    for audit in audits:
        if audit.examples:
            lines += ["", f"First blunders of {audit.agent}:", *(f"  {example}" for example in audit.examples)]
    return "\n".join(lines)


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog=PROG, description="How often bots blunder, per 1,000 choices, with 95% intervals.")
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="the bots to audit (any agent spec)")
    add_deal_arguments(parser, games=200, per="bot")
    parser.add_argument(
        "--opponent",
        default="heuristic",
        metavar="SPEC",
        help=f"the agent at every other seat (default: heuristic; '{SELF}': copies of the audited bot)",
    )
    parser.add_argument(
        "--examples",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="print each bot's first K blunders (default: 0)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Audit the bots the command line names and print the report (see the module docstring)."""
    from agents.bots.spec import AgentSpecError, parse_distinct

    parser = build_parser()
    args = parser.parse_args(argv)
    against = args.opponent.strip()
    try:
        specs = parse_distinct(args.agents, "bot")
        tables = build_tables(specs, args.players, against)  # every spec is built before any game is played
    except AgentSpecError as err:
        parser.error(str(err))
    games = math.ceil(args.games / args.players) * args.players
    if games != args.games:
        print(f"--games {args.games} rounded up to {games}: whole deals of {args.players} games")
    try:
        audits = audit_tables(tables, games, args.seed, against, args.examples, not args.no_progress)
    except ValueError as err:  # a bot that chose an id outside the action space, or one the game refuses
        return failure(PROG, f"a bot's choice was refused: {err}")
    print(report(audits))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_command(main))
