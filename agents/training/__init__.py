"""Making bots: one trainer, two backends.

``train(TrainingConfig(...))`` trains on stable-baselines3 in this process (:mod:`~agents.training.sb3.train`) or on Ray
RLlib (:mod:`agents.training.rllib`), with the same settings, opponent pool and run folder
(:mod:`~agents.training.core.config`, :mod:`~agents.training.core.runs`); ``python train.py`` builds the config from its
flags (:mod:`~agents.training.command`). Beside the backends (``sb3/``, ``rllib/``) and what they share (``core/``),
each recipe is a folder of its own: the from-scratch self-play core (``selfplay/``) and its published runs
(``baselines/``), the imitation warm start (``imitation/``), search labels for expert iteration (``expert/``), the
search's networks (``search_nets/``) and the heuristic's tuning (``tune_heuristic/``).
"""

from agents.training.core.config import ConfigError, PoolConfig, TrainingConfig
from agents.training.trainer import RunSetupError, TrainingResult, train

__all__ = ["ConfigError", "PoolConfig", "RunSetupError", "TrainingConfig", "TrainingResult", "train"]
