"""The native backend: the project's own PPO learner over batches of whole games on the compiled engine.

Its rooms: the games a batch plays (:mod:`~agents.training.native.rollout`, on the self-play core
:mod:`agents.training.core.tables`), the learner (:mod:`~agents.training.native.learner`), luck-adjusted returns
(:mod:`~agents.training.native.luck_returns`), the seat-rotated evaluations (:mod:`~agents.training.native.evaluate`)
and the run (:mod:`~agents.training.native.train`). Run it through the one trainer:

>>> from agents.training import TrainingConfig, train
>>> config = TrainingConfig.from_scratch(players=(2,), seed=0, minutes=30)  # python train.py --from-scratch
>>> result = train(config, out="runs/scratch")  # doctest: +SKIP
"""
