"""``python -m agents.evaluate.search_gap``: how far the search bot's sampled worlds judge from the true position.

The search bot (:mod:`agents.bots.search`) leaves its base policy's choice when its playouts in sampled worlds say
another candidate gains; here the base is the heuristic (``base=heuristic`` unless ``--search`` names another).
This command measures whether such gains are real. In heuristic-only games it stops at a share of the decisions
with two or more legal ids and plays every candidate of the search bot twice, on the same seed: in the bot's
sampled worlds (what its seat may know) and in the true position (the all-seeing variant's worlds: every hand and
the deck order, only the future shuffles redrawn). A candidate's *gain* is its mean paired value minus the base
choice's. The true gain is what playing the candidate is worth in that game; averaged over many positions, the
sampled gain must agree with it if the worlds are drawn as the real positions arise.

Printed: how well the sampled gains follow the true ones (correlation), their mean difference with a 95% interval
(the bias), what the candidates the worlds favour truly gain, and the action kinds that contribute most to the
bias.

>>> settings = SearchSettings(worlds=4, top=2, base="heuristic")
>>> pairs = collect_gaps(num_players=2, games=1, settings=settings, share=0.2, progress=False)
>>> all(p.alternative != p.choice for p in pairs)
True
"""

from __future__ import annotations

import math
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from agents.bots.heuristic import HeuristicAgent
from agents.bots.search.agent import AllSeeingSearchAgent, SearchAgent, SearchSettings
from agents.evaluate.matches import wants_progress
from gubs_env.encoding.action_table import ActionCodec, describe_id
from gubs_env.engine import Game
from gubs_env.support.cli import EXIT_OK, CommandParser, non_negative_int, player_count, positive_int, run_command

PROG = "python -m agents.evaluate.search_gap"
Z95 = 1.96


@dataclass(frozen=True)
class GapPair:
    """One alternative candidate at one decision: its gain over the heuristic's choice, sampled and true."""

    choice: int
    """The heuristic's id (the first candidate)."""
    alternative: int
    sampled_gain: float
    true_gain: float


def collect_gaps(
    num_players: int,
    games: int,
    settings: SearchSettings,
    share: float = 0.25,
    seed: int = 0,
    progress: bool | None = None,
) -> list[GapPair]:
    """Play ``games`` heuristic-only games and compare the two gains at about ``share`` of their choices.

    Args:
        num_players: 2 to 6.
        games: deals ``seed`` to ``seed + games - 1``.
        settings: the search bot's settings (its worlds, candidates and belief).
        share: the chance that a decision with two or more candidates is measured.
        seed: the first deal; also seeds which decisions are measured and the worlds.
        progress: show a bar (``None``: when the output is a terminal).
    """
    picker = np.random.default_rng(seed)
    codec = ActionCodec(num_players)
    pairs: list[GapPair] = []
    for deal in tqdm(range(seed, seed + games), unit="game", disable=not wants_progress(progress)):
        game = Game(num_players, seed=deal, record_log=False)
        players = [HeuristicAgent(seed=deal * 101 + s) for s in range(num_players)]
        sampled, true = SearchAgent(settings=settings), AllSeeingSearchAgent(settings=settings)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            candidates = sampled.candidates(game, seat, codec)
            if candidates.size > 1 and picker.random() < share:
                pairs += _gaps(game, seat, candidates, sampled, true, int(picker.integers(2**62)))
            game.apply(codec.action(players[seat].act_in_game(game, codec), seat))
    return pairs


def _gaps(
    game: Game, seat: int, candidates: np.ndarray, sampled: SearchAgent, true: SearchAgent, seed: int
) -> list[GapPair]:
    gains = []
    for searcher in (sampled, true):
        values = searcher.playout_values(game, seat, candidates, seed)
        gains.append((values[:, 1:] - values[:, :1]).mean(axis=0))
    return [
        GapPair(int(candidates[0]), int(candidates[k + 1]), float(gains[0][k]), float(gains[1][k]))
        for k in range(candidates.size - 1)
    ]


def _mean_interval(values: np.ndarray) -> str:
    if values.size < 2:
        return f"{values.mean():+.3f}" if values.size else "—"
    half = Z95 * values.std(ddof=1) / math.sqrt(values.size)
    return f"{values.mean():+.3f} ± {half:.3f}"


def action_kind(action_id: int) -> str:
    """An id's card use without its target (``Sud Spout → seat +1`` and ``→ seat +2`` are one kind)."""
    text = re.sub(r"seat \+\d", "another seat", describe_id(action_id))
    return text.split(":")[0]


def report(pairs: Sequence[GapPair], rows: int = 8) -> str:
    """The summary and the table of the kinds that contribute most to the bias, as Markdown."""
    if not pairs:
        return "no decision was measured: play more games or raise --share\n"
    sampled = np.array([p.sampled_gain for p in pairs])
    true = np.array([p.true_gain for p in pairs])
    favoured = sampled > 0
    correlation = float(np.corrcoef(sampled, true)[0, 1]) if sampled.std() > 0 and true.std() > 0 else float("nan")
    lines = [
        f"- candidates compared with the heuristic's choice: {len(pairs):,}",
        f"- correlation of sampled and true gains: {correlation:.3f}",
        f"- mean gain, sampled: {_mean_interval(sampled)}; true: {_mean_interval(true)}",
        f"- bias (sampled minus true, 95%): {_mean_interval(sampled - true)}",
        f"- candidates the sampled worlds favour (gain > 0): {int(favoured.sum()):,}, "
        f"their true gain {_mean_interval(true[favoured])}",
        "",
        "| heuristic's choice | alternative | pairs | sampled gain | true gain | bias |",
        "|---|---|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        groups[(action_kind(p.choice), action_kind(p.alternative))].append(i)
    ranked = sorted(groups.items(), key=lambda kv: -abs(float((sampled - true)[kv[1]].sum())))
    for (choice, alternative), members in ranked[:rows]:
        index = np.array(members)
        lines.append(
            f"| {choice} | {alternative} | {index.size} | {sampled[index].mean():+.3f} | {true[index].mean():+.3f} "
            f"| {_mean_interval(sampled[index] - true[index])} |"
        )
    return "\n".join(lines) + "\n"


def _parser() -> CommandParser:
    parser = CommandParser(
        prog=PROG,
        description="Compare the search bot's gains in sampled worlds with its gains on the true position.",
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size (default 2)")
    parser.add_argument("--games", type=positive_int, default=30, help="heuristic-only games (default 30)")
    parser.add_argument(
        "--search",
        default="worlds=64,top=4,base=heuristic",
        help="search settings (default worlds=64,top=4,base=heuristic)",
    )
    parser.add_argument("--share", type=float, default=0.25, help="share of decisions measured (default 0.25)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="first deal (default 0)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns its exit status."""

    def run() -> int:
        args = _parser().parse_args(argv)
        try:
            settings = SearchSettings.parse(args.search)
        except ValueError as error:
            _parser().error(str(error))
        if not 0 < args.share <= 1:
            _parser().error(f"--share must be in (0, 1], not {args.share:g}")
        pairs = collect_gaps(args.players, args.games, settings, args.share, args.seed)
        print(f"{args.players} players, {args.games} games, search {settings.spec()}\n")
        print(report(pairs), end="")
        return EXIT_OK

    return run_command(run)


if __name__ == "__main__":
    sys.exit(main())
