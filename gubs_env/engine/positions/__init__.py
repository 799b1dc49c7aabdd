"""Positions as data.

Saved and restored with validation (:mod:`~gubs_env.engine.positions.serialize`), written by hand
(:mod:`~gubs_env.engine.positions.build`), and sampled from what one seat knows
(:mod:`~gubs_env.engine.positions.determinize`).
"""

from gubs_env.engine.positions.build import position

__all__ = ["position"]
