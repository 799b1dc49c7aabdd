"""``python -m agents.evaluate.search_gap``: how far the search bot's sampled worlds judge from the real position.

The search bot (:mod:`agents.bots.search`) leaves its base policy's choice when its playouts in sampled worlds say
another candidate gains; here the base is the heuristic (``base=heuristic`` unless ``--search`` names another).
This command measures whether such gains are real. In heuristic-only games it stops at a share of the decisions
with two or more legal ids and plays every candidate of the search bot, on the same futures, in three sets of
worlds. A candidate's *gain* is its mean paired value minus the base choice's.

- **sampled**: the bot's own worlds, drawn from what its seat may know.
- **fair**: the yardstick. The true hands and table, with the deck dealt anew in each of ``redeals`` worlds
  (:func:`~gubs_env.engine.positions.determinize.redeal_deck`): the gain's expectation over the deck orders the
  true position leaves possible, with its standard error. This is what a perfect judge of the position could
  know; a sampler that draws the hands as they arise agrees with it on average.
- **one deck**: the true position with its own deck order (the all-seeing search's worlds). On one deck order a
  move's gain is mostly the luck of the next cards (Draw against Decline above all), so even a perfect judge
  correlates weakly with it; it is printed beside the fair one for contrast.

Printed: how well the sampled gains follow the fair ones (correlation, and the correlation the fair estimates'
own noise allows), their mean difference with a 95% interval (the bias), what the candidates the worlds favour
gain by the yardstick, the one-deck figures, and the action kinds that contribute most to the bias.

>>> settings = SearchSettings(worlds=4, top=2, base="heuristic")
>>> pairs = collect_gaps(num_players=2, games=1, settings=settings, share=0.2, redeals=8, progress=False)
>>> all(p.alternative != p.choice for p in pairs)
True
"""

from __future__ import annotations

import math
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from agents.bots.heuristic import HeuristicAgent
from agents.bots.search.agent import AllSeeingSearchAgent, HandsSeeingSearchAgent, SearchAgent, SearchSettings
from agents.evaluate.matches import wants_progress
from gubs_env.encoding.action_table import ActionCodec, describe_id
from gubs_env.engine import Game
from gubs_env.support.cli import (
    EXIT_OK,
    CommandParser,
    add_progress_argument,
    non_negative_int,
    player_count,
    positive_int,
    run_command,
)
from gubs_env.support.progress import progress_bar

PROG = "python -m agents.evaluate.search_gap"
Z95 = 1.96


@dataclass(frozen=True)
class GapPair:
    """One alternative candidate at one decision: its gain over the base policy's choice in each set of worlds."""

    choice: int
    """The base policy's id (the first candidate: the heuristic's with ``base=heuristic``)."""
    alternative: int
    sampled_gain: float
    """In the search bot's sampled worlds."""
    fair_gain: float
    """Over the true hands with the deck dealt anew: the yardstick."""
    fair_error: float
    """The standard error of :attr:`fair_gain` (its worlds' spread over the square root of their number)."""
    true_gain: float
    """On the true position and its one deck order."""
    sampled_spread: float
    """The standard deviation of the paired difference in one sampled world: the noise a world adds to the gain."""


def collect_gaps(
    num_players: int,
    games: int,
    settings: SearchSettings,
    share: float = 0.25,
    seed: int = 0,
    progress: bool | None = None,
    redeals: int = 256,
) -> list[GapPair]:
    """Play ``games`` heuristic-only games and compare the two gains at about ``share`` of their choices.

    Args:
        num_players: 2 to 6.
        games: deals ``seed`` to ``seed + games - 1``.
        settings: the search bot's settings (its worlds, candidates and belief).
        share: the chance that a decision with two or more candidates is measured.
        seed: the first deal; also seeds which decisions are measured and the worlds.
        progress: show a bar (``None``: when the output is a terminal).
        redeals: worlds of the fair yardstick per decision (deck orders dealt anew).
    """
    picker = np.random.default_rng(seed)
    codec = ActionCodec(num_players)
    pairs: list[GapPair] = []
    for deal in progress_bar(range(seed, seed + games), unit="game", disable=not wants_progress(progress)):
        game = Game(num_players, seed=deal, record_log=False)
        players = [HeuristicAgent(seed=deal * 101 + s) for s in range(num_players)]
        sampled, true = SearchAgent(settings=settings), AllSeeingSearchAgent(settings=replace(settings, leaf=0))
        # the yardsticks play every playout to the end, whatever the searcher's leaves
        fair = HandsSeeingSearchAgent(settings=replace(settings, worlds=redeals, leaf=0))
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            candidates = sampled.candidates(game, seat, codec)
            if candidates.size > 1 and picker.random() < share:
                pairs += _gaps(game, seat, candidates, (sampled, fair, true), int(picker.integers(2**62)))
            game.apply(codec.action(players[seat].act_in_game(game, codec), seat))
    return pairs


