"""Gubs as an OpenSpiel game: importing this module registers ``python_gubs`` with ``pyspiel``.

```python
import pyspiel
import gubs_env.openspiel  # registers the game

game = pyspiel.load_game("python_gubs", {"players": 4})
state = game.new_initial_state()  # a chance node: the deal
```

The game wraps the reference engine (:class:`gubs_env.engine.Game`) without changing a rule:

- **Chance.** The game is ``SAMPLED_STOCHASTIC``. The first state is a chance node with one outcome, "Deal",
  whose application draws an engine seed from the game's own generator (parameter ``rng_seed``, -1 for fresh
  entropy) and deals from it. The deal orders the whole deck; the only later random events, cards put back into
  the deck at a random place (R15, R20), happen inside the action that causes them, drawn from the engine's
  generator. A clone carries the deck and the generator, so a state and its clone have the same future, while
  :meth:`GubsState.resample_from_infostate` redraws the hidden cards and gives the world a fresh generator, so a
  search never sees the real future.
- **Actions.** The project's 356 ids (:mod:`gubs_env.encoding.action_table`), targets relative to the actor.
- **Who acts.** The engine's pending decision: during an interrupt window it is the seat being asked.
- **Returns.** The environments' convention (docs/environment.md): +1 for every winner, -1 for every other
  seat (ties share the win, so the game is general-sum); a game cut at ``max_turns`` gives 0 to all.
- **Observations.** The 512-value observation tensor of the environments and ``Game.render(seat)`` as its
  string; the information-state string is ``Game.information_state(seat)``, equal for two states exactly when
  that seat cannot tell them apart. There is no information-state tensor.

The design and what OpenSpiel can do with a game this size: docs/openspiel.md.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as error:  # one line that says what to install, instead of a bare ModuleNotFoundError
    raise ImportError(
        'gubs_env.openspiel needs OpenSpiel: pip install -e ".[openspiel]" (or pip install open_spiel; Python 3.11+)'
    ) from error

from gubs_env.openspiel.game import (
    DEAL,
    DECISIONS_PER_TURN_BOUND,
    GAME_NAME,
    GAME_TYPE,
    GubsGame,
    GubsObserver,
    GubsState,
    final_returns,
)
from gubs_env.openspiel.rollouts import EngineRolloutEvaluator

__all__ = [
    "DEAL",
    "DECISIONS_PER_TURN_BOUND",
    "GAME_NAME",
    "GAME_TYPE",
    "EngineRolloutEvaluator",
    "GubsGame",
    "GubsObserver",
    "GubsState",
    "final_returns",
]

pyspiel.register_game(GAME_TYPE, GubsGame)
