"""The Letter posterior over whole games: real decks against the model's, before and after cards are put back.

Random players decide without looking at the deck, so at each draw the chance the posterior gives a Letter on top
is the real chance given what the table saw: summed over a game, the Letters really drawn less those chances has
mean 0 (the *Letter probe*). The sampled worlds are checked the same way at every stage of a game, one position
per game and stage (positions of one game share a deck, so they are not independent samples).

Every game is seeded (seeds 7000 on), so each test gives the same figures on every run; the intervals are 99.9%
ones. docs/engine.md ("The Letter posterior") reports the larger runs, printed with their 95% intervals by

    python -m tests.engine.test_letter_games --players 2 4 --games 3000 [--first-seed 20000]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest

from gubs_env.engine import Game
from gubs_env.engine.actions import Action, Op
from gubs_env.engine.cards import LETTERS
from gubs_env.engine.positions import determinize as det
from gubs_env.engine.state import Step
from tests.engine.test_determinize import chi2_critical

Z_999 = 3.2905
"""The two-sided 99.9% normal quantile."""
LETTER_KINDS = frozenset(int(k) for k in LETTERS)
FIRST_SEED = 7000


@dataclass
class Probe:
    """Per game: Letters drawn less the chance the model gave one on top, before and after the first put-back."""

    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)

    def interval(self, stage: str) -> tuple[float, float]:
        values = np.array(getattr(self, stage))
        mean, error = values.mean(), values.std(ddof=1) / math.sqrt(len(values))
        return mean - Z_999 * error, mean + Z_999 * error


@dataclass
class Followed:
    """A random game played action by action, with its deck's events since the deal (the game keeps them)."""

    game: Game

    @property
    def history(self) -> list[det.DeckEvent]:
        assert self.game.deck_history is not None  # a game dealt here records its history from the deal
        return self.game.deck_history

    def put_back(self) -> bool:
        return any(what != det.LETTER_DRAWN for _, what in self.history)


def random_game(num_players: int, seed: int) -> Iterator[tuple[Followed, Action]]:
    """Each action of a random game before it is applied."""
    followed = Followed(Game(num_players, seed=seed, record_log=False))
    rnd = random.Random(seed)
    while not followed.game.is_over:
        action = rnd.choice(followed.game.legal_actions())
        yield followed, action
        followed.game.apply(action)


def is_draw(followed: Followed, action: Action) -> bool:
    return followed.game.pending.step is Step.DRAW and action.op is Op.DRAW


def letters_in_deck(followed: Followed) -> int:
    return sum(kind in LETTER_KINDS for kind in followed.game.state.deck)


def chance_on_top(followed: Followed, with_history: bool) -> float:
    """The chance of a Letter on top of the deck, from the table's view (no Scout knowledge), by the posterior."""
    deck = len(followed.game.state.deck)
    missing = letters_in_deck(followed)
    history = tuple(followed.history) if with_history else None
    posterior = det.letter_posterior("thirds", followed.game.num_players, deck, deck, (), missing, history)
    if missing == 0:
        return 0.0
    if posterior is None:  # the model explains nothing: the sampler takes the Letters at uniform places
        return missing / deck
    shares = np.diff(posterior.cumulative, prepend=0.0)
    return float(shares[posterior.cells[:, -1] == deck - 1].sum())


def probe(num_players: int, games: int, with_history: bool = True, first_seed: int = FIRST_SEED) -> Probe:
    """The Letter probe over ``games`` random games (seeds from ``first_seed``)."""
    out = Probe()
    for seed in range(first_seed, first_seed + games):
        before = after = 0.0
        for followed, action in random_game(num_players, seed):
            if is_draw(followed, action):
                residual = float(followed.game.state.deck[-1] in LETTER_KINDS) - chance_on_top(followed, with_history)
                if followed.put_back():
                    after += residual
                else:
                    before += residual
        out.before.append(before)
        out.after.append(after)
    return out


