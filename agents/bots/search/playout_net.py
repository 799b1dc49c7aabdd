"""A network's playout policy: a one-hidden-layer copy of it, small enough to decide inside compiled playouts.

A search over a policy network wants its playouts to play as the network plays, but the network's own forward pass
(512 -> 256 -> 256 -> 356) costs tens of microseconds a decision, and a searched decision plays tens of thousands of
playout decisions. :class:`PlayoutNet` is a network with one narrow hidden layer, distilled from the full network on
positions of its own games (:mod:`agents.recipes.search_nets.playout`). Observations are sparse (a few dozen
non-zero values of 512), so :func:`choose_by_net` reads only the first layer's rows of the non-zero inputs, and
computes the logits of the legal ids only: a few thousand multiply-adds a decision.

It plays the legal id of the largest logit, the network's own deterministic choice, so that every candidate's
playouts in a world differ only by the candidate (the worlds' draws are shared: :mod:`~agents.bots.search.rollout`).
A file is weights only, read as data (:func:`~agents.bots.model_file.load_network` with :data:`PLAYOUT`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

import numba as nb
import numpy as np

from agents.bots.model_file import ModelFileError, NetworkKind, load_network
from agents.bots.names import CATALOGUE, playout_of
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE

PLAYOUT = NetworkKind("gubs-playout-weights", OBS_SIZE, NUM_ACTIONS, "observation values", "action logits")
"""A playout policy file: the observation in, one logit per action id out, through one ReLU hidden layer."""


class PlayoutNet(NamedTuple):
    """A playout policy as the compiled playouts read it (a tuple of arrays numba takes as one argument).

    ``first`` is the first layer's weight transposed, ``(OBS_SIZE, H)``, so that one non-zero input's weights are
    one contiguous row; ``head`` is the last layer's, ``(NUM_ACTIONS, H)``. An empty net (``H`` = 0) is
    :data:`NO_NET`: the playouts play the heuristic instead.
    """

    first: np.ndarray
    first_bias: np.ndarray
    head: np.ndarray
    head_bias: np.ndarray

    @classmethod
    def from_layers(cls, layers: tuple[tuple[np.ndarray, np.ndarray], ...]) -> PlayoutNet:
        """The net of two ``(weight (out, in), bias)`` layers, as :func:`~agents.bots.model_file.load_network` gives."""
        (first, first_bias), (head, head_bias) = layers
        return cls(
            np.ascontiguousarray(first.T, dtype=np.float32),
            np.ascontiguousarray(first_bias, dtype=np.float32),
            np.ascontiguousarray(head, dtype=np.float32),
            np.ascontiguousarray(head_bias, dtype=np.float32),
        )

    @property
    def hidden(self) -> int:
        """Width of the hidden layer (0: no net)."""
        return int(self.first_bias.shape[0])


NO_NET = PlayoutNet(
    np.zeros((OBS_SIZE, 0), dtype=np.float32),
    np.zeros(0, dtype=np.float32),
    np.zeros((NUM_ACTIONS, 0), dtype=np.float32),
    np.zeros(NUM_ACTIONS, dtype=np.float32),
)
"""No playout policy: the playouts play the heuristic."""


def load_playout(path: str | Path) -> PlayoutNet:
    """Read a playout policy file.

    Raises:
        ModelFileError: anything else, a net of other than one ReLU hidden layer included.
    """
    weights = load_network(path, PLAYOUT)
    if len(weights.layers) != 2 or weights.activation != "relu":
        raise ModelFileError(
            f"{path}: a playout policy has one ReLU hidden layer, not {len(weights.layers) - 1} ({weights.activation})"
        )
    return PlayoutNet.from_layers(weights.layers)


@cache
def shipped_playout(network: str) -> PlayoutNet:
    """The playout policy shipped for the shipped network ``network``, read once per process.

    Raises:
        KeyError: no playout policy is shipped for it (:func:`~agents.bots.names.playout_of` says which are).
    """
    return load_playout(CATALOGUE[playout_of(network)].path)


@nb.njit(cache=True)
def choose_by_net(obs: np.ndarray, ids: np.ndarray, count: int, net: PlayoutNet, hidden: np.ndarray) -> int:
    """The id among ``ids[:count]`` whose logit is largest (the first on a tie); ``hidden`` is scratch of width H."""
    first, first_bias, head, head_bias = net
    width = first_bias.shape[0]
    for j in range(width):
        hidden[j] = first_bias[j]
    for i in range(obs.shape[0]):
        x = obs[i]
        if x != 0.0:
            for j in range(width):
                hidden[j] += x * first[i, j]
    for j in range(width):
        if hidden[j] < 0.0:
            hidden[j] = 0.0
    best = -np.inf
    pick = ids[0]
    for k in range(count):
        a = ids[k]
        logit = head_bias[a]
        for j in range(width):
            logit += head[a, j] * hidden[j]
        if logit > best:
            best = logit
            pick = a
    return pick


def net_logits(net: PlayoutNet, observations: np.ndarray) -> np.ndarray:
    """``(k, NUM_ACTIONS)`` logits of a stack of observations, in numpy (what :func:`choose_by_net` compares)."""
    hidden = np.maximum(observations.astype(np.float32) @ net.first + net.first_bias, 0.0)
    return hidden @ net.head.T + net.head_bias
