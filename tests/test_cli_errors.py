"""Every command line meets bad input with one error line and a documented exit status, never a traceback.

The exit statuses are those of :mod:`gubs_env.support.cli` (documented in docs/security.md). Model files here are built
by the tests: unloadable in nine ways, each of which must stop ``agents.evaluate``, ``agents.play.terminal`` and
``agents.evaluate.select`` with status 2 and one line on stderr before any game is played.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.spec import AgentSpec
from agents.evaluate import command as evaluate
from agents.evaluate import select
from agents.play import terminal as play
from gubs_env.encoding import action_table, observation
from gubs_env.support import cli

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_MODEL = ROOT / "agents" / "bots" / "models" / "gubs_2p.zip"


# --- model files that cannot be loaded -------------------------------------------------------------


class _Payload:
    """Unpickling this runs code: it would create the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Callable[..., object], tuple[str]]:
        return exec, (f"open({str(self.marker)!r}, 'w').close()",)


def _zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _shipped_members() -> dict[str, bytes]:
    with zipfile.ZipFile(SHIPPED_MODEL) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _wrong_shapes(path: Path) -> Path:
    """The shipped model with its first actor layer one input short: a real policy file of the wrong shape."""
    import torch

    members = _shipped_members()
    state = torch.load(io.BytesIO(members["policy.pth"]), weights_only=True)
    for key in [k for k in state if k.startswith("mlp_extractor.policy_net.0.weight")]:
        state[key] = state[key][:, 1:].clone()
    buffer = io.BytesIO()
    torch.save(state, buffer)
    members["policy.pth"] = buffer.getvalue()
    return _zip_with(path, members)


def _model_file(kind: str, folder: Path) -> Path:
    """A model file (path ending in .zip) that cannot be loaded, of the given kind."""
    path = folder / f"{kind}.zip"
    if kind == "directory":
        path.mkdir()
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "not_a_zip":
        path.write_text("these are not the weights you are looking for\n")
    elif kind == "zip_without_policy":
        _zip_with(path, {"readme.txt": b"junk"})
    elif kind == "corrupt_policy":
        members = _shipped_members()
        members["policy.pth"] = b"\x80\x02 not a torch file"
        _zip_with(path, members)
    elif kind == "wrong_shapes":
        _wrong_shapes(path)
    elif kind == "pickle_payload":
        members = _shipped_members()
        members["policy.pth"] = pickle.dumps(_Payload(folder / "PAYLOAD_RAN"), protocol=2)
        _zip_with(path, members)
    elif kind == "huge":
        with path.open("wb") as file:  # sparse: past every size limit without using the disk
            file.truncate(2**33)
    return path


MODEL_KINDS = [
    "missing",
    "directory",
    "empty",
    "not_a_zip",
    "zip_without_policy",
    "corrupt_policy",
    "wrong_shapes",
    "pickle_payload",
    "huge",
]


