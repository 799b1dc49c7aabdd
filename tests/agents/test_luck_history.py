"""The luck estimator's re-deal given the deck's history (issue 62 part 1; docs/luck.md, "The fix and where it stands").

The estimator (agents/evaluate/luck) re-deals each chance step with ``redeal_deck_rows`` and does not pass the deck's
history yet. Here its calls get the history of the position they re-deal: each game is replayed once more on the
compiled engine, the history collected with ``row_deck_events`` and looked up by the row being re-dealt. That
measures what passing it does, with the estimator otherwise as shipped:

    python -m tests.agents.test_luck_history --games 1200 --luck-games 4000

prints the Letter probe (heuristic against random play, 64 worlds, deals 7000 on) and the heuristic's mean luck
(16 worlds, deals 200000 on, both seatings), each with and without the history, with 95% intervals.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import agents.evaluate.luck as luck
from agents.bots.registry import make_agent
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MeanInterval, play_game
from gubs_env.encoding.action_table import encode
from gubs_env.engine import Game, Op
from gubs_env.engine.actions import make
from gubs_env.fast import determinize as fd
from gubs_env.fast.convert import state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.core import tables as T
from gubs_env.fast.kernels import step_game, view_game
from tests.agents.test_luck import letters_laid_out

DRAW_ID = encode(make(Op.DRAW), 0, 2)
"""The draw's action id (it names no seat, so it is the same at every table)."""


class Histories:
    """The deck's history at every position of one game, by the position's row, for the re-deal to look up."""

    def __init__(self) -> None:
        self.by_row: dict[bytes, tuple[Any, ...]] = {}
        self.found = self.missed = 0

    def collect(self, num_players: int, seed: int, ids: list[int], **rule_options: str) -> None:
        """Replay the game dealt with ``seed`` and played with ``ids``, keeping the history before each action."""
        self.by_row.clear()
        rows, rngs = fd.new_rows(1)
        state_to_row(Game(num_players, seed=seed, record_log=False, **rule_options).state, rows[0], rngs[0])
        row, rng = rows[0], rngs[0]
        legal = np.zeros(luck.NUM_ACTIONS, dtype=np.int8)
        history: list[Any] = []
        for action in ids:
            view_game(row, legal)
            self.by_row[row.tobytes()] = tuple(history)
            before = row.copy()
            step_game(row, rng, int(action), legal)
            history += fd.row_deck_events(before, row, before[L.STEP] == T.S_DRAW and action == DRAW_ID)

    def redeal(self, original: Callable[..., None]) -> Callable[..., None]:
        """``redeal_deck_rows`` given the history of the row it re-deals."""

        def with_history(row: np.ndarray, known: int, seed: int, rows: np.ndarray, rngs: np.ndarray, **_: Any) -> None:
            history = self.by_row.get(row.tobytes())
            self.found += history is not None
            self.missed += history is None
            original(row, known, seed, rows, rngs, history=history)

        return with_history


@contextmanager
def history_passed(histories: Histories) -> Iterator[None]:
    """The estimator's re-deal given the histories (undone on leaving)."""
    original = luck.redeal_deck_rows
    luck.redeal_deck_rows = histories.redeal(original)
    try:
        yield
    finally:
        luck.redeal_deck_rows = original


def heuristic_game(deal: int, heuristic_seat: int) -> list[int]:
    """The action ids of the heuristic against random play at 2 players, the heuristic at ``heuristic_seat``."""
    table = [make_agent("heuristic", seed=0), make_agent("random", seed=1)]
    if heuristic_seat:
        table.reverse()
    ids: list[int] = []
    play_game(table, deal, played=ids)
    return ids


def letter_probe(games: int, with_history: bool) -> MeanInterval:
    """Per game: Letters revealed at chance steps less the re-dealt decks' expectation (heuristic at seat 0)."""
    estimator = LuckEstimator(LuckSettings(worlds=64), letters_laid_out)
    histories = Histories()
    per_game = []
    for deal in range(7000, 7000 + games):
        ids = heuristic_game(deal, 0)
        if with_history:
            histories.collect(2, deal, ids)
            with history_passed(histories):
                corrections = estimator.game(2, deal, ids).corrections
        else:
            corrections = estimator.game(2, deal, ids).corrections
        per_game.append(float(corrections[1:, 0].sum()))
    assert histories.missed == 0
    return MeanInterval.of(per_game)


def heuristic_luck(games: int, with_history: bool) -> MeanInterval:
    """The heuristic's luck per game against random play, in points (deals from 200000, both seatings)."""
    estimator = LuckEstimator()
    histories = Histories()
    lucks = []
    for game in range(games):
        deal, seat = 200000 + game // 2, game % 2
        ids = heuristic_game(deal, seat)
        if with_history:
            histories.collect(2, deal, ids)
            with history_passed(histories):
                lucks.append(100 * float(estimator.game(2, deal, ids).luck[seat]))
        else:
            lucks.append(100 * float(estimator.game(2, deal, ids).luck[seat]))
    assert histories.missed == 0
    return MeanInterval.of(lucks)


def test_every_chance_step_finds_its_history():
    histories = Histories()
    estimator = LuckEstimator(LuckSettings(worlds=2))
    for deal in range(3):
        ids = heuristic_game(deal, deal % 2)
        histories.collect(2, deal, ids)
        with history_passed(histories):
            estimator.game(2, deal, ids)
    assert histories.found > 50 and histories.missed == 0


@pytest.mark.slow
def test_given_the_history_the_redealt_decks_reveal_letters_as_often_as_the_real_ones() -> None:
    interval = letter_probe(1200, with_history=True)
    assert interval.low < 0 < interval.high, interval


def main(argv: list[str] | None = None) -> int:
    """Print the probe and the mean luck with and without the history."""
    parser = argparse.ArgumentParser(prog="python -m tests.agents.test_luck_history", description=__doc__)
    parser.add_argument("--games", type=int, default=1200, help="games of the Letter probe (default: 1200)")
    parser.add_argument("--luck-games", type=int, default=4000, help="games of the mean luck (default: 4000)")
    args = parser.parse_args(argv)
    for with_history in (False, True):
        name = "given the history" if with_history else "without the history"
        for what, interval, unit in (
            ("Letter probe", letter_probe(args.games, with_history), "Letters a game"),
            ("heuristic's mean luck", heuristic_luck(args.luck_games, with_history), "points"),
        ):
            print(f"{name}: {what} {interval.mean:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}] {unit}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
