"""The flat action space: one id per engine action, with seats relative to the actor.

The table is generated from the engine's own tables (card uses and their target shapes), never typed by
hand. A target seat is stored as an offset from the acting seat (0 = the actor, 1 = the next seat
clockwise, ...), so one policy can play any table size: ids whose offset is not below the player count
are never legal. Given the actor and the player count, every engine action has exactly one id and every
id at most one action.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from gubs_env.engine.actions import (
    DECLINE,
    DRAW,
    END_TURN,
    PASS,
    RETREAT_PARTS,
    STOP,
    Action,
    Op,
    card_uses,
    make,
    target_space,
)
from gubs_env.engine.cards import EVENTS, MAX_PLAYERS, Kind
from gubs_env.engine.game import Game, IllegalActionError
from gubs_env.engine.positions.serialize import brief

HOLDABLE: tuple[Kind, ...] = tuple(k for k in Kind if k not in EVENTS)
"""Kinds that can be in a hand (Events never stay in one)."""


def _templates() -> tuple[Action, ...]:
    """Every action shape, with ``seat`` holding the offset from the actor."""
    out = [DRAW, DECLINE, END_TURN, PASS, STOP]
    for card, as_kind, use in card_uses():
        out += [make(Op.PLAY, card, as_kind, use, *t) for t in target_space(as_kind, use)]
    out += [make(Op.PLAY, card, as_kind, use) for card, as_kind, use in card_uses(window=True)]
    out += [make(Op.PICK, seat=s) for s in range(MAX_PLAYERS)]
    out += [make(Op.TAKE, seat=0, part=part, detail=detail) for part, detail in RETREAT_PARTS]
    out += [make(Op.PLACE, detail=k) for k in Kind]
    out += [make(Op.KEEP, detail=k) for k in HOLDABLE]
    out += [make(Op.DISCARD, detail=k) for k in HOLDABLE]
    return tuple(out)


TEMPLATES: tuple[Action, ...] = _templates()
NUM_ACTIONS = len(TEMPLATES)
_ID: dict[Action, int] = {t: i for i, t in enumerate(TEMPLATES)}
assert len(_ID) == NUM_ACTIONS, "two ids share one meaning"


def encode(action: Action, actor: int, num_players: int) -> int:
    """The id of an engine action taken by ``actor``."""
    if action.seat is None:
        return _ID[action]
    return _ID[action._replace(seat=(action.seat - actor) % num_players)]


def decode(action_id: int, actor: int, num_players: int) -> Action:
    """The engine action an id means for ``actor``.

    Raises:
        ValueError: the id is outside the action space.
        IllegalActionError: (a ``ValueError``) the id aims at a seat this table does not have.
    """
    if not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"action id {action_id} is outside 0..{NUM_ACTIONS - 1}")
    template = TEMPLATES[action_id]
    if template.seat is None:
        return template
    if template.seat >= num_players:
        raise IllegalActionError(
            f"action id {action_id} ({describe_id(action_id)}) aims at a seat a "
            f"{num_players}-player table does not have"
        )
    return make(*template._replace(seat=(actor + template.seat) % num_players))


class ActionCodec:
    """Ids and actions for one table size, both ways, cached: masks and decodes happen every step."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self._ids: dict[tuple[Action, int], int] = {}
        self._actions: dict[tuple[int, int], Action] = {}

    def ids(self, actions: tuple[Action, ...], actor: int) -> list[int]:
        """The ids of ``actions`` taken by ``actor``."""
        cache, out = self._ids, []
        for action in actions:
            key = (action, actor)
            i = cache.get(key)
            if i is None:
                i = cache[key] = encode(action, actor, self.num_players)
            out.append(i)
        return out

    def action(self, action_id: int, actor: int) -> Action:
        """The action ``action_id`` means for ``actor`` (see :func:`decode`)."""
        key = (action_id, actor)
        action = self._actions.get(key)
        if action is None:
            action = self._actions[key] = decode(action_id, actor, self.num_players)
        return action

    def mask(self, actions: tuple[Action, ...], actor: int) -> np.ndarray:
        """An int8 vector with 1 at the id of every action in ``actions``."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.ids(actions, actor)] = 1
        return mask

    def ask(self, policy: Callable[[np.ndarray, np.ndarray], int], game: Game) -> Action:
        """The current player's action as ``policy`` chooses it from what the environments would show it."""
        from gubs_env.encoding.observation import encode

        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        mask = self.mask(game.legal_actions(), seat)
        return self.action(int(policy(encode(game.state, seat), mask)), seat)


def checked_id(action: Any) -> int:
    """An action id given as a Python int, a numpy integer scalar or a 0-d numpy integer array, as an int.

    Nothing is converted: bools, floats (even 3.0), strings and containers are refused.

    Raises:
        ValueError: ``action`` is not such an integer, or is outside ``0..NUM_ACTIONS - 1``.
    """
    zero_d = type(action) is np.ndarray and action.shape == () and np.issubdtype(action.dtype, np.integer)
    if type(action) is int or isinstance(action, np.integer) or zero_d:
        value = int(action)
    else:
        raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}, not {brief(action)}")
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"action id {brief(value)} is outside 0..{NUM_ACTIONS - 1}")
    return value


def describe_id(action_id: int) -> str:
    """The meaning of an id in words, with the target seat as an offset ("seat +1": the next seat)."""
    template = TEMPLATES[action_id]
    if template.seat is None:
        return str(template)
    text = str(template._replace(seat=-1))
    return text.replace("seat -1", "own side" if template.seat == 0 else f"seat +{template.seat}")


def markdown_table() -> str:
    """The whole table as Markdown (docs/action_table.md is generated from it)."""
    lines = [
        "# Action ids",
        "",
        f"`Discrete({NUM_ACTIONS})`, the same for every player count. Seats are relative to the acting player:",
        '"seat +1" is the next seat clockwise, "own side" the actor\'s own. Generated by',
        "`python -m gubs_env.encoding.action_table`; do not edit by hand.",
        "",
        "| id | op | meaning |",
        "|---:|---|---|",
    ]
    for i, template in enumerate(TEMPLATES):
        lines.append(f"| {i} | {template.op.name.lower()} | {describe_id(i)} |")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The command line: no options but ``--help``."""
    from gubs_env.support.cli import CommandParser

    return CommandParser(
        prog="python -m gubs_env.encoding.action_table", description="Print the action table as Markdown."
    )


def main(argv: list[str] | None = None) -> int:
    """Print :func:`markdown_table` (``python -m gubs_env.encoding.action_table``); no options but ``--help``."""
    from gubs_env.support.cli import EXIT_OK

    build_parser().parse_args(argv)
    print(markdown_table(), end="")
    return EXIT_OK


if __name__ == "__main__":
    import sys

    from gubs_env.support.cli import run_command

    sys.exit(run_command(main))
