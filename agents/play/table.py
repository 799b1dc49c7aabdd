"""What terminal and browser play share: the table's seats and bots, the command line, and the texts of a game.

:mod:`agents.play.terminal` and :mod:`agents.play.web.server` both build on this module; neither imports the other's
internals.
"""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from agents.bots.spec import spec_forms
from agents.play.web.options import add_web_arguments
from gubs_env.engine import Action, Game, LogEntry, Step
from gubs_env.engine.cards import CARDS, HAND_LIMIT
from gubs_env.engine.log import GubsFrom
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.records.transcript import seat_name
from gubs_env.support.cli import (
    CommandParser,
    non_negative_int,
    pause_seconds,
    player_count,
    turn_limit,
    unwritable_file,
)

if TYPE_CHECKING:
    from agents.bots.base import Agent
    from agents.bots.spec import AgentSpec
HUMAN = "human"
"""The name of the human's seat in a record."""
YOU = "you"
"""The name of the human's seat on the screen."""
DEFAULT_BOT = "heuristic"
DEFAULT_DELAY = 0.5
SEED_RANGE = 2**32


class Player(Protocol):
    """Whoever sits at a seat, in the terminal or the browser: picks a legal action whenever the game asks it."""

    def choose(self, game: Game) -> Action:
        """One of ``game.legal_actions()``; a bot that cannot choose one raises :class:`BotError`."""
        ...


class BotError(RuntimeError):
    """A bot that did not choose a legal action: it raised, or answered an id that is not legal now.

    The game is left as it was; the message says which bot did what, in one line.
    """


class BotPlayer:
    """An agent at a seat, shown the observation and action mask that the environments would give it."""

    def __init__(self, agent: Agent, num_players: int) -> None:
        # imported here, not at the top: the environments' package pulls in gymnasium and pettingzoo
        from gubs_env.encoding.action_table import ActionCodec

        self.agent = agent
        self._codec = ActionCodec(num_players)

    def choose(self, game: Game) -> Action:
        """The agent's choice for the current player, checked against the legal actions.

        Raises:
            BotError: the agent raised (anything but Ctrl-C), or chose an id outside the legal actions.
        """
        name = getattr(self.agent, "name", type(self.agent).__name__)
        try:
            action_id = self.agent.act_in_game(game, self._codec)
            action = self._codec.action(action_id, game.current_player or 0)
        except (Exception, SystemExit) as err:  # a module:Class bot is anyone's code: it may raise anything
            raise BotError(f"the bot {name} failed to choose: {type(err).__name__}: {_first_line(err)}") from err
        if action not in game.legal_actions():
            raise BotError(f"the bot {name} chose an action that is not legal now: {action}")
        return action


def _first_line(err: BaseException, limit: int = 200) -> str:
    """An exception's message on one bounded line."""
    lines = str(err).strip().splitlines()
    return lines[0][:limit] if lines else ""


def decision_text(game: Game, names: Sequence[str]) -> str:
    """What the current player must decide, in one line, addressed to them."""
    pend, step = game.pending, game.pending.step
    by = seat_name(pend.by, names)
    if step is Step.DRAW:
        if len(game.legal_actions()) == 1:
            return "Your turn: draw a card (you declined last turn, so you must draw now)."
        return "Your turn: draw a card, or decline?"
    if step is Step.PLAY:
        return "Your turn: play a card, or Go to end your turn."
    if step is Step.DISCARD:
        return f"You hold {game.state.hand_size(pend.actor)} cards, more than {HAND_LIMIT}: discard one."
    if step is Step.CANCEL:
        return _cancel_text(game, by)
    if step is Step.FLOP:
        event = "an Event" if pend.event is None else pend.event.label  # None only in a corrupt position
        return f"{_capital(by)} drew {event}: flop it back into the deck, or pass?"
    if step is Step.CURE:
        return f"{_capital(by)} drew Gargok Plague: keep your hand, or pass?"
    if step is Step.KEEP:
        return "Traveling Merchant: choose the card you keep; the rest of your hand is passed on."
    if step is Step.RING:
        return _ring_text(game)
    if step is Step.RETREAT:
        stop = ", or stop" if pend.picks else ""
        return f"Retreat: take a card from your side into your hand ({len(pend.picks)} taken so far){stop}."
    if step is Step.SCOUT:
        return "Scout: choose the card to put next from the top of the deck."
    return "The game is over."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]  # str.capitalize would lower-case the rest, bot names included


def _ring_text(game: Game) -> str:
    pend = game.pending
    ring = None if pend.play is None else pend.play.card
    if ring is None:  # only a corrupt position lacks the Ring being played
        return "Choose the seat of a Free Gub to trap."
    size = CARDS[ring].ring_size
    return f"Your {ring.label}: choose the seat of Free Gub {len(pend.picks) + 1} of {size} to trap."


def _cancel_text(game: Game, by: str) -> str:
    pend = game.pending
    play = "a card" if pend.play is None else str(pend.play)  # None only in a corrupt position
    if pend.picks:
        aim = f" (taking {GubsFrom(tuple(pend.picks)).words()})"
    else:
        aim = " (you)" if pend.play is not None and pend.play.seat == pend.actor else ""
    return f"{_capital(by)} plays {play}{aim}. Cancel it, or pass?"


def play_out(game: Game, players: Sequence[Player], on_move: Callable[[LogEntry], None] | None = None) -> None:
    """Ask ``players[seat]`` whenever ``seat`` must decide, until the game is over."""
    while (seat := game.current_player) is not None:
        entry = game.apply(players[seat].choose(game))
        if on_move is not None:
            on_move(entry)


