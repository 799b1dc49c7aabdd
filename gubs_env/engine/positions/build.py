"""Write positions by hand: :func:`position` fills in everything a test or notebook leaves out.

>>> from gubs_env.engine import Game
>>> from gubs_env.engine.positions import position
>>> game = Game.from_dict(position(hands=[{"Lure": 1}, {}], sides=[{"free": 1}, {"free": 2}]))
>>> [str(a) for a in game.legal_actions()]
['Lure → seat 1', 'Go (end turn)']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gubs_env.engine.cards import CARDS, COPIES
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.positions.serialize import FORMAT_VERSION, state_from_dict

SIDE_DEFAULTS: dict[str, Any] = {"free": 0, "elder": False, "protected": {}, "spouted": 0, "rings": []}


def _side(values: dict[str, Any]) -> dict[str, Any]:
    unknown = set(values) - set(SIDE_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown side keys {sorted(unknown)}; known: {sorted(SIDE_DEFAULTS)}")
    return {**SIDE_DEFAULTS, **values}


def _placed_counts(state: dict[str, Any]) -> list[int]:
    """Cards the dict already places (everything but the rest of the deck), per kind."""
    index = {spec.name: spec.kind for spec in CARDS}
    counts = [0] * len(CARDS)
    named = [*state["deck"], *state["letters"]]
    if state["pending"].get("event"):
        named.append(state["pending"]["event"])
    if state["pending"].get("play"):
        named.append(state["pending"]["play"]["card"])
    for name in named:
        counts[index[name]] += 1
    for zone in [state["discard"], *state["hands"]]:
        for name, n in zone.items():
            counts[index[name]] += n
    for side in state["sides"]:
        counts[0] += side["free"] + sum(side["protected"].values()) + side["spouted"]
        counts[1] += int(side["elder"])
        counts[index["Sud Spout"]] += side["spouted"]
        for name, n in side["protected"].items():
            counts[index[name]] += n
        for name in side["rings"]:
            counts[index[name]] += 1
            counts[0] += CARDS[index[name]].ring_size
    return counts


def position(
    num_players: int = 2,
    *,
    hands: list[dict[str, int]] | None = None,
    sides: list[dict[str, Any]] | None = None,
    deck_top: Sequence[str] = (),
    discard: dict[str, int] | None = None,
    letters: Sequence[str] = (),
    turn_player: int = 0,
    step: str = "play",
    declined: list[bool] | None = None,
    turn: int = 1,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete, valid state dict for a hand-set table.

    Every card not placed by the arguments goes into the deck **below** ``deck_top`` (top first), in
    card-table order. ``step`` is ``"play"`` (the turn player has drawn or declined) or ``"draw"``.
    Raises ``ValueError`` (an :class:`~gubs_env.engine.positions.serialize.InvalidStateError`) when the table
    places more copies of a kind than the deck has.
    """
    if step not in ("play", "draw"):
        raise ValueError("position() builds 'play' or 'draw' steps; edit 'pending' for anything else")
    state: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "num_players": num_players,
        "options": RuleOptions.from_dict(options or {}).to_dict(),
        "turn": {
            "player": turn_player,
            "number": turn,
            "declined": list(declined) if declined is not None else [False] * num_players,
        },
        "deck": list(deck_top),
        "discard": dict(discard or {}),
        "letters": list(letters),
        "hands": [dict(h) for h in (hands or [{}] * num_players)],
        "sides": [_side(s) for s in (sides or [{}] * num_players)],
        "pending": {
            "step": step,
            "actor": turn_player,
            "by": turn_player,
            "play": None,
            "event": None,
            "queue": [],
            "picks": [],
            "cards": [],
            "placed": [],
            "marks": [],
        },
        "seen": [{"top": [], "hand": None} for _ in range(num_players)],
        "rng": np.random.default_rng(seed).bit_generator.state,
        "truncated": False,
        "deck_history": None,  # a table set by hand has no known past
    }
    placed = _placed_counts(state)
    for spec in CARDS:
        state["deck"] += [spec.name] * (COPIES[spec.kind] - placed[spec.kind])
    state_from_dict(state)  # validates: raises on too many copies or an impossible table
    return state
