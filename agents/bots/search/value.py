"""A learned value for the search's playouts: what a position is worth to a seat, without playing it to the end.

A playout's result is mostly the luck of the draws after the candidate, so the paired gain of two candidates is
noisy and the search needs many worlds to tell them apart. :class:`ValueNet` estimates the *expected* result of
the heuristic continuation from a world's position: a playout stopped after a few decisions and judged by it
keeps what the candidate changed and averages away the later draws.

Its input, :func:`leaf_features`, is the seat's own observation and the hands of every other seat. A sampled
world is a full position, so judging it with every hand known is the same information the playout itself has;
the deck order is not an input, so the value is the average over the deck orders the hands leave possible,
which is the quantity the search estimates. Its output is the value :func:`~agents.bots.search.rollout.outcome_of`
gives a finished playout (the seat's share of the win plus :data:`~agents.bots.search.rollout.MARGIN_WEIGHT`
times its score margin), and it is fitted to that value at the end of the compiled engine's heuristic games
(:mod:`agents.recipes.search_nets`).

A value file is weights only, read as data (:func:`~agents.bots.model_file.load_network` with :data:`VALUE`):
nothing in it is run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numba as nb
import numpy as np

from agents.bots.model_file import NetworkKind, PolicyWeights, load_network
from agents.bots.names import CATALOGUE, LEAF_VALUES
from agents.bots.ppo import policy_logits
from gubs_env.encoding.observation import INV_SCALE, LAYOUT, OBS_SIZE
from gubs_env.fast import encode
from gubs_env.fast import layout as L

FEATURES = OBS_SIZE + (L.SEATS - 1) * L.KINDS
"""The seat's observation, then each other seat's hand (relative seats 1 to 5, count of each kind / copies)."""

VALUE = NetworkKind(
    "gubs-value-weights",
    FEATURES,
    1,
    "leaf features",
    "value",
    input_member="feature_count",
    output_member="output_count",
)
"""A value network file: :data:`FEATURES` in, one value out."""


_HAND_SCALE = INV_SCALE[LAYOUT["hand"].start : LAYOUT["hand"].start + L.KINDS].astype(np.float32)
"""The observation's scale of a hand (1 / copies of each kind), used for the other hands too."""


@nb.njit(cache=True)
def leaf_features(g: np.ndarray, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s features of game row ``g`` into ``out`` (float32, :data:`FEATURES` long)."""
    encode(g, seat, out[:OBS_SIZE])
    n = g[L.NUM_PLAYERS]
    for rel in range(1, L.SEATS):
        at = OBS_SIZE + (rel - 1) * L.KINDS
        for k in range(L.KINDS):
            out[at + k] = 0.0
        if rel < n:
            other = (seat + rel) % n
            for k in range(L.KINDS):
                out[at + k] = np.float32(g[L.HANDS + other * L.KINDS + k]) * _HAND_SCALE[k]


class ValueNet:
    """The value network in numpy: :meth:`values` of a stack of :func:`leaf_features` rows."""

    def __init__(self, weights: PolicyWeights) -> None:
        self.weights = weights
        self._first_t = np.ascontiguousarray(weights.layers[0][0].T)

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        """Read a value file (``ModelFileError`` for anything that is not one, see :mod:`agents.bots.model_file`)."""
        return cls(load_network(path, VALUE))

    def values(self, features: np.ndarray) -> np.ndarray:
        """float64 ``(m,)``: the value of each row of ``features`` (``(m, FEATURES)`` float32)."""
        if features.shape[0] == 0:
            return np.zeros(0, dtype=np.float64)
        return policy_logits(self.weights, features, first_t=self._first_t)[:, 0].astype(np.float64)


@cache
def shipped_value() -> ValueNet:
    """The shipped value network, fitted on the heuristic's games, read once per process."""
    return ValueNet.load(CATALOGUE["value"].path)


@cache
def own_value(network: str) -> ValueNet:
    """``network``'s own leaf value, fitted on its playout policy's games alone (:data:`LEAF_VALUES`), read once."""
    return ValueNet.load(CATALOGUE[LEAF_VALUES[network]].path)
