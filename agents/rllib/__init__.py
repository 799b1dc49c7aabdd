"""Training on Ray RLlib: the multi-agent env, the masked PPO module, self-play and the entry point.

Needs the ``rllib`` extra (``pip install -c constraints.txt -e ".[rllib]"``); nothing outside this package
imports ray. See docs/rllib.md.
"""
