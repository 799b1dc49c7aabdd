"""Making bots.

The sb3 self-play trainer behind ``python train.py`` (:mod:`~agents.training.main`), its opponent
pool and run files, the vector environments (reference and compiled engine), the imitation warm start and the
training benchmark (``python -m agents.training.bench``). The RLlib backend is :mod:`agents.rllib`.
"""
