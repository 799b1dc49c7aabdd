"""What following the deck's history does to the luck adjustment: the same estimator with the history and without.

The estimator (agents/evaluate/luck) re-deals each chance step given the deck's history since the deal, which the
compiled engine's rows keep. Here it also runs with that history dropped (the Letters then lie as dealt):

    python benchmarks/luck_history.py --games 1200 --luck-games 4000

prints the Letter probe (the heuristic against ``--opponent``, random play by default, at 2 players, 64 worlds, deals
7000 on: per game, the Letters revealed at chance steps less the re-dealt decks' expectation, 0 for an exact
re-deal) and the heuristic's mean luck (16 worlds, deals 200000 on, both seatings), each with and without the
history, with 95% intervals. docs/luck.md ("Is the mean honest?", "The fix and where it stands") has the figures.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

import numpy as np

import agents.evaluate.luck as luck
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import MeanInterval, play_game
from gubs_env.fast import layout as L
from gubs_env.support.cli import CommandParser, positive_int, run_command


def letters_laid_out(rows: np.ndarray, num_players: int) -> np.ndarray:
    """A probe for ``V``: the Letters laid out.

    A step's correction is then (a Letter was revealed) minus the chance of one the re-dealt decks give, so the mean
    correction over many games is the re-dealt distribution's error.
    """
    return np.repeat(rows[:, L.LETTERS_LEN : L.LETTERS_LEN + 1].astype(float), num_players, axis=1)


@contextmanager
def history_dropped() -> Iterator[None]:
    """The estimator's re-deal without the history, as it was before it kept one (undone on leaving)."""
    original = luck.redeal_deck_rows

    def without(row: np.ndarray, known: int, seed: int, rows: np.ndarray, rngs: np.ndarray) -> None:
        forgot = row.copy()
        forgot[L.HISTORY_LEN] = -1  # the history unknown, as a row without one keeps it
        original(forgot, known, seed, rows, rngs)

    luck.redeal_deck_rows = without
    try:
        yield
    finally:
        luck.redeal_deck_rows = original


def as_estimated(with_history: bool) -> AbstractContextManager[None]:
    """The estimator as it is, or with the history dropped."""
    return nullcontext() if with_history else history_dropped()


def heuristic_game(
    deal: int, heuristic_seat: int, opponent: AgentSpec | str = "random", **rule_options: str
) -> list[int]:
    """The action ids of the heuristic against ``opponent`` at 2 players, the heuristic at ``heuristic_seat``."""
    table = [make_agent("heuristic", seed=0), make_agent(opponent, seed=1)]
    if heuristic_seat:
        table.reverse()
    ids: list[int] = []
    play_game(table, deal, played=ids, **rule_options)
    return ids


def letter_probe(
    games: int, with_history: bool = True, opponent: AgentSpec | str = "random", **rule_options: str
) -> MeanInterval:
    """Per game: Letters revealed at chance steps less the re-dealt decks' expectation (heuristic at seat 0)."""
    estimator = LuckEstimator(LuckSettings(worlds=64), letters_laid_out)
    per_game = []
    for deal in range(7000, 7000 + games):
        ids = heuristic_game(deal, 0, opponent, **rule_options)
        with as_estimated(with_history):
            per_game.append(float(estimator.game(2, deal, ids, **rule_options).corrections[1:, 0].sum()))
    return MeanInterval.of(per_game)


def heuristic_luck(games: int, with_history: bool = True, opponent: AgentSpec | str = "random") -> MeanInterval:
    """The heuristic's luck per game against ``opponent``, in points (deals from 200000, both seatings, 16 worlds)."""
    estimator = LuckEstimator(LuckSettings(worlds=16))  # the worlds of docs/luck.md's figures
    lucks = []
    for game in range(games):
        deal, seat = 200000 + game // 2, game % 2
        ids = heuristic_game(deal, seat, opponent)
        with as_estimated(with_history):
            lucks.append(100 * float(estimator.game(2, deal, ids).luck[seat]))
    return MeanInterval.of(lucks)


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/luck_history.py",
        description="The Letter probe and the heuristic's mean luck, with the deck's history and without.",
    )
    parser.add_argument("--games", type=positive_int, default=1200, help="games of the Letter probe (default: 1200)")
    parser.add_argument("--luck-games", type=positive_int, default=4000, help="games of the mean luck (default: 4000)")
    parser.add_argument(
        "--opponent", default="random", metavar="SPEC", help="the heuristic's opponent, an agent spec (default: random)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print the probe and the mean luck without the history, then with it."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # built once before any game: a spec that builds nothing is a usage error
        opponent = AgentSpec.parse(args.opponent)
        make_agent(opponent, seed=1)
    except AgentSpecError as error:
        parser.error(str(error))
    for with_history in (False, True):
        name = "given the history" if with_history else "without the history"
        for what, interval, unit in (
            ("Letter probe", letter_probe(args.games, with_history, opponent), "Letters a game"),
            ("heuristic's mean luck", heuristic_luck(args.luck_games, with_history, opponent), "points"),
        ):
            print(f"{name}: {what} {interval.mean:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}] {unit}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
