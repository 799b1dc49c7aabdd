"""The terminal game, ``python -m agents.play``: scripted sessions, leaving early, watching, CLI errors."""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.play.terminal import EXIT_INTERRUPTED, HELP, TerminalPlayer, decision_text, main
from gubs_env.engine import Game
from gubs_env.records.record import GameRecord, replay
from tests.helpers import table

PROMPT = re.compile(r"Your choice \(1-(\d+), h for help\): $")
BAD_LINES = ["abc\n", "0\n", "7777\n", "-1\n", "\n", "   \n", "1.5\n", "r\n", "h\n", "?\n", "l\n"]


class Responder:
    """A human at the keyboard: first the scripted lines, then a random valid choice at every prompt.

    It checks that input is only read right after a prompt, and counts the choices it made.

    Args:
        screen: the output the session writes (to read the prompt from).
        script: lines to send first, one per prompt.
        seed: seeds the random choices.
        choices: after this many choices, the input ends (``None``: never).
    """

    def __init__(self, screen: io.StringIO, script: list[str] = (), seed: int = 0, choices: int | None = None):
        self.screen = screen
        self.script = list(script)
        self.rng = random.Random(seed)
        self.limit = choices
        self.choices = 0

    def readline(self, limit: int = -1) -> str:
        prompt = PROMPT.search(self.screen.getvalue())
        assert prompt, "input was read without a prompt"
        if self.script:
            return self.script.pop(0)
        if self.limit is not None and self.choices >= self.limit:
            return ""
        self.choices += 1
        return f"{self.rng.randint(1, int(prompt.group(1)))}\n"

    def isatty(self) -> bool:
        return False


def run(argv: list[str], **responder) -> tuple[int, str, Responder]:
    """Run the command with a :class:`Responder` at the keyboard: exit status, screen, responder."""
    screen = io.StringIO()
    keyboard = Responder(screen, **responder)
    code = main(argv, stdin=keyboard, stdout=screen, sleep=lambda s: pytest.fail("no pause outside --watch"))
    return code, screen.getvalue(), keyboard


def human_actions(record: GameRecord, seat: int) -> int:
    return sum(event["actor"] == seat for event in record.events)


def test_a_scripted_game_with_bad_input_plays_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    argv = ["--players", "3", "--bots", "random", "--seat", "1", "--seed", "4", "--record", str(path)]
    code, screen, keyboard = run(argv, script=BAD_LINES)
    assert code == 0
    for message in (
        "'abc' is not a choice: type a number from 1 to",
        "There is no choice 0",
        "There is no choice 7777",
        "There is no choice -1",
        "Please type a number from 1 to",
        "'1.5' is not a choice",
        HELP,
        "Everything so far, as you saw it:",
        "=== Game over ===",
        "Scores: seat 0 (random) ",
        "Seed: 4 (play this deal again with --seed 4)",
        f"Record saved to {path}",
    ):
        assert message in screen
    assert "Traceback" not in screen
    record = GameRecord.load(path)
    assert record.players == ["random", "human", "random"]
    assert replay(record).is_over
    assert keyboard.choices == human_actions(record, 1)  # asked exactly at the human's decisions
    assert screen.count(">>> ") == keyboard.choices + 1  # plus the redraw asked for with r


