"""Choosing a run's best checkpoint (agents/evaluate/select.py)."""

from pathlib import Path

import numpy as np
import pytest

from agents.evaluate.select import Candidate, candidates, evaluate_candidates, main


def small_actor(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """An untrained actor of one hidden layer of 8."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(0, 0.1, (8, 512)), np.zeros(8)), (rng.normal(0, 0.1, (356, 8)), np.zeros(356))]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A run folder with four small untrained snapshots and a final policy: the last is the step-300 one."""
    from agents.bots.model_file import save_policy

    root = tmp_path_factory.mktemp("run")
    (root / "snapshots").mkdir()
    for i, steps in enumerate((100, 200, 250, 300)):
        save_policy(root / "snapshots" / f"step_{steps:09d}.npz", small_actor(i), "tanh")
    save_policy(root / "policy.npz", small_actor(3), "tanh")
    (root / "snapshots" / "notes.npz").write_text("not a snapshot")  # ignored: not step_<n>.npz
    return root


def test_candidates_filter_by_first_and_every_and_end_with_the_final_model(run_dir):
    found = candidates(run_dir, first=200, every=100)
    assert [c.timesteps for c in found] == [200, 300, None]
    assert found[-1] == Candidate(run_dir / "policy.npz", None, "final policy.npz")
    assert [c.timesteps for c in candidates(run_dir, final=False)] == [100, 200, 250, 300]


def test_bad_run_folders_and_filters_are_clear_errors(run_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="no run folder"):
        candidates(tmp_path / "missing")
    with pytest.raises(ValueError, match="every must be at least 1"):
        candidates(run_dir, every=0)
    with pytest.raises(ValueError, match="no checkpoint"):
        candidates(run_dir, first=10_000, final=False)


@pytest.mark.slow
def test_every_candidate_plays_the_same_deals_and_workers_change_nothing(run_dir):
    found = candidates(run_dir, first=250)
    in_process = evaluate_candidates(found, num_players=2, opponent="random", games=8, seed=5)
    assert [r.agent for r in in_process] == ["step 250", "step 300", "final policy.npz"]
    assert all(r.games == 8 for r in in_process)
    # the final model is the step-300 snapshot saved again: the same policy on the same deals, the same result
    assert in_process[1].wins == in_process[2].wins
    assert evaluate_candidates(found, num_players=2, opponent="random", games=8, seed=5, jobs=2) == in_process


def test_command_line_marks_the_best_and_exports_it(run_dir, tmp_path, capsys):
    from agents.bots.model_file import load_policy
    from agents.bots.registry import make_agent

    target = tmp_path / "best.npz"
    assert main([str(run_dir), "--from", "300", "--games", "4", "--opponent", "random", "--export", str(target)]) == 0
    out = capsys.readouterr().out
    assert out.count("* ") == 1 and "best: " in out
    assert load_policy(target).layers[0][0].shape == (8, 512)  # the actor, read through the safe path
    assert make_agent(str(target)).act is not None


def test_several_table_sizes_rank_by_the_mean_win_rate_relative_to_chance(run_dir, capsys):
    from agents.evaluate.matches import MatchResult
    from agents.evaluate.select import relative_to_chance

    two, four = MatchResult("a", 100, 60, 0), MatchResult("a", 100, 20, 0)
    assert relative_to_chance({2: two, 4: four}) == pytest.approx((0.6 * 2 + 0.2 * 4) / 2)
    assert main([str(run_dir), "--from", "300", "--games", "3", "--opponent", "random", "--players", "2", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("2p ") == 2 and out.count("3p ") == 2  # the step-300 snapshot and the final model
    assert out.count("times chance on average") == 2
    assert sum(line.startswith("* ") for line in out.splitlines()) == 3  # the best's three lines


def test_a_hostile_snapshot_is_refused_before_any_game(run_dir, tmp_path, capsys):
    import shutil

    from tests.agents.test_model_file import evil_model_zip

    marker = tmp_path / "ran"
    hostile = tmp_path / "hostile_run"
    shutil.copytree(run_dir, hostile)
    (hostile / "snapshots" / "step_000000400.zip").write_bytes(evil_model_zip(marker))
    with pytest.raises(SystemExit) as exit_info:
        main([str(hostile), "--games", "2", "--opponent", "random"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "step_000000400.zip" in err and len(err.strip().splitlines()) == 1
    assert not marker.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{missing}"], "no run folder"),
        (["{empty}"], "no checkpoint"),
        (["{run}", "--opponent", "nobody"], "unknown agent"),
        (["{run}", "--games", "0"], "must be at least 1"),
        (["{run}", "--players", "7"], "players"),
    ],
)
def test_bad_command_lines_exit_2(run_dir, tmp_path, capsys, argv, message):
    (tmp_path / "empty").mkdir()
    argv = [a.format(run=run_dir, missing=tmp_path / "missing", empty=tmp_path / "empty") for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
