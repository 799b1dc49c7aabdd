"""Play Gubs in the terminal against bots, or watch bots play each other.

Usage::

    python -m agents.play                    # you at seat 0 against the heuristic bot
    python -m agents.play --players 4 --bots random heuristic ppo-4p --seat 2 --record game.json
    python -m agents.play --watch --players 3 --bots heuristic --delay 0.2

At each decision, type the number of a choice; ``h`` shows help, ``r`` redraws the table, ``l`` shows the
log so far and ``q`` quits. The seed is printed first, so a deal can be played again with ``--seed``.
``--record FILE`` saves the game for ``python -m gubs_env.replay FILE``, also when it is left early.

Exit status (the convention of :mod:`gubs_env.support.cli`): 0 when the game ends or you quit with ``q``; 1 when the
input ends (EOF) or stops being lines of text before the game does, or the record cannot be saved after all;
2 for a bad command line (a model that cannot be loaded and a ``--record`` path that cannot be written
included), before the game starts; 130 after Ctrl-C; 141 when the reader closes the output early.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from agents.play.table import (
    DEFAULT_DELAY,
    HUMAN,
    YOU,
    BotError,
    BotPlayer,
    Player,
    build_parser,
    decision_text,
    play_out,
    result_text,
    scores_text,
    seat_names,
    set_table,
)
from agents.play.web.options import check_web_arguments
from gubs_env.engine import Action, Game, LogEntry, Step
from gubs_env.engine.cards import KIND_BY_NAME
from gubs_env.engine.cards.texts import card_help
from gubs_env.records.record import GameRecord, RecordError
from gubs_env.records.transcript import seat_name, transcript
from gubs_env.support.cli import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    failure,
    not_a_command,
    run_command,
)

if TYPE_CHECKING:
    from agents.bots.spec import AgentSpec

EXIT_STOPPED = EXIT_FAILURE
"""The status when the game is left because the input ended (the record is still saved)."""
MAX_REPLY_CHARS = 1000
"""The longest reply line read; a longer one means the input is not someone typing, and the game is left."""
MAX_REPLIES_PER_DECISION = 100
"""Replies that name no choice (help, redraw, mistakes) accepted at one decision before the game is left."""

HELP = """\
Type the number of a choice and press Enter. Other commands:
  r        redraw the table and the choices
  l        the whole log so far, as you saw it
  h, ?     this help
  h CARD   what a card does (h mushroom, h toad rider; a name's start will do: h sud)
  h N      what choice N's card does
  q        quit (the game is saved first when --record was given)"""


def topic_help(topic: str, legal: Sequence[Action]) -> str:
    """The card help ``h TOPIC`` asks for: a card by (the start of) its name, or the card of choice number TOPIC."""
    if topic.isdecimal():  # not isdigit(): a superscript digit is a digit but no number int() reads
        number = int(topic) if len(topic) <= 6 else 0  # int() refuses numbers of thousands of digits
        if not 1 <= number <= len(legal):
            return f"There is no choice {topic[:6]}: type h and a number from 1 to {len(legal)}."
        action = legal[number - 1]
        kind = action.as_kind or action.card  # Cricket Song played as another card does what that card does
        if kind is None:
            return f"{number}. {action}: no card is played (it passes, answers or ends a step)."
        return f"{number}. {action}\n{card_help(kind)}"
    found = sorted({kind for name, kind in KIND_BY_NAME.items() if name.replace("_", " ").startswith(topic)})
    if len(found) == 1:
        return card_help(found[0])
    if not found:
        return f"No card is called {topic[:30]!r}: type h and a card's name, such as h mushroom."
    return f"{topic!r} could be {', '.join(k.label for k in found)}: type more of the name."


class QuitGame(Exception):
    """The human left before the end; ``code`` is the exit status to return."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class TerminalPlayer:
    """The human at a seat: shows what happened, the table and the choices, then reads a choice.

    Args:
        seat: the human's seat.
        names: a name per seat for the screen (:data:`YOU` at ``seat``).
        stdin: where the replies come from, one per line.
        stdout: where the screen goes.
    """

    def __init__(self, seat: int, names: Sequence[str], stdin: TextIO, stdout: TextIO) -> None:
        self.seat = seat
        self.names = list(names)
        self.stdin = stdin
        self.out = stdout
        self._shown = 0
        """Log entries already shown."""

    def choose(self, game: Game) -> Action:
        """Show the decision and ask until the reply names a choice.

        Raises:
            QuitGame: the human typed ``q``, or the input ended or is not someone typing (a line too long,
                :data:`MAX_REPLIES_PER_DECISION` replies without a choice).
        """
        legal = game.legal_actions()
        self.show_news(game)
        self._show_decision(game, legal)
        for _ in range(MAX_REPLIES_PER_DECISION):
            reply = self._read(f"Your choice (1-{len(legal)}, h for help): ")
            action = None if reply is None else self._answer(reply, game, legal)
            if action is not None:
                return action
        raise QuitGame(f"\n{MAX_REPLIES_PER_DECISION} replies without a choice: leaving the game.", EXIT_STOPPED)

    def show_news(self, game: Game) -> None:
        """Print the log entries not shown yet, as the human saw them."""
        news = game.log[self._shown :]
        self._shown = len(game.log)
        if news:
            lines = transcript(news, self.seat, self.names)
            self._say("", "Since your last decision:", *("  " + line for line in lines))

    def _show_decision(self, game: Game, legal: Sequence[Action]) -> None:
        choices = (f"  {i}. {action}" for i, action in enumerate(legal, 1))
        self._say("", game.render(self.seat), "", ">>> " + decision_text(game, self.names), *choices)

    def _answer(self, reply: str, game: Game, legal: Sequence[Action]) -> Action | None:
        command = reply.strip().lower()
        word, _, topic = command.partition(" ")
        if command in ("h", "?"):
            self._say(HELP)
        elif word in ("h", "?"):
            self._say(topic_help(topic.strip(), legal))
        elif command == "r":
            self._show_decision(game, legal)
        elif command == "l":
            lines = transcript(game.log, self.seat, self.names) or ["(nothing has happened yet)"]
            self._say("Everything so far, as you saw it:", *("  " + line for line in lines))
        elif command == "q":
            raise QuitGame("You left the game.", EXIT_OK)
        else:
            number = self._choice_number(reply.strip(), len(legal))
            return None if number is None else legal[number - 1]
        return None

    def _choice_number(self, text: str, count: int) -> int | None:
        """The number ``text`` names, or None after saying what is wrong with it."""
        if not text:
            self._say(f"Please type a number from 1 to {count} (h for help).")
            return None
        try:
            number = int(text)
        except ValueError:
            shown = text if len(text) <= 20 else text[:20] + "..."
            self._say(f"{shown!r} is not a choice: type a number from 1 to {count}, or h for help.")
            return None
        if not 1 <= number <= count:
            self._say(f"There is no choice {number}: type a number from 1 to {count}.")
            return None
        return number

    def _read(self, prompt: str) -> str | None:
        """The next reply line, or None after saying that it was not text.

        Raises:
            QuitGame: the input ended, or a line ran past :data:`MAX_REPLY_CHARS` (``< /dev/zero``).
        """
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.stdin.readline(MAX_REPLY_CHARS + 1)  # bounded: an endless line must not fill memory
        except UnicodeDecodeError:
            self._say("", "That reply was not valid text (UTF-8): type a number, or h for help.")
            return None
        if not line:
            raise QuitGame("\nThe input ended: leaving the game.", EXIT_STOPPED)
        if len(line) > MAX_REPLY_CHARS:
            raise QuitGame(f"\nA reply longer than {MAX_REPLY_CHARS} characters: leaving the game.", EXIT_STOPPED)
        if not self.stdin.isatty():
            self.out.write(line if line.endswith("\n") else line + "\n")  # a terminal echoes; a pipe does not
        return line

    def _say(self, *lines: str) -> None:
        print(*lines, sep="\n", file=self.out)


def main(
    argv: list[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> int:
    """Run the command line (see the module docstring) and return the exit status.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin: the human's replies (default: ``sys.stdin``).
        stdout: the screen (default: ``sys.stdout``); argparse errors still go to ``sys.stderr``.
        sleep: how to pause between moves with ``--watch``.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    check_web_arguments(parser, args)
    if args.web:
        from agents.play.web.server import run_web  # the server only when asked for

        return run_web(parser, args, stdout)
    specs, seed, bots, game = set_table(parser, args)
    session = Session(game, seed, specs, stdout or sys.stdout or io.StringIO())  # None: stdout was closed
    try:
        if args.watch:
            code = session.watch(bots, args.seat, args.delay if args.delay is not None else DEFAULT_DELAY, sleep)
        else:
            code = session.play(bots, _replies(stdin))
        return session.finish(code, args.record)
    except BrokenPipeError:  # the reader of the screen left (``| head``): keep the game, then stop quietly
        if args.record is not None:
            session.save_quietly(args.record)
        raise


def _replies(stdin: TextIO | None) -> TextIO:
    """Where the human's replies come from: ``stdin``, or ``sys.stdin`` decoding bad bytes as U+FFFD."""
    if stdin is not None:
        return stdin
    if sys.stdin is None:  # started with stdin closed (``<&-``): no replies will come
        return io.StringIO()
    if isinstance(sys.stdin, io.TextIOWrapper):
        # a reply that is not UTF-8 then reads as a reply that is no choice, instead of raising mid-line
        sys.stdin.reconfigure(errors="replace")
    return sys.stdin


class Session:
    """One game at the terminal: who sits where, the loop, and the closing words and record.

    Args:
        game: the game, fresh.
        seed: the seed it was made with (printed, and kept in the record).
        specs: the agent spec of each seat, ``None`` at the human's seat.
        out: where everything is printed.
    """

    def __init__(self, game: Game, seed: int, specs: Sequence[AgentSpec | str | None], out: TextIO) -> None:
        self.game = game
        self.seed = seed
        self.human = next((s for s, spec in enumerate(specs) if spec is None), None)
        self.names = seat_names(specs, YOU)
        self.record_names = seat_names(specs, HUMAN)
        self.viewer = self.human
        self.out = out

    def play(self, bots: dict[int, BotPlayer], stdin: TextIO) -> int:
        """The human against ``bots``; returns the exit status."""
        if self.human is None:
            raise ValueError("play needs a human seat (a None spec); use watch for bots only")
        human = TerminalPlayer(self.human, self.names, stdin, self.out)
        self._header("Type the number of a choice; h for help, q to quit.")
        code = self._run([bots.get(s, human) for s in range(self.game.num_players)])
        if self.game.is_over:
            human.show_news(self.game)
        return code

    def watch(
        self, bots: dict[int, BotPlayer], view: int | None, delay: float, sleep: Callable[[float], object]
    ) -> int:
        """Bots at every seat, each move printed as ``view`` saw it; returns the exit status."""
        self.viewer = view
        self._header("Watching" + (f" from seat {view}'s side." if view is not None else " (public view)."))
        self._say("", self.game.render(view))

        def show(entry: LogEntry) -> None:
            self._say("  " + transcript([entry], view, self.names)[0])
            if self.game.pending.step is Step.DRAW and not self.game.is_over:
                self._say("", self.game.render(view))
            self.out.flush()
            if delay:
                sleep(delay)

        return self._run([bots[s] for s in range(self.game.num_players)], show)

    def _run(self, players: Sequence[Player], on_move: Callable[[LogEntry], None] | None = None) -> int:
        try:
            play_out(self.game, players, on_move)
        except QuitGame as stop:
            self._say(str(stop))
            return stop.code
        except KeyboardInterrupt:
            self._say("\nInterrupted: leaving the game.")
            return EXIT_INTERRUPTED
        except BotError as err:  # the game stands as it was before the bot's turn: it ends there, as if left
            return failure("python -m agents.play", err)
        return EXIT_OK

    def finish(self, code: int, record: str | None) -> int:
        """Print the outcome and the seed, save the record if asked; returns the final exit status."""
        game = self.game
        if game.is_over:
            self._say("", "=== Game over ===", game.render(self.viewer), "", scores_text(game, self.names))
            self._say(result_text(game, self.names, self.human))
        else:
            self._say(f"The game was left on turn {game.state.turn}.")
        self._say(f"Seed: {self.seed} (play this deal again with --seed {self.seed})")
        if record is not None:
            code = self._save(record) or code
        return code

    def save_quietly(self, path: str) -> None:
        """Save the record without a word (the screen is gone); a failure is left unreported."""
        with contextlib.suppress(OSError, RecordError):  # nowhere left to report it; the status says enough
            GameRecord.from_game(self.game, self.seed, self.record_names).save(path)

    def _save(self, path: str) -> int:
        try:
            saved = GameRecord.from_game(self.game, self.seed, self.record_names).save(path)
        except (OSError, RecordError) as err:
            print(f"python -m agents.play: error: cannot save the record to {path}: {err}", file=sys.stderr)
            return EXIT_STOPPED
        self._say(f"Record saved to {saved} (replay it with: python -m gubs_env.replay {saved})")
        return EXIT_OK

    def _header(self, hint: str) -> None:
        game = self.game
        seats = ", ".join(seat_name(s, self.names) for s in range(game.num_players))
        self._say(f"Gubs, {game.num_players} players, seed {self.seed}. Seats: {seats}.", hint)

    def _say(self, *lines: str) -> None:
        print(*lines, sep="\n", file=self.out)


def script() -> int:
    """The console script ``gubs-play`` (and ``python -m agents.play``)."""
    return run_command(main)


if __name__ == "__main__":  # the command is agents.play; this module only holds its code
    sys.exit(not_a_command("agents.play.terminal", "python -m agents.play"))
