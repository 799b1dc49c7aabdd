"""Warm start by imitation: teach a fresh policy to choose what a teacher agent chooses, before self-play.

Reinforcement learning from scratch settles early on a simple way of playing; starting from the heuristic's
choices gives PPO a strong policy to improve on instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from agents.base import Agent
from gubs_env.engine import Game
from gubs_env.envs.action_table import ActionCodec
from gubs_env.envs.observation import encode


@dataclass
class Demonstrations:
    """Decisions of a teacher: observations (float16 to halve the memory), masks and the ids it chose."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    teacher: Agent, player_counts: list[int], games: int, seed: int = 0, progress: bool = True
) -> Demonstrations:
    """Play ``games`` games with the teacher at every seat (table sizes in turn) and record every decision."""
    observations, masks, actions = [], [], []
    codecs = {n: ActionCodec(n) for n in player_counts}
    for g in tqdm(range(games), desc="demonstrations", unit="game", disable=not progress, leave=False):
        n = player_counts[g % len(player_counts)]
        game = Game(n, seed=seed + g, record_log=False)
        teacher.reset(seed + g)
        while not game.is_over:
            seat = game.current_player
            mask = codecs[n].mask(game.legal_actions(), seat)
            observation = encode(game.state, seat)
            action = teacher.act(observation, mask)
            observations.append(observation.astype(np.float16))
            masks.append(mask.astype(bool))
            actions.append(action)
            game.apply(codecs[n].action(action, seat))
    return Demonstrations(np.stack(observations), np.stack(masks), np.array(actions, dtype=np.int64))


def pretrain(
    model, data: Demonstrations, epochs: int = 4, batch_size: int = 512, seed: int = 0, progress: bool = True
) -> list[float]:
    """Fit the model's policy to the demonstrations (cross-entropy over the legal ids); returns the epoch losses."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    losses = []
    for _ in tqdm(range(epochs), desc="imitation", unit="epoch", disable=not progress, leave=False):
        order = rng.permutation(len(data))
        total = 0.0
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            observations = torch.as_tensor(data.observations[batch], dtype=torch.float32)
            masks = torch.as_tensor(data.masks[batch])
            logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.pi_features_extractor(observations)))
            logits = logits.masked_fill(~masks, -1e9)  # only legal ids compete, as at play time
            loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(data.actions[batch]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        losses.append(total / len(order))
    return losses
