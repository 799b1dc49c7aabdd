"""The sequential mode on bots whose rates are known: its coverage, the deals it uses, and a second control variate.

    python benchmarks/sequential_coverage.py --games 6000 --outcomes docs/results/sequential-outcomes.npz
    python benchmarks/sequential_coverage.py --outcomes docs/results/sequential-outcomes.npz --repeats 2000

The first run plays, at 2 players against the heuristic at the other seat, ``--games`` games on fresh deals (from
``--seed``), each deal at both seatings, for each of ``gubs-net``, ``heuristic``, ``heuristic-tuned`` and
``random``, measures every game's luck (8 worlds, as tournaments do), and keeps each game's result and luck in
``--outcomes``. A file that exists is read instead: the simulation costs no games.

The pool of recorded deals is then the known world: each bot's true rate is its pool mean. Each of ``--repeats``
simulated tournaments draws deals from the pool with replacement, in rounds of ``--round``, and runs the sequential
mode (:mod:`agents.evaluate.sequential`) until its question is answered or ``--most`` deals (1,000: the fixed
2,000-game tournament) are played. Printed per question (``width=5``: every rate to ±5 points; ``better``: gubs-net
against the heuristic, a 10-point gap; plain results and luck-adjusted ones): the median and quartiles of the deals
used, how often the question was answered and answered right, and the coverage: the share of runs whose sequence held
the true value when they stopped, and the share whose sequence held it at every look up to ``--most`` deals. The
pool's luck is centred (each seat's mean luck taken out) so that, as in the real world, it has mean 0 and the
adjusted values the plain values' mean.

Last, the second control variate: the heuristic playing the same deal from the agent's seat. Its adjusted result is
known in mean (its rate against itself), and on the same cards it may correlate with the agent's: the interval of
``adjusted - c (heuristic adjusted - its mean)`` (``c`` fitted on the other half of the deals) is compared with the
luck-adjusted one's and the plain one's, with the CPU time each costs. docs/evaluation.md ("Sequential evaluation")
has the figures.
"""

from __future__ import annotations

import math
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from agents.bots.registry import make_agent
from agents.evaluate.luck import LuckEstimator, LuckSettings
from agents.evaluate.matches import play_game
from agents.evaluate.sequential import StopRule
from gubs_env.support.cli import CommandParser, non_negative_int, positive_int, run_command

AGENTS = ("gubs-net", "heuristic", "heuristic-tuned", "random")
"""The bots recorded against the heuristic: ``heuristic`` is also the control variate's game for every other."""
FIRST_SEED = 3_000_000
"""Deals no measurement of the project used before."""
POOL = Path("docs/results/sequential-outcomes.npz")
"""The pool recorded for docs/evaluation.md ("Sequential evaluation"), from the repository's root."""


def record(deals: int, seed: int) -> dict[str, np.ndarray]:
    """Per bot: each game's result and luck at 2 players against the heuristic, deal by deal and seat by seat."""
    estimator = LuckEstimator(LuckSettings(worlds=8))
    out: dict[str, np.ndarray] = {}
    seconds: dict[str, list[float]] = {}
    for name in AGENTS:
        agent, field = make_agent(name, seed=0), make_agent("heuristic", seed=1)
        results = np.zeros((deals, 2))
        luck = np.zeros((deals, 2))
        played = adjusted = 0.0
        for d in range(deals):
            for seat in range(2):
                table = [agent, field] if seat == 0 else [field, agent]
                ids: list[int] = []
                start = time.process_time()
                game = play_game(table, seed + d, played=ids)
                between = time.process_time()
                measured = estimator.game(2, seed + d, ids)
                played += between - start
                adjusted += time.process_time() - between
                results[d, seat] = float(seat in game.winners())
                luck[d, seat] = measured.luck[seat]
        out[f"{name}.results"], out[f"{name}.luck"] = results, luck
        seconds[name] = [played, adjusted]
        print(f"recorded {name}: {deals} deals, {played:.0f} s playing and {adjusted:.0f} s adjusting (CPU)")
    out["seconds"] = np.array([seconds[name] for name in AGENTS])
    return out


