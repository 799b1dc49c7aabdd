"""One game by action ids on either engine: ``IdTable``, ``open_table`` and the one engine choice."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import gubs_env
from gubs_env import IllegalActionError
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.id_table import IdTable, ReferenceTable
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.envs import engines
from gubs_env.envs.engines import ENGINE_CHOICES, ENGINES, open_table, resolve_engine
from tests.helpers import table as position

pytest.importorskip("numba")

PLAYER_COUNTS = range(2, 7)


def trajectory(engine: str, num_players: int, seed: int, **rule_options: Any) -> list[tuple]:
    """What a table shows along one game of random legal ids (chosen by ``seed``), and its outcome at the end."""
    table = open_table(engine, num_players, seed, **rule_options)
    choose = random.Random(seed).choice
    seen: list[tuple] = []
    while not table.over:
        actor, mask = table.actor, table.action_mask()
        observation = table.observation(actor)
        seen.append((actor, mask.dtype, mask.tobytes(), observation.dtype, observation.tobytes()))
        table.step(choose(np.flatnonzero(mask).tolist()))
    assert table.actor == -1 and not table.action_mask().any()
    seen.append((table.scores(), table.winners(), table.truncated, table.game.to_dict()))
    return seen


def test_both_engines_and_the_reference_adapter_are_id_tables() -> None:
    from gubs_env.fast import FastGame

    for engine in ENGINES:
        assert isinstance(open_table(engine, 3, 0), IdTable)
    assert isinstance(open_table("fast", 2, 0), FastGame)
    assert isinstance(open_table("reference", 2, 0), ReferenceTable)
    assert not isinstance(object(), IdTable)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_a_seed_gives_the_same_trajectory_on_both_engines(num_players: int) -> None:
    for seed in (num_players, 40 + num_players, 80 + num_players):
        fast = trajectory("fast", num_players, seed)
        assert fast == trajectory("reference", num_players, seed)
        assert len(fast) > 20 and fast[0][1] == np.int8 and fast[0][3] == np.float32


def test_a_truncated_game_is_the_same_on_both_engines() -> None:
    fast = trajectory("fast", 4, 2, max_turns=5, letter_placement="uniform")
    assert fast == trajectory("reference", 4, 2, max_turns=5, letter_placement="uniform")
    scores, winners, truncated, _ = fast[-1]
    assert truncated and winners == [] and len(scores) == 4


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_id_is_refused_and_nothing_changes(engine: str) -> None:
    table = open_table(engine, 3, 3)
    before = (table.game.to_dict(), table.actor, table.action_mask().tobytes())
    illegal = int(np.flatnonzero(table.action_mask() == 0)[0])
    with pytest.raises(IllegalActionError, match=r"is not legal"):
        table.step(illegal)
    for not_an_id in (1.0, True, "0", NUM_ACTIONS, -1, None):
        with pytest.raises(ValueError) as info:
            table.step(not_an_id)
        assert not isinstance(info.value, IllegalActionError)
    assert (table.game.to_dict(), table.actor, table.action_mask().tobytes()) == before


@pytest.mark.parametrize("engine", ENGINES)
def test_a_finished_game_refuses_every_id(engine: str) -> None:
    table = open_table(engine, 2, 5, max_turns=2)
    while not table.over:
        table.step(int(np.flatnonzero(table.action_mask())[0]))
    with pytest.raises(IllegalActionError, match="the game is over"):
        table.step(0)


@pytest.mark.parametrize("engine", ENGINES)
def test_masks_and_observations_are_the_callers_to_keep(engine: str) -> None:
    table = open_table(engine, 2, 1)
    mask, observation = table.action_mask(), table.observation(table.actor)
    assert mask.shape == (NUM_ACTIONS,) and observation.shape == (OBS_SIZE,)
    mask[:] = 1
    observation[:] = 7.0
    assert table.action_mask().sum() < NUM_ACTIONS and table.observation(table.actor).max() <= 1.0
    for seat in (-1, 2, 1.0, True):
        with pytest.raises(ValueError, match="seat"):
            table.observation(seat)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ENGINES)
def test_reset_and_import_continue_alike(engine: str) -> None:
    table = open_table(engine, 3, 0)
    table.step(int(np.flatnonzero(table.action_mask())[0]))
    table.reset(9)
    assert table.game.to_dict() == open_table(engine, 3, 9).game.to_dict() and table.num_players == 3
    start = position(num_players=4, hands=[{"Gub": 1}, {"Lure": 1}, {}, {}], turn_player=2)
    table.import_game(start.to_dict())
    assert table.num_players == 4 and table.actor == 2 and table.game.to_dict() == start.to_dict()


def test_only_the_reference_table_hands_out_its_own_game() -> None:
    reference, fast = open_table("reference", 2, 0), open_table("fast", 2, 0)
    for table in (reference, fast):
        table.game.apply(table.game.legal_actions()[0])
    assert reference.game.to_dict() != fast.game.to_dict() == open_table("fast", 2, 0).game.to_dict()


@pytest.mark.parametrize("engine", ["gpu", "", None, 1, "FAST", "both"])
def test_an_unknown_engine_is_one_line_value_error(engine: object) -> None:
    with pytest.raises(ValueError, match="engine must be one of") as info:
        open_table(engine, 2, 0)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_auto_is_the_compiled_engine_only_when_numba_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from gubs_env.fast import FastGame

    assert ("auto", *ENGINES) == ENGINE_CHOICES and set(ENGINES) == {"fast", "reference"}
    assert resolve_engine("auto") == "fast" and isinstance(open_table("auto", 2, 0), FastGame)
    monkeypatch.setattr(engines, "fast_engine_available", lambda: False)
    assert resolve_engine("auto") == "reference" and isinstance(open_table(num_players=2, seed=0), ReferenceTable)
    with pytest.raises(ImportError, match="numba"):
        open_table("fast", 2, 0)


def test_a_bad_table_is_refused_by_both_engines_alike() -> None:
    for engine in ENGINES:
        with pytest.raises(ValueError, match="num_players"):
            open_table(engine, 7, 0)
        with pytest.raises(ValueError, match="seed"):
            open_table(engine, 2, -1)
        with pytest.raises(ValueError):
            open_table(engine, 2, 0, no_such_option=1)


def test_the_package_names_the_interface_lazily() -> None:
    from gubs_env.fast import FastGame

    names = dir(gubs_env)
    for name in ("IdTable", "open_table", "FastGame", "ActionCodec", "NUM_ACTIONS", "OBS_SIZE", "env", "Game"):
        assert name in names and name in gubs_env.__all__
    assert gubs_env.IdTable is IdTable and gubs_env.open_table is open_table and gubs_env.FastGame is FastGame
    assert gubs_env.envs.IdTable is IdTable and gubs_env.envs.open_table is open_table
    assert "IdTable" in dir(gubs_env.envs)
    with pytest.raises(AttributeError):
        _ = gubs_env.no_such_name


def test_importing_the_package_loads_neither_numba_nor_the_env_packages() -> None:
    code = "import sys, gubs_env; print(sorted(m for m in ('numba', 'gymnasium', 'pettingzoo') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