@pytest.mark.parametrize("players", range(2, 7))
def test_the_human_is_asked_exactly_when_it_is_their_decision(players: int, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    seat = players - 1
    argv = ["--players", str(players), "--seat", str(seat), "--seed", str(players), "--record", str(path)]
    code, screen, keyboard = run(argv, seed=players)
    record = GameRecord.load(path)
    game = replay(record)
    assert code == 0 and game.is_over
    assert record.players == ["heuristic"] * seat + ["human"]
    assert keyboard.choices == human_actions(record, seat) == screen.count(">>> ")
    assert "You win!" in screen or "Winner" in screen or "You share" in screen or "turn limit" in screen


def test_the_end_of_input_leaves_cleanly_and_saves_the_record(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "game.json"
    code, screen, _ = run(["--seed", "9", "--record", str(path)], choices=5)
    assert code == 1
    assert "The input ended: leaving the game." in screen
    assert "The game was left on turn" in screen and "Seed: 9" in screen
    record = GameRecord.load(path)
    assert human_actions(record, 0) == 5
    assert not replay(record).is_over


def test_q_quits_at_once_and_saves(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, screen, keyboard = run(["--seat", "1", "--seed", "2", "--record", str(path)], script=["2\n", " Q \n"])
    assert code == 0
    assert "You left the game." in screen and "Game over" not in screen
    assert keyboard.script == []
    record = GameRecord.load(path)
    assert record.result["over"] is False
    assert replay(record).state.turn == record.result["turns"]


def test_ctrl_c_leaves_cleanly_and_saves(tmp_path: Path) -> None:
    class Interrupting(io.StringIO):
        def readline(self, size: int = -1) -> str:
            raise KeyboardInterrupt

    path = tmp_path / "game.json"
    screen = io.StringIO()
    code = main(["--seed", "1", "--record", str(path)], stdin=Interrupting(), stdout=screen)
    assert code == EXIT_INTERRUPTED
    assert "Interrupted" in screen.getvalue()
    replay(GameRecord.load(path))


def test_an_unwritable_record_is_refused_before_the_game(tmp_path: Path, capsys) -> None:
    (tmp_path / "file").write_text("")
    for target, message in [(tmp_path, "is a folder"), (tmp_path / "file" / "game.json", "exists and is not a")]:
        with pytest.raises(SystemExit) as stop:
            run(["--seed", "1", "--record", str(target)], script=["q\n"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "error: --record: " in err and message in err and err.count("\n") == 1


def test_a_record_that_cannot_be_saved_after_all_exits_1(tmp_path: Path, monkeypatch, capsys) -> None:
    def full_disk(self: GameRecord, path: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(GameRecord, "save", full_disk)
    code, _, _ = run(["--seed", "1", "--record", str(tmp_path / "game.json")], script=["q\n"])
    assert code == 1
    assert "error: cannot save the record to" in capsys.readouterr().err


def test_watch_plays_a_bots_only_game_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "watch.json"
    screen = io.StringIO()
    pauses: list[float] = []
    argv = ["--watch", "--delay", "0.25", "--players", "4", "--bots", "random", "heuristic", "random", "heuristic"]
    code = main([*argv, "--seed", "3", "--record", str(path)], stdin=None, stdout=screen, sleep=pauses.append)
    assert code == 0
    record = GameRecord.load(path)
    assert record.players == ["random", "heuristic", "random", "heuristic"]
    assert replay(record).is_over
    assert pauses == [0.25] * len(record.actions)
    assert "=== Game over ===" in screen.getvalue()
    assert "you draw" not in screen.getvalue()  # the public view: nobody's hand


def test_watch_with_no_delay_and_a_seat_view() -> None:
    screen = io.StringIO()
    argv = ["--watch", "--delay", "0", "--bots", "random", "--seed", "5", "--seat", "1", "--max-turns", "30"]
    code = main(argv, stdout=screen, sleep=lambda s: pytest.fail("no pause with --delay 0"))
    assert code == 0
    assert "you draw" in screen.getvalue()  # seat 1's private facts
    assert "Your hand:" in screen.getvalue()


def test_rule_options_reach_the_game(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    argv = ["--watch", "--delay", "0", "--bots", "random", "--seed", "5", "--record", str(path)]
    code = main([*argv, "--max-turns", "4", "--letter-placement", "uniform"], stdout=io.StringIO())
    record = GameRecord.load(path)
    assert code == 0
    assert record.options == {"letter_placement": "uniform", "max_turns": 4}
    assert record.result["truncated"] is True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "nobody"], "unknown agent 'nobody'"),
        (["--bots", "random", "random"], "--bots needs 1 spec or 1"),
        (["--players", "3", "--bots", "random", "random", "random"], "--bots needs 1 spec or 2"),
        (["--players", "4", "--bots", "random", "", "random"], "an agent spec is a non-empty string"),
        (["--watch", "--players", "3", "--bots", "random", "random"], "--bots needs 1 spec or 3"),
        (["--players", "3", "--bots", "random,heuristic"], "separated by spaces, not commas: random heuristic"),
        (["--seat", "2"], "--seat must be a seat from 0 to 1"),
        (["--seat", "-1"], "must be at least 0"),
        (["--players", "7"], "player counts go from 2 to 6"),
        (["--players", "two"], "'two' is not a whole number"),
        (["--seed", "1e3"], "is not a whole number"),
        (["--delay", "0.5"], "--delay applies only with --watch"),
        (["--watch", "--delay", "-1"], "must be from 0 to 60 seconds"),
        (["--watch", "--delay", "inf"], "'inf' is not a finite number"),
        (["--watch", "--delay", "nan"], "'nan' is not a finite number"),
        (["--watch", "--delay", "61"], "must be from 0 to 60 seconds"),
        (["--watch", "--delay", "1e400"], "is not a finite number"),
        (["--max-turns", "0"], "must be from 1 to 2147483646, not 0"),
        (["--max-turns", "2147483647"], "must be from 1 to 2147483646, not 2147483647"),  # past the engines' bound
        (["--max-turns", "9" * 1000], "not " + "9" * 20 + "…" + "9" * 20 + " "),  # echoed cut short
        (["--seed", "9" * 5000], "'" + "9" * 20 + "…" + "9" * 20 + "' is not a whole number"),
        (["--bots", "sys:exit"], "is not an agent class"),
        (["--bots", "os:abort"], "is not an agent class"),
        (["--bots", ":Agent"], "cannot import ''"),
        (["--letter-placement", "diagonal"], "invalid choice"),
        (["--bots", "no/such/model.zip"], "no model file"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv, stdin=io.StringIO(), stdout=io.StringIO())
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("python -m agents.play: error: ") and err.count("\n") == 1  # one line, no usage


def test_the_human_answers_an_interrupt_window() -> None:
    game = table(
        num_players=3,
        hands=[{"Super Lure": 1}, {"Blindfold": 1}, {}],
        sides=[{"free": 1}, {"free": 2, "protected": {"Mushroom": 1}}, {}],
    )
    game.apply("Super Lure → seat 1")
    screen = io.StringIO()
    names = ["heuristic", "you", "random"]
    action = TerminalPlayer(1, names, io.StringIO("x\n2\n"), screen).choose(game)
    assert str(action) == "Blindfold: cancel it"
    shown = screen.getvalue()
    assert ">>> Seat 0 (heuristic) plays Super Lure → seat 1 (you). Cancel it, or pass?" in shown
    assert "  1. Pass\n  2. Blindfold: cancel it\n" in shown
    assert "seat 0 (heuristic): seat 0 plays Super Lure → seat 1" in shown


@pytest.mark.parametrize(
    ("hands", "deck_top", "expected"),
    [
        ([{}, {"Flop Boat": 1}], ["Gargok Plague"], "Seat 0 (a) drew Gargok Plague: flop it back into the deck"),
        ([{}, {"Age-Old Cure": 1}], ["Gargok Plague"], "Seat 0 (a) drew Gargok Plague: keep your hand, or pass?"),
    ],
)
def test_event_windows_say_what_was_drawn(hands: list[dict], deck_top: list[str], expected: str) -> None:
    game = table(num_players=2, hands=hands, deck_top=deck_top, step="draw")
    game.apply("Draw")
    assert game.current_player == 1
    assert decision_text(game, ["a", "you"]).startswith(expected)


def test_follow_up_decisions_say_where_they_stand() -> None:
    game = table(num_players=3, hands=[{"Double Ring": 1}, {"Feather": 1}, {}], sides=[{}, {"free": 2}, {"free": 1}])
    game.apply("Double Ring: trap Free Gubs")
    assert decision_text(game, ["you", "b", "c"]) == "Your Double Ring: choose the seat of Free Gub 1 of 2 to trap."
    game.apply("Ring: take a Free Gub from seat 1")
    game.apply("Ring: take a Free Gub from seat 2")
    assert "(taking 1 Gub from seat 1 and 1 from seat 2). Cancel it, or pass?" in decision_text(game, ["a", "you", "c"])
    game = table(num_players=2, hands=[{"Gub": 9}, {}], sides=[{"free": 1}, {}])
    game.apply("Go (end turn)")
    assert decision_text(game, ["you", "b"]) == "You hold 9 cards, more than 8: discard one."
    game = table(num_players=2, step="draw", declined=[True, False])
    assert "you must draw now" in decision_text(game, ["you", "b"])


def test_the_module_runs_and_imports_no_agents_until_needed() -> None:
    # the agents package holds only the Agent interface and the random bot: the heavy bots wait for a spec
    heavy = "{'torch', 'agents.bots.registry', 'agents.bots.ppo', 'agents.bots.heuristic'}"
    code = f"import sys, agents.play.terminal; assert not {heavy} & set(sys.modules), sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "agents.play", "--watch", "--delay", "0", "--bots", "random", "--seed", "8"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "=== Game over ===" in done.stdout


def test_a_fresh_game_shows_no_news_before_seat_0_decides() -> None:
    screen = io.StringIO()
    TerminalPlayer(0, ["you", "b"], io.StringIO("1\n"), screen).choose(Game(2, seed=1))
    assert "Since your last decision" not in screen.getvalue()
