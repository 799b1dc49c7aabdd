"""The stable-baselines3 backend: sb3-contrib's MaskablePPO on the compiled engine's vector env.

:mod:`~agents.training.sb3.backend` (the adapter the loop drives), :mod:`~agents.training.sb3.fast_vec_env` (the games,
many per call, seated by the league) and :mod:`~agents.training.sb3.masked_policy` (a cheaper masked distribution).
benchmarks/sb3_throughput.py measures the learner's throughput.
"""
