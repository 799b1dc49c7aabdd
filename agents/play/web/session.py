"""One game played in the browser: the game itself, the bots, and the human's requests checked against it.

The game lives here, in the server, not in the page: a reload or a lost connection asks for the state again
and finds the game where it was. The bots move only when the state is asked for (the page polls while it
waits), at most one move per ``delay`` seconds, so their moves can be followed on the page; with a delay of 0
they all move at once, right after the human's action.

A bot that fails (it raises, or chooses an action that is not legal) stops the game where it stands: the state
then carries ``bot_error``, what the bot did wrong in words, for the page to show; the bot is not asked again,
and the game so far can still be downloaded or saved.

Every change goes through :meth:`WebGame.act`, which takes the index of one of the current legal actions and
the state token the page was shown (the number of actions applied so far). A token that is not the current
one (a stale page, a click sent twice) or an index outside the legal list is refused with a
:class:`RequestError`, and the game is left as it was.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.play.table import HUMAN, YOU, BotError, Player, decision_text, result_text, scores_text, seat_names
from gubs_env.engine import Action, Game
from gubs_env.records.record import GameRecord, RecordError
from gubs_env.records.transcript import seat_name, transcript

if TYPE_CHECKING:
    from agents.bots.spec import AgentSpec

MIN_POLL_S = 0.1
"""The page never polls faster than this while bots move."""
IDLE_POLL_S = 1.0
"""How often the page polls while a bot thinks and no delay is set."""


class RequestError(ValueError):
    """A request the game refuses; ``status`` is the HTTP status to answer with. Nothing was changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


Picture = Callable[[Game, "int | None"], str]
"""Draws the table from a seat's point of view (``gubs_env.viz.svg.table_svg``)."""


def _default_picture(game: Game, viewer: int | None) -> str:
    # imported when first drawn: the web package imports without the drawing code loaded
    from gubs_env.viz.svg import table_svg

    return table_svg(game, viewer)


