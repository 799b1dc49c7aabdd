"""Expert iteration from pure self-play: rounds of search, labels and fit, each round from the last round's network.

``python -m agents.training.expert.rounds --network selfplay-2p --rounds 2 --out runs/expert-selfplay`` starts from
a network (a shipped name or a model file) and plays, in each round ``r`` (folder ``OUT/round-r``):

1. ``playout.npz``: the network's playout policy, distilled from the network on its own games
   (:mod:`agents.training.search_nets.playout`);
2. ``labels.npz``: ``selfplay-search`` over the network (its candidates, that playout policy) at one seat and the
   network at the other, every searched decision labelled with the search's choice, blunders kept
   (:mod:`agents.training.expert.labels`);
3. ``policy.npz``: the apprentice, the network fitted to the labels by cross-entropy from its own weights;
4. ``eval.json``: the apprentice and the round's network, each against the heuristic on the same deals, and their
   difference paired by deal (:mod:`agents.evaluate.paired`).

The apprentice is the next round's network. No hand-written bot takes part in steps 1 to 3; the heuristic is only
the yardstick of step 4. Each step writes its file atomically and ``rounds.json`` records it with its seconds and
CPU seconds (its worker processes included), so a killed run goes on from the step it was in, given the same
settings (other settings are refused in one line).
"""

from __future__ import annotations

import json
import resource
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from agents.bots.model_file import PolicyWeights, load_policy, save_network, save_policy
from agents.bots.names import SELFPLAY_SEARCH
from agents.bots.search.playout_net import PLAYOUT, load_playout
from agents.training.search_nets.fitting import FitSettings
from agents.training.search_nets.playout import distill, network_argument, network_decisions, network_file
from gubs_env.support.files import write_atomically

PROG = "python -m agents.training.expert.rounds"
STEPS = ("playout", "labels", "policy", "eval")
"""A round's steps, in order: each is done once its file (``<step>.npz``, ``eval.json``) is recorded."""
LABEL_SEED = 3_100_000
"""Round ``r`` labels the deals from ``LABEL_SEED + 100_000 (r - 1)``: apart from the tournaments' and each other's."""
EVAL_SEED = 889_000
"""The deals every round is measured on (the same for all rounds, so that rounds compare on the same deals)."""


class RoundsError(ValueError):
    """A rounds folder that cannot be resumed with these settings, or a network that cannot start one (one line)."""


@dataclass(frozen=True)
class RoundSettings:
    """What a run of rounds does; ``rounds.json`` keeps them, and a resumed run must give the same."""

    network: str = "selfplay-2p"
    """The first round's network: a shipped network or a ``.npz``/``.zip`` model file."""
    rounds: int = 1
    players: int = 2
    games: int = 1500
    """Games labelled per round."""
    search: str = SELFPLAY_SEARCH
    """The search spec: a ``rollout=base`` search, whose base network and playout policy each round replaces."""
    playout_games: int = 10_000
    hidden: int = 64
    """Each round's playout policy's hidden units: the rounds were measured with 64, narrower than the shipped
    playout policy's (:data:`~agents.training.search_nets.playout.HIDDEN`), which plays a game 1.6 times slower."""
    epochs: int = 4
    learning_rate: float = 1e-4
    """The fit's step size. Of 3e-5, 1e-4, 3e-4 and 1e-3 on round one's labels, 1e-4 and 1e-3 gained most (+0.9 pts
    each); the smaller keeps more of the network's own choices (docs/results/selfplay-log.md)."""
    eval_games: int = 1000
    """Games each of the apprentice and the round's network plays against the heuristic, seat-rotated on the same
    deals (``eval_games / players`` deals, as ``python train.py --eval-games`` counts them)."""
    seed: int = 1


@dataclass(frozen=True)
class Apprentice:
    """How closely the fitted network plays the labels, before and after the fit, on the held-out tenth."""

    agreement_before: float
    agreement_after: float
    corrections_learnt: float
    """Of the held-out decisions where the search left the network's choice, the share the apprentice plays as the
    search did (0 before the fit, by definition): how much of the search's gain can reach it."""
    losses: list[float]


