"""The RLlib backend: the multi-agent env, the masked PPO module, the compiled env runner and the adapter.

Needs the ``rllib`` extra (``pip install -c constraints.txt -e ".[rllib]"``); nothing outside this package
imports ray. See docs/rllib.md.
"""