def deal_values(pool: dict[str, np.ndarray], name: str, adjusted: bool) -> np.ndarray:
    """Each deal's mean value over its two seatings: the result, or the result less its (centred) luck.

    The adjustment here uses the whole luck (scale 1): the sequential mode's predictable scale is near 1 for
    these bots, and the simulation then needs no refit per run.
    """
    results = pool[f"{name}.results"]
    if not adjusted:
        return results.mean(axis=1)
    luck = pool[f"{name}.luck"] - pool[f"{name}.luck"].mean(axis=0)
    return (results - luck).mean(axis=1)


def simulate(values: np.ndarray, truth: float, rule: StopRule, rng: np.random.Generator) -> tuple:
    """One sequential run on deals drawn from ``values``.

    Returns the deals used, whether the question was answered, whether the sequence held the truth when it stopped,
    whether it said the first agent is better, and whether it held the truth at every look up to the most deals (the
    run played on to them).
    """
    shrink = 0.25 if rule.question == "width" else 1.0
    drawn = values[rng.integers(len(values), size=rule.most)]
    stopped = None
    always = True
    for stop in range(rule.round_deals, rule.most + 1, rule.round_deals):
        s = rule.sequence(drawn[:stop], shrink)
        always = always and s.low <= truth <= s.high
        done = s.half_width <= rule.half_width if rule.question == "width" else (s.low > 0 or s.high < 0)
        if stopped is None and (done or stop == rule.most):
            stopped = (stop, done, s.low <= truth <= s.high, s.low > 0)
    assert stopped is not None
    return (*stopped, always)


def questions(pool: dict[str, np.ndarray], rounds: int, most: int, repeats: int, seed: int) -> list[str]:
    """The sequential mode's figures per question, as Markdown rows."""
    rng = np.random.default_rng(seed)
    rows = []
    cases = [("width=5", name, False) for name in AGENTS] + [("better", "gubs-net", True)]
    for text, name, paired in cases:
        for adjusted in (False, True):
            values = deal_values(pool, name, adjusted)
            if paired:  # the difference on the same deals; centred luck keeps the plain difference as its mean
                values = values - deal_values(pool, "heuristic", adjusted)
            truth = float(deal_values(pool, name, False).mean())
            if paired:
                truth -= float(deal_values(pool, "heuristic", False).mean())
            rule = replace(StopRule.parse(text, rounds), most=most)
            runs = [simulate(values, truth, rule, rng) for _ in range(repeats)]
            used = np.array([r[0] for r in runs])
            answered = np.mean([r[1] for r in runs])
            covered = np.mean([r[2] for r in runs])
            always = np.mean([r[4] for r in runs])
            right = f"{np.mean([r[3] for r in runs if r[1]]):.1%}" if paired and answered else "—"
            q1, median, q3 = np.percentile(used, [25, 50, 75])
            label = f"{name} {'less heuristic' if paired else 'vs heuristic'} ({truth:+.1%})"
            rows.append(
                f"| {text} | {label} | {'adjusted' if adjusted else 'plain'} | {median:.0f} [{q1:.0f}, {q3:.0f}] "
                f"| {answered:.1%} | {right} | {covered:.1%} | {always:.1%} |"
            )
    return rows


def control_variate(pool: dict[str, np.ndarray], name: str) -> str:
    """The interval's width with the heuristic's game from the same seat and deal as a second control variate."""
    plain = pool[f"{name}.results"]
    adjusted = plain - (pool[f"{name}.luck"] - pool[f"{name}.luck"].mean(axis=0))
    heuristic = pool["heuristic.results"] - (pool["heuristic.luck"] - pool["heuristic.luck"].mean(axis=0))
    deals = len(plain)
    folds = np.arange(deals) % 2
    controlled = np.empty(deals)
    for fold in (0, 1):  # c fitted on the other fold's deals: no deal's scale depends on itself
        x, y = heuristic[folds != fold].mean(axis=1), adjusted[folds != fold].mean(axis=1)
        c = float(np.mean((x - x.mean()) * (y - y.mean())) / np.var(x)) if np.var(x) > 0 else 0.0
        mean_h = float(heuristic.mean())  # known in mean: the heuristic against itself (a large run)
        controlled[folds == fold] = adjusted[folds == fold].mean(axis=1) - c * (
            heuristic[folds == fold].mean(axis=1) - mean_h
        )
    widths = [2 * 1.96 * float(np.std(v, ddof=1)) / math.sqrt(deals) for v in (plain.mean(axis=1),
              adjusted.mean(axis=1), controlled)]  # fmt: skip
    correlation = float(np.corrcoef(adjusted.mean(axis=1), heuristic.mean(axis=1))[0, 1])
    luck = pool[f"{name}.luck"].mean(axis=1)
    bias = 1.96 * float(np.std(luck, ddof=1)) / math.sqrt(deals)
    ratios = [f"{w / widths[0]:.2f}×" if widths[0] > 0 else "—" for w in widths[1:]]
    return (
        f"| {name} | {deals} | {ratios[0]} | {ratios[1]} | {correlation:+.2f} "
        f"| {100 * float(luck.mean()):+.1f} [{100 * (float(luck.mean()) - bias):+.1f}, "
        f"{100 * (float(luck.mean()) + bias):+.1f}] |"
    )


