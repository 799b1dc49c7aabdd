"""Head-to-head evaluation: seat-rotated games between agents, win rates with Wilson intervals.

Games run on the engine directly (no environment wrappers), with each agent seeing exactly what the
environments would show it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm import tqdm

from agents.base import Agent
from gubs_env.engine import Game
from gubs_env.envs.action_table import ActionCodec
from gubs_env.envs.observation import encode


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
        return f"{self.agent}: {self.win_rate:.1%} wins [{low:.1%}, {high:.1%}] over {self.games} games"


def play_game(table: Sequence[Agent], seed: int, codec: ActionCodec | None = None, **rule_options) -> Game:
    """One game with ``table[seat]`` playing each seat; returns the finished game."""
    n = len(table)
    codec = codec or ActionCodec(n)
    game = Game(n, seed=seed, record_log=False, **rule_options)
    for i, agent in enumerate(table):
        agent.reset(seed * 101 + i)
    while not game.is_over:
        seat = game.current_player
        mask = codec.mask(game.legal_actions(), seat)
        game.apply(codec.action(int(table[seat].act(encode(game.state, seat), mask)), seat))
    return game


def match(
    agent: Agent,
    opponent: Agent | Sequence[Agent],
    num_players: int = 2,
    games: int = 1000,
    seed: int = 0,
    progress: bool = False,
    **rule_options,
) -> MatchResult:
    """``agent`` against ``num_players - 1`` opponents, its seat rotating from game to game.

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
        game = play_game(table, seed + g, codec, **rule_options)
        wins += seat in game.winners()
        truncated += game.truncated
    return MatchResult(agent.name, games, wins, truncated)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluate AGENT OPPONENT --players N --games G``: one seat-rotated match."""
    import argparse
    import sys

    from agents.registry import AgentSpecError, make_agent
    from gubs_env.cli import non_negative_int, player_count, positive_int

    parser = argparse.ArgumentParser(prog="python -m agents.evaluate", description=main.__doc__)
    parser.add_argument("agent", help="random, heuristic, ppo-2p, ppo-4p or a .zip model")
    parser.add_argument("opponent", help="the same choices; it plays every other seat")
    parser.add_argument("--players", type=player_count, default=2)
    parser.add_argument("--games", type=positive_int, default=2000)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    args = parser.parse_args(argv)
    try:
        agent, opponent = make_agent(args.agent, args.seed), make_agent(args.opponent, args.seed + 1)
    except AgentSpecError as err:
        parser.error(str(err))
    result = match(agent, opponent, args.players, args.games, args.seed, progress=sys.stderr.isatty())
    print(f"{args.players} players, {args.agent} against {args.opponent} at every other seat: {result}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
