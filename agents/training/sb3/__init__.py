"""The stable-baselines3 backend: sb3-contrib's MaskablePPO over the league's vector environments.

:mod:`~agents.training.sb3.train` (the run), :mod:`~agents.training.sb3.pool` (the opponent pool),
:mod:`~agents.training.sb3.fast_vec_env` (the games, on the compiled engine, many per call) and
:mod:`~agents.training.sb3.masked_policy` (a forced decision costs no forward pass).
benchmarks/sb3_throughput.py measures the learner's throughput.
"""
