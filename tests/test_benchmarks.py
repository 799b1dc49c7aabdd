"""Every benchmark under benchmarks/ runs, small, so that none rots."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_the_busy_machine_benchmark_measures_the_fit_and_a_run_quiet_and_loaded(capsys):
    from benchmarks.busy_machine import main

    assert main(["--busy", "1", "--games", "4", "--minutes", "0.05"]) == 0
    printed = capsys.readouterr().out
    assert len(re.findall(r"warm start fit \d+\.\d+ s/epoch", printed)) == 4
    runs = re.findall(r"train.py --minutes 0.05: \d+ s, [\d,]+ timesteps, warm start cut: .+; shares: .+", printed)
    assert len(runs) == 2 and "beside 1 busy processes" in printed
