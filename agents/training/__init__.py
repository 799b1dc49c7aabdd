"""Making bots: one loop, three backends.

``train(TrainingConfig(...))`` (:mod:`~agents.training.loop`) drives every run: its folder and resume, the budget,
the league, the evaluations, the checkpoints and the report, the same whatever the backend. A backend is a small
adapter behind one protocol (:mod:`~agents.training.core.backend`): the project's own PPO over batches of whole games
(:mod:`agents.training.native`, the default), stable-baselines3 (:mod:`agents.training.sb3`) or Ray RLlib
(:mod:`agents.training.rllib`). What they share is in ``core/``, the warm start in ``imitation/``; ``python train.py``
builds the config from its flags (:mod:`~agents.training.command`). The recipes that make other model files live
beside the trainer, in :mod:`agents.recipes`.
"""

from agents.training.core.config import ConfigError, NativeSettings, PoolConfig, RllibSettings, TrainingConfig
from agents.training.core.runs import RunSetupError
from agents.training.loop import TrainingResult, train

__all__ = [
    "ConfigError",
    "NativeSettings",
    "PoolConfig",
    "RllibSettings",
    "RunSetupError",
    "TrainingConfig",
    "TrainingResult",
    "train",
]
