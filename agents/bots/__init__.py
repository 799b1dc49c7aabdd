"""The bots.

One interface (:class:`~agents.bots.base.Agent`, ``act(observation, action_mask) -> id``), the random
and heuristic bots, the policy-network agent over model files read without running code, and the spec registry
that builds any of them from a name (``random``, ``heuristic``, ``ppo-2p``, a model path, ``module:Class``).
"""
