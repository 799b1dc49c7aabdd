"""The names of the built-in agents and the catalogue of shipped models, in a module that imports no numpy or torch.

The registry builds agents by these names, and bots that refer to each other by name (a search over the tuned
heuristic) read them here, so that neither imports the other. The spec grammar reads the catalogue here too: parsing
a spec never loads a model's code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

TUNED = "heuristic-tuned"
"""The heuristic with the weights its tuning found (its file is in :data:`CATALOGUE`)."""
SEARCH = "search"
ALL_SEEING = "search-all-seeing"
HANDS_SEEING = "search-hands-seeing"
CEILINGS = (HANDS_SEEING, ALL_SEEING)
"""The searches that read hidden cards (every hand; every hand and the deck order): measurement ceilings only."""
ISMCTS = "ismcts"
SELFPLAY_SEARCH = "selfplay-search"
"""The search over the pure self-play network: its prior, its playout policy, no hand-written knowledge."""
SEARCHES = (SEARCH, SELFPLAY_SEARCH, *CEILINGS, ISMCTS)
"""The search bots' spec names, whose settings follow a colon."""
LLM = "llm"
"""The language-model agent: ``llm:model=NAME,base_url=URL,...`` (:mod:`agents.bots.llm`)."""
WITH_SETTINGS = (*SEARCHES, LLM)
"""Every spec name whose settings follow a colon."""

MODELS_DIR = Path(__file__).resolve().parent / "models"
"""The folder of the shipped models."""


class ModelKind(enum.Enum):
    """What a shipped model file holds."""

    NETWORK = "network"
    """A policy network that an agent of the same name plays."""
    WEIGHT_SET = "weight set"
    """Heuristic weights (:mod:`agents.bots.heuristic.weights_file`) that an agent of the same name plays."""
    SEARCH_NET = "search network"
    """A network the searches or the luck estimate read; no agent's name."""


@dataclass(frozen=True)
class ShippedModel:
    """A file of :data:`MODELS_DIR` and the name it is known by.

    Attributes:
        name: the agent spec that plays it, or (a search network) the name its readers give it.
        file: its file name in :data:`MODELS_DIR`.
        kind: what it holds.
        short: the shorter name :meth:`~agents.bots.ppo.PPOAgent.pretrained` also takes (``"2p"``), if any.
    """

    name: str
    file: str
    kind: ModelKind
    short: str | None = None

    @property
    def path(self) -> Path:
        """Where the file is."""
        return MODELS_DIR / self.file


CATALOGUE = {
    model.name: model
    for model in (
        ShippedModel("gubs-net", "gubs_net.npz", ModelKind.NETWORK, short="net"),
        ShippedModel("ppo-2p", "gubs_2p.zip", ModelKind.NETWORK, short="2p"),
        ShippedModel("ppo-4p", "gubs_4p.zip", ModelKind.NETWORK, short="4p"),
        ShippedModel("selfplay-2p", "selfplay_2p.npz", ModelKind.NETWORK),
        ShippedModel("selfplay-4p", "selfplay_4p.npz", ModelKind.NETWORK),
        ShippedModel(TUNED, "heuristic_tuned.json", ModelKind.WEIGHT_SET),
        ShippedModel("value", "value.npz", ModelKind.SEARCH_NET),
        ShippedModel("hands", "hands.npz", ModelKind.SEARCH_NET),
        ShippedModel("luck-value", "luck_value.npz", ModelKind.SEARCH_NET),
        ShippedModel("luck-value-2p", "luck_value_2p.npz", ModelKind.SEARCH_NET),
        ShippedModel("selfplay-2p-playout", "selfplay_2p_playout.npz", ModelKind.SEARCH_NET),
        ShippedModel("selfplay-2p-value", "selfplay_2p_value.npz", ModelKind.SEARCH_NET),
    )
}
"""Every file of :data:`MODELS_DIR`, by name. The networks: one for every table size from 2 to 6 (gubs-net), one
trained at each of 2 and 4 players (ppo-2p, ppo-4p, by train.py), and pure self-play from scratch at 2 and 4
players (``python train.py --from-scratch``); docs/training.md says how each was made and
docs/results/shipped-models-log.md gives every command. The search networks are fitted by
``python -m agents.recipes.search_nets`` (a network's own leaf value, ``selfplay-2p-value``, with ``--playout``), a
network's playout policy (``selfplay-2p-playout``) by ``python -m agents.recipes.search_nets.playout``."""

NETWORKS = tuple(name for name, model in CATALOGUE.items() if model.kind is ModelKind.NETWORK)
"""The shipped networks' specs."""
BUILTIN = ("random", "heuristic", TUNED, *NETWORKS, SEARCH, SELFPLAY_SEARCH, ISMCTS)
"""The names a spec may be, besides model and weight-set paths and ``module:Class``."""


PLAYOUTS = {"selfplay-2p": "selfplay-2p-playout"}
"""The shipped networks that have a playout policy (:mod:`agents.bots.search.playout_net`), and its catalogue name."""


LEAF_VALUES = {"selfplay-2p": "selfplay-2p-value"}
"""The shipped networks that have a leaf value fitted on their playout policy's own games, and its catalogue name."""


def playout_of(network: str) -> str:
    """The catalogue name of ``network``'s playout policy; ``KeyError`` (naming those that have one) if none."""
    if network not in PLAYOUTS:
        raise KeyError(f"no playout policy is shipped for {network!r}; shipped for: {', '.join(PLAYOUTS)}")
    return PLAYOUTS[network]
