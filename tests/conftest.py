"""Settings for the whole test suite."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    # stable-baselines3 makes a log folder for every learn() call without a logger (in the system's temporary
    # folder unless SB3_LOGDIR says where); keep them with the suite's other temporary files
    mp = pytest.MonkeyPatch()
    mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
    yield
    mp.undo()
