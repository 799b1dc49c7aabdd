"""Would taking out the luck of the decisions too narrow the advantages further? A diagnostic on a run's checkpoint.

Run on a self-play run folder that holds a checkpoint::

    python benchmarks/luck_returns_decisions.py RUN_DIR [BATCHES] [GAMES]

At a decision, the luck value network's value of the position after the id taken, less its mean over the legal ids
weighted by the policy's probabilities, has mean 0 for every seat, as a chance step's correction has. The script
plays BATCHES batches (default 2) of GAMES games (default 64) with the checkpoint's policy and prints the spread of
the advantages and of the outcomes left over with the chance luck taken off, and with both kinds taken off (each
kind scaled by a least-squares fit on the batch itself: the best either can do), and the seconds each kind costs.
"""

import sys
import time
from pathlib import Path

import numba as nb
import numpy as np
import torch
from luck_returns_paired import checkpoint_learner  # the script beside this one

from agents.evaluate.luck import LuckEstimator, LuckSettings, NetworkValue
from agents.training.core.config import PoolConfig
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.seating import Seating
from agents.training.native.learner import Learner, advantages
from agents.training.native.luck_returns import luck_after, luck_rewards
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.options import LETTER_PLACEMENTS, RuleOptions
from gubs_env.fast import new_rows, reset_one, step_game, view_game


@nb.njit
def _successors(g, r, ids, at_moves, legal, scratch, rows_out, rngs_out, sample_of, action_of):  # type: ignore[no-untyped-def]
    """Replay ``ids``; at each move of ``at_moves`` keep the position after every legal id (and which it was)."""
    count = 0
    k = 0
    view_game(g, legal)
    for i in range(ids.size):
        if k < at_moves.size and at_moves[k] == i:
            for a in range(legal.size):
                if legal[a]:
                    rows_out[count] = g
                    rngs_out[count] = r
                    step_game(rows_out[count], rngs_out[count], a, scratch)
                    sample_of[count] = k
                    action_of[count] = a
                    count += 1
            k += 1
        step_game(g, r, ids[i], legal)
    return count


def decision_corrections(
    batch: Batch, seeds: np.ndarray, history: list[list[int]], players: np.ndarray, learner: Learner
) -> np.ndarray:
    """float64 ``(S, MAX_PLAYERS)``: every seat's correction at each sample's decision."""
    with torch.no_grad():
        probs = learner.model.log_probs(learner.inputs(batch.obs), torch.from_numpy(batch.masks)).exp().numpy()
    value = NetworkValue()
    options = RuleOptions()
    uniform = LETTER_PLACEMENTS.index(options.letter_placement)
    out = np.zeros((len(batch), MAX_PLAYERS))
    legal, scratch = np.zeros(NUM_ACTIONS, np.int8), np.zeros(NUM_ACTIONS, np.int8)
    for slot in range(batch.games):
        rows = np.flatnonzero(batch.game == slot)
        order = rows[np.argsort(batch.moves[rows], kind="stable")]
        n = int(players[slot])
        start, start_rng = new_rows(1)
        reset_one(start[0], start_rng[0], np.uint64(int(seeds[slot])), n, options.max_turns, uniform)
        total = int(batch.masks[order].sum())
        after, after_rngs = new_rows(total)
        sample_of, action_of = np.zeros(total, np.int64), np.zeros(total, np.int64)
        ids = np.array(history[slot], np.int64)
        _successors(start[0], start_rng[0], ids, batch.moves[order], legal, scratch, after, after_rngs,
                    sample_of, action_of)  # fmt: skip
        values = value(after, n)
        for j, sample in enumerate(order):
            mine = sample_of == j
            taken, options_values = action_of[mine], values[mine]
            weights = probs[sample, taken] / probs[sample, taken].sum()
            out[sample, :n] = options_values[taken == batch.actions[sample]][0] - weights @ options_values
    return out


def decision_luck_after(batch: Batch, corrections: np.ndarray) -> np.ndarray:
    """Each sample's seat's decision corrections over the decisions after its own (any seat's)."""
    out = np.zeros(len(batch))
    for slot in range(batch.games):
        rows = np.flatnonzero(batch.game == slot)
        order = rows[np.argsort(batch.moves[rows], kind="stable")]
        suffix = np.zeros((order.size + 1, MAX_PLAYERS))
        suffix[:-1] = np.cumsum(corrections[order][::-1], axis=0)[::-1]
        out[order] = suffix[np.arange(order.size) + 1, batch.seat[order]]
    return out


def main() -> None:
    """Print each batch's spreads and costs."""
    run = Path(sys.argv[1])
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    torch.set_num_threads(1)
    config, learner = checkpoint_learner(run)
    table = SelfPlayGames(Seating(games, PoolConfig(), seed=0), config.players)  # every seat the learner
    estimator = LuckEstimator(LuckSettings(worlds=16))
    for b in range(batches):
        seeds = np.arange(7_000_000_000 + b * games, 7_000_000_000 + (b + 1) * games, dtype=np.uint64)
        history: list[list[int]] = [[] for _ in seeds]
        table.deal(seeds, np.zeros(games, dtype=np.int64))
        batch = table.play(learner.decide, history=history)
        began = time.process_time()
        games_played = zip(table.players, seeds, history, strict=True)
        chance = luck_after(batch, [estimator.game(int(n), int(s), ids) for n, s, ids in games_played])
        middle = time.process_time()
        decision = decision_luck_after(batch, decision_corrections(batch, seeds, history, table.players, learner))
        ended = time.process_time()
        _, first = np.unique(batch.trajectory, return_index=True)
        outcome = batch.returns[first].astype(np.float64)
        fits = {
            "plain": np.zeros(len(batch)),
            "chance luck off": np.polyfit(chance[first], outcome, 1)[0] * chance,
        }
        both = np.linalg.lstsq(np.c_[chance[first], decision[first], np.ones(first.size)], outcome, rcond=None)[0]
        fits["both off"] = both[0] * chance + both[1] * decision
        parts = []
        for name, luck in fits.items():
            batch.rewards = luck_rewards(batch, luck, 1.0)
            spread = float(advantages(batch, batch.values, config.gae_lambda or 0.98, config.gamma or 1.0).std())
            parts.append(f"{name}: advantages {spread:.3f}, outcomes left {np.std(outcome - luck[first]):.3f}")
        print(f"batch {b}: " + "; ".join(parts))
        seconds = f"chance luck {middle - began:.2f}, decision luck {ended - middle:.2f}"
        print(f"  seconds: {seconds} (the first batch's decision luck includes compiling)")


if __name__ == "__main__":
    main()
