"""Tune the heuristic's weights by play against it: ``python -m agents.recipes.tune_heuristic``.

The heuristic is a hand-written scoring of every legal action (:mod:`agents.bots.heuristic`) with 97 numbers
(:data:`~agents.bots.heuristic.tables.TUNABLE`): what a Gub, a card in hand or an answer is worth, how much the
end of the game weighs. Its rules stay; the numbers are searched with CMA-ES
(:mod:`~agents.recipes.tune_heuristic.cmaes`):

- each generation proposes ``--population`` weight sets; each plays the default heuristic at every other seat
  on the same fresh deals (``--games`` per table size) at every table size of ``--players`` (each deal at every
  seat), in compiled code
  (:mod:`agents.evaluate.duel`, several thousand games a second per core);
- a set's score is its win share times the player count (1.0 is an even share), averaged over the sizes, so
  every size counts alike whatever its chance;
- a set is the default plus ``SCALE`` times its coordinates, scale 0.3 of the default value plus 0.05, cut to
  the weight's range, so one unit moves every weight by about a third;
- every ``--validate-every`` generations the distribution's mean is played on validation deals apart from the
  tuning deals and from the tournaments' (seed 5,000,000 on); the best validated mean is kept as ``weights.json``.

The output folder holds ``weights.json`` (a weight set: spec ``PATH/weights.json`` plays it),
``progress.csv`` and ``tuning.png``. The shipped ``heuristic-tuned`` came from the command in docs/training.md.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.bots.heuristic.tables import SHARES, TABLES, TUNABLE, HeuristicTables, tables_with
from agents.bots.heuristic.weights_file import save_weights
from agents.evaluate.duel import rotated_shares
from agents.recipes.tune_heuristic.cmaes import CMAES
from gubs_env.support.cli import (
    CommandParser,
    add_progress_argument,
    cpu_count,
    jobs_or_cores,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
    unwritable_folder,
)
from gubs_env.support.progress import progress_bar

DEFAULTS = np.array([TABLES.floats[i] for i in TUNABLE.values()])
SCALE = 0.3 * np.abs(DEFAULTS) + 0.05
"""How far one unit of a coordinate moves each weight."""
UPPER = np.array([1.0 if name in SHARES else 100.0 for name in TUNABLE])
TUNING_SEED = 10_000_000
"""Generation ``g`` plays the deals from ``TUNING_SEED + 10_000 * g``."""
VALIDATION_SEED = 5_000_000
"""The validation deals: apart from the tuning deals, and from the tournaments' (seed 0 on)."""
TUNING_DEALS = {2: 600, 3: 200, 4: 200, 5: 100, 6: 100}
"""Deals per table size and weight set in a generation, each played at every seat: about 3,700 games."""
VALIDATION_DEALS = {2: 2000, 3: 600, 4: 600, 5: 400, 6: 400}
"""Deals per table size of a validation: about 12,000 games."""


def tables_at(coordinates: np.ndarray) -> HeuristicTables:
    """The weight set at ``coordinates`` (zero: the default heuristic)."""
    values = np.clip(DEFAULTS + SCALE * coordinates, 0.0, UPPER)
    return tables_with(dict(zip(TUNABLE, values.tolist(), strict=True)))


def relative_shares(candidates: list[HeuristicTables], deals: dict[int, int], seed: int, threads: int) -> np.ndarray:
    """``(len(candidates), len(deals))``: each set's win share times the player count at each table size."""
    out = np.zeros((len(candidates), len(deals)))
    for column, (players, count) in enumerate(deals.items()):
        shares = rotated_shares(candidates, players, count, seed=seed, threads=threads)
        out[:, column] = shares.mean(axis=1) * players
    return out


