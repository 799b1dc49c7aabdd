"""Differential tests: the compiled engine against the reference engine, compared after every action.

Each game is played in both engines from the same seed with the same actions; after every action the full
state (generator included), the seat to act, the mask, the observation, the rewards and the end flags must
be identical. Random play covers 2 to 6 players and both Letter placements; the heuristic agent and the
shipped models reach the windows and Events that random play rarely makes.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from tests.fast.harness import TALLY, Policy, play_compared, play_lockstep, random_policy

SOAK_GAMES = int(os.environ.get("GUBS_SOAK_GAMES", "100000"))
"""Random games the soak compares in all, spread evenly over 2 to 6 players."""


def _random_seats(players: int) -> Callable[[int], list[Policy]]:
    return lambda seed: [random_policy(seed * 7 + seat) for seat in range(players)]


def _halves(first_seed: int, games: dict[int, int]) -> list[object]:
    """Each table size's seeds in two halves: the first in the default run, the second behind ``slow``.

    The default run stays within its time (README's test command); ``.ci/run`` runs the slow half after it, so CI
    still compares every game.

    Args:
        first_seed: the seed of each table size's first game.
        games: games to compare in all, by number of players.
    """
    params = []
    for players, count in games.items():
        seeds = list(range(first_seed, first_seed + count))
        params.append(pytest.param(players, seeds[: count // 2], id=f"{players}p"))
        params.append(pytest.param(players, seeds[count // 2 :], id=f"{players}p-more", marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize(("players", "seeds"), _halves(1000, {2: 200, 3: 100, 4: 80, 5: 60, 6: 60}))
def test_random_games_agree(players: int, seeds: list[int]) -> None:
    assert play_compared(players, seeds, _random_seats(players)) > len(seeds) * 50


@pytest.mark.parametrize("players", [2, 4, 6])
def test_uniform_letter_placement_agrees(players: int) -> None:
    play_compared(players, list(range(30)), _random_seats(players), letter_placement="uniform")


@pytest.mark.parametrize("players", [2, 5])
def test_truncated_games_agree(players: int) -> None:
    before = TALLY["games truncated"]
    play_compared(players, list(range(30)), _random_seats(players), max_turns=12)
    assert TALLY["games truncated"] - before == 30


def test_large_seeds_agree() -> None:
    play_compared(3, [2**32 - 1, 2**32, 2**40 + 12345, 2**63, 2**64 - 1], _random_seats(3))


def test_heuristic_games_agree() -> None:
    from agents.bots.heuristic import HeuristicAgent

    def seats(seed: int) -> list:
        return [HeuristicAgent(seed=seed * 10 + s) for s in range(3)]

    play_compared(3, list(range(40)), seats)
    play_compared(2, list(range(40)), lambda seed: [HeuristicAgent(seed=seed), random_policy(seed)])


def test_shipped_model_games_agree() -> None:
    pytest.importorskip("torch")
    from agents.bots.heuristic import HeuristicAgent
    from agents.bots.ppo import PPOAgent

    model = PPOAgent.pretrained("2p")
    play_compared(2, list(range(40)), lambda seed: [model, HeuristicAgent(seed=seed)])
    four = PPOAgent.pretrained("4p")
    play_compared(4, list(range(15)), lambda seed: [four, HeuristicAgent(seed=seed), four, random_policy(seed)])


def test_the_compared_games_reach_every_use_window_and_event() -> None:
    """Guards the tests above: the games they compare must exercise every rule (run after them)."""
    from gubs_env.engine.actions import Use
    from gubs_env.engine.cards import EVENTS
    from gubs_env.engine.state import Step

    if TALLY["games compared"] < 500:
        pytest.skip("run with the other differential tests of this file")
    missing = [f"use {u.name.lower()}" for u in Use if not TALLY[f"use {u.name.lower()}"]]
    missing += [f"step {s.name.lower()}" for s in Step if s is not Step.OVER and not TALLY[f"step {s.name.lower()}"]]
    missing += [f"event {k.label}" for k in EVENTS if not TALLY[f"event {k.label}"]]
    assert not missing, missing


@pytest.mark.soak
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_soak_random_games_agree(players: int) -> None:
    games = max(1, SOAK_GAMES // 5)
    before = TALLY["games compared"]
    for start in range(0, games, 1000):
        seeds = list(range(start, min(games, start + 1000)))
        play_compared(players, seeds, _random_seats(players), dict_every=97)
    assert TALLY["games compared"] - before == games


@pytest.mark.parametrize(("players", "seeds"), _halves(5000, dict.fromkeys(range(2, 7), 400)))
def test_many_random_games_agree_in_lockstep(players: int, seeds: list[int]) -> None:
    """400 more games per player count: legal ids after every action, the whole state at the end."""
    assert play_lockstep(players, seeds, choice_seed=players) > len(seeds) * 50
