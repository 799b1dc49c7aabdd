"""Expert iteration's apprentice fitted to what the search measured, not only to what it chose.

``python benchmarks/search_targets.py --out runs/search-targets --games 1500 --betas 10 30 100 --eval-games 2000
--seed 7000000``:

1. labels (kept in ``OUT`` and reused): ``selfplay-search`` at one seat and ``selfplay-2p`` at the other, on the deals
   of the rounds' first round, blunders kept, as ``python -m agents.training.expert.rounds`` labels them (with the
   shipped playout policy where a round distils its own); and
   beside each searched decision, its candidates and each one's paired gain over the network's choice
   (``SearchAgent.last_gains``);
2. apprentices: the network fitted to the search's choice, one-hot (the rounds' own fit), and for each ``β`` of
   ``--betas`` to the target ``q ∝ π · exp(β · gain)``, where ``π`` is the network's own policy and ``gain`` a
   candidate's mean gain in win share over the network's choice (0 for the network's choice, for the other legal ids
   and for a candidate judged on fewer than the search's fewest worlds). Where the search measured nothing, the
   target is the network itself; a candidate moves up by its measured gain, not by whether it won;
3. each apprentice and the network against the heuristic on the same deals (``--eval-games`` each, seat-rotated,
   from ``--seed``), their difference paired by deal; each apprentice is kept as ``OUT/apprentice-*.npz``.

docs/results/selfplay-log.md ("Expert iteration from pure self-play") has the figures.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agents.bots.model_file import PolicyWeights, load_policy, save_policy
from agents.bots.names import SELFPLAY_SEARCH
from agents.bots.search.agent import MIN_WORLDS
from agents.bots.spec import AgentSpec
from agents.evaluate.paired import compare_agents
from agents.training.expert.labels import Labelling, SearchLabels, label_game, load_labels, save_labels, searcher_seat
from agents.training.expert.rounds import LABEL_SEED, actor_layers, fit_apprentice, torch_actor
from agents.training.search_nets.playout import network_file
from gubs_env.support.cli import (
    CommandParser,
    add_jobs_argument,
    jobs_or_cores,
    non_negative_int,
    positive_float,
    positive_int,
    run_command,
)
from gubs_env.support.progress import progress_bar

NETWORK = "selfplay-2p"
"""The network the search searches over and the apprentices start from."""
CHUNK = 10
"""Games a worker labels per task."""


class Recorder:
    """The search at its seat for :func:`label_game`, keeping each searched decision's candidates and gains."""

    def __init__(self, search: Any) -> None:
        self.search = search
        self.candidates: list[np.ndarray] = []
        self.gains: list[np.ndarray] = []

    def reset(self, seed: int | None = None) -> None:
        """Reset the search for a new game."""
        self.search.reset(seed)

    def decide(self, game: Any, codec: Any) -> tuple[int, np.ndarray]:
        """The search's choice and candidates; a searched decision's candidates and gains are kept, padded."""
        choice, candidates = self.search.decide(game, codec)
        if candidates.size > 1:  # the decisions label_game keeps, in its order
            top = self.search.settings.top
            self.candidates.append(np.pad(candidates, (0, top - candidates.size), constant_values=-1))
            self.gains.append(np.pad(self.search.last_gains, ((0, top - candidates.size), (0, 0))))
        return choice, candidates


_agents: tuple[Any, Any] | None = None


def _init_worker() -> None:
    """Build the worker's search and network once."""
    global _agents
    from agents.bots.registry import make_agent

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops the pool
    _agents = (make_agent(SELFPLAY_SEARCH), make_agent(NETWORK))


def _label(games: list[int]) -> dict[str, list]:
    """The labels, candidates and gains of ``games`` (game ``g`` dealt from ``LABEL_SEED + g``, as round one's)."""
    from agents.evaluate.tournament import limit_torch_threads

    assert _agents is not None
    limit_torch_threads()
    search, field = _agents
    out: dict[str, list] = {}
    for g in games:
        recorder = Recorder(search)
        rows = label_game(recorder, field, 2, LABEL_SEED + g, searcher_seat(g, 1, 2), Labelling(keep_blunders=True))
        rows.update(candidates=recorder.candidates, gains=recorder.gains, players=[2] * len(rows["actions"]))
        for name, values in rows.items():
            out.setdefault(name, []).extend(values)
    return out


def labels_and_gains(out: Path, games: int, jobs: int) -> tuple[SearchLabels, np.ndarray, np.ndarray]:
    """The labels of ``games`` games, with each decision's ``(N, top)`` candidates and ``(N, top, 3)`` gains."""
    labels_file, gains_file = out / "labels.npz", out / "gains.npz"
    if labels_file.exists() and gains_file.exists():
        with np.load(gains_file, allow_pickle=False) as kept:
            return load_labels(labels_file), kept["candidates"], kept["gains"]
    tasks = [list(range(start, min(start + CHUNK, games))) for start in range(0, games, CHUNK)]
    bar = progress_bar(total=games, desc="labels", unit="game")
    context = multiprocessing.get_context("spawn")  # forking a process with torch threads running can deadlock
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker) as pool:
        parts = []
        for task, part in zip(tasks, pool.map(_label, tasks), strict=True):  # in the tasks' order
            parts.append(part)
            bar.update(len(task))
    bar.close()
    rows = {name: [v for part in parts for v in part[name]] for name in parts[0]}
    labels = SearchLabels(
        observations=np.stack(rows["observations"]),
        masks=np.stack(rows["masks"]),
        actions=np.asarray(rows["actions"], dtype=np.int64),
        returns=np.asarray(rows["returns"], dtype=np.float32),
        base_actions=np.asarray(rows["base_actions"], dtype=np.int64),
        players=np.asarray(rows["players"], dtype=np.int64),
    )
    candidates, gains = np.stack(rows["candidates"]), np.stack(rows["gains"])
    assert len(candidates) == len(labels), "a searched decision without its gains"
    save_labels(labels_file, labels)
    np.savez_compressed(gains_file, candidates=candidates, gains=gains)
    return labels, candidates, gains