def fit_apprentice(
    weights: PolicyWeights, labels: Any, epochs: int, learning_rate: float, seed: int, progress: bool
) -> tuple[list[tuple[np.ndarray, np.ndarray]], Apprentice]:
    """The network ``weights`` fitted to the search's choices in ``labels`` (cross-entropy over the legal ids).

    The last tenth of the labels is held out: the report gives how often the network plays the search's choice
    there before and after. The layers come back shaped as ``weights``' (``(out, in)``).
    """
    import torch

    from agents.training.imitation.demonstrations import fit

    torch.manual_seed(seed)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[weights.activation]
    modules: list[torch.nn.Module] = []
    for index, (weight, bias) in enumerate(weights.layers):
        linear = torch.nn.Linear(weight.shape[1], weight.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(np.array(weight)))
            linear.bias.copy_(torch.from_numpy(np.array(bias)))
        modules += [linear] if index == len(weights.layers) - 1 else [linear, activation()]
    actor = torch.nn.Sequential(*modules)
    cut = len(labels) * 9 // 10
    train, held = _rows(labels, slice(0, cut)), _rows(labels, slice(cut, None))

    corrected = held.actions != held.base_actions

    def agreement() -> tuple[float, float]:
        with torch.no_grad():
            logits = actor(torch.from_numpy(held.observations.astype(np.float32)))
            logits = logits.masked_fill(~torch.from_numpy(held.masks), -1e9)
            same = logits.argmax(dim=1).numpy() == held.actions
            return float(same.mean()), float(same[corrected].mean()) if corrected.any() else 0.0

    before, _ = agreement()
    fitted = fit(
        actor.parameters(),
        lambda obs: (actor(obs), torch.zeros(len(obs))),  # the policy alone: a shipped policy file has no critic
        train,
        epochs=epochs,
        seed=seed,
        progress=progress,
        learning_rate=learning_rate,
    )
    linears = [m for m in actor if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]
    return layers, Apprentice(before, *agreement(), fitted.losses)


def _rows(labels: Any, rows: slice) -> Any:
    """The labels of ``rows``, as the same type."""
    return type(labels)(**{f.name: getattr(labels, f.name)[rows] for f in fields(labels) if f.name != "games"})