def _one_error_line(err: str, prog: str) -> None:
    assert "Traceback" not in err
    assert err.startswith(f"{prog}: error: "), err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_an_unloadable_model_stops_evaluate_with_status_2(kind: str, tmp_path: Path, monkeypatch, capsys) -> None:
    model = _model_file(kind, tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        evaluate.main([str(model), "random", "--games", "2", "--jobs", "1", "--out", "results"])
    assert stop.value.code == cli.EXIT_USAGE
    captured = capsys.readouterr()
    _one_error_line(captured.err, "python -m agents.evaluate")
    assert captured.out == ""
    assert not (tmp_path / "results").exists()  # nothing written
    assert not (tmp_path / "PAYLOAD_RAN").exists()  # nothing run


@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_an_unloadable_model_stops_play_with_status_2(kind: str, tmp_path: Path, capsys) -> None:
    model = _model_file(kind, tmp_path)
    screen = io.StringIO()
    with pytest.raises(SystemExit) as stop:
        play.main(["--bots", str(model), "--seed", "1"], stdin=io.StringIO("1\n"), stdout=screen)
    assert stop.value.code == cli.EXIT_USAGE
    _one_error_line(capsys.readouterr().err, "python -m agents.play")
    assert screen.getvalue() == ""  # the game never started
    assert not (tmp_path / "PAYLOAD_RAN").exists()


@pytest.mark.parametrize("kind", ["empty", "not_a_zip", "zip_without_policy", "wrong_shapes", "pickle_payload"])
def test_an_unloadable_checkpoint_stops_select_with_status_2(kind: str, tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    _model_file(kind, tmp_path).rename(run_dir / "model.zip")
    with pytest.raises(SystemExit) as stop:
        select.main([str(run_dir), "--games", "2"])
    assert stop.value.code == cli.EXIT_USAGE
    _one_error_line(capsys.readouterr().err, "python -m agents.evaluate.select")
    assert not (tmp_path / "PAYLOAD_RAN").exists()


def test_an_unloadable_model_from_a_real_shell_prints_one_line(tmp_path: Path) -> None:
    model = _model_file("not_a_zip", tmp_path)  # the other kinds are refused the same way, in-process above
    done = _run_module("agents.evaluate", str(model), "random", "--games", "2", "--jobs", "1")
    assert done.returncode == cli.EXIT_USAGE
    _one_error_line(done.stderr, "python -m agents.evaluate")


# --- output folders and files that cannot be written -----------------------------------------------


def _never_played(*args: object, **kwargs: object) -> None:
    pytest.fail("games were played although the command line was bad")


@pytest.mark.parametrize("layout", ["out_is_a_file", "out_under_a_file", "csv_is_a_folder", "records_is_a_file"])
def test_evaluate_refuses_an_unwritable_output_before_playing(layout: str, tmp_path: Path, monkeypatch, capsys):
    import agents.evaluate.tournament

    monkeypatch.setattr(agents.evaluate.tournament, "run_tournament", _never_played)
    (tmp_path / "file").write_text("")
    (tmp_path / "out" / "tournament.csv").mkdir(parents=True)
    flag, target = {
        "out_is_a_file": ("--out", tmp_path / "file"),
        "out_under_a_file": ("--out", tmp_path / "file" / "results"),
        "csv_is_a_folder": ("--out", tmp_path / "out"),
        "records_is_a_file": ("--records", tmp_path / "file"),
    }[layout]
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["random", "heuristic", "--games", "2", flag, str(target)])
    assert stop.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    _one_error_line(err, "python -m agents.evaluate")
    assert f"error: {flag}: " in err


def test_select_refuses_an_unwritable_export_before_playing(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(select, "evaluate_candidates", _never_played)
    (tmp_path / "file").write_text("")
    (tmp_path / "run").mkdir()
    with pytest.raises(SystemExit) as stop:
        select.main([str(tmp_path / "run"), "--export", str(tmp_path / "file" / "best.npz")])
    assert stop.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    _one_error_line(err, "python -m agents.evaluate.select")
    assert "--export: " in err


def test_evaluate_reports_an_output_that_fails_after_all_with_status_1(tmp_path: Path, monkeypatch, capsys) -> None:
    import agents.evaluate.tournament

    def full_disk(self: object, out_dir: object) -> list[Path]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(agents.evaluate.tournament.TournamentResult, "save", full_disk)
    code = evaluate.main(
        ["random", "heuristic", "--games", "2", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "out")]
    )
    assert code == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    _one_error_line(err, "python -m agents.evaluate")
    assert "No space left on device" in err


# --- the shared behaviour: closed stdout, Ctrl-C, bounded reads, undecodable input -----------------


def _run_module(module: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=ROOT, timeout=120, env=env
    )


def _with_closed_stdout(argv: list[str]) -> tuple[int, str]:
    """Run ``argv`` with its stdout a pipe whose reader is already gone; its exit status and stderr."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(argv, stdout=writer, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(writer)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "gubs_env.demo"],
        ["-m", "agents.play", "--watch", "--delay", "0", "--seed", "3", "--bots", "random"],
        ["-m", "gubs_env.encoding.action_table"],
    ],
)
def test_a_closed_stdout_stops_quietly_with_status_141(argv: list[str]) -> None:
    code, err = _with_closed_stdout([sys.executable, "-W", "ignore::RuntimeWarning", *argv])
    assert code == cli.EXIT_CLOSED_STDOUT
    assert err == ""


def test_an_output_encoding_without_the_games_characters_is_no_error() -> None:
    done = _run_module("gubs_env.demo", "--seed", "3", env={**os.environ, "PYTHONIOENCODING": "ascii:strict"})
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert done.stderr == "" and "Scores:" in done.stdout


class _ClosedPipe(io.StringIO):
    """A stdout whose reader has gone."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_evaluate_writes_its_files_even_when_its_reader_left(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    argv = ["random", "heuristic", "--games", "2", "--jobs", "1", "--out", str(tmp_path / "out")]
    assert cli.run_command(lambda: evaluate.main(argv)) == cli.EXIT_CLOSED_STDOUT
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "games.jsonl",
        "tournament.csv",
        "tournament.json",
        "tournament.png",
    ]


def test_run_command_turns_interrupts_and_closed_pipes_into_statuses(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # not pytest's capture: the closed pipe discards stdout

    def interrupted() -> int:
        raise KeyboardInterrupt

    def reader_gone() -> int:
        raise BrokenPipeError

    assert cli.run_command(lambda: 0) == cli.EXIT_OK
    assert cli.run_command(interrupted) == cli.EXIT_INTERRUPTED
    assert cli.run_command(reader_gone) == cli.EXIT_CLOSED_STDOUT


def test_replay_of_an_endless_file_is_refused_quickly() -> None:
    done = _run_module("gubs_env.replay", "/dev/zero")
    assert done.returncode == cli.EXIT_FAILURE
    _one_error_line(done.stderr, "python -m gubs_env.replay")
    assert "larger than a game record can be" in done.stderr


def test_play_reads_undecodable_input_as_a_bad_reply() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agents.play", "--seed", "1", "--bots", "random"],
        input=b"\xff\xfe\x80\nq\n",
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert b"is not a choice" in done.stdout and b"You left the game." in done.stdout
    assert b"Traceback" not in done.stderr


def test_play_leaves_an_input_that_is_not_lines_of_text(capsys) -> None:
    screen = io.StringIO()
    code = play.main(["--seed", "1", "--bots", "random"], stdin=io.StringIO("\0" * 5000), stdout=screen)
    assert code == cli.EXIT_FAILURE
    assert "longer than 1000 characters" in screen.getvalue()
    screen = io.StringIO()
    code = play.main(["--seed", "1", "--bots", "random"], stdin=io.StringIO("x\n" * 500), stdout=screen)
    assert code == cli.EXIT_FAILURE
    assert f"{play.MAX_REPLIES_PER_DECISION} replies without a choice" in screen.getvalue()


def test_play_reports_undecodable_input_from_any_stream() -> None:
    raw = io.BytesIO(b"\xff\xfe\n")
    keyboard = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    screen = io.StringIO()
    code = play.main(["--seed", "1", "--bots", "random"], stdin=keyboard, stdout=screen)
    assert code == cli.EXIT_FAILURE  # the input ends after the bad line
    assert "not valid text (UTF-8)" in screen.getvalue()


# --- argument types and the table printers ---------------------------------------------------------


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "1e400", "Infinity"])
@pytest.mark.parametrize("kind", [cli.positive_float, cli.non_negative_float, cli.probability, cli.pause_seconds])
def test_float_arguments_must_be_finite(kind: Callable[[str], float], text: str) -> None:
    with pytest.raises(Exception, match=r"finite|not a number|must be") as refused:
        kind(text)
    assert refused.type.__name__ == "ArgumentTypeError"


