"""Positions as data.

Saved and restored with validation (:mod:`~gubs_env.engine.positions.serialize`) and written by
hand (:mod:`~gubs_env.engine.positions.build`).
"""

from gubs_env.engine.positions.build import position

__all__ = ["position"]
