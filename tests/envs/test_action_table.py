"""The flat action table: ids with seats relative to the actor, round trips and the generated docs."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from gubs_env.encoding.action_table import (
    NUM_ACTIONS,
    TEMPLATES,
    ActionCodec,
    decode,
    describe_id,
    encode,
    markdown_table,
)
from gubs_env.engine import Game

PLAYER_COUNTS = range(2, 7)
DOC = Path(__file__).resolve().parents[2] / "docs" / "action_table.md"
REGENERATE = "python -m gubs_env.encoding.action_table > docs/action_table.md"


def aims_beyond_table(action_id: int, num_players: int) -> bool:
    seat = TEMPLATES[action_id].seat
    return seat is not None and seat >= num_players


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_id_decodes_and_encodes_back_to_itself_for_every_actor(num_players):
    checked = 0
    for actor in range(num_players):
        for action_id in range(NUM_ACTIONS):
            if aims_beyond_table(action_id, num_players):
                with pytest.raises(ValueError, match="seat"):
                    decode(action_id, actor, num_players)
                continue
            action = decode(action_id, actor, num_players)
            if action.seat is not None:
                assert 0 <= action.seat < num_players
            assert encode(action, actor, num_players) == action_id
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_relative_seat_offset_maps_to_the_absolute_seat_clockwise(num_players):
    for action_id, template in enumerate(TEMPLATES):
        if template.seat is None or template.seat >= num_players:
            continue
        for actor in range(num_players):
            assert decode(action_id, actor, num_players).seat == (actor + template.seat) % num_players


@pytest.mark.parametrize("action_id", [-1, NUM_ACTIONS, NUM_ACTIONS + 1, 10**6])
def test_ids_out_of_range_raise_value_error(action_id):
    for num_players in PLAYER_COUNTS:
        with pytest.raises(ValueError, match="outside"):
            decode(action_id, 0, num_players)


def test_no_two_ids_share_a_meaning():
    assert len(set(TEMPLATES)) == NUM_ACTIONS
    assert len({describe_id(i) for i in range(NUM_ACTIONS)}) == NUM_ACTIONS


def test_first_ids_are_the_fixed_turn_actions():
    assert [describe_id(i) for i in range(5)] == ["Draw", "Decline to draw", "Go (end turn)", "Pass", "Retreat: done"]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_legal_action_of_random_games_round_trips_through_its_id(num_players):
    masks = ActionCodec(num_players)
    decisions = 0
    for seed in range(12):
        game = Game(num_players, seed=seed, record_log=False)
        rng = random.Random(seed)
        while not game.is_over:
            actor = game.current_player
            legal = game.legal_actions()
            ids = [encode(action, actor, num_players) for action in legal]
            assert len(set(ids)) == len(ids), "two legal actions share an id"
            for action, action_id in zip(legal, ids, strict=True):
                assert 0 <= action_id < NUM_ACTIONS
                assert not aims_beyond_table(action_id, num_players)
                assert decode(action_id, actor, num_players) == action
            assert masks.ids(legal, actor) == ids
            mask = masks.mask(legal, actor)
            assert sorted(mask.nonzero()[0].tolist()) == sorted(ids)
            game.apply(rng.choice(legal))
            decisions += 1
    assert decisions > 100


def test_markdown_table_matches_the_committed_docs():
    assert DOC.exists(), f"docs/action_table.md is missing; generate it with `{REGENERATE}`"
    assert markdown_table() == DOC.read_text(encoding="utf-8"), (
        "docs/action_table.md is out of date with the action table. If the change is deliberate, "
        f"regenerate it with `{REGENERATE}` and commit it (action ids of trained policies change too)."
    )


def test_markdown_table_lists_every_id_once():
    rows = [line for line in markdown_table().splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(row.split("|")[1]) for row in rows] == list(range(NUM_ACTIONS))


def test_the_regenerate_command_prints_the_table_and_nothing_else():
    root = DOC.parents[1]
    out = subprocess.run(
        [sys.executable, "-m", "gubs_env.encoding.action_table"], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout == markdown_table()
    assert out.stderr == ""  # no warning: the package does not import the module before running it