@dataclass
class Tuning:
    """One tuning run's settings (the command's flags)."""

    generations: int = 200
    population: int = 20
    sigma: float = 0.5
    deals: dict[int, int] | None = None
    """Deals per table size (default :data:`TUNING_DEALS`)."""
    validation_deals: dict[int, int] | None = None
    """Validation deals per table size (default :data:`VALIDATION_DEALS` at the sizes of ``deals``)."""
    validate_every: int = 10
    seed: int = 0
    threads: int = 1

    def run(self, out: Path, progress: bool = True) -> dict[str, float]:
        """Tune, writing ``out``'s files as it goes; returns the best validation's scores by table size."""
        deals = self.deals or TUNING_DEALS
        validation = self.validation_deals or {n: VALIDATION_DEALS[n] for n in deals}
        out.mkdir(parents=True, exist_ok=True)
        cma = CMAES(np.zeros(len(TUNABLE)), self.sigma, self.population, self.seed)
        history: list[dict[str, float]] = []
        best: dict[str, float] = {}
        bar = progress_bar(range(self.generations), desc="tuning", unit="gen", disable=not progress)
        start = time.monotonic()
        for generation in bar:
            candidates = cma.ask()
            scores = relative_shares(
                [tables_at(x) for x in candidates], deals, TUNING_SEED + 10_000 * generation, self.threads
            ).mean(axis=1)
            cma.tell(scores)
            row = {"generation": generation + 1, "best": scores.max(), "average": scores.mean(), "sigma": cma.sigma}
            if (generation + 1) % self.validate_every == 0 or generation + 1 == self.generations:
                mean = tables_at(cma.mean)
                by_size = relative_shares([mean], validation, VALIDATION_SEED, self.threads)[0]
                row |= {f"validation_{n}p": float(v) for n, v in zip(validation, by_size, strict=True)}
                row["validation"] = float(by_size.mean())
                if not best or row["validation"] > best["validation"]:
                    best = row
                    note = f"tune_heuristic: generation {generation + 1}, validation {row['validation']:.3f}"
                    save_weights(out / "weights.json", mean, note)
                left = (time.monotonic() - start) / (generation + 1) * (self.generations - generation - 1)
                bar.write(f"{_validation_line(row)}; about {left / 60:.0f} min left")
            history.append(row)
            _write_progress(out, history)
        _chart(out, history, validation)
        return best


def _validation_line(row: dict[str, float]) -> str:
    sizes = " ".join(f"{k.removeprefix('validation_')} {v:.3f}" for k, v in row.items() if k.startswith("validation_"))
    return f"generation {int(row['generation'])}: validation {row['validation']:.3f} (win share x players: {sizes})"


def _write_progress(out: Path, history: list[dict[str, float]]) -> None:
    names = list(dict.fromkeys(name for row in history for name in row))
    with open(out / "progress.csv", "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=names)
        writer.writeheader()
        writer.writerows(history)


def _chart(out: Path, history: list[dict[str, float]], validation: dict[int, int]) -> None:
    """``tuning.png``: each table size's validated score by generation (1.0: an even share)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in history if "validation" in row]
    fig, ax = plt.subplots(figsize=(7, 4))
    for n in validation:
        points = [r[f"validation_{n}p"] for r in rows]
        ax.plot([r["generation"] for r in rows], points, marker="o", label=f"{n} players")
    ax.axhline(1.0, color="grey", linestyle=":", label="the default heuristic's share")
    ax.set_xlabel("generation")
    ax.set_ylabel("win share x players vs heuristics")
    ax.set_title("Tuning the heuristic's weights (validation deals)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "tuning.png", dpi=110)
    plt.close(fig)


DEFAULT_OUT = Path("runs/heuristic-tuned")


def build_parser() -> CommandParser:
    """The command line."""
    games = ", ".join(f"{TUNING_DEALS[n] * n} at {n} players" for n in TUNING_DEALS)
    parser = CommandParser(
        prog="python -m agents.recipes.tune_heuristic",
        description="Tune the heuristic's weights by play against it (CMA-ES).",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--generations", type=positive_int, default=200, help="CMA-ES generations (default: 200)")
    parser.add_argument(
        "--population", type=positive_int, default=20, help="weight sets per generation, 4 or more (default: 20)"
    )
    parser.add_argument("--sigma", type=positive_float, default=0.5, help="the first step size (default: 0.5)")
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2, 3, 4, 5, 6],
        help="table sizes, 2 to 6 (default: 2 3 4 5 6)",
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        nargs="+",
        default=None,
        help="games per table size and weight set in a generation, one count per --players, each rounded up to "
        f"whole deals of PLAYERS games (default: {games})",
    )
    parser.add_argument(
        "--validate-every", type=positive_int, default=10, help="generations between validations (default: 10)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the sampling generator's seed (default: 0)")
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="threads of the compiled games (default: one per core)",
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.population < 4:
        parser.error("--population must be 4 or more")
    players = list(dict.fromkeys(args.players))
    if args.games is not None and len(args.games) != len(players):
        parser.error(f"--games needs one count per table size ({len(players)}), not {len(args.games)}")
    if args.games is None:
        deals = {n: TUNING_DEALS[n] for n in players}
    else:
        deals = {n: math.ceil(games / n) for n, games in zip(players, args.games, strict=True)}
    problem = unwritable_folder(args.out)
    if problem:
        parser.error(f"--out {args.out}: {problem}")
    tuning = Tuning(
        generations=args.generations,
        population=args.population,
        sigma=args.sigma,
        deals=deals,
        validate_every=args.validate_every,
        seed=args.seed,
        threads=min(jobs_or_cores(args.threads), cpu_count()),
    )
    start = time.monotonic()
    best = tuning.run(args.out, progress=not args.no_progress)
    print(f"done in {(time.monotonic() - start) / 60:.1f} min: {_validation_line(best)}")
    print(f"weights: {args.out / 'weights.json'} (play it as the agent spec {args.out / 'weights.json'})")
    return 0
