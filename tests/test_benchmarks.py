"""Every benchmark and experiment script under benchmarks/ runs, small, so that none rots.

The command-style benchmarks also keep the command-line vocabulary (tests/test_cli_vocabulary.py) and its error
rules (tests/test_cli_errors.py). The scripts run here as their documentation runs them, ``python
benchmarks/NAME.py ...``, in a fresh process; the slow ones are marked ``slow``.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks import rllib_throughput, sb3_throughput, selfplay_levers

ROOT = Path(__file__).resolve().parents[1]


def script(name: str, *argv: str, timeout: float = 600) -> str:
    """``python benchmarks/NAME.py ARGV`` with this checkout first on the path; its output (status 0 asserted)."""
    # a Ray cluster an earlier test of this process started (RAY_ADDRESS) is not the benchmarks' to join
    env = {**{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def small_selfplay_run(out: Path) -> Path:
    """A native run folder with a checkpoint, trained for one batch of eight games."""
    from agents.training import TrainingConfig, train

    config = TrainingConfig(envs=8, eval_games=4, final_games=2, hidden=(16,), batch_size=512, steps=1)
    train(config, out=out, progress=False)
    return out


# --- agreement_cost.py -----------------------------------------------------------------------------------------------


def test_the_agreement_cost_benchmark_times_both_updates_of_the_same_batch():
    printed = script("agreement_cost", "--players", "3", "--games", "6", "--rounds", "2")
    assert len(re.findall(r"^round \d: [\d,]+ samples; play \d+\.\d\d, update \d+\.\d\d with", printed, re.M)) == 2
    assert re.search(r"^median CPU seconds: play .* the agreement costs (\d+\.\d% of a batch|less than)", printed, re.M)


# --- busy_machine.py -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_busy_machine_benchmark_measures_the_fit_and_a_run_quiet_and_loaded(capsys):
    from benchmarks.busy_machine import main

    assert main(["--busy", "1", "--games", "4", "--minutes", "0.1", "--fit"]) == 0
    printed = capsys.readouterr().out
    assert len(re.findall(r"warm start fit \d+\.\d+ s/epoch", printed)) == 4
    threads = r"(fewest learner threads \d|learner threads as configured)"
    runs = re.findall(
        rf"train.py --minutes 0.1: \d+ s, [\d,]+ timesteps, {threads}, warm start imitating nothing; shares: .+",
        printed,
    )
    assert len(runs) == 2 and "beside 1 busy processes" in printed


# --- sb3_throughput.py -----------------------------------------------------------------------------------------


def test_each_sb3_setup_is_what_train_py_builds_with_snapshots_in_its_league():
    from agents.training.sb3.backend import Sb3Backend
    from agents.training.sb3.masked_policy import LeanMaskablePolicy

    for flags, envs_wanted in (([], 64), (["--envs", "2"], 2)):
        backend, settings = sb3_throughput._build([2], flags)
        assert isinstance(backend, Sb3Backend) and isinstance(backend.model.policy, LeanMaskablePolicy)
        assert settings["envs"] == envs_wanted and len(backend.seating.snapshots) == sb3_throughput.SNAPSHOTS


def test_an_sb3_slice_counts_its_timesteps_and_times():
    backend, _ = sb3_throughput._build([2], ["--envs", "2", "--n-steps", "16", "--batch-size", "32"])
    times = sb3_throughput.PathTimes("flags")
    sb3_throughput._slice(backend, 64, times)
    assert times.timesteps == 64 and times.wall > 0 and 0 < times.env_wall < times.wall
    assert "flags" in times.row()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timesteps", "100"], "multiple of 4,096"),
        (["--rounds", "0"], "must be at least 1"),
        (["--players", "9"], "player counts go from 2 to 6"),
        (["--flags=--bogus"], "unrecognized arguments: --bogus"),
        (["--flags=--envs 0"], "must be at least 1"),
        (["--flags=--engine fast"], "--engine was removed"),
    ],
)
def test_bad_sb3_throughput_command_lines_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        sb3_throughput.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_sb3_throughput_benchmark_runs_one_small_round():
    printed = script("sb3_throughput", "--timesteps", "4096", "--rounds", "1", "--flags=--envs 8")
    assert re.search(r"flags / default: \d+\.\d\dx per wall-clock second", printed)


# --- rllib_throughput.py ---------------------------------------------------------------------------------------


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
def test_garbage_rllib_throughput_arguments_exit_with_status_2(argv):
    with pytest.raises(SystemExit) as exit_info:
        rllib_throughput.main(argv)
    assert exit_info.value.code == 2


def test_the_rllib_runs_measured_are_the_default_sb3_then_each_runner_count(tmp_path):
    runs = rllib_throughput.runs(1.0, [0, 2], tmp_path)
    labels = ["train.py (native, default)", "train.py --backend sb3", "rllib, 0 env runners", "rllib, 2 env runners"]
    assert [run.label for run in runs] == labels
    assert "--backend" not in runs[0].command and runs[3].command[runs[3].command.index("--env-runners") + 1] == "2"
    assert all("--engine" not in run.command for run in runs)


def test_the_sampling_table_gives_each_layouts_rate():
    measured = [
        rllib_throughput.Sampling("local", 1, 30000, 10.0),
        rllib_throughput.Sampling("two-node cluster", 2, 6000, 10.0),
    ]
    lines = rllib_throughput.sampling_report(measured).splitlines()
    assert lines[0] == "| layout | env runners | env steps/s |"
    assert lines[2:] == ["| local | 1 | 3,000 |", "| two-node cluster | 2 | 600 |"]


def test_the_rllib_report_is_a_markdown_table_of_every_run():
    runs = [rllib_throughput.Run("a", [], 100.0, {"driver": 300.0, "total": 300.0})]
    memory = {"driver": 600, "each env runner": 500, "ray services": 400, "total": 1500}
    runs.append(rllib_throughput.Run("b", [], 50.0, memory))
    lines = rllib_throughput.report(runs).splitlines()
    assert lines[2] == "| a | 100 | 300 | - | - | 300 |"
    assert lines[3] == "| b | 50 | 600 | 500 | 400 | 1,500 |"


def test_the_rates_are_read_from_the_summary_every_backend_prints():
    sb3 = "trained 6,000 timesteps in 1.0 min; the time went to: environments 30%, training iterations 20%, other 50%"
    assert rllib_throughput.training_rate(sb3, "sb3") == pytest.approx(6000 / 30)
    native = "trained 6,000 timesteps in 1.0 min; the time went to: evaluations 9%, training iterations 60%"
    assert rllib_throughput.training_rate(native, "native") == pytest.approx(6000 / 36)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_this_process_is_found_and_has_a_resident_size():
    assert os.getpid() in rllib_throughput._descendants(os.getpid())
    assert rllib_throughput._rss_mib(os.getpid()) > 1
    assert rllib_throughput._kind(os.getpid(), os.getpid()) == "driver"


@pytest.mark.slow
def test_the_rllib_throughput_benchmark_measures_each_training_run():
    pytest.importorskip("ray.rllib")
    printed = script("rllib_throughput", "--part", "training", "--minutes", "0.05", "--env-runners", "0")
    assert "| train.py (native, default) |" in printed and "| rllib, 0 env runners |" in printed


# --- selfplay_levers.py ----------------------------------------------------------------------------------------


def test_the_levers_command_trains_each_variant_once_and_prints_its_row(tmp_path, capsys, monkeypatch):
    from agents.training import TrainingConfig

    configs = selfplay_levers.variants(2, seed=1)
    assert configs["default"] == TrainingConfig(players=(2,), seed=1, eval_every=1_000_000)
    for name, config in configs.items():  # each variant differs from the default in its own lever only
        assert name == "default" or config != configs["default"]
    calls = []

    def small_train(config, out, progress):
        calls.append(config)
        return small_selfplay_run(out)

    monkeypatch.setattr(selfplay_levers, "train", small_train)
    argv = ["default", "one-seat", "--minutes", "0.1", "--out", str(tmp_path), "--no-progress"]
    assert selfplay_levers.main(argv) == 0
    assert selfplay_levers.main(argv) == 0
    # the second time both were kept
    assert calls == [replace(configs[name], minutes=0.1) for name in ("default", "one-seat")]
    out = capsys.readouterr().out
    assert "trained before, kept" in out and out.count("grad_cosine") >= 4


def test_the_levers_command_refuses_a_seed_the_training_config_refuses_in_one_line(capsys):
    # found by the command-line fuzzer: the seed passed the parser, then the config raised with a traceback
    with pytest.raises(SystemExit) as stop:
        selfplay_levers.main(["--seed", "2147483647"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


# --- engine_speed.py -------------------------------------------------------------------------------------------


def test_the_engine_speed_benchmark_times_the_reference_engine_and_the_environments():
    argv = ["--players", "2", "--games", "5", "--engine", "reference", "--env-seconds", "1", "--no-progress"]
    printed = script("engine_speed", *argv)
    assert re.search(r"^\| 2 \| 5 \| [\d,]+ \| [\d,]+ \|", printed, re.MULTILINE)  # the engine row: 5 games
    # the environment rows need pettingzoo's connect_four_v3 (and pygame) beside them, else the script says why not
    assert "| gubs env(), reference | 2 |" in printed or "Environment rows skipped" in printed


# --- hold_ratio.py, world_sampler.py ---------------------------------------------------------------------------


def test_the_hold_ratio_command_asks_before_it_plays():
    from benchmarks import hold_ratio

    assert "--games" in hold_ratio.build_parser().format_help()
    printed = script("hold_ratio", "--games", "2", "--seed", "5")
    assert printed.count("\n") >= 3  # one line per card kind held


def test_the_world_sampler_benchmark_runs_and_refuses_bad_arguments(capsys):
    from benchmarks import world_sampler

    assert world_sampler.main(["--players", "3", "--worlds", "2", "--positions", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "sample_world+state_to_row" in out and len(out.strip().splitlines()) == 4
    for bad in (["--players", "9"], ["--worlds", "0"], ["--rounds", "x"]):
        with pytest.raises(SystemExit) as exit_info:
            world_sampler.main(bad)
        assert exit_info.value.code == 2
        assert capsys.readouterr().err.count("\n") == 1


# --- the experiments of docs/results/selfplay ------------------------------------------------------------------


def test_the_comparison_charts_are_drawn_from_the_stored_curves(tmp_path):
    script("luck_returns_compare", str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["compare_2p.png", "compare_4p.png"]
    printed = script(
        "lever_compare", str(ROOT / "docs/results/selfplay/rule-facts-baselines"), "rule facts", str(tmp_path / "facts")
    )
    assert sorted(p.name for p in (tmp_path / "facts").iterdir()) == ["compare_2p.png", "compare_4p.png"]
    lines = printed.splitlines()
    assert len(lines) == 4 and all(re.fullmatch(
        r"[24]p seed [01], \d+\.\dM to \d+\.\dM timesteps: rule facts \d+\.\d%, default \d+\.\d%, "
        r"difference [+-]\d+\.\d points", line) for line in lines)  # fmt: skip
    for bad in ([], [str(tmp_path / "nowhere"), "x"]):  # a wrong count, a folder without curves
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lever_compare.py"), *bad],
                              capture_output=True, text=True, cwd=ROOT)  # fmt: skip
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout


@pytest.mark.slow
def test_the_luck_diagnostics_run_on_a_runs_checkpoint(tmp_path):
    run = small_selfplay_run(tmp_path / "run")
    paired = script("luck_returns_paired", str(run), "1", "2")
    assert "luck (shipped), 2 worlds" in paired and "luck (critic), 2 worlds" in paired and "grad_cosine" in paired
    decisions = script("luck_returns_decisions", str(run), "1", "4")
    assert "both off: advantages" in decisions
    cost = script("luck_returns_cost", str(run), "--batches", "1", "--worlds", "2", "--players", "3")
    assert "8 games a batch at 3 players" in cost and "luck (critic, every row)" in cost
    difference = float(re.search(r"largest difference (\S+)$", cost, re.MULTILINE).group(1))
    assert difference < 1e-5  # the same judgement both ways, to float32's precision


# --- screen_curves.py ------------------------------------------------------------------------------------------------


def test_the_screen_curves_table_each_arm_of_each_seed_and_draw_a_chart_per_seed(tmp_path):
    import shutil

    run = small_selfplay_run(tmp_path / "base-s0")
    shutil.copytree(run, tmp_path / "e050-s0")
    shutil.copytree(run, tmp_path / "base-s3")
    runs = [str(tmp_path / name) for name in ("base-s0", "e050-s0", "base-s3")]
    printed = script("screen_curves", *runs, "--out", str(tmp_path / "charts"))
    assert sorted(p.name for p in (tmp_path / "charts").iterdir()) == ["screen_s0.png", "screen_s3.png"]
    rows = re.findall(r"^\| (\w+) \| (\d+\.\d% at \d+\.\dM)(, \d+\.\d% at \d+\.\dM)* \|( \S+ \|){4}$", printed, re.M)
    assert [row[0] for row in rows] == ["base", "e050", "base"]
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "screen_curves.py"), str(tmp_path), "--out",
                           str(tmp_path / "x")], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout


# --- tail_average.py -------------------------------------------------------------------------------------------------


def test_the_tail_average_averages_the_files_of_each_span_and_plays_the_average_against_the_newest(tmp_path):
    import numpy as np

    from agents.bots.model_file import load_policy, save_policy
    from agents.bots.names import CATALOGUE
    from benchmarks.tail_average import average

    shipped = load_policy(CATALOGUE["selfplay-2p"].path)
    rng = np.random.default_rng(0)
    files = []
    for steps in (1_000_000, 1_500_000, 3_000_000):
        layers = [(w + rng.normal(0, 0.01, w.shape), b) for w, b in shipped.layers]
        files.append(save_policy(tmp_path / f"policy-{steps}.npz", layers, "tanh"))
    mean = average([load_policy(f) for f in files])
    expected = np.mean([load_policy(f).layers[0][0] for f in files], axis=0)
    assert np.allclose(mean[0][0], expected, atol=1e-7)
    printed = script("tail_average", "--snapshots", *map(str, files), "--spans", "1", "2.5", "--games", "8",
                     "--jobs", "1", "--out", str(tmp_path / "kept"))  # fmt: skip
    lines = re.findall(
        r"^last (\S+)M timesteps \((\d) files to 3,000,000\): (\d+\.\d)% against (\d+\.\d)%, ([+-]\d+\.\d) pts "
        r"\[[+-]\d+\.\d, [+-]\d+\.\d\]; luck-adjusted [+-]\d+\.\d pts \[[+-]\d+\.\d, [+-]\d+\.\d\]$",
        printed,
        re.MULTILINE,
    )
    assert [line[:2] for line in lines] == [("1", "1"), ("2.5", "3")]
    one = lines[0]
    assert one[2] == one[3] and one[4] in ("+0.0", "-0.0")  # the average of the newest file alone is that file
    kept = load_policy(tmp_path / "kept" / "tail-2.5M.npz").layers
    assert all(np.allclose(k[0], m[0], rtol=0, atol=1e-7) for k, m in zip(kept, mean, strict=True))


# --- luck_cost.py -----------------------------------------------------------------------------------------------------


def test_the_luck_cost_benchmark_times_playing_then_adjusting_the_same_games():
    argv = ["--agent", "random", "--players", "3", "--games", "6", "--rounds", "2", "--worlds", "2"]
    printed = script("luck_cost", *argv)
    assert "random against heuristic, 3 players, 6 games a round, 2 worlds" in printed
    assert len(re.findall(r"^\| [12] \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d× \|$", printed, re.MULTILINE)) == 2
    both = script("luck_cost", *argv, "--rounds", "1", "--reference-steps")
    assert re.search(r"^\| 1 \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d× \| \d+\.\d\d \|$", both, re.MULTILINE)


# --- luck_judges.py ---------------------------------------------------------------------------------------------------


def test_the_luck_judges_comparison_gives_each_judge_a_row_on_the_same_games(tmp_path):
    from agents.bots.names import CATALOGUE

    copy = tmp_path / "judge.npz"
    copy.write_bytes(CATALOGUE["luck-value-2p"].path.read_bytes())  # the judge of 2-player games
    printed = script("luck_judges", "--games", "44", "--worlds", "2", "--agent", "random", str(copy))
    assert "random against heuristic, 2 players, 44 games from deal 9000000" in printed
    rows = re.findall(r"^\| (\S+) \| \d+\.\d% \[\d+\.\d%, \d+\.\d%\] \| \d\.\d{3}× \| .+ \| \d+\.\d \|$", printed, re.M)
    assert rows == ["shipped", str(copy)]
    # the same network judges the same games alike
    lines = [line for line in printed.splitlines() if line.startswith("| shipped") or line.startswith(f"| {copy}")]
    assert lines[0].split("|")[2:5] == lines[1].split("|")[2:5]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["NOT_A_ZIP"], "not a zip archive"),
        (["MISSING"], "cannot read"),
        (["--agent", "nosuch"], "unknown agent 'nosuch'"),
        (["--worlds", "0"], "must be at least 1"),
    ],
)
def test_the_luck_judges_comparison_refuses_garbage_in_one_line(argv, message, tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"garbage")
    argv = [{"NOT_A_ZIP": str(tmp_path / "junk.npz"), "MISSING": str(tmp_path / "none.npz")}.get(a, a) for a in argv]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "luck_judges.py"), *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not done.stdout


# --- luck_coverage.py -------------------------------------------------------------------------------------------------


def test_the_chi_square_tail_matches_tabled_quantiles():
    from benchmarks.luck_coverage import chi_square_survival

    for dof, five_percent, one_percent in [
        (1, 3.841, 6.635),
        (2, 5.991, 9.210),
        (3, 7.815, 11.345),
        (9, 16.919, 21.666),
    ]:
        assert abs(chi_square_survival(five_percent, dof) - 0.05) < 1e-4
        assert abs(chi_square_survival(one_percent, dof) - 0.01) < 1e-4
    assert chi_square_survival(0.0, 4) == 1.0


def test_the_dispersion_of_estimates_counts_their_scatter_over_their_intervals():
    from agents.evaluate.matches import MeanInterval
    from benchmarks.luck_coverage import Dispersion

    half = 1.96  # a standard error of 1 each
    found = Dispersion.of([MeanInterval.around(mean, half) for mean in (-1.0, 1.0, 0.0)])
    assert (found.chi_square, found.dof, found.holding) == (2.0, 2, 3)
    assert abs(found.pooled.mean) < 1e-12 and abs(found.pooled.high - half / 3**0.5) < 1e-12
    far = Dispersion.of([MeanInterval.around(-3.0, half), MeanInterval.around(3.0, half)])
    assert far.holding == 0 and far.chi_square == 18.0 and far.p < 1e-4


def test_the_luck_coverage_check_prints_each_set_and_the_dispersion():
    printed = script("luck_coverage", "--opponent", "random", "--sets", "2", "--games", "6")
    assert len(re.findall(r"^set [12] of 2 \(deals \d+ to \d+\): heuristic's mean luck [+-]\d", printed, re.M)) == 2
    assert re.search(
        r"^dispersion: chi-square \d+\.\d on 1 degrees of freedom, p = [01]\.\d{3}; [012] of 2 ", printed, re.M
    )


# --- luck_history.py --------------------------------------------------------------------------------------------------


def test_the_luck_history_comparison_prints_both_figures_with_and_without_the_history():
    printed = script("luck_history", "--games", "3", "--luck-games", "4", "--opponent", "gubs-net")
    for name in ("without the history", "given the history"):
        assert re.search(
            rf"^{name}: Letter probe [+-]\d\.\d{{3}} \[[+-]\d\.\d{{3}}, [+-]\d\.\d{{3}}\] Letters a game$",
            printed,
            re.M,
        )
        assert re.search(rf"^{name}: heuristic's mean luck [+-]\d+\.\d{{3}} ", printed, re.M)


# --- heuristic_speed.py -----------------------------------------------------------------------------------------------


def test_the_heuristic_speed_benchmark_times_the_three_ways_of_asking():
    printed = script("heuristic_speed", "--positions", "40", "--repeats", "1")
    assert "CPU µs per decision over 40 positions (best of 1):" in printed
    for way in ("HeuristicAgent.act, one at a time", "one batch of every position", "batches of 8"):
        assert re.search(rf"^  {re.escape(way)} +\d+\.\d\d$", printed, re.M)


# --- playout_width.py -------------------------------------------------------------------------------------------------


def test_the_playout_comparison_plays_the_shipped_playout_file_exactly_as_selfplay_search(tmp_path):
    """Given the shipped playout file, the tried search is selfplay-search itself: every game the same, so the paired
    difference is exactly 0; each search's decision times are printed first; a file that is no playout policy is
    refused in one line."""
    shipped = ROOT / "agents" / "bots" / "models" / "selfplay_2p_playout.npz"
    args = ["--playout", str(shipped), "--games", "4", "--timing-games", "1", "--jobs", "1", "--out", str(tmp_path)]
    printed = script("playout_width", *args)
    for name in ("selfplay-search", "playout_width:FilePlayoutSearch"):
        timed = rf"^  {name}: median \d+ ms, mean \d+ ms, 99th percentile \d+ ms \([1-9]\d* decisions\)$"
        assert re.search(timed, printed, re.M), printed
    assert re.search(r"^selfplay-search \S+% less playout_width:FilePlayoutSearch \S+% = \+0\.0 pts", printed, re.M)
    with open(tmp_path / "tournament.csv", newline="") as table:
        rows = {row["agent"]: row for row in csv.DictReader(table) if row["opponent"] == "heuristic"}
    played = [(rows[name]["wins"], rows[name]["mean_score"], rows[name]["mean_margin"]) for name in rows]
    assert len(played) == 2 and played[0] == played[1]  # the same games: the same wins, scores and margins
    refused = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "playout_width.py"), "--playout", str(ROOT / "README.md")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--playout:" in refused.stderr


# --- sequential_coverage.py -------------------------------------------------------------------------------------------


def test_the_sequential_coverage_records_a_pool_once_then_simulates_from_it(tmp_path):
    pool = tmp_path / "outcomes.npz"
    argv = ["--outcomes", str(pool), "--games", "8", "--repeats", "6", "--round", "2", "--most", "6"]
    first = script("sequential_coverage", *argv)
    assert "recorded gubs-net: 4 deals" in first and pool.exists()
    again = script("sequential_coverage", *argv)  # read, not played again
    assert "recorded gubs-net" not in again and again.strip().endswith("to each agent's")
    rows = [line for line in again.splitlines() if line.startswith("| width=5 |") or line.startswith("| better |")]
    assert len(rows) == 10 and all(row.count("|") == 9 for row in rows)  # eight columns