def read_pool(parser: CommandParser, path: Path) -> dict[str, np.ndarray]:
    """A recorded pool, read as data (no pickles); one line and status 2 for a file that is not one."""
    keys = {"seconds", *(f"{name}.{what}" for name in AGENTS for what in ("results", "luck"))}
    try:
        with np.load(path, allow_pickle=False) as stored:
            pool = {key: np.asarray(stored[key], dtype=np.float64) for key in stored.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        parser.error(f"--outcomes: {path} is not a recorded pool: {str(err)[:80]}")
    shapes = {pool[key].shape for key in keys - {"seconds"} if key in pool}
    if set(pool) != keys or len(shapes) != 1 or next(iter(shapes))[1:] != (2,):
        parser.error(f"--outcomes: {path} is not a recorded pool (its arrays: {sorted(pool)[:6]})")
    return pool


def build_parser() -> CommandParser:
    """The command line."""
    parser = CommandParser(prog="python benchmarks/sequential_coverage.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--outcomes",
        type=Path,
        default=POOL,
        metavar="FILE",
        help=f"the recorded pool (.npz; recorded when absent) (default: {POOL})",
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        default=6000,
        help="games recorded per bot, rounded up to whole deals of 2 games (default: 6000)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=FIRST_SEED, help=f"the first deal recorded (default: {FIRST_SEED})"
    )
    parser.add_argument("--repeats", type=positive_int, default=2000, help="simulated runs per row (default: 2000)")
    parser.add_argument("--round", type=positive_int, default=20, help="deals between two looks (default: 20)")
    parser.add_argument("--most", type=positive_int, default=1000, help="the most deals a run plays (default: 1000)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Record the pool (or read it), then print the sequential mode's figures and the control variate's."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.outcomes.exists():
        pool = read_pool(parser, args.outcomes)
    else:
        pool = record(math.ceil(args.games / 2), args.seed)
        args.outcomes.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.outcomes, **pool)
    most = args.round * max(1, args.most // args.round)
    print(
        f"\n{len(pool['heuristic.results'])} recorded deals per bot at 2 players against the heuristic; "
        f"{args.repeats} runs per row, a look every {args.round} deals, at most {most} deals\n"
    )
    level = replace(StopRule(round_deals=args.round), most=most).level()
    print(f"(the sequences' level for this schedule of looks: {level:.3f}; agents.evaluate.sequential)\n")
    print(
        "| question | true value | values | deals used, median [quartiles] | answered | right | coverage at the stop "
        "| held at every look |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(questions(pool, args.round, most, args.repeats, args.seed)))
    print(
        "\nThe heuristic's game from the agent's seat as a second control variate (widths over the plain interval's):\n"
    )
    print("| agent vs heuristic | deals | luck-adjusted | and the heuristic's game | correlation | mean luck, pts |")
    print("|---|---:|---:|---:|---:|---|")
    print("\n".join(control_variate(pool, name) for name in AGENTS if name != "heuristic"))
    played, adjusted = pool["seconds"].sum(axis=0)
    print(
        f"\nCPU time of the recording: playing {played:.0f} s, adjusting {adjusted:.0f} s ({adjusted / played:.2f}× "
        "playing); the heuristic's game from the agent's seat adds its own game and adjustment to each agent's"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
