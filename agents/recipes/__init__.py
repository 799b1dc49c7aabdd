"""Recipes that make bots and model files beside the trainer, each a command of its own.

Expert iteration's search labels (:mod:`~agents.recipes.expert`), the search's networks
(:mod:`~agents.recipes.search_nets`), the heuristic's weights tuned by play (:mod:`~agents.recipes.tune_heuristic`)
and one training config trained on several seeds side by side (:mod:`~agents.recipes.seeds`). They call
:func:`agents.training.train` or the engines; the trainer never imports them.
"""
