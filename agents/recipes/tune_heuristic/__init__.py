"""The heuristic's weights tuned by play against it.

The tuning (:mod:`~agents.recipes.tune_heuristic.tuning`) and the optimiser it asks
(:mod:`~agents.recipes.tune_heuristic.cmaes`); ``python -m agents.recipes.tune_heuristic`` runs it.
"""

from agents.recipes.tune_heuristic.cmaes import CMAES
from agents.recipes.tune_heuristic.tuning import Tuning, tables_at

__all__ = ["CMAES", "Tuning", "tables_at"]