@pytest.mark.parametrize("text", ["9" * 5000, "1.5", "", " ", "0x10", "\0"])
def test_int_arguments_refuse_what_is_not_a_whole_number(text: str) -> None:
    with pytest.raises(Exception, match="is not a whole number") as refused:
        cli.non_negative_int(text)
    assert refused.type.__name__ == "ArgumentTypeError"
    assert len(str(refused.value)) < 80  # a huge argument is not echoed whole


@pytest.mark.parametrize(("module", "doc"), [(action_table, "action_table.md"), (observation, "observation.md")])
def test_the_table_printers_print_the_docs_and_refuse_arguments(module, doc: str, capsys) -> None:
    assert module.main([]) == cli.EXIT_OK
    assert capsys.readouterr().out == (ROOT / "docs" / doc).read_text()
    with pytest.raises(SystemExit) as stop:
        module.main(["--players", "3"])
    assert stop.value.code == cli.EXIT_USAGE
    _one_error_line(capsys.readouterr().err, f"python -m {module.__name__}")


# --- one form for every parser's errors, and long tokens cut short -----------------------------------


def test_every_command_line_parser_is_a_command_parser() -> None:
    """A plain argparse parser prints its usage block and echoes tokens whole: none may be left in the code."""
    sources = [ROOT / "train.py", *(ROOT / "agents").rglob("*.py"), *(ROOT / "gubs_env").rglob("*.py")]
    plain = [str(path.relative_to(ROOT)) for path in sources if "argparse.ArgumentParser(" in path.read_text()]
    assert plain == [], plain


LONG = "9" * 1000


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", LONG],
        ["--max-turns", LONG],
        ["--seed", "9" * 5000],  # past int()'s own digit limit
        ["--delay", "1" + "0" * 1000, "--watch"],
        ["--letter-placement", "x" * 1000],
        ["--record", "x" * 1000],  # a name too long for the file system
        ["--record", "/proc/" + "x" * 1000],
        ["--bots", "m" * 1000 + ":A"],
        ["x" * 1000],  # an unrecognized argument
        ["--" + "x" * 1000],  # an unrecognized option
        [f"--players={LONG}"],
    ],
)
def test_an_error_echoes_a_long_token_cut_short(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        play.main(argv, stdin=io.StringIO(), stdout=io.StringIO())
    assert stop.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    _one_error_line(err, "python -m agents.play")
    assert len(err) < 300, err
    for token in (token for token in argv if len(token) > 41):  # echoed cut short, or not at all
        assert token[-41:] not in err, err


def test_shown_keeps_forty_characters_of_a_long_token_its_start_and_end() -> None:
    assert cli.shown("a" * 40) == "a" * 40
    assert cli.shown("s" * 20 + "x" + "e" * 20) == "s" * 20 + "…" + "e" * 20
    assert cli.shown("/tmp/" + "d" * 60 + "/evil.zip").endswith("/evil.zip")  # the file's name survives
    line = cli.error_line("prog", f"bad {'b' * 100!r} and {'b' * 100}", ["--x=" + "b" * 100])
    assert line == f"prog: error: bad {'b' * 20 + '…' + 'b' * 20!r} and {'b' * 20}…{'b' * 20} (see --help)"
    part = "c" * 500  # echoed as a part of a token (module:Class), not the token itself
    assert cli.error_line("prog", f"no module {part!r}\non two lines", [part + ":A"]).endswith(
        f"no module {chr(39) + 'c' * 19}…{'c' * 19 + chr(39)} on two lines (see --help)"
    )


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (cli.positive_int, "-" + "9" * 1000),
        (cli.non_negative_int, "-" + "9" * 1000),
        (cli.player_count, "9" * 1000),
        (cli.turn_limit, "9" * 1000),
        (cli.training_seed, "9" * 1000),
        (cli.probability, "9" * 1000),
        (cli.pause_seconds, "9" * 1000),
        (cli.positive_float, "-" + "9" * 1000),
    ],
)
def test_the_argument_types_echo_a_long_number_cut_short(kind: Callable[[str], object], text: str) -> None:
    with pytest.raises(Exception, match="…") as refused:
        kind(text)
    assert refused.type.__name__ == "ArgumentTypeError"
    assert len(str(refused.value)) < 100


