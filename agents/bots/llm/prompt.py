"""What the language-model agent says to the model, and how it reads the answer.

A game is one conversation. The system message (:func:`system_message`) holds the rules in words
(:data:`gubs_env.engine.seat_view.RULES`) and how to answer, once per game. Each decision is a user message
(:func:`decision_message`): the seat's view in words (:meth:`Game.seat_text`), which holds only what the seat may
know, with the legal moves listed or not (the ``moves`` setting). The model may reason freely and then end with a
line ``FINAL ANSWER: <move>`` (``reasoning=free``), or answer with the move alone (``reasoning=none``);
:func:`final_answer` finds the move in the reply and the action notation (:mod:`gubs_env.engine.notation`) reads it.
An answer that names no legal move gets a retry message that says what was wrong (:func:`retry_message`).
"""

from __future__ import annotations

import re

from agents.bots.llm.settings import FREE, LISTED, LLMSettings
from gubs_env.engine import Action, Game
from gubs_env.engine.notation import ActionTextError, parse_action
from gubs_env.engine.seat_view import RULES, seat_text

MARKER = "FINAL ANSWER:"
_MARKED = re.compile(r"final[ _]*answer\s*\**\s*[:：]\s*\**[ \t]*([^\n]*)", re.IGNORECASE)
_LISTING = "\nYour legal moves:"


def system_message(settings: LLMSettings) -> str:
    """The rules and how to answer: the first message of every game's conversation."""
    if settings.moves == LISTED:
        how = "its number in the list of legal moves, or its text exactly as the list writes it"
    else:
        how = (
            "its text in the game's notation: for example 'Draw', 'Decline to draw', 'Go (end turn)', 'Pass', "
            "'Lure → seat 2', 'Mushroom: protect a Free Gub', 'Spear → seat 1: kill a Free Gub', 'Keep Gub', "
            "'Discard Gub', 'Scout: put Gub next' (the moves are not listed: name one the rules allow now)"
        )
    if settings.reasoning == FREE:
        answer = f"Think it over as long as you like, then end your reply with one line: {MARKER} <move>"
    else:
        answer = "Reply with the move only, nothing else"
    return (
        f"You are playing the card game Gubs. The rules:\n\n{RULES}\n\n"
        "At each of your decisions you get the game as your seat sees it. Choose one legal move. "
        f"{answer}, where the move is {how}."
    )


def decision_message(game: Game, seat: int, settings: LLMSettings, since: int | None = None) -> str:
    """The decision in words for ``seat``: its view of the game, with or without the listed legal moves.

    The events start at log entry ``since`` (default: the seat's last decision).
    """
    text = seat_text(game.seat_view(seat, since))
    if settings.moves != LISTED:
        text = text.split(_LISTING, 1)[0] + "\n\nChoose your move (the legal moves are not listed)."
    return text


def retry_message(reason: str, settings: LLMSettings) -> str:
    """What the model is told after an answer that names no legal move."""
    how = f"end your reply with {MARKER} <move>" if settings.reasoning == FREE else "reply with the move only"
    return f"That answer can't be played: {reason}. Choose again: {how}."


class AnswerError(ValueError):
    """A reply that names no legal move (the message says why, for the retry)."""


def final_answer(reply: str | None, settings: LLMSettings) -> str:
    """The move a reply gives: the last ``FINAL ANSWER:`` line's, or (``reasoning=none``) the reply itself.

    Raises:
        AnswerError: the reply is empty, or gives no answer where one is looked for.
    """
    if reply is None or not reply.strip():
        raise AnswerError("the reply was empty")
    marked = _MARKED.findall(reply)
    if marked:
        return marked[-1]
    if settings.reasoning == FREE and "\n" in reply.strip():
        raise AnswerError(f"the reply has no line '{MARKER} <move>'")
    return reply.strip()


def chosen_action(reply: str | None, game: Game, settings: LLMSettings) -> Action:
    """The legal action a reply names.

    Raises:
        AnswerError: it names none (the message says why, and repeats at most a few words of the answer).
    """
    answer = final_answer(reply, settings)
    try:
        return parse_action(answer, game.legal_actions(), numbered=settings.moves == LISTED)
    except ActionTextError as err:
        raise AnswerError(str(err)) from None
