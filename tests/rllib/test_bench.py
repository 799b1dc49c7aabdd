"""The benchmark command: its arguments, the output it parses and the table it prints (no run is measured here)."""

from __future__ import annotations

import os

import pytest

from agents.training.rllib import bench


@pytest.mark.parametrize(
    "argv",
    [
        ["--minutes", "0"],
        ["--minutes", "x"],
        ["--env-runners", "-1"],
        ["--bogus"],
        ["--part", "x"],
        ["--sample-seconds", "0"],
    ],
)
def test_garbage_arguments_exit_with_status_2(argv):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2


def test_the_commands_measured_are_the_sb3_default_the_reference_engine_then_each_runner_count(tmp_path):
    runs = bench.runs(1.0, [0, 2], tmp_path)
    assert [run.label for run in runs] == [
        "train.py (sb3, default)",
        "rllib reference, 1 env runners",
        "rllib fast, 0 env runners",
        "rllib fast, 2 env runners",
    ]
    assert "--backend" not in runs[0].command and runs[3].command[runs[3].command.index("--env-runners") + 1] == "2"
    assert [run.command[run.command.index("--engine") + 1] for run in runs[1:]] == ["reference", "fast", "fast"]


def test_the_sampling_table_gives_the_fast_engines_ratio_per_layout():
    measured = [
        bench.Sampling("local", 1, "reference", 4000, 10.0),
        bench.Sampling("local", 1, "fast", 30000, 10.0),
        bench.Sampling("two-node cluster", 2, "reference", 6000, 10.0),
    ]
    lines = bench.sampling_report(measured).splitlines()
    assert lines[0] == "| layout | env runners | reference env steps/s | fast env steps/s | fast / reference |"
    assert lines[2] == "| local | 1 | 400 | 3,000 | 7.5x |"
    assert lines[3] == "| two-node cluster | 2 | 600 | - | - |"


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
