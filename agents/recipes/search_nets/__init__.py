"""The search's networks, the leaf value and the hand model, fitted on compiled heuristic games.

:mod:`~agents.recipes.search_nets.fitting` plays the games and fits both; ``python -m agents.recipes.search_nets``
runs it.
"""

from agents.recipes.search_nets.fitting import FitReport, FitSettings, Positions, fit_hands, fit_value, play_positions

__all__ = ["FitReport", "FitSettings", "Positions", "fit_hands", "fit_value", "play_positions"]
