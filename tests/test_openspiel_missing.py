"""Without OpenSpiel, importing gubs_env.openspiel fails with one line that says what to install (runs either way)."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_missing_openspiel_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    # a None entry makes `import pyspiel` raise ImportError, as if OpenSpiel were not installed; monkeypatch puts
    # back both entries afterwards, so a real import elsewhere in the session (which registers the game) is kept
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "gubs_env.openspiel", raising=False)
    with pytest.raises(ImportError) as caught:
        importlib.import_module("gubs_env.openspiel")
    message = str(caught.value)
    assert "\n" not in message
    assert 'pip install -e ".[openspiel]"' in message
