"""A network's playout policy, distilled from the network on positions of its own games.

``python -m agents.recipes.search_nets.playout --network selfplay-2p --players 2 --out runs/playout`` plays
``--games`` whole games in compiled batches with the network at every seat, sampling from its policy as self-play
does, and keeps the decisions with more than one legal id (one in :data:`KEEP_EVERY`, at random). Each is labelled
with the network's policy over its legal ids. A :class:`~agents.bots.search.playout_net.PlayoutNet` (one ReLU hidden
layer of ``--hidden`` units) is fitted to it by cross-entropy; the last tenth of the games is held out, on which the
report gives the fit's cross-entropy beside the uniform policy's and how often the playout policy's choice is the
network's own (the largest logit among the legal ids). Nothing here reads a hand-written bot: the positions, the
labels and the fit come from the network alone.

The command writes ``playout.npz`` (:data:`~agents.bots.search.playout_net.PLAYOUT`) and ``report.json``; ship the
policy of a shipped network by copying it to ``agents/bots/models/`` under the name its catalogue entry gives.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from agents.bots.model_file import ModelFileError, PolicyWeights, load_policy, save_network
from agents.bots.names import NETWORKS
from agents.bots.ppo import policy_logits, sample_masked
from agents.bots.search.playout_net import PLAYOUT, PlayoutNet, net_logits
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.recipes.search_nets.fitting import FitReport, FitSettings, fit_mlp
from gubs_env.support.progress import progress_bar

PROG = "python -m agents.recipes.search_nets.playout"
KEEP_EVERY = 3
"""A decision is kept with probability one in this many (neighbouring positions say nearly the same)."""
BATCH = 512
"""Games played side by side, one forward pass of the network for all of them a step."""
HIDDEN = 256
"""The hidden units of a playout policy, the shipped one's: on 1,100 deals its search won about 2 points more than
with 64 units, at 1.6 times the time a game (docs/search_bots.md)."""


@dataclass(frozen=True)
class Decisions:
    """Kept decisions: observations, legal ids and the network's policy over them, and the game of each."""

    observations: np.ndarray
    """float32 ``(m, OBS_SIZE)``."""
    masks: np.ndarray
    """bool ``(m, NUM_ACTIONS)``."""
    policy: np.ndarray
    """float32 ``(m, NUM_ACTIONS)``: the network's probability of each id, 0 where it is illegal."""
    games: np.ndarray
    """int64 ``(m,)``: the game each decision comes from, in increasing order."""


@dataclass(frozen=True)
class DistillReport:
    """How close the playout policy is to its network on the held-out games."""

    fit: FitReport
    """Cross-entropy to the network's policy, beside the uniform policy's over the legal ids."""
    agreement: float
    """Share of the held-out decisions where the playout policy's choice is the network's most likely id."""


def network_decisions(weights: PolicyWeights, players: list[int], games: int, seed: int, progress: bool) -> Decisions:
    """Play ``games`` games with the network at every seat (table sizes in turn) and keep a share of its decisions.

    Game ``g`` is dealt with seed ``seed + g``; one generator seeded ``seed`` draws the network's ids and which
    decisions are kept.
    """
    from gubs_env.fast import FastGames

    rng = np.random.default_rng(seed)
    parts: list[tuple[np.ndarray, ...]] = []
    bar = progress_bar(total=games, desc="network games", unit="game", disable=not progress, leave=False)
    for start in range(0, games, BATCH):
        ids = np.arange(start, min(start + BATCH, games), dtype=np.int64)
        table = FastGames(len(ids))
        table.reset(seed + ids, [players[g % len(players)] for g in ids])
        rows = np.flatnonzero(table.actor >= 0)
        while rows.size:
            observations, masks = table.obs[rows], table.mask[rows] != 0
            logits = np.where(masks, policy_logits(weights, observations), -np.inf)
            chosen = sample_masked(logits, masks, rng)
            keep = (masks.sum(axis=1) > 1) & (rng.random(rows.size) < 1.0 / KEEP_EVERY)
            if keep.any():
                shifted = np.exp(logits[keep] - logits[keep].max(axis=1, keepdims=True))
                policy = (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)
                parts.append((observations[keep].astype(np.float32), masks[keep], policy, ids[rows[keep]]))
            step = np.full(len(ids), -1, dtype=np.int64)
            step[rows] = chosen
            table.step(step)
            rows = rows[table.actor[rows] >= 0]
        bar.update(len(ids))
    bar.close()
    observations, masks, policy, game_of = (np.concatenate(column) for column in zip(*parts, strict=True))
    order = np.argsort(game_of, kind="stable")
    return Decisions(observations[order], masks[order], policy[order], game_of[order])


def network_file(name: str) -> Path:
    """The model file of the network spec ``name``: a shipped network's, or a model file's (the spec grammar's).

    Raises:
        ModelFileError: ``name`` is no agent spec, or one that plays no network of its own.
    """
    try:
        path = AgentSpec.parse(name).model_file
    except AgentSpecError as err:
        raise ModelFileError(str(err)) from None
    if path is None:
        raise ModelFileError(f"{name} is not a network: name a shipped one or a .npz or .zip model file")
    return path


