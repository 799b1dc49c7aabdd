"""The action notation: each legal action's text, and the parser that reads a player's answer back into the action.

An action's text is ``str(action)`` (``"Lure → seat 2"``, ``"Scout: put Gub next"``): the same words the log, the
terminal game and the records use, unique among the legal actions of any decision. The parser forgives what a
person or a language model changes without meaning another move: letter case, spacing (spaces are ignored
altogether, so ``"lure→seat2"`` reads), the arrow written ``->`` or ``=>``, and quotes, backticks, asterisks or a
full stop around the answer. A bare number (``"3"``, ``"#3"``, ``"3."``) is the move's place in the listed legal
moves, counted from 1 in the order :meth:`Game.legal_actions <gubs_env.engine.Game.legal_actions>` gives them.

>>> from gubs_env.engine import Game
>>> game = Game(2, seed=0)
>>> [str(a) for a in game.legal_actions()]
['Draw', 'Decline to draw']
>>> str(parse_action("  DECLINE to draw. ", game.legal_actions()))
'Decline to draw'
>>> str(parse_action("1", game.legal_actions()))
'Draw'
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from gubs_env.engine.actions import Action

MAX_ANSWER = 300
"""The longest answer the parser reads (an action's text is at most about 80 characters)."""
_SHOWN = 40
"""Characters of an answer that an error message repeats."""
_NUMBER = re.compile(r"#?\s*(\d{1,6})\s*[.):]?")
_ARROWS = re.compile(r"->|=>|⇒|⟶")
_WRAPPING = "\"'`*_ \t\n"
_BRACKETS = ("[]", "()", "<>", "{}")


class ActionTextError(ValueError):
    """An answer that names no legal action (the one-line message says why)."""


def action_texts(legal: Sequence[Action]) -> list[str]:
    """The text of each legal action, in the order given: what a player may answer (or the move's number)."""
    return [str(action) for action in legal]


def canonical(text: str) -> str:
    """``text`` as the parser compares it: case folded, every arrow written ``→``, every space gone."""
    return "".join(_ARROWS.sub("→", text).casefold().split())


def parse_action(text: object, legal: Sequence[Action], numbered: bool = True) -> Action:
    """The legal action ``text`` names: its text (case and spacing forgiven) or, when ``numbered``, its number.

    Args:
        text: the answer.
        legal: the decision's legal actions, in the order they were listed.
        numbered: whether the moves were listed with numbers (a bare number is then a move's place, from 1).

    Raises:
        ActionTextError: (a ``ValueError``) ``text`` is not a string, is empty or too long, or names no legal action;
            the one-line message says which, and names the closest legal moves when there are any.
    """
    if not isinstance(text, str):
        raise ActionTextError(f"an answer is text, not a {type(text).__name__}")
    stripped = text.strip()
    if len(stripped) > MAX_ANSWER:
        raise ActionTextError(f"the answer is {len(stripped)} characters long: give one move, at most {MAX_ANSWER}")
    answer = _unwrapped(stripped)
    if not answer:
        raise ActionTextError("the answer is empty: give one move")
    if not legal:
        raise ActionTextError("no move is legal now: the game is over")
    number = _NUMBER.fullmatch(answer)
    if number is not None:
        return _numbered(int(number.group(1)), legal, numbered)
    wanted = canonical(answer)
    for action in legal:
        if canonical(str(action)) == wanted:
            return action
    close = difflib.get_close_matches(answer, action_texts(legal), n=3, cutoff=0.6)
    hint = f"; the closest legal moves: {', '.join(repr(c) for c in close)}" if close else ""
    raise ActionTextError(f"{_quoted(answer)} is not a legal move now{hint}")


def _unwrapped(text: str) -> str:
    """``text`` without the quotes, emphasis, brackets and full stop a writer may put around a move."""
    while True:
        inner = text.strip(_WRAPPING).removesuffix(".").strip(_WRAPPING)
        if len(inner) > 1 and any(inner[0] == pair[0] and inner[-1] == pair[1] for pair in _BRACKETS):
            inner = inner[1:-1]
        if inner == text:
            return text
        text = inner


def _numbered(number: int, legal: Sequence[Action], numbered: bool) -> Action:
    """The ``number``-th legal move (from 1), when the moves were listed with numbers."""
    if not numbered:
        raise ActionTextError("no moves were listed with numbers: answer with the move's text")
    if not 1 <= number <= len(legal):
        raise ActionTextError(f"there is no move {number}: the legal moves are numbered 1 to {len(legal)}")
    return legal[number - 1]


def _quoted(text: str) -> str:
    """An untrusted answer in a message: quoted and cut short, on one line."""
    flat = " ".join(text.split())
    return repr(flat[:_SHOWN]) + ("…" if len(flat) > _SHOWN else "")
