"""The imitation warm start: a policy taught to choose what a teacher chooses, before PPO.

:mod:`~agents.training.imitation.demonstrations` collects a teacher's decisions (or reads search labels) and fits a
policy and value to them; :mod:`~agents.training.imitation.warm_start` decides what a new run of either backend
imitates and for how long.
"""

from agents.training.imitation.demonstrations import Demonstrations, collect, fit, pretrain

__all__ = ["Demonstrations", "collect", "fit", "pretrain"]
