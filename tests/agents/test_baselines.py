"""The from-scratch self-play baselines: their config, the gathered curves and charts, the command."""

import csv
from pathlib import Path

import pytest

from agents.training.baselines import (
    CURVES_CSV,
    baseline_config,
    build_parser,
    gather_curves,
    main,
    run_folder,
    summarize,
    write_curves,
)


def test_a_baseline_is_self_play_from_scratch_evaluated_against_gubs_net_too():
    config = baseline_config(4, seed=2, minutes=60.0, eval_every=500_000)
    assert config.eval_every == 500_000
    assert config.imitate_games == 0 and config.init is None and not config.labels
    assert (config.pool.p_random, config.pool.p_heuristic) == (0.0, 0.0)
    shares = config.pool.shares(has_snapshots=True)
    assert shares["self"] + shares["snapshots"] == pytest.approx(1.0)  # every opponent seat is the learner's
    assert [str(spec) for spec in config.evaluated_against] == ["gubs-net"]
    assert config.players.as_list() == [4] and config.seed == 2 and config.minutes == 60.0


def write_eval(folder: Path, points: list[tuple[int, float]], players: int) -> None:
    folder.mkdir(parents=True)
    with (folder / "eval.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["timesteps", "players", "opponent", "games", "win_rate", "low", "high", "seconds"])
        for steps, rate in points:
            for opponent in ("random", "heuristic", "gubs-net"):
                writer.writerow([steps, players, opponent, 200, rate, rate - 0.05, rate + 0.05, 1.0])


def test_the_runs_eval_logs_become_one_csv_a_chart_per_table_size_and_a_summary(tmp_path):
    folders = [run_folder(tmp_path, 2, seed) for seed in (0, 1)] + [run_folder(tmp_path, 4, 0)]
    write_eval(folders[0], [(100, 0.4), (200, 0.5)], 2)
    write_eval(folders[1], [(100, 0.3), (200, 0.6), (300, 0.7)], 2)
    write_eval(folders[2], [(100, 0.2)], 4)
    rows = gather_curves(folders)
    assert len(rows) == 3 * (2 + 3 + 1) and {r["seed"] for r in rows} == {0, 1}
    charts = write_curves(rows, tmp_path)
    assert [c.name for c in charts] == ["curves_2p.png", "curves_4p.png"]
    assert all(c.read_bytes().startswith(b"\x89PNG") for c in charts)
    with (tmp_path / CURVES_CSV).open(newline="") as file:
        assert len(list(csv.DictReader(file))) == len(rows)
    lines = summarize(rows)
    assert "2p vs heuristic: final 50.0% at 200, 70.0% at 300" in lines


def test_the_command_line_defaults_to_three_seeds_an_hour_each_at_2_and_4_players():
    args = build_parser().parse_args([])
    assert (args.players, args.seeds, args.minutes) == ([2, 4], [0, 1, 2], 60.0)


@pytest.mark.slow
def test_the_command_trains_what_is_missing_and_keeps_what_is_finished(tmp_path, capsys):
    argv = ["--players", "2", "--seeds", "5", "--minutes", "0.05", "--out", str(tmp_path), "--no-progress"]
    argv += ["--eval-every", "2000"]
    assert main(argv) == 0
    assert (run_folder(tmp_path, 2, 5) / "model.zip").is_file() and (tmp_path / "curves_2p.png").is_file()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "finished before, kept" in out and "2p vs gubs-net: final" in out
    (run_folder(tmp_path, 2, 5) / "model.zip").unlink()  # as if the command had been stopped before the end
    assert main(argv) == 0
    assert "resuming 2 players, seed 5" in capsys.readouterr().out
