"""Agents straight from Python: instances and classes in tournaments and matches, as a notebook gives them."""

from __future__ import annotations

import numpy as np
import pytest

from agents import run_tournament
from agents.bots.base import Agent, legal_ids
from agents.bots.spec import AgentSpec, AgentSpecError, SpecKind
from agents.evaluate.matches import match
from examples.my_agents import MyAgent


class Highest(Agent):
    """The legal id with the highest number (defined here, as a notebook's class is)."""

    name = "highest"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(legal_ids(action_mask)[-1])


def notebook_class() -> type[Agent]:
    """A class as a notebook defines it: in ``__main__``, which a worker process cannot import."""
    return type("InANotebook", (Highest,), {"__module__": "__main__", "name": "in-a-notebook"})


def test_an_importable_class_is_its_module_class_spec_and_plays_in_parallel():
    spec = AgentSpec.of(MyAgent)
    assert spec.kind is SpecKind.CODE and str(spec) == "examples.my_agents:MyAgent"
    by_class = run_tournament([MyAgent, "random"], num_players=2, deals=4, jobs=2)
    by_text = run_tournament(["examples.my_agents:MyAgent", "random"], num_players=2, deals=4, jobs=1)
    assert by_class.agents == ["my-agent", "random"]  # named by its own name
    assert by_text.agents == ["examples.my_agents:MyAgent", "random"]  # named as given
    assert [p.win_rate for p in by_class.pairings] == [p.win_rate for p in by_text.pairings]


def test_an_instance_and_a_notebook_class_play_here_with_a_note(capsys):
    cls = notebook_class()
    assert AgentSpec.of(cls).kind is SpecKind.OBJECT and str(AgentSpec.of(cls)) == "in-a-notebook"
    result = run_tournament([Highest(), cls, "random"], num_players=2, deals=3, jobs=2)
    assert "note: highest, in-a-notebook only exists in this process" in capsys.readouterr().err
    assert result.agents == ["highest", "in-a-notebook", "random"]
    assert all(p.games == 6 for p in result.pairings)
    same = run_tournament([Highest(), "random"], num_players=2, deals=3, jobs=1)
    rates = {(p.agent, p.opponent): p.win_rate for p in result.pairings}
    assert [p.win_rate for p in same.pairings] == [rates["highest", "random"], rates["random", "highest"]]


def test_each_seat_gets_its_own_copy_of_an_instance():
    class Counting(Highest):
        name = "counting"

        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            self.calls += 1
            return super().act(observation, action_mask)

    given = Counting()
    run_tournament([given, "random"], num_players=3, deals=2, jobs=1)
    assert given.calls == 0  # the tournament played copies, never the caller's object


def test_two_objects_of_one_name_and_non_agents_are_refused():
    with pytest.raises(AgentSpecError, match="given once"):
        run_tournament([Highest(), Highest()], num_players=2, deals=1)
    with pytest.raises(AgentSpecError):
        AgentSpec.of(object())
    with pytest.raises(AgentSpecError):
        AgentSpec.for_python(int)


def test_match_takes_instances_specs_and_classes_alike():
    by_instances = match(MyAgent(), Highest(), games=6, progress=False)
    by_specs = match("examples.my_agents:MyAgent", Highest, games=6, progress=False)
    assert by_instances.wins == by_specs.wins and by_instances.games == by_specs.games == 6
    four = match(MyAgent, ["random", Highest, "heuristic"], num_players=4, games=4, progress=False)
    assert four.games == 4


def test_the_ladder_takes_a_class_beside_specs():
    from agents.evaluate.ladder import run_ladder

    rows = run_ladder([Highest, "heuristic"], players=[2], deals=2, jobs=1, progress=False)
    assert [row.agent for row in rows] == ["highest", "heuristic"]  # its own name
    assert rows[0].win_rate_vs_baseline is not None  # against the heuristic, the baseline
