"""The action notation and the seat's view: every legal action's text is unique in its decision and parses back to
it (by its text, case and spacing forgiven, and by its number), through the engine, OpenSpiel's ids and the PettingZoo
env's; the view is valid JSON; and nothing the parser is given makes it fail in another way than one line."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Game, IllegalActionError, Step
from gubs_env.engine.notation import MAX_ANSWER, ActionTextError, canonical, parse_action

QUICK_GAMES = 120
"""Random games the default run checks (24 at each table size from 2 to 6); the slow run checks 10,000."""


def variants(text: str, rnd: random.Random) -> list[str]:
    """Ways a player may write a move's text without meaning another: case, spacing, arrows, wrapping."""
    swapped = "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in text)
    spaced = "  ".join(text.split())
    packed = text.replace(" ", "")
    return [text, text.upper(), swapped, spaced, packed, text.replace("→", "->"), f"**{text}**", f'"{text}."']


def check_game(num_players: int, seed: int) -> dict[Step, int]:
    """Play a random game, checking every decision's notation and view; returns how often each step was checked."""
    game = Game(num_players, seed=seed)
    rnd = random.Random(seed)
    codec = ActionCodec(num_players)
    steps: dict[Step, int] = {}
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        legal = game.legal_actions()
        texts = [str(a) for a in legal]
        assert len({canonical(t) for t in texts}) == len(texts), texts  # unique in its decision, as compared
        ids = codec.ids(legal, seat)
        for number, (action, text) in enumerate(zip(legal, texts, strict=True), 1):
            assert parse_action(text, legal) is action
            assert parse_action(str(number), legal) is action
            assert codec.ids((game.parse_action(text),), seat) == [ids[number - 1]]
        action = rnd.choice(legal)
        for written in variants(str(action), rnd):
            assert parse_action(written, legal) is action, written
        view = game.seat_view(seat)
        assert json.loads(json.dumps(view, allow_nan=False)) == view
        assert [m["text"] for m in view["legal_moves"]] == texts
        steps[game.pending.step] = steps.get(game.pending.step, 0) + 1
        game.apply(action)
    return steps


def test_every_legal_action_round_trips_in_random_games_at_every_table_size():
    seen: dict[Step, int] = {}
    for i in range(QUICK_GAMES):
        for step, count in check_game(2 + i % 5, i).items():
            seen[step] = seen.get(step, 0) + count
    assert set(seen) == set(Step) - {Step.OVER}  # every kind of decision was met


@pytest.mark.slow
def test_every_legal_action_round_trips_in_ten_thousand_random_games():
    for i in range(10_000):
        check_game(2 + i % 5, 100_000 + i)


def test_a_number_is_a_listed_move_and_an_unknown_move_is_refused_in_one_line():
    game = Game(3, seed=1)
    legal = game.legal_actions()
    with pytest.raises(ActionTextError, match="numbered 1 to 2"):
        parse_action("3", legal)
    with pytest.raises(ActionTextError, match="no moves were listed"):
        parse_action("1", legal, numbered=False)
    with pytest.raises(ActionTextError, match="closest legal moves: 'Draw'"):
        parse_action("Drow", legal)
    with pytest.raises(IllegalActionError, match="not a legal move"):
        game.apply("Lure → seat 1")
    assert game.apply("draw").action is legal[0]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), st.binary(max_size=50), st.integers(), st.none(), st.lists(st.text())))
def test_any_answer_is_a_legal_move_or_one_line_that_says_why(answer):
    game = Game(2, seed=5)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    legal = game.legal_actions()
    try:
        action = parse_action(answer, legal)
    except ActionTextError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 400
    else:
        assert action in legal and isinstance(answer, str) and len(answer.strip()) <= MAX_ANSWER
