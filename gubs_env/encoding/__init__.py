"""How a position is written for a learner.

Action ids (:mod:`~gubs_env.encoding.action_table`) and the
observation vector (:mod:`~gubs_env.encoding.observation`), both generated from the engine's tables.

Both engines and every environment share these two modules; ``python -m gubs_env.encoding.action_table`` and
``python -m gubs_env.encoding.observation`` print the tables documented in docs/.
"""
