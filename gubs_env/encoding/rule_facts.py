"""Rule facts: what the rules let a player work out from their observation, as extra network inputs.

A network could learn these from the observation alone, but only slowly: they are ratios and maxima of the
observation's counts, and they are the facts a player's choices turn on (is the next card likely a Letter, how
many Gubs are still to come, would I win if the game ended now). :func:`rule_facts` computes them from
observation vectors, batched, in numpy; ``policy_input`` appends them to the observation, which is how the
self-play learner's ``rule_facts`` lever feeds its network.

The facts, in :data:`FACT_LAYOUT` order:

* ``unseen``: copies of each kind the viewer has not located, over the kind's copies. A located card is in the
  viewer's hand, the discard pile, the laid Letters, on a side, in play, or on the deck's top as the viewer's own
  Scout showed it; the rest is in the deck or in the other hands.
* ``unseen_total``: the unseen cards / 70.
* ``top_chance``: the chance that the deck's top card is each kind. The Scout's knowledge where it has it;
  otherwise Events and Letters are never held in a hand, so every unseen one is in the deck, at a uniformly random
  spot (exact for the uniform Letter placement; the printed "thirds" placement keeps each Letter in its third of
  the deck, which this leaves out), and the deck's other cards are the unseen playable cards in proportion.
* ``margin``: the viewer's score less the best other score, / 14, clipped to [-1, 1].
* ``would_win``: 1 when the viewer would be among the winners if the game ended now (the tie-breaks of
  docs/rules.md §6: score, then the Elder, then the fewest cards in hand).
* ``leaders``: how many seats share the best score, / 6.
"""

from __future__ import annotations

import numpy as np

from gubs_env.encoding.observation import (
    FACT_FIELDS,
    FACT_LAYOUT,
    FACTS_SIZE,
    INV_SCALE,
    LAYOUT,
    OBS_SIZE,
    SCOUT_DEPTH,
)
from gubs_env.engine.cards import BARRICADES, COPIES, EVENTS, LETTERS, MAX_PLAYERS, NUM_KINDS, RINGS, Kind
from gubs_env.engine.state import RING_SIZES

__all__ = ["FACTS_SIZE", "FACT_FIELDS", "FACT_LAYOUT", "POLICY_INPUT_SIZE", "located", "policy_input", "rule_facts"]

POLICY_INPUT_SIZE: int = OBS_SIZE + FACTS_SIZE
"""The observation followed by its facts."""

_COPIES = np.array(COPIES, dtype=np.float64)
_TOTAL = float(_COPIES.sum())
_DECK_ONLY = np.zeros(NUM_KINDS, dtype=bool)
_DECK_ONLY[list(EVENTS)] = True
"""Events and Letters resolve when drawn: an unseen one is always in the deck."""
_RING_GUBS = np.array(RING_SIZES, dtype=np.float64)


def _counts(obs: np.ndarray, field: str) -> np.ndarray:
    """A field of the observation back in counts (the observation divides each by its scale)."""
    part = LAYOUT[field]
    return np.rint(obs[..., part] / INV_SCALE[part]).astype(np.float64)


def located(obs: np.ndarray) -> np.ndarray:
    """Per kind, the copies the viewer of each observation has located (see the module docstring)."""
    seats = MAX_PLAYERS
    found = _counts(obs, "hand") + _counts(obs, "discard") + _counts(obs, "scout_cards") + _counts(obs, "scout_placed")
    found[..., list(LETTERS)] += _counts(obs, "letters")
    protected = _counts(obs, "protected").reshape(*obs.shape[:-1], seats, len(BARRICADES)).sum(axis=-2)
    rings = _counts(obs, "rings").reshape(*obs.shape[:-1], seats, len(RINGS)).sum(axis=-2)
    spouted = _counts(obs, "spouted").sum(axis=-1)
    found[..., Kind.GUB] += _counts(obs, "free").sum(axis=-1) + protected.sum(axis=-1) + spouted + rings @ _RING_GUBS
    found[..., Kind.ELDER] += _counts(obs, "elder").sum(axis=-1)
    found[..., Kind.SUD_SPOUT] += spouted
    found[..., list(BARRICADES)] += protected
    found[..., list(RINGS)] += rings
    found += _counts(obs, "pending_card")
    known_top = _counts(obs, "known_top").reshape(*obs.shape[:-1], SCOUT_DEPTH, NUM_KINDS)
    return found + known_top.sum(axis=-2)


def rule_facts(obs: np.ndarray) -> np.ndarray:
    """The facts of observations shaped ``(..., OBS_SIZE)``, as float32 shaped ``(..., FACTS_SIZE)``.

    Raises:
        ValueError: the last axis is not an observation.
    """
    obs = np.asarray(obs)
    if obs.shape[-1:] != (OBS_SIZE,):
        raise ValueError(f"rule_facts takes observations of {OBS_SIZE} values, not an array shaped {obs.shape}")
    unseen = np.clip(_COPIES - located(obs), 0.0, None)
    facts = np.zeros((*obs.shape[:-1], FACTS_SIZE), dtype=np.float64)
    facts[..., FACT_LAYOUT["unseen"]] = unseen / _COPIES
    facts[..., FACT_LAYOUT["unseen_total"]] = unseen.sum(axis=-1, keepdims=True) / _TOTAL
    facts[..., FACT_LAYOUT["top_chance"]] = _top_chance(obs, unseen)
    facts[..., FACT_LAYOUT["margin"].start :] = _standing(obs)
    return facts.astype(np.float32)


def _top_chance(obs: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    deck = _counts(obs, "deck_size")  # (..., 1)
    in_deck = np.where(_DECK_ONLY, unseen, 0.0)
    playable = unseen - in_deck
    rest = np.clip(deck - in_deck.sum(axis=-1, keepdims=True), 0.0, None)  # deck cards that were playable ones
    share = playable / np.maximum(playable.sum(axis=-1, keepdims=True), 1.0)
    chance = (in_deck + rest * share) / np.maximum(deck, 1.0)
    known = _counts(obs, "known_top")[..., :NUM_KINDS]  # the first position: the top card
    return np.where(known.sum(axis=-1, keepdims=True) > 0, known, chance)


def _standing(obs: np.ndarray) -> np.ndarray:
    """``margin``, ``would_win`` and ``leaders`` (the seats beyond the table are left out)."""
    at_table = obs[..., LAYOUT["seats"]] > 0.5
    score = np.where(at_table, _counts(obs, "score"), -1.0)
    best_other = score[..., 1:].max(axis=-1)
    margin = np.clip((score[..., 0] - best_other) / 14.0, -1.0, 1.0)
    best = score.max(axis=-1, keepdims=True)
    tied = at_table & (score == best)
    elder = tied & (obs[..., LAYOUT["elder"]] > 0.5)
    cards = np.where(tied, _counts(obs, "hand_sizes"), np.inf)
    fewest = tied & (cards == cards.min(axis=-1, keepdims=True))
    winners = np.where(elder.any(axis=-1, keepdims=True), elder, fewest)
    return np.stack([margin, winners[..., 0].astype(np.float64), tied.sum(axis=-1) / MAX_PLAYERS], axis=-1)


def policy_input(obs: np.ndarray) -> np.ndarray:
    """The observation followed by its rule facts: float32 shaped ``(..., POLICY_INPUT_SIZE)``."""
    obs = np.asarray(obs, dtype=np.float32)
    return np.concatenate([obs, rule_facts(obs)], axis=-1)
