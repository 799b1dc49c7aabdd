"""The RLlib backend of the trainer: the multi-agent env, the masked PPO module, self-play and `train_rllib`.

Needs the ``rllib`` extra (``pip install -c constraints.txt -e ".[rllib]"``); nothing outside this package
imports ray. See docs/rllib.md.
"""