def mean_gains(candidates: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Each candidate's mean gain over the first, 0 where it was judged on fewer than ``MIN_WORLDS`` worlds."""
    n, total = gains[..., 0], gains[..., 1]
    judged = (n >= MIN_WORLDS) & (candidates >= 0)
    return np.where(judged, total / np.maximum(n, 1), 0.0)


def fit_to_gains(
    weights: PolicyWeights, labels: SearchLabels, candidates: np.ndarray, gains: np.ndarray, beta: float, seed: int
) -> tuple[list[tuple[np.ndarray, np.ndarray]], float, float]:
    """The network fitted to ``q ∝ π · exp(β · gain)`` (module docstring) with the rounds' epochs and step size.

    Returns its layers, and how often it plays the search's choice on the held-out tenth: at all, and where the
    search left the network's choice.
    """
    import torch

    torch.manual_seed(seed)
    actor = torch_actor(weights)
    observations = torch.from_numpy(labels.observations.astype(np.float32))
    masks = torch.from_numpy(labels.masks)
    with torch.no_grad():
        own = actor(observations).masked_fill(~masks, -1e9)
    bonus = torch.zeros_like(own)
    rows = np.arange(len(labels))[:, None].repeat(candidates.shape[1], axis=1)
    judged = candidates >= 0
    bonus[rows[judged], candidates[judged]] = torch.from_numpy(beta * mean_gains(candidates, gains)[judged]).float()
    targets = torch.softmax(own + bonus, dim=1)
    cut = len(labels) * 9 // 10
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-4)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        for batch in np.array_split(rng.permutation(cut), max(1, cut // 512)):
            log_policy = torch.log_softmax(actor(observations[batch]).masked_fill(~masks[batch], -1e9), dim=1)
            loss = -(targets[batch] * log_policy).sum(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        played = actor(observations[cut:]).masked_fill(~masks[cut:], -1e9).argmax(dim=1).numpy()
    same = played == labels.actions[cut:]
    corrected = labels.actions[cut:] != labels.base_actions[cut:]
    return actor_layers(actor), float(same.mean()), float(same[corrected].mean()) if corrected.any() else 0.0


def build_parser() -> CommandParser:
    """The command line of the comparison."""
    parser = CommandParser(
        prog="python benchmarks/search_targets.py",
        description="Fit expert iteration's apprentice to the search's measured gains and measure it.",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="the labels' and apprentices' folder")
    parser.add_argument("--games", type=positive_int, default=1500, help="games labelled (default: 1500)")
    parser.add_argument(
        "--betas", type=positive_float, nargs="+", default=[30.0], metavar="BETA", help="gain weights (default: 30)"
    )
    parser.add_argument(
        "--eval-games", type=positive_int, default=2000, help="games each apprentice plays (default: 2000)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=7_000_000, help="the first deal (default: 7000000)")
    add_jobs_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """One line on the labels, then one per apprentice."""
    args = build_parser().parse_args(argv)
    jobs = jobs_or_cores(args.jobs)
    args.out.mkdir(parents=True, exist_ok=True)
    labels, candidates, gains = labels_and_gains(args.out, args.games, jobs)
    judged = mean_gains(candidates, gains)[:, 1:]
    print(
        f"{len(labels):,} searched decisions, the search left the network's choice at {labels.corrected:,}; "
        f"largest mean gain a decision: median {np.median(judged.max(axis=1)):+.3f}",
        flush=True,
    )
    weights = load_policy(network_file(NETWORK))
    fits: list[tuple[str, Any]] = [("choice", None), *((f"beta{b:g}", b) for b in args.betas)]
    for name, beta in fits:
        if beta is None:
            layers, report = fit_apprentice(weights, labels, 4, 1e-4, 1, False)
            agreement, learnt = report.agreement_after, report.corrections_learnt
        else:
            layers, agreement, learnt = fit_to_gains(weights, labels, candidates, gains, beta, 1)
        path = save_policy(args.out / f"apprentice-{name}.npz", layers, weights.activation)
        result = compare_agents(
            AgentSpec.for_model_file(path), AgentSpec.parse(NETWORK), fields=["heuristic"],
            deals=-(-args.eval_games // 2), seed=args.seed, jobs=jobs, progress=False,
        )  # fmt: skip
        d = result.difference
        print(
            f"{name}: held-out labels {agreement:.1%}, corrections learnt {learnt:.1%}; against the heuristic "
            f"{result.rate:.1%} (network {result.other_rate:.1%}), {d.mean * 100:+.1f} pts "
            f"[{d.low * 100:+.1f}, {d.high * 100:+.1f}] over {d.deals} deals",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
