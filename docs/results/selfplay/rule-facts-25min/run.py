"""The 30-minute run's recipe (2 players, seed 0, every default) with the rule facts, for 25 minutes on one core."""

from agents.training.selfplay import train_selfplay
from agents.training.selfplay.learner import PPOSettings
from agents.training.selfplay.recipe import SelfPlayConfig

train_selfplay(
    SelfPlayConfig(players=(2,), seed=0, ppo=PPOSettings(rule_facts=True)),
    out="runs/rule-facts-25min",
    minutes=25,
    progress=False,
)
