"""The public face of the engine: :class:`Game`.

>>> from gubs_env.engine import Game
>>> game = Game(num_players=2, seed=7)
>>> game.current_player
0
>>> [str(a) for a in game.legal_actions()]
['Draw', 'Decline to draw']
>>> game.apply(game.legal_actions()[0]).view(0)[0]
'seat 0 draws a card'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gubs_env.engine import display, rules
from gubs_env.engine.actions import Action, mistyped_fields
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.display import TablePicture
from gubs_env.engine.log import Fact, LogEntry
from gubs_env.engine.notation import ActionTextError, parse_action
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.engine.positions.serialize import brief, state_from_dict, state_to_dict, state_to_dict_checked
from gubs_env.engine.setup import new_state
from gubs_env.engine.state import DeckEvent, GameState, Pending, Step


class IllegalActionError(ValueError):
    """An action that the pending decision does not allow; the game is left exactly as it was."""


def _mistyped_fields(action: Action) -> list[str]:
    """What is wrong with the fields of ``action`` for it ever to be legal (empty when nothing)."""
    wrong = [f"{name} is {brief(getattr(action, name))}" for name in mistyped_fields(action)]
    seat = action.seat
    if type(seat) is int and not 0 <= seat < MAX_PLAYERS:
        wrong.append(f"seat is {brief(seat)}")
    return wrong


def _same_action(action: Action, legal: tuple[Action, ...]) -> Action | None:
    """The legal action ``action`` is, or equals field by field with the same field types; None if none."""
    for candidate in legal:
        if candidate is action:
            return candidate
    if _mistyped_fields(action):
        return None
    for candidate in legal:
        if candidate == action:
            return candidate
    return None


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be None or an int >= 0, not {seed!r}")
    return int(seed)


class Game:
    """One game of Gubs: who must decide, what they may do, and what each action does.

    Args:
        num_players: 2 to 6.
        seed: fixes every random event of the game (shuffle, deal, insertions); ``None`` for fresh entropy.
        record_log: keep the event log (:attr:`log`); switch off for the fastest random play.
        **options: rule options (:class:`~gubs_env.engine.options.RuleOptions`), e.g.
            ``letter_placement="uniform"`` or ``max_turns=500``.

    Raises:
        ValueError: for a bad player count, seed or rule option.
    """

    __slots__ = ("_legal", "log", "record_log", "state")

    def __init__(
        self, num_players: int = 2, seed: int | None = None, *, record_log: bool = True, **options: Any
    ) -> None:
        players = check_player_count(num_players)
        rule_options = RuleOptions.from_dict(options)
        rng = np.random.default_rng(_check_seed(seed))
        self._attach(new_state(players, rng, rule_options), [], record_log)

    def _attach(self, state: GameState, log: list[LogEntry], record_log: bool) -> None:
        self.state = state
        self.log = log
        """One :class:`LogEntry` per applied action, oldest first."""
        self.record_log = record_log
        self._legal: tuple[Action, ...] | None = None

    @classmethod
    def from_state(cls, state: GameState, *, record_log: bool = True) -> Game:
        """A game at the position ``state`` holds, checked exactly as :meth:`from_dict` checks a dict.

        The game plays on its own validated copy: ``state`` is neither kept nor changed.

        Raises:
            InvalidStateError: (a ``ValueError``) ``state`` is not a :class:`GameState` or not a playable position.
        """
        game = cls.__new__(cls)
        game._attach(state_from_dict(state_to_dict_checked(state)), [], record_log)
        return game

    # --- who acts, and what they may do ------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.state.num_players

    @property
    def options(self) -> RuleOptions:
        """The rule options in force."""
        return self.state.options

    @property
    def deck_history(self) -> list[DeckEvent] | None:
        """The deck's public events since the deal (read it; don't change it), kept in the state and its saved form.

        Each card put back at a random place and each Letter drawn, with the deck's size just before it: the Letters'
        exact posterior follows them in :meth:`resample`, the search bots' worlds and the luck estimate. ``None`` where
        the past is not known: a position built by hand, or one saved by version 0.2 or earlier (docs/engine.md).
        """
        return self.state.deck_history

    @property
    def pending(self) -> Pending:
        """The decision the game waits for (read it; don't change it)."""
        return self.state.pending

    @property
    def current_player(self) -> int | None:
        """The seat that must decide now, or ``None`` once the game is over."""
        pend = self.state.pending
        return None if pend.step is Step.OVER else pend.actor

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the current player may take, in a fixed order (never empty before the end)."""
        if self._legal is None:
            self._legal = tuple(rules.legal_actions(self.state))
        return self._legal

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is allowed now (by the same test as :meth:`apply`, text excepted)."""
        return type(action) is Action and _same_action(action, self.legal_actions()) is not None

    def apply(self, action: Action | str) -> LogEntry:
        """Take ``action`` for the current player and return what it made happen.

        ``action`` may also be text in the action notation (:meth:`parse_action`): a legal action's text
        (``str(action)``, case and spacing forgiven) or its number among :meth:`legal_actions`, from 1.

        Only an :class:`Action` whose fields have the engine's own types (``Op``, ``Kind``, ``Use``, ``Part``,
        a plain ``int`` seat) and equal a legal action, or text naming one, is accepted: a look-alike
        (a tuple subclass, a float or numpy seat, a bare int op) is refused, never converted.

        Raises:
            IllegalActionError: the action is not legal now (or not an action); nothing changes.
        """
        legal = self._legal if self._legal is not None else self.legal_actions()
        for candidate in legal:  # legal actions are interned: identity is the fast, exact test
            if candidate is action:
                break
        else:
            action = self._from_text_or_raise(action)
        state = self.state
        turn, actor = state.turn, state.pending.actor
        facts: list[Fact] = []
        rules.advance(state, action, facts)
        self._legal = None
        entry = tuple.__new__(LogEntry, (turn, actor, action, tuple(facts)))  # the fast NamedTuple path
        if self.record_log:
            self.log.append(entry)
        return entry

    def _from_text_or_raise(self, action: object) -> Action:
        """The legal action ``action`` names exactly (by equal typed fields or by its text), else raise."""
        legal = self.legal_actions()
        if not legal:
            raise IllegalActionError("the game is over: no action is legal")
        if type(action) is str:
            try:
                return parse_action(action, legal)
            except ActionTextError as err:
                raise IllegalActionError(f"{err}; legal: {[str(a) for a in legal]}") from None
        if type(action) is not Action:
            raise IllegalActionError(f"expected an Action or the text of a legal one, not {brief(action)}")
        wrong = _mistyped_fields(action)
        if wrong:
            fields = ", ".join(wrong)
            raise IllegalActionError(f"an Action with fields of the wrong type or range ({fields}) is never legal")
        same = _same_action(action, legal)
        if same is None:
            raise IllegalActionError(self._why_illegal(action))
        return same

    def _why_illegal(self, action: Action) -> str:
        """Why a well-typed action is refused, with the legal ones listed."""
        pend = self.state.pending
        step = pend.step.name.lower()
        return (
            f"{action} is not legal: seat {pend.actor} must decide a {step} step, "
            f"where the legal actions are {[str(a) for a in self.legal_actions()]}"
        )

    # --- the end -----------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (third Letter laid) or was truncated at the turn limit."""
        return self.state.pending.step is Step.OVER

    @property
    def truncated(self) -> bool:
        """Whether the game was stopped at the turn limit (R23) rather than ended by the rules."""
        return self.state.truncated

    def scores(self) -> list[int]:
        """Points per seat now: Free and Protected Gubs, the Elder included."""
        return rules.scores(self.state)

    def winners(self) -> list[int]:
        """Winning seats once the game has ended, tie-breaks applied (docs/rules.md §6).

        Empty before the end and after a truncation.
        """
        if not self.is_over or self.truncated:
            return []
        return rules.winners(self.state)

    # --- copies, saving, showing --------------------------------------------------------------------

    def clone(self) -> Game:
        """An independent copy with the same future (the random generator is copied too)."""
        other = Game.__new__(Game)
        other._attach(self.state.copy(), self.log[:], self.record_log)
        return other

    # --- what one seat knows ------------------------------------------------------------------------

    def _check_viewer(self, viewer: Any) -> int:
        if isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer)):
            raise ValueError(f"viewer must be a seat number, not {brief(viewer)}")
        if not 0 <= viewer < self.num_players:
            raise ValueError(f"viewer must be a seat from 0 to {self.num_players - 1}, not {int(viewer)}")
        return int(viewer)

    def information_state(self, viewer: int) -> str:
        """A canonical string, equal for two positions exactly when seat ``viewer`` can't tell them apart.

        It holds the viewer's hand, the public zones and counts, what the viewer's Scout showed, the pending decision
        as the viewer sees it and the deck's public history since the deal (docs/engine.md, "Determinization").

        Raises:
            ValueError: ``viewer`` is not a seat of this game.
        """
        from gubs_env.engine.positions.determinize import information_state

        return information_state(self.state, self._check_viewer(viewer))

    def seat_view(self, seat: int, since: int | None = None) -> dict[str, Any]:
        """What ``seat`` knows of the game, as a JSON-ready dict (:func:`~gubs_env.engine.seat_view.seat_view`).

        The phase, whose decision it is and why, the seat's hand, every colony, the deck and discard pile, the
        scores, the events since the seat's last decision (or since log entry ``since``) as it saw them, when the
        log is kept, and, when it decides, its legal moves in the action notation.

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        from gubs_env.engine.seat_view import seat_view

        return seat_view(self.state, self.log if self.record_log else None, self._check_viewer(seat), since)

    def seat_text(self, seat: int, since: int | None = None) -> str:
        """:meth:`seat_view` as text for a person or a language model (:func:`~gubs_env.engine.seat_view.seat_text`).

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        from gubs_env.engine.seat_view import seat_text

        return seat_text(self.seat_view(seat, since))

    def parse_action(self, text: str) -> Action:
        """The legal action ``text`` names: its text (case and spacing forgiven) or its number, from 1.

        See :mod:`gubs_env.engine.notation`.

        Raises:
            IllegalActionError: ``text`` names no legal action (the one-line message says why).
        """
        if type(text) is not str:
            raise IllegalActionError(f"an action's text is a string, not {brief(text)}")
        return self._from_text_or_raise(text)

    def resample(self, viewer: int, seed: int | None = None) -> Game:
        """A full game drawn at random among those seat ``viewer`` can't tell from this one.

        The hidden cards are spread uniformly over what the viewer's knowledge allows, the Letters by their exact
        posterior given the deck's history since the deal (:attr:`deck_history`; their placement prior as dealt
        when it is not known); the result depends only on :meth:`information_state` and ``seed``, and its random
        generator is fresh, so its future is not this game's. The log is not copied; the history, which every seat
        saw, is.

        Raises:
            ValueError: ``viewer`` is not a seat of this game, or ``seed`` is not None or an int >= 0.
        """
        from gubs_env.engine.positions.determinize import resample

        world = Game.__new__(Game)
        world._attach(resample(self.state, self._check_viewer(viewer), _check_seed(seed)), [], self.record_log)
        return world

    def to_dict(self) -> dict[str, Any]:
        """The full state as a JSON-serialisable dict, the deck's history included (the log is not)."""
        return state_to_dict(self.state)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, record_log: bool = True) -> Game:
        """Restore a game from :meth:`to_dict` output or a hand-written position.

        Every field is checked (its exact type, its range, and that the position is one the rules can play on:
        see docs/security.md); the dict is only read, and nothing outside the new game is touched.

        Raises:
            InvalidStateError: (a ``ValueError``) naming the first field that is malformed or impossible.
        """
        game = cls.__new__(cls)
        game._attach(state_from_dict(data), [], record_log)
        return game

    def render(self, player: int | None = None) -> str:
        """The table as text from ``player``'s point of view (``None``: what everybody sees)."""
        from gubs_env.engine.render import render

        return render(self.state, player)

    def history(self, player: int | None = None) -> list[str]:
        """The log as lines of text, as ``player`` saw it (``None``: only what everybody saw)."""
        return [
            f"[turn {e.turn}] seat {e.actor}: {e.action_text(player)} — " + "; ".join(e.view(player)) for e in self.log
        ]

    def __repr__(self) -> str:
        pend = self.state.pending
        if pend.step is Step.OVER:
            from gubs_env.engine.render import outcome_text

            return f"<Game {self.num_players} players, over at turn {self.state.turn}: {outcome_text(self.state)}>"
        return (
            f"<Game {self.num_players} players, turn {self.state.turn}, "
            f"{pend.step.name.lower()} step for seat {pend.actor}>"
        )

    def _repr_svg_(self) -> str:
        """Jupyter shows a game as the all-seeing picture of its table."""
        return display.table_svg(self, None)

    def view(self, seat: int | None) -> TablePicture:
        """The table as ``seat`` sees it (``None``: all-seeing), shown as a picture in Jupyter, as text elsewhere.

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        return display.view(self, seat)

    def save_svg(self, path: str | Path, viewer: int | None = None) -> Path:
        """Write the picture of the table as ``viewer`` sees it (``None``: all-seeing) to an ``.svg`` file."""
        return display.save_svg(self, path, viewer)
