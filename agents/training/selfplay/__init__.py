"""Self-play from scratch: the batched rollout core, the learner, fast evaluations and the recipe's run folder.

>>> from agents.training.selfplay import SelfPlayConfig, train_selfplay
>>> config = SelfPlayConfig(players=(2,), seed=0)           # the recipe python -m agents.training.baselines runs
>>> result = train_selfplay(config, out="runs/sp", minutes=30)  # doctest: +SKIP
"""

from agents.training.selfplay.learner import PPOSettings
from agents.training.selfplay.recipe import SelfPlayConfig, SelfPlayResult, SelfPlayRunError, train_selfplay

__all__ = ["PPOSettings", "SelfPlayConfig", "SelfPlayResult", "SelfPlayRunError", "train_selfplay"]
