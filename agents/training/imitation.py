"""Warm start by imitation: teach a fresh policy to choose what a teacher agent chooses, before self-play.

Reinforcement learning from scratch settles early on a simple way of playing; starting from the heuristic's
choices gives PPO a strong policy to improve on instead. The value head is fitted too, to the discounted
outcome each decision led to: PPO's first updates follow the critic's advantages, and a critic that starts
from nothing turns them into noise that pulls the copied policy away from the teacher.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from agents.bots.base import Agent
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game


@dataclass
class Demonstrations:
    """Decisions of a teacher: observations (float16 to halve the memory), masks, the ids it chose and returns."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    """The deciding seat's discounted reward: +1 win, -1 loss, 0 truncation, discounted per own later decision."""

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    teacher: Agent,
    player_counts: list[int],
    games: int,
    seed: int = 0,
    progress: bool = True,
    gamma: float = 0.995,
) -> Demonstrations:
    """Play ``games`` games with the teacher at every seat (table sizes in turn) and record every decision.

    ``gamma`` discounts the returns as the learner's environment does: once per decision of the same seat.
    """
    observations, masks, actions, returns = [], [], [], []
    codecs = {n: ActionCodec(n) for n in player_counts}
    for g in tqdm(range(games), desc="demonstrations", unit="game", disable=not progress, leave=False):
        n = player_counts[g % len(player_counts)]
        game = Game(n, seed=seed + g, record_log=False)
        teacher.reset(seed + g)
        seats = []
        while not game.is_over:
            seat = game.current_player
            assert seat is not None  # a game that is not over has a seat to move
            mask = codecs[n].mask(game.legal_actions(), seat)
            observation = encode(game.state, seat)
            action = teacher.act(observation, mask)
            observations.append(observation.astype(np.float16))
            masks.append(mask.astype(bool))
            actions.append(action)
            seats.append(seat)
            game.apply(codecs[n].action(action, seat))
        returns += _discounted_outcomes(game, seats, gamma)
    return Demonstrations(
        np.stack(observations), np.stack(masks), np.array(actions, dtype=np.int64), np.array(returns, dtype=np.float32)
    )


def _discounted_outcomes(game: Game, seats: list[int], gamma: float) -> list[float]:
    """Per decision, in order: the deciding seat's final reward discounted by its own decisions still to come."""
    winners = game.winners()
    outcome = [0.0 if game.truncated else (1.0 if s in winners else -1.0) for s in range(game.num_players)]
    later = [0] * game.num_players
    out = [0.0] * len(seats)
    for i in range(len(seats) - 1, -1, -1):
        seat = seats[i]
        out[i] = outcome[seat] * gamma ** later[seat]
        later[seat] += 1
    return out


def pretrain(
    model, data: Demonstrations, epochs: int = 4, batch_size: int = 512, seed: int = 0, progress: bool = True
) -> list[float]:
    """Fit the policy to the demonstrations (cross-entropy over the legal ids) and the value head to their returns.

    Returns the mean policy loss of each epoch.
    """
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
            values = policy.value_net(policy.mlp_extractor.forward_critic(policy.vf_features_extractor(observations)))
            value_loss = torch.nn.functional.mse_loss(values[:, 0], torch.as_tensor(data.returns[batch]))
            optimizer.zero_grad()
            (loss + value_loss).backward()
            optimizer.step()
            total += loss.item() * len(batch)
        losses.append(total / len(order))
    return losses
