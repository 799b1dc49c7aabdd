"""The benchmark command: its arguments, the output it parses and the table it prints (no run is measured here)."""

from __future__ import annotations

import os

import pytest

from agents.rllib import bench


@pytest.mark.parametrize("argv", [["--minutes", "0"], ["--minutes", "x"], ["--env-runners", "-1"], ["--bogus"]])
def test_garbage_arguments_exit_with_status_2(argv):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2


def test_the_commands_measured_are_the_sb3_default_then_each_runner_count(tmp_path):
    runs = bench.runs(1.0, [0, 2], tmp_path)
    assert [run.label for run in runs] == ["train.py (sb3, default)", "rllib, 0 env runners", "rllib, 2 env runners"]
    assert "--backend" not in runs[0].command and runs[2].command[runs[2].command.index("--env-runners") + 1] == "2"


def test_report_is_a_markdown_table_of_every_run():
    runs = [bench.Run("a", [], 100.0, None, {"driver": 300.0, "total": 300.0})]
    runs.append(
        bench.Run("b", [], 50.0, 120.0, {"driver": 600, "each env runner": 500, "ray services": 400, "total": 1500})
    )
    lines = bench.report(runs).splitlines()
    assert lines[2] == "| a | 100 | - | 300 | - | - | 300 |"
    assert lines[3] == "| b | 50 | 120 | 600 | 500 | 400 | 1,500 |"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_this_process_is_found_and_has_a_resident_size():
    assert os.getpid() in bench._descendants(os.getpid())
    assert bench._rss_mib(os.getpid()) > 1
    assert bench._kind(os.getpid(), os.getpid()) == "driver"
