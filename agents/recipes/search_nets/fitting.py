"""The search's networks, fitted on the compiled engine's heuristic games: the leaf value and the hand model.

``python -m agents.recipes.search_nets --games 300000 --out runs/search_nets`` plays ``--games`` whole games in
compiled code, the table sizes in turn, every seat the heuristic as the search's playouts play it (one seat, the
one whose positions are kept, with the tuned weights the searching seat plays out with, the others with the
default ones). Positions are kept at random decisions of each game (:data:`KEEP_EVERY` on average), each as that
seat's :func:`~agents.bots.search.value.leaf_features` (its observation and every other hand), labelled with the
value the search gives the game's end (:func:`~agents.bots.search.rollout.outcome_of`). Two networks are fitted:

- the value network (:func:`fit_value`), by least squares: the mean of that value over the draws still to come;
- the hand model (:func:`fit_hands`), by cross-entropy: from the observation alone, each other seat's share of
  each kind among its cards.

Each fit holds out the last tenth of the games (whole games, so no position of a held-out game is seen) and
reports its loss there beside the best constant's. The command writes ``value.npz`` and ``hands.npz`` (the
weights-only formats :data:`~agents.bots.search.value.VALUE` and :data:`~agents.bots.search.belief.HANDS`) and
``report.json`` (the settings and the figures) into ``--out``; copy the two networks to ``agents/bots/models/`` to
ship them.

``--playout selfplay-2p`` plays every seat with that network's playout policy instead, so that nothing hand-written
takes part, and fits only the network's own leaf value (``selfplay_2p_value.npz``, which ``selfplay-search:leaf=L``
reads).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from agents.bots.heuristic.decide import new_scratch
from agents.bots.heuristic.tables import TABLES
from agents.bots.heuristic.weights_file import load_weights
from agents.bots.model_file import save_network
from agents.bots.names import CATALOGUE, LEAF_VALUES, TUNED
from agents.bots.search.belief import HANDS
from agents.bots.search.playout_net import NO_NET, PlayoutNet, shipped_playout
from agents.bots.search.rollout import outcome_of, play_to_end, playout_scratch, win_of
from agents.bots.search.value import FEATURES, VALUE
from agents.bots.search.value import leaf_features as write_features
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import COPIES
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.fast import S_OVER, integers, reset_one, seed_pcg64
from gubs_env.fast import layout as L
from gubs_env.support.progress import progress_bar

if TYPE_CHECKING:
    import torch

PROG = "python -m agents.recipes.search_nets"
KEEP_EVERY = 24
"""A position is kept at one decision in this many, on average (neighbouring positions say nearly the same)."""
TARGETS = ("search", "win")
"""What a position is labelled with: the search's value of the game's end (:func:`outcome_of`), or whether the
seat won (:func:`win_of`: the luck-adjusted evaluation's value, :mod:`agents.evaluate.luck`)."""
CHUNK = 2000
"""Games per compiled call: small enough for a steady progress bar."""


@dataclass(frozen=True)
class FitSettings:
    """How the value network and the hand model are fitted."""

    value_hidden: tuple[int, ...] = (256, 128)
    """Widths of the value network's hidden layers (ReLU between them). It runs at every playout's leaf, about
    3 us a position on one core; (64, 32) costs a third of that and, fitted on 60,000 games, explained as much of
    the held-out outcomes (13.2% of their variance against 9.6%): not yet shipped (docs/search_bots.md)."""
    hands_hidden: tuple[int, ...] = (256, 128)
    """Widths of the hand model's hidden layers; it runs once per searched decision."""
    epochs: int = 6
    batch: int = 1024
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    held_out: float = 0.1
    """Share of the games, the last ones, kept out of the fit to measure it."""


@nb.njit(cache=True)
def record_games(
    seeds: np.ndarray,
    players: int,
    max_turns: int,
    uniform: int,
    ti: np.ndarray,
    tf_default: np.ndarray,
    tf_tuned: np.ndarray,
    keep_every: int,
    win_target: bool,
    features: np.ndarray,
    labels: np.ndarray,
    games: np.ndarray,
    net: PlayoutNet,
) -> int:
    """Play one game per seed, the heuristic (or ``net``) at every seat; keep positions of one seat with its outcome.

    Game ``j`` is dealt from ``seeds[j]``; its learned seat (``seeds[j] % players``) plays with ``tf_tuned`` (with a
    ``net`` every seat plays the net, and the tables are not read). At each decision the position is kept with
    probability ``1 / keep_every`` while ``features`` has room; its row of ``labels`` gets the seat's
    :func:`outcome_of` at the game's end (its :func:`win_of` with ``win_target``), its row of ``games`` the game's
    index.

    Returns:
        How many positions were kept.
    """
    obs, mask, g, r, tie = playout_scratch(L.ROW)
    raw, c, f, ids, scores = new_scratch()
    keep = np.empty(6, dtype=np.uint64)
    tfs = np.empty((L.SEATS, tf_default.shape[0]), dtype=tf_default.dtype)
    kept = 0
    for j in range(seeds.shape[0]):
        seat = int(seeds[j] % np.uint64(players))
        for s in range(L.SEATS):
            for i in range(tfs.shape[1]):
                tfs[s, i] = tf_tuned[i] if s == seat else tf_default[i]
        reset_one(g, r, seeds[j], players, max_turns, uniform)
        seed_pcg64(tie, seeds[j] ^ np.uint64(0x5EED))
        seed_pcg64(keep, seeds[j] ^ np.uint64(0xF00D))
        first = kept
        while g[L.STEP] != S_OVER:
            if kept < features.shape[0] and integers(keep, keep_every) == 0:
                write_features(g, seat, features[kept])
                games[kept] = j
                kept += 1
            play_to_end(g, r, tie, ti, tfs, obs, mask, raw, c, f, ids, scores, 1, net)
        value = win_of(g, seat) if win_target else outcome_of(g, seat)
        for i in range(first, kept):
            labels[i] = value
    return kept


@dataclass(frozen=True)
class Positions:
    """Positions with their outcomes, one row each, in the order of the games they came from.

    ``features`` float32 ``(m, FEATURES)``, ``labels`` float32 ``(m,)``, ``games`` int64 ``(m,)`` (the game's
    index), ``players`` int64 ``(m,)``.
    """

    features: np.ndarray
    labels: np.ndarray
    games: np.ndarray
    players: np.ndarray


def play_positions(
    games: int,
    player_counts: list[int],
    seed: int = 0,
    progress: bool = True,
    keep_every: int = KEEP_EVERY,
    target: str = "search",
    playout: PlayoutNet | None = None,
) -> Positions:
    """Play ``games`` games (the table sizes in turn, game ``i`` dealt from ``seed + i``) and keep positions.

    The heuristic plays every seat, or with a ``playout`` that playout policy does (nothing hand-written then). Each
    position is labelled with its game's :data:`TARGETS` value ``target``. Depends on the arguments only.
    """
    options = RuleOptions()
    uniform = LETTER_PLACEMENTS.index(options.letter_placement)
    tuned = load_weights(CATALOGUE[TUNED].path)
    chunks: list[Positions] = []
    bar = progress_bar(total=games, desc="positions", unit="game", disable=not progress)
    for start in range(0, games, CHUNK):
        parts: list[Positions] = []
        for slot, players in enumerate(player_counts):
            chosen = np.arange(start, min(start + CHUNK, games))
            chosen = chosen[chosen % len(player_counts) == slot]
            if chosen.size == 0:
                continue
            room = int(chosen.size * 400 / keep_every) + 64
            features = np.zeros((room, FEATURES), dtype=np.float32)
            labels = np.zeros(room, dtype=np.float32)
            index = np.zeros(room, dtype=np.int64)
            seeds = (np.uint64(seed) + chosen.astype(np.uint64)).astype(np.uint64)
            kept = record_games(
                seeds, players, options.max_turns, uniform, TABLES.ints, TABLES.floats, tuned.floats,
                keep_every, target == "win", features, labels, index, NO_NET if playout is None else playout,
            )  # fmt: skip
            players_of = np.full(kept, players, dtype=np.int64)
            parts.append(Positions(features[:kept], labels[:kept], chosen[index[:kept]], players_of))
            bar.update(chosen.size)
        chunk = _joined(parts)
        order = np.argsort(chunk.games, kind="stable")  # the chunk's games in order; a copy, so the rooms go
        chunks.append(Positions(*(getattr(chunk, name)[order] for name in Positions.__dataclass_fields__)))
    bar.close()
    return _joined(chunks)


def _joined(parts: list[Positions]) -> Positions:
    """The parts one after the other.

    It empties ``parts`` as it copies them, so that the positions are held once and a part at a time, not twice
    (600,000 games' positions take about 12 GB).
    """
    names = Positions.__dataclass_fields__
    total = sum(len(part.labels) for part in parts)
    joined = Positions(*(np.empty((total, *getattr(parts[0], n).shape[1:]), getattr(parts[0], n).dtype) for n in names))
    start = 0
    while parts:
        part = parts.pop(0)
        for name in names:
            getattr(joined, name)[start : start + len(part.labels)] = getattr(part, name)
        start += len(part.labels)
    return joined


@dataclass(frozen=True)
class FitReport:
    """How well a fitted network predicts the held-out games: its loss there beside the best constant's."""

    positions: int
    held_out_positions: int
    network_loss: float
    constant_loss: float
    """The loss of the best constant guess (the training targets' mean): for the value, the outcomes' variance."""
    seconds: float

    @property
    def explained(self) -> float:
        """1 - the network's loss / the constant's: for the value, the share of the outcomes' variance explained."""
        return 1.0 - self.network_loss / self.constant_loss


Loss = Callable[["torch.Tensor", "torch.Tensor"], "torch.Tensor"]
"""A fit's loss: (predictions, targets) of a batch -> the mean loss."""


def fit_mlp(
    inputs: np.ndarray, targets: np.ndarray, loss: Loss, baseline: np.ndarray, cut: int, fit: FitSettings, what: str,
    hidden: tuple[int, ...], seed: int, threads: int, progress: bool,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], FitReport]:  # fmt: skip
    """An MLP from ``inputs`` to ``baseline.size`` outputs, fitted on the rows before ``cut``.

    It is judged on the rows from ``cut`` on, beside ``baseline``: the best constant prediction (as outputs).
    """
    import torch

    from agents.bots.threads import set_torch_threads

    set_torch_threads(threads)
    torch.manual_seed(seed)
    start = time.perf_counter()
    x, y = torch.from_numpy(inputs), torch.from_numpy(targets)
    widths = (inputs.shape[1], *hidden)
    modules: list[torch.nn.Module] = []
    for width_in, width_out in itertools.pairwise(widths):
        modules += [torch.nn.Linear(width_in, width_out), torch.nn.ReLU()]
    network = torch.nn.Sequential(*modules, torch.nn.Linear(widths[-1], baseline.size))
    optimiser = torch.optim.Adam(network.parameters(), lr=fit.learning_rate, weight_decay=fit.weight_decay)
    generator = torch.Generator().manual_seed(seed)
    steps = fit.epochs * math.ceil(cut / fit.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=fit.learning_rate, total_steps=steps)
    bar = progress_bar(total=steps, desc=f"{what} fit", unit="batch", disable=not progress)
    for _epoch in range(fit.epochs):
        for rows in torch.randperm(cut, generator=generator).split(fit.batch):
            batch_loss = loss(network(x[rows]), y[rows])
            optimiser.zero_grad()
            batch_loss.backward()
            optimiser.step()
            schedule.step()
            bar.update()
        bar.set_postfix(loss=f"{batch_loss.item():.4f}")
    bar.close()
    with torch.no_grad():
        predicted = torch.cat([network(part) for part in x[cut:].split(8192)])
        constant = torch.from_numpy(baseline.astype(np.float32)).reshape(1, -1).expand_as(predicted)
        report = FitReport(
            positions=cut,
            held_out_positions=int(y.shape[0] - cut),
            network_loss=float(loss(predicted, y[cut:])),
            constant_loss=float(loss(constant, y[cut:])),
            seconds=time.perf_counter() - start,
        )
    linears = [m for m in network if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]
    return layers, report


