"""Expert iteration from pure self-play: rounds of playout policy, search labels, apprentice and evaluation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.bots.model_file import load_policy
from agents.training.expert import rounds as rounds_module
from agents.training.expert.rounds import Rounds, RoundsError, RoundSettings, main

TINY = RoundSettings(
    rounds=2, games=3, playout_games=40, hidden=8, epochs=1, eval_games=4,
    search="selfplay-search:worlds=16,steps=1500",
)  # fmt: skip
"""Two rounds in seconds: a few games per step."""


class _Killed(Exception):
    pass


def test_a_killed_run_resumes_at_its_step_and_ends_as_an_unbroken_one(tmp_path, monkeypatch):
    whole = Rounds(tmp_path / "whole", TINY, progress=False).run()
    real_labels = Rounds._labels
    calls = {"labels": 0}

    def killed_at_the_second_labels(self, number):
        calls["labels"] += 1
        if number == 2:
            raise _Killed
        return real_labels(self, number)

    monkeypatch.setattr(Rounds, "_labels", killed_at_the_second_labels)
    with pytest.raises(_Killed):
        Rounds(tmp_path / "broken", TINY, progress=False).run()
    record = json.loads((tmp_path / "broken" / "rounds.json").read_text())
    assert list(record["steps"]) == ["round-1/playout", "round-1/labels", "round-1/policy", "round-1/eval",
                                     "round-2/playout"]  # fmt: skip
    monkeypatch.setattr(Rounds, "_labels", real_labels)
    first_policy = (tmp_path / "broken" / "round-1" / "policy.npz").stat().st_mtime_ns
    resumed = Rounds(tmp_path / "broken", TINY, progress=False).run()
    assert (tmp_path / "broken" / "round-1" / "policy.npz").stat().st_mtime_ns == first_policy  # not redone
    for name in ("playout", "policy"):
        a = np.load(tmp_path / "whole" / "round-2" / f"{name}.npz")
        b = np.load(tmp_path / "broken" / "round-2" / f"{name}.npz")
        assert all(np.array_equal(a[k], b[k]) for k in a.files)
    assert [(e["apprentice"], e["network"]) for e in resumed] == [(e["apprentice"], e["network"]) for e in whole]


def test_each_round_starts_from_the_last_rounds_apprentice(tmp_path):
    run = Rounds(tmp_path, TINY, progress=False)
    run.run()
    assert run.network(2) == tmp_path / "round-1" / "policy.npz"
    first, second = (load_policy(tmp_path / f"round-{r}" / "policy.npz") for r in (1, 2))
    assert first.activation == second.activation == "tanh"
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(first.layers, second.layers, strict=True))
    record = json.loads((tmp_path / "rounds.json").read_text())
    for summary in record["steps"].values():
        assert summary["seconds"] >= 0 and summary["cpu_seconds"] >= 0
    evaluation = record["steps"]["round-1/eval"]
    assert evaluation["games"] == TINY.eval_games and -1 <= evaluation["low"] <= evaluation["high"] <= 1


def test_other_settings_in_the_same_folder_are_refused(tmp_path):
    Rounds(tmp_path, RoundSettings(rounds=1), progress=False).record_file.write_text(
        json.dumps({"settings": {"rounds": 7}, "steps": {}})
    )
    with pytest.raises(RoundsError, match="other settings"):
        Rounds(tmp_path, RoundSettings(rounds=1), progress=False)
    (tmp_path / "rounds.json").write_text("[1, 2")
    with pytest.raises(RoundsError, match="not a rounds record"):
        Rounds(tmp_path, RoundSettings(rounds=1), progress=False)


def test_the_command_refuses_in_one_line(tmp_path, capsys):
    for argv, words in [
        (["--network", str(tmp_path / "nothing.npz")], "--network"),
        (["--network", "ppo-9p"], "--network"),
        (["--rounds", "0"], "--rounds"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--out", str(tmp_path / "out")])
        assert stop.value.code == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert words in error[-1]


def test_no_hand_written_bot_takes_part_in_a_round(tmp_path, monkeypatch):
    import agents.bots.heuristic.decide
    import agents.bots.search.agent
    import agents.training.expert.labels

    def refuse(*_args, **_kwargs):
        raise AssertionError("a hand-written bot was asked")

    for module in (agents.bots.search.agent, agents.bots.heuristic.decide):
        monkeypatch.setattr(module, "heuristic_scores", refuse)
    monkeypatch.setattr(agents.training.expert.labels, "without_blunder", refuse)
    monkeypatch.setattr(Rounds, "_eval", lambda self, number: {})  # the yardstick plays the heuristic, by design
    monkeypatch.setattr(rounds_module, "_describe", lambda step, summary: step)
    Rounds(tmp_path, RoundSettings(**{**TINY.__dict__, "rounds": 1}), progress=False).run()
    assert (tmp_path / "round-1" / "policy.npz").exists()
