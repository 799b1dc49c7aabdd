"""Settings for the whole test suite."""

import os
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    # stable-baselines3 makes a log folder for every learn() call without a logger (in the system's temporary
    # folder unless SB3_LOGDIR says where); keep them with the suite's other temporary files
    mp = pytest.MonkeyPatch()
    mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
    yield
    mp.undo()


MAX_AUTO_WORKERS = 4
"""Most workers ``-n auto`` starts: each one loads torch and the compiled engine (about half a GiB) and, on a cold
numba cache, compiles what its tests need, so more workers on a large machine cost memory and repeated compiles for
little gain on a run of a few minutes."""


@pytest.hookimpl(optionalhook=True)  # without pytest-xdist (or with -p no:xdist) there is no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The worker count of ``-n auto``: one per core this process may use, at most :data:`MAX_AUTO_WORKERS`."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_AUTO_WORKERS))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Before xdist starts its workers, fill a cold numba cache once rather than in every worker.

    Runs in the controller of a run with two or more workers only (``-n auto`` on a multi-core machine); a warm
    cache costs one index lookup here. See tests/compile_cache.py.
    """
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    try:
        from tests import compile_cache

        cold = compile_cache.is_cold()
    except ImportError:  # no numba: nothing is compiled, and the compiled engine's tests skip
        return
    if cold:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        compile_cache.warm_up(reporter.write_line if reporter is not None else print)


_FOLDER_MARKERS = {"browser": "browser", "rllib": "rllib"}
"""Test folders whose every test carries a marker (pyproject's addopts leaves them out of the default run)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test of tests/browser and tests/rllib with its folder's marker."""
    for item in items:
        parts = item.path.parts
        for folder, marker in _FOLDER_MARKERS.items():
            if "tests" in parts and parts.index("tests") + 1 < len(parts) and parts[parts.index("tests") + 1] == folder:
                item.add_marker(marker)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Do not even import tests/rllib or tests/browser when the marker expression leaves their tests out.

    Their modules import Ray or Playwright at the top, which took the default run tens of seconds of collection
    for tests it then deselects.
    """
    marker = _FOLDER_MARKERS.get(collection_path.name)
    expression = config.getoption("markexpr", "")
    if marker is None or collection_path.parent.name != "tests" or not expression:
        return None
    return not Expression.compile(expression).evaluate(lambda name: name == marker) or None
