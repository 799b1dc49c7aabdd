"""The heuristic's weights as data: named slots, weight set files read safely, compiled duels, and the tuner."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.bots.heuristic import HeuristicAgent
from agents.bots.heuristic.tables import MAX_WEIGHT, SHARES, TABLES, TUNABLE, named_weights, tables_with
from agents.bots.heuristic.weights_file import WeightsFileError, load_weights, save_weights
from agents.bots.names import CATALOGUE, TUNED
from agents.bots.registry import AgentSpecError, make_agent, names_code
from agents.evaluate.duel import rotated_shares
from agents.evaluate.matches import play_game
from agents.recipes.tune_heuristic.cmaes import CMAES
from agents.recipes.tune_heuristic.tuning import Tuning, main, tables_at

# --- the named weights ----------------------------------------------------------------------------------------


def test_every_tunable_weight_names_one_distinct_slot_and_the_defaults_round_trip():
    assert len(TUNABLE) == 97 and len(set(TUNABLE.values())) == 97
    assert named_weights(TABLES)["END_STAKE"] == 6.0 and named_weights(TABLES)["CARD_VALUE.SUPER_LURE"] == 1.2
    same = tables_with(named_weights(TABLES))
    assert np.array_equal(same.floats, TABLES.floats, equal_nan=True) and same.ints is TABLES.ints


def test_a_share_keeps_its_complement_in_step():
    tables = tables_with({"LEADER_WEIGHT": 0.25})
    from agents.bots.heuristic.tables import C_LEADER_REST

    assert tables.floats[C_LEADER_REST] == 0.75


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"NO_SUCH": 1.0}, "unknown heuristic weight"),
        ({"END_STAKE": -1.0}, "from 0 to 100"),
        ({"END_STAKE": math.inf}, "from 0 to 100"),
        ({"END_STAKE": math.nan}, "from 0 to 100"),
        ({"END_STAKE": "6"}, "from 0 to 100"),
        ({"END_STAKE": True}, "from 0 to 100"),
        ({"LEADER_WEIGHT": 1.5}, "from 0 to 1"),
    ],
)
def test_a_weight_out_of_its_range_is_refused(values, words):
    with pytest.raises(ValueError, match=words):
        tables_with(values)


# --- weight set files ------------------------------------------------------------------------------------


def test_a_saved_weight_set_loads_back_exactly(tmp_path):
    tables = tables_with({"END_STAKE": 7.25, "THREATS.LURE": 0.5, "HOLD_DECAY.2": 0.0})
    path = save_weights(tmp_path / "w.json", tables, note="a test")
    assert np.array_equal(load_weights(path).floats, tables.floats, equal_nan=True)
    assert json.loads(path.read_text())["note"] == "a test"


def test_the_shipped_weight_set_loads_and_differs_from_the_defaults():
    tuned = load_weights(CATALOGUE[TUNED].path)
    assert not np.array_equal(tuned.floats, TABLES.floats, equal_nan=True)


def _document(**changes):
    doc = {"format": "gubs-heuristic-weights", "version": 1, "weights": {"END_STAKE": 5.0}}
    doc.update(changes)
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "not a heuristic weight set"),
        ("[1, 2]", "top level must be an object"),
        ('{"format": "gubs-heuristic-weights", "version": 1, "weights": {"END_STAKE": NaN}}', "NaN"),
        ('{"format": "gubs-heuristic-weights", "version": 1, "weights": {"END_STAKE": 1e999}}', "from 0 to 100"),
        ('{"format": "x", "version": 1, "weights": {}}', "not a gubs-heuristic-weights file"),
        (_document(version=2), "of version 1"),
        (_document(weights=[1]), "an object of named numbers"),
        (_document(weights={"__class__": 1}), "unknown heuristic weight"),
        (_document(note=5), "note must be text"),
        (_document(extra=1), "unknown field 'extra'"),
        ('{"format": "gubs-heuristic-weights", "format": "gubs-heuristic-weights"}', "given twice"),
        ("[" * 50_000, "not a heuristic weight set"),
        ("\xff\xfe", "not a heuristic weight set"),
    ],
)
def test_a_file_that_is_not_a_weight_set_is_one_clear_error(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("latin-1") if text.startswith("\xff") else text.encode())
    with pytest.raises(WeightsFileError, match=words) as info:
        load_weights(path)
    assert "\n" not in str(info.value)


def test_a_huge_or_missing_file_is_refused_before_it_is_parsed(tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (70 * 1024))
    with pytest.raises(WeightsFileError, match="over 65,536 bytes"):
        load_weights(huge)
    with pytest.raises(WeightsFileError, match="cannot read"):
        load_weights(tmp_path / "absent.json")
    with pytest.raises(WeightsFileError, match="not a regular file"):
        load_weights(tmp_path)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(WeightsFileError, match="not a regular file"):  # refused without waiting for a writer
        load_weights(pipe)
    with pytest.raises(WeightsFileError, match="not a regular file"):
        load_weights("/dev/zero")


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_either_load_as_a_weight_set_or_are_refused_cleanly(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "w.json"
    path.write_bytes(data)
    try:
        tables = load_weights(path)
    except WeightsFileError as err:
        assert "\n" not in str(err)
    else:
        assert np.isfinite(tables.floats[list(TUNABLE.values())]).all()


# --- the specs ---------------------------------------------------------------------------------------------


def test_the_tuned_heuristic_and_a_weight_set_file_are_agent_specs(tmp_path):
    tuned = make_agent("heuristic-tuned", seed=3)
    assert isinstance(tuned, HeuristicAgent) and tuned.name == "heuristic-tuned"
    assert tuned.tables.floats is not TABLES.floats
    path = save_weights(tmp_path / "mine.json", tables_with({"END_STAKE": 9.0}))
    mine = make_agent(str(path))
    assert mine.name == str(path) and mine.tables.floats[TUNABLE["END_STAKE"]] == 9.0
    assert not names_code("heuristic-tuned") and not names_code(str(path))
    with pytest.raises(AgentSpecError, match="no heuristic weight set"):
        make_agent(str(tmp_path / "absent.json"))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(AgentSpecError, match="not a gubs-heuristic-weights file"):
        make_agent(str(tmp_path / "bad.json"))


def test_an_agent_with_other_weights_decides_with_them():
    """A weight set that never ends a turn early: the tuned and the default heuristic then disagree somewhere."""
    game_default = play_game([HeuristicAgent(), HeuristicAgent()], seed=5)
    odd = tables_with({"DRAW_GAIN": 0.0, "END_STAKE": 100.0})
    game_odd = play_game([HeuristicAgent(tables=odd), HeuristicAgent(tables=odd)], seed=5)
    assert game_default.to_dict() != game_odd.to_dict()


# --- compiled duels --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 6])
def test_a_compiled_duel_plays_exactly_the_games_of_a_match(players):
    """The compiled match and play_game with HeuristicAgents give the same win shares, game by game."""
    odd = tables_with({"END_STAKE": 2.0, "FREE_RISK": 0.5, "CARD_VALUE.GUB": 0.4})
    shares = rotated_shares([odd], players, 3, seed=40)[0]
    expected = []
    for deal in range(3):
        for seat in range(players):
            table = [HeuristicAgent() for _ in range(players)]
            table[seat] = HeuristicAgent(tables=odd)
            won = play_game(table, 40 + deal, engine="reference").winners()
            expected.append(1 / len(won) if seat in won else 0.0)
    assert shares.tolist() == expected


def test_the_default_weights_against_themselves_take_exactly_their_share():
    shares = rotated_shares([TABLES, TABLES], 4, 25, seed=7)
    assert shares.shape == (2, 100) and shares.mean(axis=1).tolist() == [0.25, 0.25]


def test_a_duel_does_not_depend_on_threads_and_refuses_bad_counts():
    odd = tables_with({"END_STAKE": 3.0})
    assert np.array_equal(rotated_shares([odd], 3, 6, threads=1), rotated_shares([odd], 3, 6, threads=2))
    with pytest.raises(ValueError, match="deals must be"):
        rotated_shares([odd], 2, 0)
    with pytest.raises(ValueError, match="seed must be"):
        rotated_shares([odd], 2, 5, seed=-1)


# --- CMA-ES and the tuner ------------------------------------------------------------------------------------


def test_cmaes_finds_the_top_of_a_noisy_stretched_bowl():
    target = np.array([3.0, -2.0, 0.5, 1.0])
    scale = np.array([1.0, 10.0, 0.1, 3.0])
    rng = np.random.default_rng(0)
    cma = CMAES(np.zeros(4), 1.0, 12, seed=1)
    for _ in range(150):
        x = cma.ask()
        cma.tell(-(((x - target) * scale) ** 2).sum(axis=1) + 0.01 * rng.standard_normal(12))
    assert np.abs((cma.mean - target) * scale).max() < 0.1  # as close as the noise lets it tell


def test_cmaes_refuses_what_it_cannot_use():
    with pytest.raises(ValueError):
        CMAES(np.zeros(3), 0.0, 10)
    cma = CMAES(np.zeros(3), 1.0, 6)
    with pytest.raises(RuntimeError):
        cma.tell(np.zeros(6))
    cma.ask()
    with pytest.raises(ValueError):
        cma.tell(np.array([0, 1, 2, np.nan, 4, 5]))


def test_coordinates_map_into_the_weights_ranges():
    assert np.array_equal(tables_at(np.zeros(97)).floats, TABLES.floats, equal_nan=True)
    far = tables_at(np.full(97, -50.0)).floats
    assert (far[list(TUNABLE.values())] == 0).all()
    high = tables_at(np.full(97, 50.0))
    assert all(high.floats[TUNABLE[name]] <= 1.0 for name in SHARES)
    assert high.floats[list(TUNABLE.values())].max() <= MAX_WEIGHT


def test_a_tiny_tuning_writes_a_loadable_weight_set_and_its_progress(tmp_path):
    best = Tuning(generations=2, population=4, deals={2: 6, 3: 2}, validation_deals={2: 8, 3: 2}, validate_every=1).run(
        tmp_path, progress=False
    )
    assert set(best) >= {"validation", "validation_2p", "validation_3p"}
    load_weights(tmp_path / "weights.json")
    lines = (tmp_path / "progress.csv").read_text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("generation,best,average,sigma")
    assert (tmp_path / "tuning.png").stat().st_size > 1000


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--population", "3"], "--population must be 4 or more"),
        (["--players", "2", "3", "--games", "5"], "one count per table size"),
        (["--players", "7"], "--players"),
        (["--generations", "0"], "--generations"),
    ],
)
def test_the_tuner_refuses_a_bad_command_line_in_one_line(capsys, argv, words):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
