"""The luck estimator's re-deal given the deck's history (docs/luck.md, "The fix and where it stands").

The estimator (agents/evaluate/luck) re-deals each chance step given the deck's history since the deal, collected
in its compiled replay of the game (tests/agents/test_luck.py checks each step's history against the game's own).
Here the same estimator also runs with that history dropped, to measure what passing it does:

    python -m tests.agents.test_luck_history --games 1200 --luck-games 4000

prints the Letter probe (heuristic against random play, 64 worlds, deals 7000 on) and the heuristic's mean luck
(16 worlds, deals 200000 on, both seatings), each with and without the history, with 95% intervals.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import numpy as np
import pytest

import agents.evaluate.luck as luck
from agents.bots.registry import make_agent
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MeanInterval, play_game
from tests.agents.test_luck import letters_laid_out


@contextmanager
def history_dropped() -> Iterator[None]:
    """The estimator's re-deal without the history, as it was before it kept one (undone on leaving)."""
    original = luck.redeal_deck_rows

    def without(row: np.ndarray, known: int, seed: int, rows: np.ndarray, rngs: np.ndarray, **_: Any) -> None:
        original(row, known, seed, rows, rngs, history=None)

    luck.redeal_deck_rows = without
    try:
        yield
    finally:
        luck.redeal_deck_rows = original


def as_estimated(with_history: bool) -> AbstractContextManager[None]:
    """The estimator as it is, or with the history dropped."""
    return nullcontext() if with_history else history_dropped()


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
    per_game = []
    for deal in range(7000, 7000 + games):
        ids = heuristic_game(deal, 0)
        with as_estimated(with_history):
            per_game.append(float(estimator.game(2, deal, ids).corrections[1:, 0].sum()))
    return MeanInterval.of(per_game)


def heuristic_luck(games: int, with_history: bool) -> MeanInterval:
    """The heuristic's luck per game against random play, in points (deals from 200000, both seatings)."""
    estimator = LuckEstimator()
    lucks = []
    for game in range(games):
        deal, seat = 200000 + game // 2, game % 2
        ids = heuristic_game(deal, seat)
        with as_estimated(with_history):
            lucks.append(100 * float(estimator.game(2, deal, ids).luck[seat]))
    return MeanInterval.of(lucks)


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
