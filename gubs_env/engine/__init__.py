"""The Gubs rules engine: pure Python and numpy, no RL library imports.

Start with :class:`Game`; see docs/engine.md for the API and docs/rules.md for the rules.
"""

from gubs_env.engine.actions import Action, Op, Part, Use, make, play
from gubs_env.engine.cards import CARDS, CardSpec, CardType, Kind
from gubs_env.engine.game import Game, IllegalActionError
from gubs_env.engine.log import Fact, LogEntry
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions.serialize import InvalidStateError, action_from_dict, action_to_dict
from gubs_env.engine.state import GameState, Pending, Side, Step

__all__ = [
    "CARDS",
    "Action",
    "CardSpec",
    "CardType",
    "Fact",
    "Game",
    "GameState",
    "IllegalActionError",
    "InvalidStateError",
    "Kind",
    "LogEntry",
    "Op",
    "Part",
    "Pending",
    "RuleOptions",
    "Side",
    "Step",
    "Use",
    "action_from_dict",
    "action_to_dict",
    "make",
    "play",
]