@pytest.mark.parametrize(
    ("text", "accepted"),
    [("1", True), ("2147483646", True), ("2147483647", False), ("0", False), ("-1", False)],
)
def test_the_turn_limit_is_the_engines_bound(text: str, accepted: bool) -> None:
    from gubs_env.engine.options import MAX_TURNS_LIMIT, RuleOptions

    if accepted:
        assert RuleOptions(max_turns=cli.turn_limit(text)).max_turns <= MAX_TURNS_LIMIT
    else:
        with pytest.raises(Exception, match="must be from 1 to"):
            cli.turn_limit(text)


def test_whole_numbers_stop_at_64_bits() -> None:
    """A count or seed past int64 broke a length (tqdm), a float division or the engines' 64-bit seeds."""
    assert cli.non_negative_int(str(cli.MAX_WHOLE_NUMBER)) == cli.MAX_WHOLE_NUMBER
    for kind in (cli.positive_int, cli.non_negative_int):
        with pytest.raises(Exception, match="must be at most 9223372036854775807"):
            kind(str(cli.MAX_WHOLE_NUMBER + 1))


@pytest.mark.parametrize("argv", [["--seed", str(10**26)], ["--games", "9" * 46], ["--jobs", str(2**64)]])
def test_evaluate_refuses_counts_and_seeds_past_64_bits(argv: list[str], tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["random", "heuristic", *argv])
    assert stop.value.code == cli.EXIT_USAGE
    _one_error_line(capsys.readouterr().err, "python -m agents.evaluate")


def test_a_failure_while_running_echoes_a_long_path_cut_short(capsys) -> None:
    from gubs_env import replay

    assert replay.main(["x" * 1000]) == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    assert err.startswith("python -m gubs_env.replay: error: cannot read ") and err.count("\n") == 1
    assert "x" * 41 not in err and "Traceback" not in err


def _shell(*argv: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=timeout, cwd=cwd or ROOT, env=env
    )


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["train.py", "--backend", "x"], "python train.py"),
        (["train.py", "--backend"], "python train.py"),
        (["train.py", "--backend=" + "x" * 1000], "python train.py"),
        (["train.py", "--backend", "rllib", "--minutes", "0"], "python train.py"),
        (["train.py", "--backend", "rllib", "--bogus"], "python train.py"),
        (["benchmarks/rllib_throughput.py", "--env-runners", "-1"], "python benchmarks/rllib_throughput.py"),
        (["benchmarks/rllib_throughput.py", "--minutes"], "python benchmarks/rllib_throughput.py"),
        (["benchmarks/heuristic_speed.py", "--positions", "0"], "python benchmarks/heuristic_speed.py"),
        (["-m", "gubs_env.viz", "--players", "9", "--svg", "x.svg"], "python -m gubs_env.viz"),
        (["-m", "gubs_env.viz", "--svg", "/proc/x/y.svg"], "python -m gubs_env.viz"),
        (["-m", "examples.cleanrl_ppo", "--players", "9"], "python -m examples.cleanrl_ppo"),
        (["-m", "agents.play", "--max-turns", "2147483647"], "python -m agents.play"),
    ],
)
def test_a_bad_command_line_from_a_real_shell_is_one_line_and_status_2(argv: list[str], prog: str, tmp_path) -> None:
    if argv[0].endswith(".py"):  # a script of the repository, run from another folder
        argv = [str(ROOT / argv[0]), *argv[1:]]
    done = _shell(*argv, cwd=tmp_path)
    assert done.returncode == cli.EXIT_USAGE, done.stderr
    _one_error_line(done.stderr, prog)
    assert len(done.stderr) < 400
    assert list(tmp_path.iterdir()) == []  # nothing written


FAILING_BOTS = """
import numpy as np
from agents.bots.base import Agent

class Raises(Agent):
    def act(self, observation, action_mask):
        raise KeyError("no card\\nsecond line")

class Illegal(Agent):
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask == 0)[0])
"""