class Rounds:
    """A run of rounds in its folder: its settings, what each step recorded, and the steps still to do."""

    def __init__(self, out: Path, settings: RoundSettings, progress: bool = True, jobs: int = 1) -> None:
        self.out, self.settings, self.progress, self.jobs = out, settings, progress, jobs
        self.record_file = out / "rounds.json"
        self.record: dict[str, Any] = {"settings": asdict(settings), "steps": {}}
        if self.record_file.exists():
            try:
                record = json.loads(self.record_file.read_text())
                recorded_settings = record["settings"]
                recorded_steps = dict(record["steps"])
            except (ValueError, KeyError, TypeError) as err:
                raise RoundsError(f"{self.record_file}: not a rounds record ({err})") from None
            if recorded_settings != asdict(settings):
                raise RoundsError(f"{out} holds rounds with other settings: give the same, or another --out")
            self.record["steps"] = recorded_steps

    def run(self) -> list[dict[str, Any]]:
        """Every step not yet recorded, in order; the rounds' evaluations."""
        for number in range(1, self.settings.rounds + 1):
            for step in STEPS:
                key = f"round-{number}/{step}"
                if key in self.record["steps"]:
                    continue
                started, cpu = time.perf_counter(), _cpu_seconds()
                summary = getattr(self, f"_{step}")(number)
                self.record["steps"][key] = {
                    **summary, "seconds": time.perf_counter() - started, "cpu_seconds": _cpu_seconds() - cpu,
                }  # fmt: skip
                write_atomically(self.record_file, (json.dumps(self.record, indent=2) + "\n").encode())
                print(f"{key}: {_describe(step, self.record['steps'][key])}", flush=True)
        return [self.record["steps"][f"round-{n}/eval"] for n in range(1, self.settings.rounds + 1)]

    def folder(self, number: int) -> Path:
        """Round ``number``'s folder."""
        return self.out / f"round-{number}"

    def network(self, number: int) -> Path:
        """The file of round ``number``'s network: the first one given, then each round's apprentice."""
        return network_file(self.settings.network) if number == 1 else self.folder(number - 1) / "policy.npz"

    def _playout(self, number: int) -> dict[str, Any]:
        s = self.settings
        weights = load_policy(self.network(number))
        data = network_decisions(weights, [s.players], s.playout_games, s.seed, self.progress)
        _net, layers, report = distill(data, s.hidden, FitSettings(), s.seed, 1, self.progress)
        save_network(self.folder(number) / "playout.npz", layers, "relu", PLAYOUT)
        return {"decisions": len(data.games), "agreement": report.agreement}

    def _labels(self, number: int) -> dict[str, Any]:
        from agents.training.expert.labels import Labelling, label, save_labels

        s = self.settings
        network = (load_policy(self.network(number)), load_playout(self.folder(number) / "playout.npz"))
        labels = label(
            s.search, [s.players], s.games, LABEL_SEED + 100_000 * (number - 1), self.jobs, self.progress,
            Labelling(keep_blunders=True), network=network,
        )  # fmt: skip
        save_labels(self.folder(number) / "labels.npz", labels)
        return {"labels": len(labels), "corrected": labels.corrected}

    def _policy(self, number: int) -> dict[str, Any]:
        from agents.training.expert.labels import load_labels

        s = self.settings
        weights = load_policy(self.network(number))
        labels = load_labels(self.folder(number) / "labels.npz")
        layers, report = fit_apprentice(weights, labels, s.epochs, s.learning_rate, s.seed, self.progress)
        save_policy(self.folder(number) / "policy.npz", layers, weights.activation)
        return asdict(report)

    def _eval(self, number: int) -> dict[str, Any]:
        from agents.bots.spec import AgentSpec
        from agents.evaluate.paired import compare_agents

        s = self.settings
        apprentice = AgentSpec.for_model_file(self.folder(number) / "policy.npz")
        base = AgentSpec.parse(s.network) if number == 1 else AgentSpec.for_model_file(self.network(number))
        deals = -(-s.eval_games // s.players)
        result = compare_agents(
            apprentice, base, fields=["heuristic"], num_players=s.players, deals=deals, seed=EVAL_SEED,
            jobs=self.jobs, progress=self.progress,
        )  # fmt: skip
        d = result.difference
        return {
            "games": result.games, "apprentice": result.rate, "network": result.other_rate,
            "difference": d.mean, "low": d.low, "high": d.high,
        }  # fmt: skip


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the label workers)."""
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in usage)


def _describe(step: str, summary: dict[str, Any]) -> str:
    """One line on a finished step."""
    took = f"({summary['seconds']:.0f} s, {summary['cpu_seconds'] / 3600:.2f} CPU-hours)"
    if step == "playout":
        return f"playout policy plays the network's choice at {summary['agreement']:.1%} of held-out decisions {took}"
    if step == "labels":
        corrected = summary["corrected"]
        return f"{summary['labels']:,} labelled decisions, the search left the network's choice at {corrected:,} {took}"
    if step == "policy":
        return (
            f"apprentice plays the search's choice at {summary['agreement_after']:.1%} of held-out labels "
            f"({summary['agreement_before']:.1%} before), at {summary['corrections_learnt']:.1%} of those where the "
            f"search left the network's choice {took}"
        )
    return (
        f"against the heuristic over {summary['games']:,} games each: apprentice {summary['apprentice']:.1%}, "
        f"network {summary['network']:.1%}, difference {summary['difference'] * 100:+.1f} pts "
        f"[{summary['low'] * 100:+.1f}, {summary['high'] * 100:+.1f}] {took}"
    )


def build_parser():
    """The command line."""
    from gubs_env.support.cli import CommandParser, add_jobs_argument, add_progress_argument, player_count, positive_int

    defaults = RoundSettings()
    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("--network", default=defaults.network, metavar="NETWORK",
                        help=f"the first round's network, shipped or a file (default: {defaults.network})")  # fmt: skip
    parser.add_argument("--rounds", type=positive_int, default=defaults.rounds, help="rounds (default: 1)")
    parser.add_argument(
        "--players", type=player_count, default=defaults.players, help="table size, 2 to 6 (default: 2)"
    )
    parser.add_argument("--games", type=positive_int, default=defaults.games,
                        help=f"games labelled per round (default: {defaults.games})")  # fmt: skip
    parser.add_argument("--eval-games", type=positive_int, default=defaults.eval_games,
                        help=f"games each network plays when measured (default: {defaults.eval_games})")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="the rounds' folder (resumed if there)")
    add_jobs_argument(parser)
    add_progress_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the rounds not yet done; status 2 (one line) for a bad command line or a folder of other rounds."""
    from gubs_env.support.cli import jobs_or_cores, refuse_unwritable_out

    parser = build_parser()
    args = parser.parse_args(argv)
    refuse_unwritable_out(parser, args.out)
    network_argument(parser, args.network)
    settings = RoundSettings(
        network=args.network, rounds=args.rounds, players=args.players, games=args.games, eval_games=args.eval_games
    )
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        rounds = Rounds(args.out, settings, not args.no_progress, jobs_or_cores(args.jobs))
    except RoundsError as err:
        parser.error(str(err))
    rounds.run()
    return 0


if __name__ == "__main__":
    from gubs_env.support.cli import run_command

    raise SystemExit(run_command(main))