def result_text(game: Game, names: Sequence[str], human: int | None = None) -> str:
    """Who won (``human``: the seat to address as "you"), or why nobody did."""
    if game.truncated:
        return f"The game was stopped at the turn limit ({game.options.max_turns} turns): nobody wins."
    winners = game.winners()
    if human in winners:
        others = [seat_name(s, names) for s in winners if s != human]
        return f"You share the win with {', '.join(others)}." if others else "You win!"
    label = "Winner" if len(winners) == 1 else "Winners"
    return f"{label}: {', '.join(seat_name(s, names) for s in winners)}."


def scores_text(game: Game, names: Sequence[str]) -> str:
    """Every seat's score in one line."""
    return "Scores: " + ", ".join(f"{seat_name(s, names)} {score}" for s, score in enumerate(game.scores()))


# --- the command line ------------------------------------------------------------------------------


PROG = "python -m agents.play"
DESCRIPTION = "Play Gubs against bots in the terminal or the browser, or watch bots play each other."


def build_parser() -> argparse.ArgumentParser:
    """The command-line options (see :mod:`agents.play.terminal`)."""
    parser = CommandParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog="Exit status: 0 game over or q; 1 input ended or record not saved; 2 bad arguments or model; "
        "130 Ctrl-C; 141 output closed.",
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument(
        "--bots",
        nargs="+",
        default=[DEFAULT_BOT],
        metavar="SPEC",
        help="agents for the bot seats, separated by spaces: one spec for all, or one per bot seat in seat order: "
        f"{spec_forms()} (default: {DEFAULT_BOT})",
    )
    parser.add_argument(
        "--seat", type=non_negative_int, help="your seat (default: 0); with --watch, the seat whose view is shown"
    )
    parser.add_argument("--seed", type=non_negative_int, help="the game's seed (default: a random one, printed)")
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="save the game as a JSON record at the end, or on leaving (default: not saved)",
    )
    parser.add_argument("--watch", action="store_true", help="bots at every seat: watch them play")
    parser.add_argument(
        "--delay",
        type=pause_seconds,
        metavar="SECONDS",
        help=f"pause after each move with --watch, or between bot moves with --web, 0 to 60 (default: {DEFAULT_DELAY})",
    )
    parser.add_argument(
        "--letter-placement",
        choices=LETTER_PLACEMENTS,
        default=RuleOptions.letter_placement,
        help="where the Letters go in the deck (default: %(default)s; docs/rules.md R2)",
    )
    parser.add_argument(
        "--max-turns", type=turn_limit, default=RuleOptions.max_turns, help="turn limit (default: %(default)s)"
    )
    add_web_arguments(parser)
    return parser


def seat_specs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[AgentSpec | None]:
    """The agent spec of every seat, ``None`` at the human's; a bad spec or combination is a parser error.

    ``--bots`` takes specs separated by spaces: a search spec holds commas of its own (``search:worlds=2,top=2``).
    """
    from agents.bots.spec import AgentSpec, AgentSpecError, split_list

    n = args.players
    bot_seats = n if args.watch else n - 1
    try:
        texts = [text.strip() for text in args.bots]
        for text in texts:
            if len(split_list(text)) > 1:  # the earlier form, random,heuristic: say what changed
                parser.error(f"--bots takes specs separated by spaces, not commas: {' '.join(split_list(text))}")
        if len(texts) not in (1, bot_seats):
            parser.error(f"--bots needs 1 spec or {bot_seats} (one per bot seat), not {len(texts)}")
        specs: list[AgentSpec | None] = [AgentSpec.parse(text) for text in texts]
    except AgentSpecError as err:
        parser.error(f"--bots: {err}")
    if len(specs) == 1:
        specs *= bot_seats
    if args.seat is not None and args.seat >= n:
        parser.error(f"--seat must be a seat from 0 to {n - 1}, not {args.seat}")
    if args.delay is not None and not (args.watch or args.web):
        parser.error("--delay applies only with --watch or --web")
    if args.watch:
        return list(specs)
    human = args.seat or 0
    return [*specs[:human], None, *specs[human:]]


def seat_names(specs: Sequence[AgentSpec | str | None], human: str) -> list[str]:
    """Each seat's name: its spec's text, or ``human`` at the human's seat (YOU on screen, HUMAN in a record)."""
    return [human if spec is None else str(spec) for spec in specs]


class Table(NamedTuple):
    """What a play command sets up before the first move: seats, seed, bots and the game."""

    specs: list[AgentSpec | None]
    seed: int
    bots: dict[int, BotPlayer]
    game: Game


def set_table(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Table:
    """The table the command line asks for, in the terminal or the browser; bad input is a parser error.

    ``--record`` is checked here, before any play, rather than after a whole game.
    """
    specs = seat_specs(parser, args)
    problem = args.record is not None and unwritable_file(Path(args.record))
    if problem:
        parser.error(f"--record: {problem}")
    seed = args.seed if args.seed is not None else secrets.randbelow(SEED_RANGE)
    bots = make_bots(parser, specs, seed)
    game = Game(args.players, seed=seed, letter_placement=args.letter_placement, max_turns=args.max_turns)
    return Table(specs, seed, bots, game)


def make_bots(parser: argparse.ArgumentParser, specs: Sequence[AgentSpec | None], seed: int) -> dict[int, BotPlayer]:
    """A :class:`BotPlayer` per seat with a spec; a spec that builds nothing is a parser error."""
    from agents.bots.registry import make_agent  # agents (and maybe torch) only when playing
    from agents.bots.spec import AgentSpecError

    bots = {}
    for seat, spec in enumerate(specs):
        if spec is None:
            continue
        try:
            agent = make_agent(spec, seed=seed * 101 + seat)
        except (AgentSpecError, ImportError, OSError, ValueError) as err:
            parser.error(f"--bots: {err}")
        bots[seat] = BotPlayer(agent, len(specs))
    return bots
