"""The from-scratch self-play baselines: their config, the gathered curves and charts, the command."""

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest

from agents.training.baselines.runs import (
    CURVES_CSV,
    BaselineSettings,
    baseline_config,
    build_parser,
    gather_curves,
    main,
    run_baselines,
    run_folder,
    summarize,
    write_curves,
)
from agents.training.selfplay.rollout import POLICY


def test_a_baseline_is_the_cores_recipe_at_one_table_size():
    config = baseline_config(4, seed=2, settings=BaselineSettings(eval_every=500_000, eval_games=400))
    assert config.players == (4,) and config.seed == 2
    assert (config.eval_every, config.eval_games) == (500_000, 400)
    assert config.every_seat and config.skip_forced and not config.ppo.rule_facts
    assert baseline_config(2, 0, BaselineSettings(rule_facts=True)).ppo.rule_facts
    assert baseline_config(2, 0, BaselineSettings(luck_returns=True)).luck_returns and not config.luck_returns
    assert set(config.eval_opponents) == {"heuristic", "random"}
    assert POLICY == 0  # every seat of every training game is the policy (SelfPlayRun.all_policy)


def write_eval(folder: Path, points: list[tuple[int, float]], players: int) -> None:
    folder.mkdir(parents=True)
    with (folder / "eval.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["timesteps", "players", "opponent", "games", "win_rate", "low", "high", "seconds"])
        for steps, rate in points:
            for opponent in ("random", "heuristic"):
                writer.writerow([steps, players, opponent, 400, rate, rate - 0.05, rate + 0.05, 1.0])
    with (folder / "progress.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["timesteps", "grad_cosine"])
        for steps, _ in points:
            writer.writerow([steps, 0.4])


def test_the_runs_eval_logs_become_one_csv_a_chart_per_table_size_and_a_summary(tmp_path):
    folders = [run_folder(tmp_path, 2, seed) for seed in (0, 1)] + [run_folder(tmp_path, 4, 0)]
    write_eval(folders[0], [(100, 0.4), (200, 0.5)], 2)
    write_eval(folders[1], [(100, 0.3), (200, 0.6), (300, 0.7)], 2)
    write_eval(folders[2], [(100, 0.2)], 4)
    rows = gather_curves(folders)
    assert len(rows) == 2 * (2 + 3 + 1) and {r["seed"] for r in rows} == {0, 1}
    charts = write_curves(rows, tmp_path, folders)
    assert [c.name for c in charts] == ["curves_2p.png", "curves_4p.png"]
    assert all(c.read_bytes().startswith(b"\x89PNG") for c in charts)
    with (tmp_path / CURVES_CSV).open(newline="") as file:
        assert len(list(csv.DictReader(file))) == len(rows)
    lines = summarize(rows, folders)
    assert "2p vs heuristic, seed 1: 30.0% at the start, 70.0% [65.0%, 75.0%] at 300 timesteps" in lines
    assert "2p-seed0: median grad_cosine over the last half of its updates 0.40" in lines


def test_the_command_line_defaults_to_two_seeds_two_hours_each_at_2_and_4_players():
    args = build_parser().parse_args([])
    assert (args.players, args.seeds, args.minutes, args.threads) == ([2, 4], [0, 1], 120.0, 1)


@pytest.mark.slow
def test_the_command_trains_what_is_missing_and_keeps_what_is_finished(tmp_path, capsys):
    argv = ["--players", "2", "--seeds", "5", "--minutes", "0.1", "--out", str(tmp_path), "--no-progress"]
    argv += ["--eval-every", "20000", "--eval-games", "40"]
    assert main(argv) == 0
    folder = run_folder(tmp_path, 2, 5)
    assert (folder / "policy.npz").is_file() and (tmp_path / "curves_2p.png").is_file()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "finished before, kept" in out and "2p vs heuristic, seed 5" in out and "median grad_cosine" in out
    state = json.loads((folder / "state.json").read_text())
    (folder / "state.json").write_text(json.dumps({**state, "seconds": 1.0}))  # as if it had stopped early
    assert main(argv) == 0
    assert "resuming 2 players, seed 5" in capsys.readouterr().out


def test_a_run_trained_with_other_levers_is_never_resumed_as_if_it_were_the_same(tmp_path, capsys):
    from agents.training.selfplay.recipe import SelfPlayRunError, train_selfplay

    folder = run_folder(tmp_path, 2, 0)
    small = replace(baseline_config(2, 0), games=4, eval_every=10**9, eval_games=4)
    train_selfplay(small, out=folder, timesteps=1, progress=False)
    with pytest.raises(SelfPlayRunError, match="trained without the rule facts: give --rule-facts as it was"):
        run_baselines([2], [0], 60.0, tmp_path, BaselineSettings(rule_facts=True), progress=False)
    argv = ["--players", "2", "--seeds", "0", "--rule-facts", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 1
    with pytest.raises(SelfPlayRunError, match="trained without luck-adjusted returns: give --luck-returns as it was"):
        run_baselines([2], [0], 60.0, tmp_path, BaselineSettings(luck_returns=True), progress=False)
    assert capsys.readouterr().err.count("\n") == 1
    (folder / "config.json").write_text("{not json")
    with pytest.raises(SelfPlayRunError, match="is not JSON"):
        run_baselines([2], [0], 60.0, tmp_path, progress=False)
