"""The paired diagnostic: on the same batches of a run's games, the advantages with plain and luck-adjusted returns.

Run on a self-play run folder that holds a checkpoint::

    python benchmarks/luck_returns_paired.py RUN_DIR [BATCHES] [WORLDS ...]

It plays BATCHES batches (default 12) of the run's own batch size with the checkpoint's policy, on deals no run
uses, and for each batch prints the gradient agreement (``grad_cosine``) and the spread of the advantages with the
plain returns and with luck-adjusted ones at each number of re-dealt decks (default 16), the luck judged by the
shipped luck network and by the run's own critic (``--luck-value critic``). The share of the luck taken
off is the slope fitted on the batches before (the first batch uses its own), as a run does. Its output for the
figures of docs/training.md is in docs/results/selfplay/luck-returns/paired-*.txt.
"""

import io
import sys
from pathlib import Path

import numpy as np
import torch

from agents.evaluate.luck import LuckEstimator, LuckSettings, ObservationValue
from agents.training.core.config import PoolConfig, TrainingConfig
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.runs import read_checkpoint
from agents.training.core.seating import Seating
from agents.training.loop import load_state, stored_config
from agents.training.native.learner import Learner, ValueNorm, advantages, gradient_agreement
from agents.training.native.luck_returns import luck_after, luck_rewards, luck_slope


def agreement_and_spread(learner: Learner, batch: Batch, lam: float, gamma: float) -> tuple[float, float]:
    """The batch's ``grad_cosine`` and the standard deviation of its advantages, with ``batch.rewards`` as set."""
    adv = advantages(batch, batch.values, lam, gamma)
    normalized = torch.from_numpy(((adv - adv.mean()) / (adv.std() + 1e-8)).astype(np.float32))
    tensors = {
        "obs": learner.inputs(batch.obs),
        "masks": torch.from_numpy(batch.masks),
        "actions": torch.from_numpy(batch.actions),
    }
    return gradient_agreement(learner.model, tensors, batch.game, normalized), float(adv.std())


def checkpoint_learner(run: Path) -> tuple[TrainingConfig, Learner]:
    """A native run's config, and a learner holding its checkpoint's networks and value statistics (read as data)."""
    state = load_state(run)
    config = stored_config(state, run).resolved()
    learner = Learner(config)
    saved = torch.load(io.BytesIO(read_checkpoint(run, state)), weights_only=True)
    learner.model.load_state_dict(saved["model"])
    learner.value_norm = ValueNorm.from_state([float(v) for v in saved["value_norm"]])
    return config, learner


def main() -> None:
    """Print each batch's figures, then their means with standard errors."""
    run = Path(sys.argv[1])
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    worlds = [int(w) for w in sys.argv[3:]] or [16]
    torch.set_num_threads(1)
    config, learner = checkpoint_learner(run)
    games, lam, gamma = config.envs or 1, config.gae_lambda or 0.98, config.gamma or 1.0
    table = SelfPlayGames(Seating(games, PoolConfig(), seed=0), config.players)  # every seat the learner
    judges = {"shipped": None, "critic": ObservationValue(learner.outcome)}  # the luck network, the run's critic
    estimators = {
        f"luck ({judge}), {w} worlds": LuckEstimator(LuckSettings(worlds=w), value)
        for judge, value in judges.items()
        for w in worlds
    }
    scales: dict[str, float | None] = dict.fromkeys(estimators)
    figures: dict[str, list[tuple[float, float]]] = {"plain": []} | {name: [] for name in estimators}
    for b in range(batches):
        seeds = np.arange(5_000_000_000 + b * games, 5_000_000_000 + (b + 1) * games, dtype=np.uint64)
        history: list[list[int]] = [[] for _ in seeds]
        table.deal(seeds, np.zeros(games, dtype=np.int64))
        batch = table.play(learner.decide, history=history)
        figures["plain"].append(agreement_and_spread(learner, batch, lam, gamma))
        for name, estimator in estimators.items():
            played = zip(table.players, seeds, history, strict=True)
            after = luck_after(batch, [estimator.game(int(n), int(s), ids) for n, s, ids in played])
            slope = luck_slope(batch, after)
            previous = scales[name]
            scale = slope if previous is None else previous
            batch.rewards = luck_rewards(batch, after, scale)
            figures[name].append(agreement_and_spread(learner, batch, lam, gamma))
            scales[name] = slope if previous is None else 0.9 * previous + 0.1 * slope
            batch.rewards = np.zeros(len(batch), dtype=np.float32)
        print(f"batch {b}: " + "; ".join(f"{k} {v[-1][0]:+.3f} (spread {v[-1][1]:.3f})" for k, v in figures.items()))
    for name, values in figures.items():
        cos, spread = np.array(values).T
        print(
            f"{name:28s} grad_cosine {cos.mean():+.3f} ± {cos.std(ddof=1) / np.sqrt(len(cos)):.3f}, "
            f"advantages' spread {spread.mean():.3f}"
        )


if __name__ == "__main__":
    main()
