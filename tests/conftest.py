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


_FOLDER_MARKERS = {"browser": "browser", "rllib": "rllib"}
"""Test folders whose every test carries a marker (pyproject's addopts leaves them out of the default run)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test of tests/browser and tests/rllib with its folder's marker."""
    for item in items:
        parts = item.path.parts
        for folder, marker in _FOLDER_MARKERS.items():
            if "tests" in parts and parts.index("tests") + 1 < len(parts) and parts[parts.index("tests") + 1] == folder:
                item.add_marker(marker)