class WebGame:
    """A game between one human seat and bots, safe to share between the server's threads.

    Args:
        game: the game, usually fresh (a game with actions already in its log is taken as it stands).
        human: the human's seat.
        bots: a bot for every other seat.
        specs: the agent spec of every seat, ``None`` at the human's (names on the page and in the record).
        seed: the seed the game was made with, or ``None`` when it cannot be recorded (a saved position).
        delay: seconds between two bot moves.
        record_path: where :meth:`save` writes the record (``None``: saving to disk is off).
        picture: draws the table (default: ``table_svg``).
        clock: the time in seconds (default: ``time.monotonic``), for tests.

    Raises:
        ValueError: the seats, bots and specs do not fit together.
    """

    def __init__(
        self,
        game: Game,
        human: int,
        bots: Mapping[int, Player],
        specs: Sequence[AgentSpec | str | None],
        *,
        seed: int | None,
        delay: float = 0.0,
        record_path: str | Path | None = None,
        picture: Picture = _default_picture,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        seats = range(game.num_players)
        if human not in seats or len(specs) != game.num_players or specs[human] is not None:
            raise ValueError(f"the human's seat {human} must be a seat of the game with no agent spec")
        if set(bots) != set(seats) - {human} or any(specs[s] is None for s in bots):
            raise ValueError("every seat but the human's needs a bot and an agent spec")
        if not game.record_log:
            raise ValueError("the game must keep its log (record_log=True): the page and the record read it")
        if not delay >= 0:
            raise ValueError(f"the bots' delay must be at least 0 seconds, not {delay}")
        self.game = game
        self.human = human
        self.bots = dict(bots)
        self.names = seat_names(specs, YOU)
        self.record_names = seat_names(specs, HUMAN)
        self.seed = seed
        self.delay = delay
        self.record_path = Path(record_path) if record_path is not None else None
        self._picture = picture
        self._clock = clock
        self._lock = threading.Lock()
        self._next_bot_at = clock()
        self._news_from = len(game.log)
        """The first log entry that is news to the human: the one their last decision made."""
        self.saved_at_end: str | None = None
        """What saving the record at the end of the game said (``None`` until then)."""
        self.bot_error: str | None = None
        """What the bot that stopped the game did wrong (``None`` while the bots play by the rules)."""

    # --- the two requests that read or change the game -----------------------------------------------

    def state(self) -> dict[str, Any]:
        """Let the bots take the moves that are due, then the game as the human sees it (see :meth:`_view`)."""
        with self._lock:
            self._move_bots()
            return self._view()

    def act(self, token: object, choice: object) -> dict[str, Any]:
        """Take the human's ``choice`` (an index into the legal actions shown with ``token``).

        Returns:
            The state after the action (and after the bots' moves that are due at once).

        Raises:
            RequestError: not the human's decision, a stale token, or a choice outside the legal list.
        """
        with self._lock:
            action = self._checked_choice(token, choice)
            self._news_from = len(self.game.log)
            self.game.apply(action)
            self._next_bot_at = self._clock() + self.delay
            self._move_bots()
            return self._view()

    def _checked_choice(self, token: object, choice: object) -> Action:
        game = self.game
        # bool is an int to Python, but true is no number in JSON
        if type(token) is not int or type(choice) is not int:
            raise RequestError("'token' and 'choice' must both be whole numbers")
        if self.bot_error is not None:
            raise RequestError(f"the game is stopped: {self.bot_error}", 409)
        if token != self.token:
            raise RequestError(
                f"this choice was made on an older page (state {token}, now {self.token}): it was not taken", 409
            )
        if game.is_over:
            raise RequestError("the game is over: there is nothing left to choose", 409)
        if game.current_player != self.human:
            raise RequestError(f"it is not your decision: the game waits for seat {game.current_player}", 409)
        legal = game.legal_actions()
        if not 0 <= choice < len(legal):
            raise RequestError(f"there is no choice {choice}: the choices are numbered 0 to {len(legal) - 1}")
        return legal[choice]

    def _move_bots(self) -> None:
        """Apply the bot moves that are due now; the last one ending the game saves the record."""
        game = self.game
        while self.bot_error is None and not game.is_over and game.current_player != self.human:
            now = self._clock()
            if now < self._next_bot_at:
                return
            seat = game.current_player
            assert seat is not None  # the game is not over
            try:
                action = self.bots[seat].choose(game)
            except BotError as err:  # checked before anything is applied: the game stays as it was
                self.bot_error = f"{seat_name(seat, self.names)}: {err}"
                return
            game.apply(action)
            self._next_bot_at = now + self.delay
        if game.is_over and self.saved_at_end is None and self.record_path is not None:
            self.saved_at_end = self._save_to(self.record_path)

    # --- what the page shows ----------------------------------------------------------------------------

    @property
    def token(self) -> int:
        """The state token: how many actions were applied (each action makes the previous token stale)."""
        return len(self.game.log)

    def _view(self) -> dict[str, Any]:
        """The game as the human sees it, JSON-ready: the table, the news, the decision and choices, the end.

        Every text is plain text for the page to show as text, never markup; ``svg`` is the table picture.
        """
        game, human = self.game, self.human
        stopped = self.bot_error is not None
        yours = not stopped and not game.is_over and game.current_player == human
        waiting = None if game.is_over or yours or stopped else game.current_player
        state: dict[str, Any] = {
            "token": self.token,
            "seat": human,
            "names": [seat_name(s, self.names) for s in range(game.num_players)],
            "turn": game.state.turn,
            "svg": self._picture(game, human),
            "news": transcript(game.log[self._news_from :], human, self.names),
            "log": transcript(game.log, human, self.names),
            "your_turn": yours,
            "decision": decision_text(game, self.names) if yours else self._waiting_text(waiting),
            "choices": [str(action) for action in game.legal_actions()] if yours else [],
            "poll_s": max(MIN_POLL_S, min(self.delay, IDLE_POLL_S)) if self.delay else MIN_POLL_S,
            "over": game.is_over,
            "scores": game.scores(),
            "bot_error": self.bot_error,
            "recordable": self.seed is not None,
            "record_file": str(self.record_path) if self.record_path is not None else None,
        }
        if game.is_over:
            state["winners"] = game.winners()
            state["result"] = result_text(game, self.names, human) + " " + scores_text(game, self.names) + "."
            state["saved"] = self.saved_at_end
        return state

    def _waiting_text(self, seat: int | None) -> str:
        if self.bot_error is not None:
            return "The game is stopped: a bot broke the rules or failed (see above)."
        if seat is None:
            return "The game is over."
        return f"Waiting for {seat_name(seat, self.names)} to decide..."

    # --- records --------------------------------------------------------------------------------------------

    def record(self) -> GameRecord:
        """The game so far as a record (finished or not).

        Raises:
            RequestError: the game has no seed to replay from (it started from a saved position).
        """
        if self.seed is None:
            raise RequestError("this game started from a saved position: it has no seed, so no record", 409)
        with self._lock:
            try:
                return GameRecord.from_game(self.game, self.seed, self.record_names)
            except RecordError as err:
                raise RequestError(f"the game cannot be recorded: {err}", 409) from None

    def save(self) -> str:
        """Write the record to the ``record_path`` given at the start; returns what was done, in words.

        Raises:
            RequestError: no ``record_path`` was given, the game cannot be recorded, or the file cannot be
                written (status 500).
        """
        if self.record_path is None:
            raise RequestError("the server was started without --record FILE: use the download link", 409)
        with self._lock:
            message = self._save_to(self.record_path)
        if message.startswith("error"):
            raise RequestError(message, 500)
        return message

    def _save_to(self, path: Path) -> str:
        """Save the record to ``path``; the outcome in words (starting with "error" when it failed)."""
        try:
            record = GameRecord.from_game(self.game, self.seed, self.record_names) if self.seed is not None else None
            if record is None:
                return "error: a game started from a saved position has no seed, so no record"
            saved = record.save(path)
        except (OSError, ValueError) as err:  # ValueError: a RecordError, or a path the system cannot take
            return f"error: cannot save the record to {path}: {err}"
        return f"Record saved to {saved} (replay it with: python -m gubs_env.replay {saved})"
