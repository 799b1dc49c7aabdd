"""Modules that moved: an old import path fails with a one-line message that names the new one."""

import importlib

import pytest

import agents
import gubs_env
from agents.moved import MOVED as AGENTS_MOVED
from gubs_env.support.moved import MOVED as GUBS_ENV_MOVED


@pytest.mark.parametrize(("old", "new"), sorted({**GUBS_ENV_MOVED, **AGENTS_MOVED}.items()))
def test_an_old_path_names_where_the_module_went(old, new):
    with pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module(old)
    message = str(raised.value)
    assert "\n" not in message and "moved to" in message
    assert new.split()[0] in message or message.startswith(old.rsplit(".", 1)[0])  # a moved parent names its own


@pytest.mark.parametrize("new", sorted({*GUBS_ENV_MOVED.values(), *AGENTS_MOVED.values()}))
def test_every_new_path_imports(new):
    importlib.import_module(new.split()[0])


def test_a_module_that_never_was_keeps_the_plain_error_and_real_modules_are_untouched():
    with pytest.raises(ModuleNotFoundError, match=r"No module named 'agents\.no_such_module'"):
        importlib.import_module("agents.no_such_module")
    assert importlib.util.find_spec("gubs_env.envs.selfplay") is not None
    assert "_MOVED" not in gubs_env.__all__ and "_MOVED" not in agents.__all__
