"""Head-to-head evaluation: seat-rotated games between agents, win rates with Wilson intervals.

Games run on the engine directly (no environment wrappers), with each agent seeing exactly what the
environments would show it: on the compiled engine (:mod:`gubs_env.fast`) when numba is installed and no log is
kept, else on the reference engine. Both give the same game for the same deal and choices (``tests/fast``), so
results do not depend on which one ran. ``python -m agents.evaluate A B [C ...]`` runs a tournament between two or more
agents (:mod:`agents.tournament`).
"""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.base import Agent
from gubs_env.cli import EXIT_FAILURE, EXIT_OK, unwritable_file, unwritable_folder
from gubs_env.engine import Game
from gubs_env.envs.action_table import ActionCodec

PROG = "python -m agents.evaluate"


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for the default ``z``)."""
    if games <= 0:
        raise ValueError("the interval needs at least one game")
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MatchResult:
    """How one agent fared over a match."""

    agent: str
    games: int
    wins: int
    """Games in which the agent was among the winners (a shared win counts)."""
    truncated: int

    @property
    def win_rate(self) -> float:
        """Wins per game."""
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    def __str__(self) -> str:
        low, high = self.interval
        games = f"{self.games} game" + ("" if self.games == 1 else "s")
        return f"{self.agent}: {self.win_rate:.1%} wins [{low:.1%}, {high:.1%}] over {games}"


ENGINES = ("auto", "fast", "reference")
"""Which engine :func:`play_game` uses: ``auto`` is the compiled one when it can serve (numba installed, no log)."""


def play_game(
    table: Sequence[Agent],
    seed: int,
    codec: ActionCodec | None = None,
    *,
    record_log: bool = False,
    engine: str = "auto",
    **rule_options,
) -> Game:
    """One game dealt with ``seed``, ``table[seat]`` playing each seat; returns the finished game.

    Each agent is reset with ``seed * 101 + seat`` first, so the game depends only on the deal and the seating.
    ``record_log`` keeps the game's log (needed for a :class:`~gubs_env.record.GameRecord`; slower, and only the
    reference engine keeps one). ``engine`` is one of :data:`ENGINES`; the compiled engine plays the same game
    about 1.4 times as fast when a heuristic agent is at the table (the agents' own time is the rest).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    for i, agent in enumerate(table):
        agent.reset(seed * 101 + i)
    fast = None if record_log or engine == "reference" else _fast_table(engine == "fast", **rule_options)
    if fast is not None:
        return _play_fast(table, seed, fast)
    n = len(table)
    codec = codec or ActionCodec(n)
    game = Game(n, seed=seed, record_log=record_log, **rule_options)
    while (seat := game.current_player) is not None:
        game.apply(codec.ask(table[seat], game))
    return game


@functools.lru_cache(maxsize=8)
def _fast_table(required: bool, **rule_options: Any) -> Any:
    """A one-game batch of the compiled engine for these rule options, reused; None if numba is missing."""
    try:
        from gubs_env.fast import FastGames
    except ImportError:
        if required:
            raise
        return None
    return FastGames(1, threads=1, **rule_options)


def _play_fast(table: Sequence[Agent], seed: int, games: Any) -> Game:
    """:func:`play_game` on the compiled engine; the finished position comes back as a reference game."""
    games.reset([seed], len(table))
    action = np.zeros(1, dtype=np.int64)
    while (seat := int(games.actor[0])) >= 0:
        # copies: an agent may keep what it was shown, and the batch's arrays are rewritten every step
        action[0] = table[seat].act(games.obs[0].copy(), games.mask[0].copy())
        games.step(action)
    return games.export_game(0, record_log=False)


def match(
    agent: Agent,
    opponent: Agent | Sequence[Agent],
    num_players: int = 2,
    games: int = 1000,
    seed: int = 0,
    progress: bool = False,
    **rule_options,
) -> MatchResult:
    """``agent`` against ``num_players - 1`` opponents, each deal replayed with the agent at every seat.

    Game ``g`` is dealt with seed ``seed + g // num_players`` and seats the agent at ``g % num_players``, so
    the luck of the deal cancels across seatings (exactly when ``games`` is a multiple of ``num_players``).
    ``opponent`` is one agent for every other seat or a list of ``num_players - 1`` agents.
    """
    others = list(opponent) if isinstance(opponent, Sequence) else [opponent] * (num_players - 1)
    if len(others) != num_players - 1:
        raise ValueError(f"need {num_players - 1} opponents, got {len(others)}")
    codec = ActionCodec(num_players)
    wins = truncated = 0
    for g in tqdm(range(games), desc=f"{agent.name} vs {others[0].name}", disable=not progress, leave=False):
        seat = g % num_players
        table = [*others[:seat], agent, *others[seat:]]
        game = play_game(table, seed + g // num_players, codec, **rule_options)
        wins += seat in game.winners()
        truncated += game.truncated
    return MatchResult(agent.name, games, wins, truncated)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluate A B [C ...]``: a tournament, each agent against a field of each other.

    Prints a line per pairing, then the pairings table, the payoff matrix and the ratings; ``--out DIR`` also
    writes tournament.csv, tournament.json and tournament.png, ``--records DIR`` every game as a JSON record.
    Exit status (see :mod:`gubs_env.cli`): 0 done; 2, with one line on stderr, for bad input (an agent that
    cannot be built, a model file that cannot be loaded, an output folder that cannot be written) before
    anything is played or written; 1 when an output cannot be written after all; 130 after Ctrl-C.
    """
    import sys

    from agents.registry import AgentSpecError
    from agents.tournament import run_tournament

    parser = _parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)
    deals = math.ceil(args.games / args.players)
    try:
        result = run_tournament(
            args.agents,
            num_players=args.players,
            deals=deals,
            seed=args.seed,
            jobs=args.jobs,
            progress=sys.stderr.isatty(),
            records_dir=args.records,
        )
    except AgentSpecError as err:  # raised while the agents are built, before any game
        parser.error(str(err))
    except OSError as err:  # a game record that could not be written after all (a full disk)
        return _failed(f"cannot write the game records: {err}")
    saved = []
    if args.out is not None:  # before printing: a reader that leaves early (``| head``) must not cost the files
        try:
            saved = result.save(args.out)
        except OSError as err:
            return _failed(f"cannot write the results to {args.out}: {err}")
    if result.games_per_pairing != args.games:
        print(
            f"--games {args.games} rounded up to {result.games_per_pairing} games per pairing: "
            f"whole deals of {args.players} games, one with the agent at each seat"
        )
    print("\n".join(p.summary() for p in result.pairings), end="\n\n")
    print(result.table())
    if saved:
        print("\nwrote " + ", ".join(str(path) for path in saved))
    if args.records is not None:
        print(f"wrote {len(result.games)} game records to {args.records}")
    return EXIT_OK


def _failed(message: str) -> int:
    """Report a failure met while running on one stderr line; returns :data:`~gubs_env.cli.EXIT_FAILURE`."""
    import sys

    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_FAILURE


def _parser() -> argparse.ArgumentParser:
    from gubs_env.cli import CommandParser, non_negative_int, player_count, positive_int

    parser = CommandParser(prog=PROG, description=main.__doc__)
    parser.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="two or more of: random, heuristic, ppo-2p, ppo-4p (add :sample to sample the policy), "
        "a .zip model, package.module:Class",
    )
    parser.add_argument("--players", type=player_count, default=2, help="seats per game (default 2)")
    parser.add_argument(
        "--games",
        type=positive_int,
        default=2000,
        help="games per pairing, rounded up to whole deals of PLAYERS games (default 2000)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal's seed (default 0)")
    parser.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="write tournament.csv, .json and .png into this folder")
    parser.add_argument(
        "--records", type=Path, metavar="DIR", help="save every game as a JSON game record into this folder"
    )
    return parser


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Argparse-style errors for what the argument types cannot see."""
    specs = [spec.strip() for spec in args.agents]
    if len(specs) < 2:
        parser.error(f"give at least two agents to compare, got {len(specs)}")
    repeated = sorted({spec for spec in specs if specs.count(spec) > 1})
    if repeated:
        parser.error(f"each agent may be given once; repeated: {', '.join(repeated)}")
    for flag, folder in (("--out", args.out), ("--records", args.records)):
        problem = folder is not None and unwritable_folder(folder)
        if problem:
            parser.error(f"{flag}: {problem}")
    if args.out is not None:
        from agents.tournament import CSV_NAME, JSON_NAME, PNG_NAME

        for name in (CSV_NAME, JSON_NAME, PNG_NAME):
            problem = unwritable_file(args.out / name)
            if problem:
                parser.error(f"--out: {problem}")


if __name__ == "__main__":
    import sys

    from gubs_env.cli import run_command

    sys.exit(run_command(main))