@pytest.mark.parametrize(("bot", "said"), [("Raises", "failed to choose: KeyError"), ("Illegal", "not legal now")])
def test_a_bot_that_fails_in_the_terminal_game_is_one_line_and_status_1(
    bot: str, said: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    from gubs_env.records.record import GameRecord

    (tmp_path / "failing_bots.py").write_text(FAILING_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    record = tmp_path / "game.json"
    argv = ["--bots", f"failing_bots:{bot}", "--seed", "1", "--record", str(record)]
    code = play.main(argv, stdin=io.StringIO("1\n" * 200), stdout=io.StringIO())
    assert code == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    _one_error_line(err.replace(" (see --help)", ""), "python -m agents.play")
    assert said in err
    assert GameRecord.load(record).players == ["human", f"failing_bots:{bot}"]  # the game as it stood


# --- train.py's output folder ------------------------------------------------------------------------


def _train_argv_error(argv: list[str], capsys) -> str:
    from agents.training import command

    with pytest.raises(SystemExit) as stop:
        command.main(argv)
    assert stop.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    _one_error_line(err, "python train.py")
    return err


def test_train_refuses_an_output_it_cannot_write_before_any_set_up(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("kept")
    assert "cannot create /proc/x" in _train_argv_error(["--out", "/proc/x", "--steps", "1"], capsys)
    assert "file exists and is not a folder" in _train_argv_error(["--out", "file", "--steps", "1"], capsys)
    assert "is not a folder" in _train_argv_error(["--out", "file/run"], capsys)
    assert "not a usable path" in _train_argv_error(["--out", "a\0b"], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"] and (tmp_path / "file").read_text() == "kept"


def test_train_numbers_a_new_default_folder_and_refuses_an_explicit_one_that_holds_a_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from agents.training.loop import choose_out

    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "gubs"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}")
    assert choose_out(None, False)[0] == Path("runs/gubs-2")
    err = _train_argv_error(["--out", "runs/gubs"], capsys)
    assert "already holds a run: resume it (--resume)" in err
    assert (run / "run.json").read_text() == "{}"


def test_train_resume_without_out_takes_the_run_saved_last(tmp_path: Path, monkeypatch, capsys) -> None:
    from agents.training.command import parse
    from agents.training.loop import choose_out
    from tests.test_train import committed_run

    monkeypatch.chdir(tmp_path)
    assert "name the run's folder (--out)" in _train_argv_error(["--resume"], capsys)  # no runs/ at all
    (tmp_path / "runs" / "gubs-empty").mkdir(parents=True)  # a folder without run.json is no run
    assert "no runs/gubs* folder holds a run.json" in _train_argv_error(["--resume"], capsys)
    for name, stamp in (("gubs", 3_000), ("gubs-2", 1_000), ("gubs-mix", 2_000)):
        committed_run(tmp_path / "runs" / name, timesteps=10)
        os.utime(tmp_path / "runs" / name / "run.json", (stamp, stamp))
    assert parse(["--resume"]).out == Path("runs/gubs")
    os.utime(tmp_path / "runs" / "gubs-mix" / "run.json", (4_000, 4_000))
    folder, how = choose_out(None, True)
    assert folder == Path("runs/gubs-mix") and "saved last" in how


def test_train_says_which_folder_it_uses_first(tmp_path: Path, monkeypatch, capsys) -> None:
    from agents.training import command
    from agents.training.loop import Loop

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Loop, "drive", lambda loop: _raise(_Started()))
    with pytest.raises(_Started):
        command.main(["--steps", "1"])
    assert capsys.readouterr().out.splitlines() == ["new run in runs/gubs (the first free default folder)"]


def test_a_checkpoint_that_matches_its_digest_but_cannot_be_loaded_is_status_2(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from agents.training import command
    from tests.test_train import committed_run

    config = {"backend": "sb3", "envs": 2, "hidden": [16]}  # a small learner: the set-up is not what is tested
    committed_run(tmp_path, timesteps=10, backend="sb3", config=config)  # b"a checkpoint", with its digest
    (tmp_path / "checkpoint-000000020.zip").write_text("written after the commit")  # resuming would delete it
    (tmp_path / "snapshots").mkdir()
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    with pytest.raises(SystemExit) as stop:
        command.main(["--resume", "--out", str(tmp_path), "--steps", "20", "--no-progress"])
    assert stop.value.code == cli.EXIT_USAGE
    captured = capsys.readouterr()
    _one_error_line(captured.err, "python train.py")
    assert "matches its digest but cannot be loaded" in captured.err
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before


def test_the_exit_statuses_are_documented() -> None:
    page = (ROOT / "docs" / "security.md").read_text()
    section = page[page.index("## Game records and command lines") :]
    for code in cli.EXIT_CODES:
        assert re.search(rf"^\| {code} \|", section, re.MULTILINE), f"exit status {code} is not in the table"


# --- random command lines, every command, in-process -------------------------------------------------


class _Started(Exception):
    """Raised by a stand-in for the long work of a command: its command line was accepted."""


def _build_then_start(agents: dict[str, AgentSpec], **settings: object) -> None:
    from agents.bots.registry import make_agent
    from agents.evaluate.tournament import _field_indices

    specs = list(agents.values())
    fields = settings.get("fields")
    assert fields is None or isinstance(fields, list)
    assert all(isinstance(spec, AgentSpec) for spec in [*specs, *(fields or [])])  # the command parsed them once
    _field_indices(specs, fields)  # a field the command let through is valid to run_tournament
    for spec in specs:
        make_agent(spec)  # the real run_tournament builds every agent before any game
    raise _Started


NUMBERS = [
    "0",
    "1",
    "2",
    "3",
    "4",
    "6",
    "7",
    "-1",
    "0.01",
    "1.5",
    "1e3",
    "nan",
    "inf",
    "-inf",
    "abc",
    "",
    " ",
    "9" * 30,
    "2147483647",
    "9" * 1000,
]
PATHS = ["good.json", "bad.json", "/dev/null", "missing.json", "bad.zip", "missing.zip", "run", "badrun", "file"]
PATHS += ["file/x", "out", "/proc/out", "page.html"]
SPECS = ["random", "heuristic", "nobody", "random,heuristic", "heuristic,random,random", ",", "ppo-9p", "bad.zip"]
SPECS += ["agents.bots.random_agent:RandomAgent", "no.such.module:Agent", "agents.bots.random_agent:Nothing"]
SPECS += ["bad.zip:sample", "search:base=nope", "search:base=x.y:Z,worlds=2", "ismcts:iterations=0", "ismcts:x=1"]
SPECS += ["heuristic-tuned", "good.json", "bad.json", "missing.json", "search:base=heuristic-tuned,steps=-1"]
SWITCH = None
"""An option that takes no value."""

COMMANDS: dict[str, tuple[str, list[str], dict[str, list[str] | None]]] = {
    "play": (
        "agents.play.terminal",
        [],
        {
            "--players": NUMBERS,
            "--bots": SPECS,
            "--seat": NUMBERS,
            "--seed": NUMBERS,
            "--record": PATHS,
            "--watch": SWITCH,
            "--delay": NUMBERS,
            "--letter-placement": ["thirds", "uniform", "diagonal"],
            "--max-turns": NUMBERS,
            "--bot": SPECS,
        },
    ),
    "replay": ("gubs_env.replay", PATHS, {"--seat": [*NUMBERS, "all"], "--quiet": SWITCH, "--html": PATHS}),
    "demo": ("gubs_env.demo", [], {"--players": NUMBERS, "--seed": NUMBERS, "--seat": NUMBERS}),
    "evaluate": (
        "agents.evaluate.command",
        SPECS,
        {
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--jobs": NUMBERS,
            "--out": PATHS,
            "--records": PATHS,
            "--fields": SPECS,
            "--adjust-luck": SWITCH,
            "--luck-worlds": NUMBERS,
            "--until": ["better", "width=5", "width=0", "width=x", "worse", ""],
            "--round": NUMBERS,
            "--resume": SWITCH,
            "--no-progress": SWITCH,
        },
    ),
    "luck": (
        "agents.evaluate.luck.__main__",
        PATHS,
        {"--luck-worlds": NUMBERS, "--seed": NUMBERS, "--out": PATHS, "--no-progress": SWITCH},
    ),
    "select": (
        "agents.evaluate.select",
        PATHS,
        {
            "--players": NUMBERS,
            "--opponent": SPECS,
            "--from": NUMBERS,
            "--every": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--jobs": NUMBERS,
            "--export": PATHS,
            "--no-progress": SWITCH,
        },
    ),
    "engine_speed": (
        "benchmarks.engine_speed",
        [],
        {
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--env-seconds": NUMBERS,
            "--engine": ["fast", "reference", "both", "gpu"],
            "--fast-games": NUMBERS,
            "--batch": NUMBERS,
            "--engine-only": SWITCH,
        },
    ),
    "train": (
        "agents.training.command",
        [],
        {
            "--backend": ["sb3", "rllib", "native", "ray", ""],
            "--minutes": NUMBERS,
            "--steps": NUMBERS,
            "--iterations": NUMBERS,
            "--players": NUMBERS,
            "--envs": NUMBERS,
            "--seed": NUMBERS,
            "--out": PATHS,
            "--resume": SWITCH,
            "--p-random": NUMBERS,
            "--learning-rate": NUMBERS,
            "--batch-size": NUMBERS,
            "--ba": NUMBERS,
            "--labels": PATHS,
            "--init": [*PATHS, *SPECS],
            "--imitate-lr": NUMBERS,
            "--engine": ["fast", "reference", "auto", ""],
            "--envs-per-runner": NUMBERS,
            "--minibatch-size": NUMBERS,
            "--n-steps": NUMBERS,
            "--eval-every": NUMBERS,
            "--pool-size": NUMBERS,
            "--shaping": NUMBERS,
            "--hidden": NUMBERS,
            "--env-runners": NUMBERS,
            "--address": ["auto", " ", "127.0.0.1:1", ""],
            "--opponent": SPECS,
            "--eval-opponents": SPECS,
            "--eval-adjust-luck": SWITCH,
            "--gamma": NUMBERS,
            "--gae-lambda": NUMBERS,
            "--device": ["auto", "cpu", "cuda", "cuda:1", "gpu", "", "cuda:x"],
            "--self-share": NUMBERS,
            "--prioritize": NUMBERS,
            "--rule-facts": SWITCH,
            "--from-scratch": SWITCH,
            "--seeds": NUMBERS,
            "--jobs": NUMBERS,
            "--every-seat": SWITCH,
            "--no-skip-forced": SWITCH,
            "--luck-returns": SWITCH,
            "--luck-worlds": NUMBERS,
            "--luck-value": ["shipped", "critic", "heuristic", ""],
            "--average-from": NUMBERS,
            "--ent-coef": NUMBERS,
            "--ent-coef-end": NUMBERS,
            "--ent-decay": NUMBERS,
        },
    ),
    "belief": ("benchmarks.hold_ratio", [], {"--games": NUMBERS, "--seed": NUMBERS}),
    "luck_cost": (
        "benchmarks.luck_cost",
        [],
        {
            "--agent": SPECS,
            "--opponent": SPECS,
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--rounds": NUMBERS,
            "--worlds": NUMBERS,
            "--seed": NUMBERS,
        },
    ),
    "luck_coverage": (
        "benchmarks.luck_coverage",
        [],
        {
            "--opponent": ["random", "nobody", "", "x:Y"],
            "--sets": [*NUMBERS, "1"],
            "--games": NUMBERS,
            "--seed": NUMBERS,
        },
    ),
    "luck_history": (
        "benchmarks.luck_history",
        [],
        {"--games": NUMBERS, "--luck-games": NUMBERS, "--opponent": ["random", "gubs-net", "nobody", "", "x:Y"]},
    ),
    "sequential_coverage": (
        "benchmarks.sequential_coverage",
        [],
        {
            "--outcomes": PATHS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--repeats": NUMBERS,
            "--round": NUMBERS,
            "--most": NUMBERS,
        },
    ),
    "levers": (
        "benchmarks.selfplay_levers",
        [],
        {"--players": NUMBERS, "--seed": NUMBERS, "--minutes": NUMBERS, "--out": PATHS, "--no-progress": SWITCH},
    ),
    "expert": (
        "agents.recipes.expert.labels",
        [],
        {
            "--expert": SPECS,
            "--field": SPECS,
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--jobs": NUMBERS,
            "--labels": PATHS,
            "--keep-blunders": SWITCH,
            "--corrected-only": SWITCH,
            "--no-progress": SWITCH,
        },
    ),
    "tail_average": (
        "benchmarks.tail_average",
        [],
        {
            "--snapshots": PATHS,
            "--spans": NUMBERS,
            "--out": PATHS,
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--jobs": NUMBERS,
        },
    ),
    "playout_width": (
        "benchmarks.playout_width",
        [],
        {
            "--playout": [*PATHS, str(ROOT / "agents" / "bots" / "models" / "selfplay_2p_playout.npz")],
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--out": PATHS,
            "--timing-games": NUMBERS,
            "--jobs": NUMBERS,
        },
    ),
    "search_nets": (
        "agents.recipes.search_nets.fitting",
        [],
        {
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--epochs": NUMBERS,
            "--value-hidden": NUMBERS,
            "--hands-hidden": NUMBERS,
            "--target": ["search", "win", "nothing"],
            "--playout": ["selfplay-2p", "gubs-net", "nobody"],
            "--threads": NUMBERS,
            "--out": PATHS,
            "--no-progress": SWITCH,
        },
    ),
    "playout": (
        "agents.recipes.search_nets.playout",
        [],
        {
            "--network": ["selfplay-2p", "gubs-net", "bad.zip", "missing.zip", "nobody", "run"],
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--hidden": NUMBERS,
            "--epochs": NUMBERS,
            "--seed": NUMBERS,
            "--threads": NUMBERS,
            "--out": PATHS,
            "--no-progress": SWITCH,
        },
    ),
    "heuristic": (
        "benchmarks.heuristic_speed",
        [],
        {"--positions": NUMBERS, "--seed": NUMBERS, "--repeats": NUMBERS},
    ),
    "rllib_bench": (
        "benchmarks.rllib_throughput",
        [],
        {
            "--minutes": NUMBERS,
            "--env-runners": NUMBERS,
            "--sample-seconds": NUMBERS,
            "--part": ["all", "sampling", "training", "learn", ""],
        },
    ),
    "audit": (
        "agents.evaluate.audit",
        ["random", "heuristic", "search:worlds=2", "nobody", "search:worlds=0"],
        {
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--seed": NUMBERS,
            "--opponent": ["self", "random", "x:y"],
            "--no-progress": SWITCH,
        },
    ),
    "search_gap": (
        "agents.evaluate.search_gap",
        [],
        {
            "--players": NUMBERS,
            "--games": NUMBERS,
            "--share": NUMBERS,
            "--seed": NUMBERS,
            "--search": ["worlds=4", "worlds=0", "top=2,z=1", "depth=3", "worlds=4,worlds=5", "", "base=../m.npz"],
        },
    ),
    "train_bench": (
        "benchmarks.sb3_throughput",
        [],
        {
            "--players": NUMBERS,
            "--timesteps": [*NUMBERS, "4096", "8192"],
            "--rounds": NUMBERS,
            "--flags": ["", "--envs 128", "--bogus", "--seed -1", "--out /proc/x", "--resume", "--engine fast"],
        },
    ),
    "viz": (
        "gubs_env.viz.svg",
        [],
        {"--seed": NUMBERS, "--players": NUMBERS, "--steps": NUMBERS, "--seat": NUMBERS, "--svg": PATHS},
    ),
    "action_table": ("gubs_env.encoding.action_table", [], {"--players": NUMBERS}),
    "observation": ("gubs_env.encoding.observation", [], {"--players": NUMBERS}),
}


def _command_runner(name: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[list[str]], object]:
    """How to run command ``name`` in-process on an argv, its long work replaced by raising :class:`_Started`."""
    import importlib

    module = importlib.import_module(COMMANDS[name][0])
    if name == "play":
        replies = "1\nh\n2\nq\n"
        return lambda argv: module.main(argv, stdin=io.StringIO(replies), stdout=io.StringIO(), sleep=_no_pause)
    if name == "evaluate":
        import agents.evaluate.tournament

        monkeypatch.setattr(agents.evaluate.tournament, "run_tournament", _build_then_start)
    if name == "select":
        monkeypatch.setattr(module, "evaluate_candidates", lambda *args, **kwargs: _raise(_Started()))
    if name == "luck":
        monkeypatch.setattr(module, "seat_games", lambda *args, **kwargs: _raise(_Started()))
    if name == "train":  # every backend is reached through the one loop; its run is replaced
        from agents.training.loop import Loop

        monkeypatch.setattr(Loop, "drive", lambda loop: _raise(_Started()))
    if name == "playout_width":  # the tried search's spec names the script's module, as its workers see it
        import agents.evaluate.tournament

        monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
        monkeypatch.setenv(module.PLAYOUT_FILE, "")  # the command sets it; the test's end restores it
        monkeypatch.setattr(module, "print_decision_times", lambda *args: _raise(_Started()))
        monkeypatch.setattr(agents.evaluate.tournament, "run_tournament", _build_then_start)
    if name == "search_nets":
        monkeypatch.setattr(module, "play_positions", lambda *args, **kwargs: _raise(_Started()))
    if name == "playout":
        monkeypatch.setattr(module, "network_decisions", lambda *args: _raise(_Started()))
    if name == "heuristic":
        monkeypatch.setattr(module, "benchmark", lambda *args: _raise(_Started()))
    if name == "luck_cost":  # the agents are built first: a spec that builds nothing is the command's to refuse
        monkeypatch.setattr(module, "play_game", lambda *args, **kwargs: _raise(_Started()))
    if name == "luck_coverage":
        monkeypatch.setattr(module, "set_luck", lambda *args: _raise(_Started()))
    if name == "luck_history":
        monkeypatch.setattr(module, "letter_probe", lambda *args, **kwargs: _raise(_Started()))
    if name == "sequential_coverage":
        monkeypatch.setattr(module, "record", lambda *args: _raise(_Started()))
        monkeypatch.setattr(module, "questions", lambda *args: _raise(_Started()))
    if name == "rllib_bench":  # both parts start Ray: the first one reached stops the command
        monkeypatch.setattr(module, "measure_sampling", lambda *args: _raise(_Started()))
        monkeypatch.setattr(module, "runs", lambda *args: _raise(_Started()))
    if name == "audit":
        monkeypatch.setattr(module, "audit_tables", lambda *args: _raise(_Started()))
    if name == "search_gap":
        monkeypatch.setattr(module, "collect_gaps", lambda *args: _raise(_Started()))
    if name == "expert":
        monkeypatch.setattr(module, "label", lambda *args: _raise(_Started()))
    if name == "levers":
        monkeypatch.setattr(module, "train", lambda *args, **kwargs: _raise(_Started()))
    if name == "belief":
        monkeypatch.setattr(module, "measure", lambda *args: _raise(_Started()))
    if name == "train_bench":
        monkeypatch.setattr(module, "run", lambda *args: _raise(_Started()))
    if name == "engine_speed":
        return module.parse_args  # argument checking only: its main runs for minutes
    return module.main


def _no_pause(seconds: float) -> None:
    assert 0 <= seconds <= cli.MAX_PAUSE_SECONDS


def _raise(error: Exception) -> None:
    raise error


_free_text = st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=8).filter(
    lambda text: not text.startswith("-")  # options come from the lists: a random one could start a server
)


@st.composite
def _argv_for(draw: st.DrawFn, name: str) -> list[str]:
    """Half the time options with values (often valid), half the time any tokens in any order."""
    _, positionals, options = COMMANDS[name]
    if draw(st.booleans()):
        vocabulary = [*positionals, *options, *NUMBERS, *PATHS, *SPECS, "--help"]
        return draw(st.lists(st.sampled_from(vocabulary) | _free_text, max_size=8))
    argv = draw(st.lists(st.sampled_from(positionals), max_size=3)) if positionals else []
    for flag in draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)):
        values = options[flag]
        argv += [flag] if values is None else [flag, draw(st.sampled_from(values) | _free_text)]
    return argv


