"""Card help: the project's card texts match the rules table, and the terminal game shows them on request (a pty)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gubs_env.engine.cards import CARDS, Kind
from gubs_env.engine.cards.texts import CARD_TEXT, card_help

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_every_card_text_is_the_rules_tables_cell_word_for_word():
    cells = {}
    for line in RULES.read_text(encoding="utf-8").splitlines():
        parts = [part.strip() for part in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(parts) == 5 and parts[0] in {spec.name for spec in CARDS}:
            cells[parts[0]] = parts[4]
    assert cells == {spec.name: CARD_TEXT[spec.kind] for spec in CARDS}


def test_a_cards_help_names_it_its_type_and_copies_without_markdown():
    assert card_help(Kind.SUD_SPOUT).startswith("Sud Spout (trap, 4 in the deck): Traps a Free Gub")
    assert all("`" not in card_help(kind) for kind in Kind)


class Terminal:
    """The terminal game in a pseudo-terminal, as a person runs it: read the screen, type lines."""

    def __init__(self, argv: list[str]) -> None:
        main, child = pty.openpty()
        env = {**os.environ, "GUBS_QUIET_COMPILE": "1", "COLUMNS": "120"}
        self.process = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env, close_fds=True)
        os.close(child)
        self.fd, self.screen = main, ""

    def read_until(self, pattern: str, timeout: float = 60) -> str:
        """The screen up to and including the first match of ``pattern`` not read before."""
        end = time.monotonic() + timeout
        while not (found := re.search(pattern, self.screen)):
            ready, _, _ = select.select([self.fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                pytest.fail(f"no {pattern!r} within {timeout} s; the screen ends: {self.screen[-500:]!r}")
            try:
                self.screen += os.read(self.fd, 4096).decode("utf-8", "replace").replace("\r\n", "\n")
            except OSError:  # the program ended
                pytest.fail(f"the program ended before {pattern!r}: {self.screen[-500:]!r}")
        shown, self.screen = self.screen[: found.end()], self.screen[found.end() :]
        return shown

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def close(self) -> int:
        code = self.process.wait(timeout=60)
        os.close(self.fd)
        return code


PROMPT = r"Your choice \(1-\d+, h for help\): "


def test_the_terminal_game_explains_a_card_and_a_choice_on_request():
    session = Terminal([sys.executable, "-m", "agents.play", "--bots", "random", "--seed", "3"])
    try:
        session.read_until(PROMPT)
        session.type("h")
        assert "h CARD   what a card does" in session.read_until(PROMPT)
        session.type("h mushroom")
        assert "Mushroom (barricade, 7 in the deck): PROTECT: covers one of the player's Free Gubs." in (
            session.read_until(PROMPT)
        )
        session.type("? 1")
        assert re.search(r"^1\. .+", session.read_until(PROMPT), re.MULTILINE)
        session.type("h wombat")
        assert "No card is called 'wombat'" in session.read_until(PROMPT)
        session.type("q")
        session.read_until("You left the game.")
    finally:
        code = session.close()
    assert code == 0


@given(st.text(max_size=200))
@example("¹")  # a digit to str.isdigit, but no number to int()
@example("9" * 5000)  # more digits than int() reads
@example("٣")  # a decimal digit of another script: choice 3
def test_any_typed_topic_gets_a_short_answer_and_nothing_else(topic):
    from agents.play.terminal import topic_help
    from gubs_env.engine import Game

    legal = Game(2, seed=0).legal_actions()
    answer = topic_help(topic.strip().lower(), legal)
    assert isinstance(answer, str) and 0 < len(answer) < 600 and answer.count("\n") <= 1


def test_every_card_text_stands_alone():
    # a text that leans on another row ("The same with exactly 3 Gubs", "Like Mushroom") says nothing on its own
    leaning = [kind.name for kind, text in CARD_TEXT.items() if re.match(r"(The same|Like |Only )", text)]
    assert leaning == []
    assert card_help(Kind.TRIPLE_RING).startswith("Triple Ring (trap, 1 in the deck): Traps 3 Free Gubs")
    assert "Barricade of any kind" in card_help(Kind.TOAD_RIDER) and "PROTECT" in card_help(Kind.VELVET_MOTH)
