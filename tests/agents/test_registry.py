import pytest

from agents.bots.registry import AgentSpecError, make_agent


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("os:system", "could not be built: TypeError"),
        ("agents.bots.base:Agent", "could not be built: TypeError"),
        ("builtins:int", "not an agents.bots.base.Agent"),
        ("builtins:len", "could not be built: TypeError"),
        ("no_such_module_xyz:Agent", "cannot import"),
        ("agents.bots.base:NoSuchName", "has no 'NoSuchName'"),
        ("agents.bots.base:__doc__", "not a class or factory"),
        ("", "non-empty string"),
        ("nonsense", "unknown agent"),
        ("ppo-9p", "unknown shipped model"),
    ],
)
def test_a_spec_that_builds_no_agent_is_one_clear_error(spec, message):
    with pytest.raises(AgentSpecError, match=message) as info:
        make_agent(spec)
    assert "\n" not in str(info.value)


def test_a_factory_that_raises_is_reported_with_its_first_line(tmp_path, monkeypatch):
    (tmp_path / "broken_agent.py").write_text("def make(seed):\n    raise RuntimeError('line one\\nline two')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSpecError, match=r"RuntimeError: line one$"):
        make_agent("broken_agent:make")
