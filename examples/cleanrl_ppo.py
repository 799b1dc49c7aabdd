"""PPO with action masking on Gubs' Gymnasium vector env, in plain PyTorch and one file (CleanRL's layout).

Run: ``python -m examples.cleanrl_ppo --total-timesteps 200000`` (about five minutes on 2 cores); every update
prints the learner's win rate over the episodes that ended in it and the timesteps per second.

The env is ``gymnasium.make_vec("Gubs-v0", ..., vectorization_mode="vector_entry_point")``: ``num_envs`` games
against uniformly random opponents on the compiled engine. The legal ids come in ``info["action_mask"]``; the
policy sets the logits of the others to a large negative number before sampling, and the stored mask is used again
when the update recomputes the log-probabilities. ``autoreset_mode=SAME_STEP`` gives what CleanRL's loop assumes:
after an episode ends, the next observation is already the next episode's first.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from torch import nn
from torch.distributions import Categorical

import gubs_env  # noqa: F401  (registers Gubs-v0)
from gubs_env.support.cli import (
    CommandParser,
    non_negative_int,
    player_count,
    positive_float,
    positive_int,
    run_command,
)

MASKED_LOGIT = -1e9
"""The logit of an illegal id: its probability is 0 in float32."""


def build_parser() -> argparse.ArgumentParser:
    """The command line: the budget and PPO's settings (CleanRL's flag names)."""
    parser = CommandParser(prog="python -m examples.cleanrl_ppo", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--total-timesteps", type=positive_int, default=200_000, help="learner timesteps in all (default: 200000)"
    )
    parser.add_argument("--num-envs", type=positive_int, default=32, help="games played at once (default: 32)")
    parser.add_argument("--num-steps", type=positive_int, default=64, help="rollout length per game (default: 64)")
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2],
        help="table sizes, 2 to 6, cycled over games (default: 2)",
    )
    parser.add_argument("--learning-rate", type=positive_float, default=2.5e-4, help="Adam step size (default: 2.5e-4)")
    parser.add_argument("--update-epochs", type=positive_int, default=4, help="epochs per update (default: 4)")
    parser.add_argument("--num-minibatches", type=positive_int, default=4, help="minibatches per epoch (default: 4)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, parsed: a bad one is one error line and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.num_minibatches > args.num_envs * args.num_steps:
        parser.error("--num-minibatches cannot exceed the rollout's NUM_ENVS x NUM_STEPS steps")
    return args


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias, as CleanRL initialises them."""
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs over the 512-float observation."""

    def __init__(self, observations: int, actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(observations, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, 1, 1.0))
        self.actor = nn.Sequential(
            layer(observations, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, actions, 0.01)
        )

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """The critic's estimate per row."""
        return self.critic(x).squeeze(-1)

    def act(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """An action drawn among the legal ids (or the given one), its log-probability, the entropy, the value."""
        logits = self.actor(x).masked_fill(~mask, MASKED_LOGIT)
        distribution = Categorical(logits=logits)
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.value(x)


def main(argv: list[str] | None = None) -> int:
    """Train, printing one line per update."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    envs = gym.make_vec(
        "Gubs-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        num_players=args.players,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    n, steps = args.num_envs, args.num_steps
    batch = n * steps
    minibatch = batch // args.num_minibatches
    agent = Agent(envs.single_observation_space.shape[0], envs.single_action_space.n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((steps, n, envs.single_observation_space.shape[0]))
    masks = torch.zeros((steps, n, envs.single_action_space.n), dtype=torch.bool)
    actions = torch.zeros((steps, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((steps, n)) for _ in range(4))

    next_obs_array, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(next_obs_array), torch.as_tensor(info["action_mask"])
    next_done = torch.zeros(n)
    start, global_step = time.time(), 0
    for update in range(1, max(1, args.total_timesteps // batch) + 1):
        wins = ended = 0
        for step in range(steps):  # the rollout
            global_step += n
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            next_obs_array, reward, terminated, truncated, info = envs.step(action.numpy())
            finished = terminated | truncated
            wins, ended = wins + int((reward > 0).sum()), ended + int(finished.sum())
            rewards[step] = torch.as_tensor(reward)
            next_obs, next_mask = torch.as_tensor(next_obs_array), torch.as_tensor(info["action_mask"])
            next_done = torch.as_tensor(finished, dtype=torch.float32)

        with torch.no_grad():  # generalised advantage estimates (gamma 0.99, lambda 0.95)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n)
            next_value = agent.value(next_obs)
            for t in reversed(range(steps)):
                following_done = next_done if t == steps - 1 else dones[t + 1]
                following_value = next_value if t == steps - 1 else values[t + 1]
                delta = rewards[t] + 0.99 * following_value * (1 - following_done) - values[t]
                last = delta + 0.99 * 0.95 * (1 - following_done) * last
                advantages[t] = last
            returns = advantages + values

        flat = [x.reshape(batch, *x.shape[2:]) for x in (obs, masks, actions, logprobs, advantages, returns)]
        b_obs, b_masks, b_actions, b_logprobs, b_advantages, b_returns = flat
        for _ in range(args.update_epochs):  # the clipped PPO update
            for chunk in torch.randperm(batch).split(minibatch):
                _, logprob, entropy, value = agent.act(b_obs[chunk], b_masks[chunk], b_actions[chunk])
                ratio = (logprob - b_logprobs[chunk]).exp()
                advantage = b_advantages[chunk]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(-advantage * ratio, -advantage * ratio.clamp(0.8, 1.2)).mean()
                value_loss = 0.5 * ((value - b_returns[chunk]) ** 2).mean()
                loss = policy_loss - 0.01 * entropy.mean() + 0.5 * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        win_rate = f"{wins / ended:.2f}" if ended else "-"
        rate = global_step / (time.time() - start)
        print(f"update {update}: {global_step} timesteps, win rate {win_rate} over {ended} episodes, {rate:,.0f}/s")
    envs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
