"""Making bots: one trainer, two backends.

``train(TrainingConfig(...))`` trains on stable-baselines3 in this process (:mod:`~agents.training.sb3.train`) or on Ray
RLlib (:mod:`agents.training.rllib`), with the same settings, opponent pool and run folder
(:mod:`~agents.training.core.config`, :mod:`~agents.training.core.runs`); ``python train.py`` builds the config from its
flags (:mod:`~agents.training.command`). Also here: the vector environments on both engines, the imitation warm
start, search-labelled positions for expert iteration, the heuristic's tuning and the training benchmark.
"""

from agents.training.core.config import ConfigError, PoolConfig, TrainingConfig
from agents.training.trainer import RunSetupError, TrainingResult, train

__all__ = ["ConfigError", "PoolConfig", "RunSetupError", "TrainingConfig", "TrainingResult", "train"]