def _gaps(
    game: Game, seat: int, candidates: np.ndarray, searchers: tuple[SearchAgent, ...], seed: int
) -> list[GapPair]:
    """Each alternative's gain in the worlds of the sampled, fair and one-deck searchers, on the same futures."""
    sampled, fair, true = (searcher.playout_values(game, seat, candidates, seed) for searcher in searchers)
    sampled_differences = sampled[:, 1:] - sampled[:, :1]
    differences = fair[:, 1:] - fair[:, :1]
    errors = differences.std(axis=0, ddof=1) / math.sqrt(len(differences))
    return [
        GapPair(
            choice=int(candidates[0]),
            alternative=int(candidates[k + 1]),
            sampled_gain=float(sampled_differences[:, k].mean()),
            sampled_spread=float(sampled_differences[:, k].std(ddof=1)) if len(sampled) > 1 else 0.0,
            fair_gain=float(differences[:, k].mean()),
            fair_error=float(errors[k]),
            true_gain=float((true[:, k + 1] - true[:, 0]).mean()),
        )
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


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1]) if x.size > 1 and x.std() > 0 and y.std() > 0 else float("nan")


def report(pairs: Sequence[GapPair], rows: int = 8) -> str:
    """The summary and the table of the kinds that contribute most to the bias, as Markdown."""
    if not pairs:
        return "no decision was measured: play more games or raise --share\n"
    sampled = np.array([p.sampled_gain for p in pairs])
    fair = np.array([p.fair_gain for p in pairs])
    errors = np.array([p.fair_error for p in pairs])
    true = np.array([p.true_gain for p in pairs])
    spread = np.array([p.sampled_spread for p in pairs])
    favoured = sampled > 0
    correlation = _correlation(sampled, fair)
    # the yardstick's own noise weakens any correlation with it by the square root of its reliability
    reliability = 1 - float(np.mean(errors**2)) / float(fair.var()) if fair.var() > 0 else float("nan")
    corrected = correlation / math.sqrt(reliability) if reliability > 0 else float("nan")
    lines = [
        f"- candidates compared with the base's choice: {len(pairs):,}",
        f"- correlation of sampled and fair gains: {correlation:.3f} (corrected for the yardstick's own noise: "
        f"{corrected:.3f}; its reliability {reliability:.3f}, mean standard error {errors.mean():.4f})",
        f"- mean gain, sampled: {_mean_interval(sampled)}; fair: {_mean_interval(fair)}",
        f"- spread of a paired difference in one sampled world (root mean square): {math.sqrt(np.mean(spread**2)):.4f}",
        f"- bias (sampled minus fair, 95%): {_mean_interval(sampled - fair)}",
        f"- candidates the sampled worlds favour (gain > 0): {int(favoured.sum()):,}, "
        f"their fair gain {_mean_interval(fair[favoured])}",
        f"- one deck order, for contrast: correlation with the sampled gains {_correlation(sampled, true):.3f}, "
        f"with the fair gains {_correlation(fair, true):.3f} (what a perfect judge scores on one deal); "
        f"mean gain {_mean_interval(true)}",
        "",
        "| base's choice | alternative | pairs | sampled gain | fair gain | bias (sampled - fair) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        groups[(action_kind(p.choice), action_kind(p.alternative))].append(i)
    bias = sampled - fair
    ranked = sorted(groups.items(), key=lambda kv: -abs(float(bias[kv[1]].sum())))
    for (choice, alternative), members in ranked[:rows]:
        index = np.array(members)
        lines.append(
            f"| {choice} | {alternative} | {index.size} | {sampled[index].mean():+.3f} | {fair[index].mean():+.3f} "
            f"| {_mean_interval(bias[index])} |"
        )
    return "\n".join(lines) + "\n"


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(
        prog=PROG,
        description="Compare the search bot's gains in sampled worlds with a fair yardstick: the expected gains "
        "over the deck orders the true hands leave possible.",
    )
    parser.add_argument("--players", type=player_count, default=2, help="table size, 2 to 6 (default: 2)")
    parser.add_argument("--games", type=positive_int, default=30, help="heuristic-only games (default: 30)")
    parser.add_argument(
        "--search",
        default="worlds=64,top=4,base=heuristic",
        metavar="SETTINGS",
        help="search settings (default: worlds=64,top=4,base=heuristic)",
    )
    parser.add_argument("--share", type=float, default=0.25, help="share of decisions measured (default: 0.25)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    parser.add_argument(
        "--redeals",
        type=positive_int,
        default=256,
        help="deck orders dealt anew per measured decision, for the fair yardstick (default: 256)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns its exit status."""

    def run() -> int:
        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            settings = SearchSettings.parse(args.search)
        except ValueError as error:
            parser.error(str(error))
        if not 0 < args.share <= 1:
            parser.error(f"--share must be in (0, 1], not {args.share:g}")
        progress = not args.no_progress
        if args.redeals < 2:
            parser.error("--redeals must be at least 2 (the yardstick states its own error)")
        pairs = collect_gaps(args.players, args.games, settings, args.share, args.seed, progress, args.redeals)
        print(f"{args.players} players, {args.games} games, search {settings.spec()}, {args.redeals} deck orders\n")
        print(report(pairs), end="")
        return EXIT_OK

    return run_command(run)


if __name__ == "__main__":
    sys.exit(main())
