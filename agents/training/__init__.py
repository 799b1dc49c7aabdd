"""Making bots: one trainer, three backends.

``train(TrainingConfig(...))`` trains on stable-baselines3 in this process (:mod:`~agents.training.sb3.train`), on Ray
RLlib (:mod:`agents.training.rllib`) or on the project's own learner (:mod:`agents.training.native`), with the same
settings, opponent pool and run folder (:mod:`~agents.training.core.config`, :mod:`~agents.training.core.runs`);
``python train.py`` builds the config from its flags (:mod:`~agents.training.command`), and ``--seeds`` trains one run
per seed and draws their curves together (:mod:`~agents.training.seeds`). Beside the backends (``sb3/``, ``rllib/``,
``native/``) and what they share (``core/``), each other recipe is a folder of its own: the imitation warm start
(``imitation/``), search labels for expert iteration (``expert/``), the search's networks (``search_nets/``) and the
heuristic's tuning (``tune_heuristic/``).
"""

from agents.training.core.config import ConfigError, PoolConfig, TrainingConfig
from agents.training.trainer import RunSetupError, TrainingResult, train

__all__ = ["ConfigError", "PoolConfig", "RunSetupError", "TrainingConfig", "TrainingResult", "train"]
