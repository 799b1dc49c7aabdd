"""The native backend: the project's own PPO learner over batches of whole games on the compiled engine.

Its parts: the learner (:mod:`~agents.training.native.learner`), luck-adjusted returns
(:mod:`~agents.training.native.luck_returns`) and the adapter the loop drives (:mod:`~agents.training.native.backend`).
It is the default backend of :func:`agents.training.train`:

>>> from agents.training import TrainingConfig, train
>>> result = train(TrainingConfig(players=(2,), seed=0, minutes=30), out="runs/scratch")  # doctest: +SKIP
"""