def network_to_distil(name: str) -> PolicyWeights:
    """The network spec ``name`` (shipped, or a model file), read as data.

    Raises:
        ModelFileError: no network, a file that cannot be read safely, or a network that reads the rule facts (the
            playouts encode none).
    """
    weights = load_policy(network_file(name))
    if weights.rule_facts:
        raise ModelFileError(f"{name} reads the rule facts: the playouts encode none, so it has no playout policy")
    return weights


def network_argument(parser: argparse.ArgumentParser, name: str) -> PolicyWeights:
    """The network ``--network`` names (:func:`network_to_distil`), or the parser's one-line error."""
    try:
        return network_to_distil(name)
    except (ModelFileError, OSError) as err:
        parser.error(f"--network: {err}")


def distill(
    data: Decisions, hidden: int, fit: FitSettings | None = None, seed: int = 0, threads: int = 2, progress: bool = True
) -> tuple[PlayoutNet, list[tuple[np.ndarray, np.ndarray]], DistillReport]:
    """Fit a playout policy of ``hidden`` units to the network's policy in ``data``; the net, its layers, the report."""
    import torch

    legal = data.masks.shape[1]

    def cross_entropy(predicted: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        policy, mask = target[:, :legal], target[:, legal:]
        log_policy = torch.log_softmax(predicted.masked_fill(mask == 0, -1e9), dim=1)
        return -(policy * log_policy.masked_fill(mask == 0, 0.0)).sum(dim=1).mean()

    fit = fit or FitSettings()
    cut = int(np.searchsorted(data.games, np.quantile(data.games, 1.0 - fit.held_out)))
    targets = np.concatenate([data.policy, data.masks.astype(np.float32)], axis=1)
    layers, report = fit_mlp(
        data.observations, targets, cross_entropy, np.zeros(legal), cut, fit, "playout", (hidden,), seed, threads,
        progress,
    )  # fmt: skip
    net = PlayoutNet.from_layers(tuple(layers))
    held_out = slice(cut, None)
    mine = np.where(data.masks[held_out], net_logits(net, data.observations[held_out]), -np.inf).argmax(axis=1)
    agreement = float((mine == data.policy[held_out].argmax(axis=1)).mean())
    return net, layers, DistillReport(report, agreement)


def build_parser():
    """The command line."""
    from gubs_env.support.cli import CommandParser, add_progress_argument, non_negative_int, player_count, positive_int

    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument(
        "--network", required=True, metavar="NETWORK",
        help=f"the network to distil: a shipped one ({', '.join(NETWORKS)}) or a .npz/.zip model file",
    )  # fmt: skip
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2],
        metavar="N",
        help="table sizes, 2 to 6, in turn (default: 2)",
    )
    parser.add_argument(
        "--games", type=positive_int, metavar="N", default=20_000, help="games to play (default: 20000)"
    )
    parser.add_argument(
        "--hidden", type=positive_int, metavar="N", default=HIDDEN, help=f"hidden units (default: {HIDDEN})"
    )
    parser.add_argument("--epochs", type=positive_int, metavar="N", default=FitSettings.epochs,
                        help="passes over the decisions "
                        f"(default: {FitSettings.epochs})")  # fmt: skip
    parser.add_argument(
        "--seed", type=non_negative_int, metavar="N", default=0, help="the first deal's seed (default: 0)"
    )
    parser.add_argument(
        "--threads", type=positive_int, metavar="N", default=2, help="torch threads for the fit (default: 2)"
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for playout.npz and report.json")
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Play, distil, write the policy and the report; status 2 (one line) for a bad command line."""
    from gubs_env.support.cli import refuse_unwritable_out

    parser = build_parser()
    args = parser.parse_args(argv)
    refuse_unwritable_out(parser, args.out)
    weights = network_argument(parser, args.network)
    started = time.perf_counter()
    data = network_decisions(weights, args.players, args.games, args.seed, not args.no_progress)
    played = time.perf_counter() - started
    print(f"{len(data.games):,} decisions from {args.games:,} games in {played:.0f} s")
    fit = FitSettings(epochs=args.epochs)
    _net, layers, report = distill(data, args.hidden, fit, args.seed, args.threads, not args.no_progress)
    args.out.mkdir(parents=True, exist_ok=True)
    written = save_network(args.out / "playout.npz", layers, "relu", PLAYOUT)
    summary = {
        "network": args.network, "players": args.players, "games": args.games, "hidden": args.hidden,
        "seed": args.seed, "keep_every": KEEP_EVERY, "fit": asdict(fit), "play_seconds": played,
        "report": asdict(report), "explained": report.fit.explained,
    }  # fmt: skip
    (args.out / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"playout: held-out cross-entropy {report.fit.network_loss:.4f} against {report.fit.constant_loss:.4f} for "
        f"the uniform policy; its choice is the network's in {report.agreement:.1%} of held-out decisions; "
        f"{report.fit.seconds:.0f} s to fit; {written}"
    )
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