def test_the_letters_come_up_as_often_as_the_posterior_says_before_and_after_put_backs():
    result = probe(2, 150)
    for stage in ("before", "after"):
        low, high = result.interval(stage)
        assert low < 0 < high, (stage, low, high)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 4])
def test_the_letter_probe_at_scale(num_players):
    # 3000 games (docs/engine.md gives the figures): the posterior that follows the put-backs holds 0 at every stage.
    result = probe(num_players, 3000)
    for stage in ("before", "after"):
        low, high = result.interval(stage)
        assert low < 0 < high, (stage, low, high)


def highest_letter(deck: list[int]) -> int:
    """How deep the highest Letter lies: 0 on top, 1 for the next 2 cards, 2 for the 5 below, 3 deeper, 4 none."""
    cells = [i for i, kind in enumerate(deck) if kind in LETTER_KINDS]
    if not cells:
        return 4
    depth = len(deck) - 1 - max(cells)
    return 0 if depth == 0 else 1 if depth < 3 else 2 if depth < 8 else 3


def test_sampled_worlds_match_real_decks_at_every_stage():
    # At a draw early in the game, one before the first put-back and one after, one position of each per game: the
    # sampled world's Letters against the real deck's, for the seat about to draw.
    stages = ("early", "before put-backs", "after put-backs")
    real: dict[str, Counter[int]] = {stage: Counter() for stage in stages}
    model: dict[str, Counter[int]] = {stage: Counter() for stage in stages}
    for seed in range(FIRST_SEED, FIRST_SEED + 500):
        rnd = random.Random(seed)
        draws = [(f.game.clone(), tuple(f.history), f.put_back()) for f, a in random_game(2, seed) if is_draw(f, a)]
        picks = {
            "early": [d for d in draws[:4]],
            "before put-backs": [d for d in draws[4:] if not d[2]],
            "after put-backs": [d for d in draws if d[2]],
        }
        for stage, candidates in picks.items():
            if candidates:
                game, _, _ = rnd.choice(candidates)
                viewer = game.current_player
                assert viewer is not None
                real[stage][highest_letter(game.state.deck)] += 1
                world = det.resample(game.state, viewer, seed)  # the clone's state keeps its history
                model[stage][highest_letter(world.deck)] += 1
    for stage in stages:
        assert sum(real[stage].values()) > 150, stage
        assert homogeneous(real[stage], model[stage]), (stage, real[stage], model[stage])


def homogeneous(a: Counter[int], b: Counter[int]) -> bool:
    """Whether two samples of equal size may come from one distribution (chi-square at the 0.1% level)."""
    cells = [(a[o], b[o]) for o in set(a) | set(b) if a[o] + b[o]]
    stat = sum((x - y) ** 2 / (x + y) for x, y in cells)
    return stat < chi2_critical(max(1, len(cells) - 1))


def main(argv: list[str] | None = None) -> int:
    """Print the Letter probe per table size, given the history and without it, with 95% intervals."""
    parser = argparse.ArgumentParser(prog="python -m tests.engine.test_letter_games", description=__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="table sizes (default: 2 4)")
    parser.add_argument("--games", type=int, default=3000, help="games per table size (default: 3000)")
    parser.add_argument("--first-seed", type=int, default=FIRST_SEED, help=f"the first game's seed ({FIRST_SEED})")
    args = parser.parse_args(argv)
    for num_players in args.players:
        for with_history in (True, False):
            result = probe(num_players, args.games, with_history, args.first_seed)
            for stage in ("before", "after"):
                values = np.array(getattr(result, stage))
                mean, half = values.mean(), 1.96 * values.std(ddof=1) / math.sqrt(len(values))
                name = "given the history" if with_history else "without the history"
                print(f"{num_players} players, {name}, {stage} the first put-back: {mean:+.3f} "
                      f"[{mean - half:+.3f}, {mean + half:+.3f}]", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