@pytest.fixture
def cli_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding the files the random command lines name."""
    from gubs_env.engine import Game
    from gubs_env.records.record import GameRecord

    game = Game(2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    GameRecord.from_game(game, 1, ["a", "b"]).save(tmp_path / "good.json")
    (tmp_path / "bad.json").write_text('{"format": 1, "seed": NaN}')
    (tmp_path / "bad.zip").write_text("not a model")
    (tmp_path / "file").write_text("")
    (tmp_path / "run" / "snapshots").mkdir(parents=True)
    (tmp_path / "run" / "model.zip").write_bytes(SHIPPED_MODEL.read_bytes())
    (tmp_path / "badrun").mkdir()
    (tmp_path / "badrun" / "model.zip").write_text("not a model")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", COMMANDS)
def test_random_command_lines_exit_with_a_documented_status(name: str, cli_workspace: Path, monkeypatch) -> None:
    run = _command_runner(name, monkeypatch)

    @settings(
        max_examples=60,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(_argv_for(name))
    def check(argv: list[str]) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                result = run(argv)
            except SystemExit as stop:
                result = stop.code
            except _Started:
                result = cli.EXIT_OK
        code = result if isinstance(result, int) else cli.EXIT_OK  # parse_args returns the namespace
        assert code in cli.EXIT_CODES, (argv, code)
        if code == cli.EXIT_USAGE:
            shown = err.getvalue()
            if not argv and shown.startswith("usage: "):  # a command that needs arguments, given none: its usage
                shown = shown.splitlines(keepends=True)[-1]
            assert shown.count("\n") == 1 and ": error: " in shown, (argv, err.getvalue())
            assert len(shown) < 600, (argv, err.getvalue())  # long tokens come back cut short (the usage aside)
        assert "Traceback" not in err.getvalue(), (argv, err.getvalue())

    check()
