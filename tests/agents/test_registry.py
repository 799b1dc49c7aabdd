import pytest

from agents.bots.registry import AgentSpecError, make_agent, names_code


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("os:system", "is not an agent class"),
        ("os:abort", "is not an agent class"),  # refused before it is called: calling it would kill the command
        ("sys:exit", "is not an agent class"),  # refused before it is called: it would end the command with status 0
        ("agents.bots.base:Agent", "abstract class"),
        ("builtins:int", "is not an agent class"),
        ("builtins:len", "is not an agent class"),
        ("builtins:ValueError", "is not an agent class"),
        ("agents.bots:base", "is not an agent class"),  # a module
        ("no_such_module_xyz:Agent", "cannot import"),
        (":Agent", "cannot import ''"),  # an empty module name
        (".relative:Agent", "cannot import '.relative'"),  # a relative one
        ("agents.bots.base:NoSuchName", "has no 'NoSuchName'"),
        ("agents.bots.base:__doc__", "is not an agent class"),
        ("", "non-empty string"),
        ("nonsense", "unknown agent"),
        ("ppo-9p", "unknown shipped model"),
    ],
)
def test_a_spec_that_builds_no_agent_is_one_clear_error(spec, message):
    with pytest.raises(AgentSpecError, match=message) as info:
        make_agent(spec)
    assert "\n" not in str(info.value)


def test_an_agent_whose_constructor_fails_is_reported_with_its_first_line(tmp_path, monkeypatch):
    (tmp_path / "broken_agent.py").write_text(
        "import sys\n"
        "from agents.bots.random_agent import RandomAgent\n"
        "class Raises(RandomAgent):\n"
        "    def __init__(self, seed=None):\n"
        "        raise RuntimeError('line one\\nline two')\n"
        "class Exits(RandomAgent):\n"
        "    def __init__(self, seed=None):\n"
        "        sys.exit(0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSpecError, match=r"RuntimeError: line one$"):
        make_agent("broken_agent:Raises")
    with pytest.raises(AgentSpecError, match=r"could not be built: SystemExit"):
        make_agent("broken_agent:Exits")


def test_a_module_that_fails_as_it_is_imported_is_one_clear_error(tmp_path, monkeypatch):
    (tmp_path / "fails_on_import.py").write_text("raise ValueError('not today')\n")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSpecError, match=r"cannot import 'fails_on_import'.*ValueError: not today"):
        make_agent("fails_on_import:Agent")
    with pytest.raises(AgentSpecError, match=r"cannot import 'exits_on_import'.*SystemExit: 3"):
        make_agent("exits_on_import:Agent")


@pytest.mark.parametrize("spec", ["gubs-net", "gubs-net:sample", "ppo-2p", "ppo-4p:sample"])
def test_a_shipped_model_is_built_by_its_spec_and_named_so(spec):
    agent = make_agent(spec, seed=3)
    assert agent.name == spec


def test_a_subclass_by_spec_is_built_and_named() -> None:
    agent = make_agent("agents.bots.random_agent:RandomAgent", seed=4)
    assert agent.name in ("RandomAgent", "random")


@pytest.mark.parametrize(
    ("spec", "imports"),
    [
        ("random", False),
        ("ppo-2p:sample", False),
        ("gubs-net:sample", False),
        ("runs/gubs/model.zip", False),
        ("weights.npz:sample", False),
        ("search:worlds=8", False),
        ("search-all-seeing:top=2", False),
        ("ismcts:iterations=8", False),
        ("os:system", True),
        ("examples.my_agents:MyAgent", True),
    ],
)
def test_names_code_says_which_specs_import_a_module(spec, imports):
    """What a run file may name (data) and what it may not (code): train.py's --resume reads it."""
    assert names_code(spec) is imports