def _held_out_start(data: Positions, fit: FitSettings) -> int:
    """The first row of the held-out games (the last ``held_out`` share of them, whole)."""
    return int(np.searchsorted(data.games, np.quantile(data.games, 1.0 - fit.held_out)))


def fit_value(
    data: Positions, fit: FitSettings | None = None, seed: int = 0, threads: int = 2, progress: bool = True
) -> tuple[list[tuple[np.ndarray, np.ndarray]], FitReport]:
    """Fit the value network to ``data`` by least squares; its layers (weights ``(out, in)``) and the report."""
    import torch

    def squared_error(predicted: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(predicted, target)

    fit = fit or FitSettings()
    cut = _held_out_start(data, fit)
    baseline = data.labels[:cut].mean(keepdims=True)
    return fit_mlp(
        data.features,
        data.labels[:, None],
        squared_error,
        baseline,
        cut,
        fit,
        "value",
        fit.value_hidden,
        seed,
        threads,
        progress,
    )


def hand_targets(data: Positions) -> np.ndarray:
    """float32 ``(m, 5, KINDS)``: each other relative seat's hand as counts, from the positions' features."""
    hands = data.features[:, OBS_SIZE:].reshape(-1, L.SEATS - 1, L.KINDS) * np.asarray(COPIES, dtype=np.float32)
    return np.rint(hands, out=hands)


def fit_hands(
    data: Positions, fit: FitSettings | None = None, seed: int = 0, threads: int = 2, progress: bool = True
) -> tuple[list[tuple[np.ndarray, np.ndarray]], FitReport]:
    """Fit the hand model: from a seat's observation, each other seat's share of each kind (cross-entropy per card).

    The loss is the mean over the other seats' cards of minus the log of the share the model gave the card's kind;
    the constant it is compared with gives every position the training positions' mean shares.
    """
    import torch

    def cross_entropy(predicted: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        counts = target.reshape(len(target), L.SEATS - 1, L.KINDS)
        log_shares = torch.log_softmax(predicted.reshape(counts.shape), dim=2)
        return -(counts * log_shares).sum() / counts.sum().clamp(min=1.0)

    fit = fit or FitSettings()
    hands = hand_targets(data)
    cut = _held_out_start(data, fit)
    mean_counts = hands[:cut].sum(axis=0)
    baseline = np.log(np.maximum(mean_counts / np.maximum(mean_counts.sum(axis=1, keepdims=True), 1.0), 1e-9))
    targets = hands.reshape(len(hands), -1)
    return fit_mlp(data.features[:, :OBS_SIZE], targets, cross_entropy, baseline.ravel(), cut, fit, "hands",
                fit.hands_hidden, seed, threads, progress)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from gubs_env.support.cli import CommandParser, add_progress_argument, non_negative_int, player_count, positive_int

    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 3, 4, 5, 6],
        help="table sizes, 2 to 6, in turn (default: 2 3 4 5 6)",
    )  # fmt: skip
    parser.add_argument("--games", type=positive_int, default=200_000, help="games to play in all (default: 200000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal's seed (default: 0)")
    parser.add_argument("--epochs", type=positive_int, default=FitSettings.epochs, help="passes over the positions "
                        f"(default: {FitSettings.epochs})")  # fmt: skip
    for what in ("value", "hands"):
        default = getattr(FitSettings, f"{what}_hidden")
        parser.add_argument(
            f"--{what}-hidden", type=positive_int, nargs="+", default=list(default), metavar="WIDTH",
            help=f"widths of the {what} network's hidden layers (default: {' '.join(map(str, default))})",
        )  # fmt: skip
    parser.add_argument(
        "--target", choices=TARGETS, default="search",
        help="the label: the search's value of the end (value.npz and hands.npz), or whether the seat won (only "
        "luck_value.npz, the luck-adjusted evaluation's value) (default: search)",
    )  # fmt: skip
    parser.add_argument(
        "--playout", choices=sorted(LEAF_VALUES), metavar="NETWORK",
        help="play every seat with this network's playout policy, nothing hand-written, and fit only its own leaf "
        f"value ({', '.join(CATALOGUE[name].file for name in LEAF_VALUES.values())}) (default: the heuristic)",
    )  # fmt: skip
    parser.add_argument("--threads", type=positive_int, default=2, help="torch threads for the fit (default: 2)")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for value.npz, hands.npz and report.json"
    )
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Play, fit, write the weights and the report; status 2 (one line) for a bad command line."""
    from gubs_env.support.cli import refuse_unwritable_out

    parser = build_parser()
    args = parser.parse_args(argv)
    refuse_unwritable_out(parser, args.out)
    fit = FitSettings(tuple(args.value_hidden), tuple(args.hands_hidden), epochs=args.epochs)
    started = time.perf_counter()
    playout = None if args.playout is None else shipped_playout(args.playout)
    data = play_positions(
        args.games, args.players, args.seed, not args.no_progress, target=args.target, playout=playout
    )
    played = time.perf_counter() - started
    print(f"{len(data.labels):,} positions from {args.games:,} games in {played:.0f} s")
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, object] = {
        "games": args.games, "players": args.players, "seed": args.seed, "keep_every": KEEP_EVERY,
        "fit": asdict(fit), "play_seconds": played, "target": args.target, "playout": args.playout,
    }  # fmt: skip
    fits = [
        ("value", fit_value, VALUE, "of the outcomes' variance explained"),
        ("hands", fit_hands, HANDS, "less cross-entropy per hidden card than the mean shares"),
    ]
    if args.target == "win":
        fits = [("luck_value", fit_value, VALUE, "of the wins' variance explained")]
    if args.playout is not None:
        own = Path(CATALOGUE[LEAF_VALUES[args.playout]].file).stem
        fits = [(own, fit_value, VALUE, "of the outcomes' variance explained")]
    for what, fitter, kind, words in fits:
        layers, report = fitter(data, fit, args.seed, args.threads, not args.no_progress)
        weights = save_network(args.out / f"{what}.npz", layers, "relu", kind)
        summary[what] = {**asdict(report), "explained": report.explained}
        print(
            f"{what}: held-out loss {report.network_loss:.4f} against {report.constant_loss:.4f} for a constant "
            f"({report.explained:.1%} {words}); {report.seconds:.0f} s to fit; {weights}"
        )
    (args.out / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    shipped = " ".join(f"{args.out}/{what}.npz" for what, *_ in fits)
    print(f"ship them: cp {shipped} agents/bots/models/")
    return 0
