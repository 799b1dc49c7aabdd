"""agents/training/sb3/bench.py: both paths are built as train.py builds them; bad command lines are one-line errors."""

import pytest

from agents.training.sb3 import bench as train_bench
from agents.training.sb3.fast_vec_env import FastSelfPlayVecEnv
from agents.training.sb3.masked_policy import LeanMaskablePolicy


def test_each_path_is_what_train_py_builds_with_snapshots_in_the_pool(tmp_path):
    for path, lean in (("fast", True), ("reference", False)):
        envs, model, settings = train_bench._build(path, [2], tmp_path, ["--envs", "2"])
        try:
            assert isinstance(envs.unwrapped, FastSelfPlayVecEnv) == (path == "fast")
            assert isinstance(model.policy, LeanMaskablePolicy) == lean
            assert settings["envs"] == 2 and settings["lean_policy"] == lean
            assert len(list((tmp_path / path / "snapshots").glob("step_*.zip"))) == train_bench.SNAPSHOTS
        finally:
            envs.close()


def test_a_slice_counts_its_timesteps_and_times(tmp_path):
    envs, model, _ = train_bench._build("fast", [2], tmp_path, ["--envs", "2", "--n-steps", "16", "--batch-size", "32"])
    times = train_bench.PathTimes("fast")
    train_bench._slice(envs, model, 64, times)
    assert times.timesteps == 64 and times.wall > 0 and 0 < times.env_wall < times.wall
    assert "fast" in times.row()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timesteps", "100"], "multiple of 4,096"),
        (["--rounds", "0"], "must be at least 1"),
        (["--players", "9"], "player counts go from 2 to 6"),
        (["--fast-flags=--bogus"], "unrecognized arguments: --bogus"),
        (["--fast-flags=--envs 0"], "must be at least 1"),
    ],
)
def test_bad_command_lines_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train_bench.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
