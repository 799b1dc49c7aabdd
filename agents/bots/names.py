"""The names of the built-in agent specs, in a module that imports nothing.

The registry builds agents by these names, and bots that refer to each other by name (a search over the tuned
heuristic) read them here, so that neither imports the other.
"""

TUNED = "heuristic-tuned"
"""The heuristic with the weights its tuning found (agents/bots/models/heuristic_tuned.json)."""
SEARCH = "search"
ALL_SEEING = "search-all-seeing"
HANDS_SEEING = "search-hands-seeing"
CEILINGS = (HANDS_SEEING, ALL_SEEING)
"""The searches that read hidden cards (every hand; every hand and the deck order): measurement ceilings only."""
ISMCTS = "ismcts"
SEARCHES = (SEARCH, *CEILINGS, ISMCTS)
"""The spec names whose settings follow a colon."""
BUILTIN = ("random", "heuristic", TUNED, "gubs-net", "ppo-2p", "ppo-4p", "selfplay-2p", "selfplay-4p", SEARCH, ISMCTS)
"""The names a spec may be, besides model and weight-set paths and ``module:Class``."""
