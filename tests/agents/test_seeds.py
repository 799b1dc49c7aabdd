"""Several seeds of one config: their runs, the gathered curves and charts, and ``python train.py --seeds``."""

import csv
import json
from pathlib import Path

import pytest

from agents.training import TrainingConfig
from agents.training.command import main
from agents.training.seeds import CURVES_CSV, gather_curves, seed_folder, summarize, train_seeds, write_curves

SMALL = ["--envs", "8", "--hidden", "16", "--batch-size", "512", "--eval-games", "4", "--no-progress"]


def write_run(folder: Path, points: list[tuple[int, float]], players: int, seed: int) -> None:
    folder.mkdir(parents=True)
    config = TrainingConfig.from_scratch(players=(players,), seed=seed).to_json()
    (folder / "run.json").write_text(json.dumps({"backend": "native", "config": config, "format": 2}))
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
    folders = [seed_folder(tmp_path / "2p", seed) for seed in (0, 1)] + [seed_folder(tmp_path / "4p", 0)]
    write_run(folders[0], [(100, 0.4), (200, 0.5)], 2, 0)
    write_run(folders[1], [(100, 0.3), (200, 0.6), (300, 0.7)], 2, 1)
    write_run(folders[2], [(100, 0.2)], 4, 0)
    rows = gather_curves(folders)
    assert len(rows) == 2 * (2 + 3 + 1) and {r["seed"] for r in rows} == {0, 1}
    charts = write_curves(rows, tmp_path, folders)
    assert [c.name for c in charts] == ["curves_2p.png", "curves_4p.png"]
    assert all(c.read_bytes().startswith(b"\x89PNG") for c in charts)
    with (tmp_path / CURVES_CSV).open(newline="") as file:
        assert len(list(csv.DictReader(file))) == len(rows)
    lines = summarize(rows, folders)
    assert "2p vs heuristic, seed 1: 30.0% at the start, 70.0% [65.0%, 75.0%] at 300 timesteps" in lines
    assert lines.index("2p vs heuristic, seed 0: 40.0% at the start, 50.0% [45.0%, 55.0%] at 200 timesteps") == 0
    assert "seed-0: median grad_cosine over the last half of the updates: 0.40 (the updates carry signal)" in lines


def test_the_command_trains_what_is_missing_keeps_what_is_finished_and_resumes_what_was_cut(tmp_path, capsys):
    argv = ["--from-scratch", "--seeds", "5", "6", "--steps", "1", "--out", str(tmp_path), *SMALL]
    assert main(argv) == 0
    assert all((seed_folder(tmp_path, s) / "policy.npz").is_file() for s in (5, 6))
    assert (tmp_path / "curves_2p.png").is_file()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("has spent its budget, kept") == 2 and "2p vs heuristic, seed 6" in out
    assert main([*argv[:5], "6000", *argv[6:]]) == 0  # a larger budget: both go on
    assert capsys.readouterr().out.count(": resuming ") == 2


def test_a_time_budget_counts_each_runs_training_time_in_all(tmp_path, capsys):
    config = TrainingConfig.from_scratch(envs=8, hidden=(16,), batch_size=512, eval_games=4, steps=1)
    train_seeds(config, [0], tmp_path, progress=False)
    run_file = seed_folder(tmp_path, 0) / "run.json"
    state = json.loads(run_file.read_text())
    run_file.write_text(json.dumps({**state, "seconds": 600.0}))  # ten minutes trained already
    from dataclasses import replace

    train_seeds(replace(config, steps=None, minutes=10), [0], tmp_path, progress=False)
    assert "has spent its budget, kept" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        (["--seed", "3"], "leave out --seed and --resume"),
        (["--resume"], "leave out --seed and --resume"),
        (["--p-heuristic", "0.3"], "plays no hand-written bot"),
        (["--imitate-games", "10"], "plays no hand-written bot"),
    ],
)
def test_a_command_that_cannot_mean_what_it_says_is_one_line(extra, refused, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--from-scratch", "--seeds", "0", "--out", str(tmp_path), *extra])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert refused in err and err.count("\n") == 1


def test_a_run_trained_with_other_levers_is_never_resumed_as_if_it_were_the_same(tmp_path, capsys):
    argv = ["--from-scratch", "--seeds", "0", "--steps", "1", "--out", str(tmp_path), *SMALL]
    assert main(argv) == 0
    with pytest.raises(SystemExit) as exit_info:
        main([*argv[:4], "5000", *argv[5:], "--rule-facts"])
    assert exit_info.value.code == 2
    assert "keeps its own rule_facts" in capsys.readouterr().err


def test_without_a_budget_each_seed_trains_the_default_minutes_in_all(tmp_path, monkeypatch):
    import agents.training.seeds as seeds

    asked = []
    monkeypatch.setattr(seeds, "train", lambda config, **kwargs: asked.append(config))
    train_seeds(TrainingConfig.from_scratch(), [3, 4], tmp_path, progress=False)
    assert [(c.seed, c.minutes, c.steps) for c in asked] == [(3, 10.0, None), (4, 10.0, None)]
