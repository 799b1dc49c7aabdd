"""The observation vector: what one player may know, ego-centric and padded to six seats.

The layout is a list of named :class:`Field` s; :data:`LAYOUT` gives each field its slice, so code and the
generated docs/observation.md read the same definition. Seats are relative to the viewer (0 = the viewer,
1 = the next seat clockwise, ...); seats beyond the player count are zero. Every value lies in [0, 1]:
counts are divided by a fixed scale (the few that can exceed it are clipped first).

Hidden information is left out by construction: other hands appear only as sizes, the deck only as its
size and the top cards the viewer's own Scout showed, and private decision data (the Scout's cards, the
cards kept for the Traveling Merchant) only for the player it belongs to.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from gubs_env.engine.actions import Part, Use
from gubs_env.engine.cards import BARRICADES, COPIES, LETTERS, MAX_PLAYERS, NUM_KINDS, RINGS, Kind
from gubs_env.engine.state import GameState, Step

SCOUT_DEPTH = 3
HAND_SCALE = 20.0
"""Hand sizes are divided by this (and clipped at 1): hands above 20 cards are practically unseen."""


@dataclass(frozen=True)
class Field:
    """One named part of the vector."""

    name: str
    size: int
    meaning: str


FIELDS: tuple[Field, ...] = (
    Field("hand", NUM_KINDS, "own hand: count of each kind / copies of the kind"),
    Field("hand_sizes", MAX_PLAYERS, f"cards in hand per relative seat / {HAND_SCALE:.0f} (clipped at 1)"),
    Field("seats", MAX_PLAYERS, "1 for each relative seat at the table"),
    Field("turn_player", MAX_PLAYERS, "relative seat whose turn it is (one-hot)"),
    Field("declined", MAX_PLAYERS, "1 where that seat declined to draw on its previous turn"),
    Field("free", MAX_PLAYERS, "Free plain Gubs per relative seat / 13"),
    Field("elder", MAX_PLAYERS, "1 where the Esteemed Elder is on that side"),
    Field(
        "protected",
        MAX_PLAYERS * len(BARRICADES),
        "Gubs under each Barricade kind (Mushroom, Toad Rider, Velvet Moth) per seat / copies",
    ),
    Field("spouted", MAX_PLAYERS, "Gubs under a Sud Spout per relative seat / 4"),
    Field("rings", MAX_PLAYERS * len(RINGS), "1 where the Single, Double, Triple Ring sits, per seat"),
    Field("score", MAX_PLAYERS, "score per relative seat / 14"),
    Field("discard", NUM_KINDS, "discard pile: count of each kind / copies"),
    Field("letters", len(LETTERS), "1 for each of G, U, B laid out"),
    Field("deck_size", 1, "cards in the deck / 70"),
    Field("turn", 1, "turns played / the turn limit"),
    Field("known_top", SCOUT_DEPTH * NUM_KINDS, "deck top known from the own Scout: one-hot kind per position"),
    Field("scouted_seat", MAX_PLAYERS, "relative seat whose hand the own Scout last showed (one-hot)"),
    Field("scouted_hand", NUM_KINDS, "that hand as it was shown: count of each kind / copies"),
    Field("step", len(Step), "kind of the pending decision (one-hot Step)"),
    Field("to_act", 1, "1 when the viewer must decide now"),
    Field("pending_card", NUM_KINDS, "card being resolved: the card played or the Event drawn (one-hot)"),
    Field("pending_as", NUM_KINDS, "what the card is played as (differs for Cricket Song; one-hot)"),
    Field("pending_use", len(Use), "the use being resolved (one-hot Use)"),
    Field("pending_by", MAX_PLAYERS, "relative seat that played the card or drew the Event (one-hot)"),
    Field("pending_target", MAX_PLAYERS, "relative seat the card aims at (one-hot)"),
    Field("pending_part", len(Part), "part of a side the card aims at (one-hot Part)"),
    Field("pending_detail", NUM_KINDS, "kind named by the target: Barricade to remove, Ring to shatter (one-hot)"),
    Field("ring_picks", MAX_PLAYERS, "Gubs picked so far for the Ring per relative seat / 3"),
    Field("retreat_taken", 1, "cards taken so far by the Retreat being played / 10 (clipped)"),
    Field("scout_cards", NUM_KINDS, "own Scout: cards still to place / copies (only for the scouting player)"),
    Field("scout_placed", NUM_KINDS, "own Scout: cards placed so far / copies (only for the scouting player)"),
    Field("saved", MAX_PLAYERS, "Gargok Plague: 1 where that seat has kept its hand with a cure"),
)


def _slices(fields: tuple[Field, ...]) -> dict[str, slice]:
    out, start = {}, 0
    for field in fields:
        out[field.name] = slice(start, start + field.size)
        start += field.size
    return out


LAYOUT: dict[str, slice] = _slices(FIELDS)
OBS_SIZE: int = sum(f.size for f in FIELDS)

FACT_FIELDS: tuple[Field, ...] = (
    Field("unseen", NUM_KINDS, "copies of each kind not located by the viewer / copies"),
    Field("unseen_total", 1, "cards not located by the viewer / 70"),
    Field("top_chance", NUM_KINDS, "chance that the deck's top card is each kind"),
    Field("margin", 1, "own score less the best other score / 14, clipped to [-1, 1]"),
    Field("would_win", 1, "1 when the viewer would win if the game ended now (the tie-breaks of §6)"),
    Field("leaders", 1, "seats sharing the best score / 6"),
)
"""The rule facts :mod:`gubs_env.encoding.rule_facts` works out from an observation (their layout is kept here,
beside the observation's, so that one table documents both)."""
FACT_LAYOUT: dict[str, slice] = _slices(FACT_FIELDS)
FACTS_SIZE: int = sum(f.size for f in FACT_FIELDS)


def _scales() -> np.ndarray:
    """What each raw value is divided by, per position of the vector."""
    per_seat = {
        "hand_sizes": HAND_SCALE,
        "free": 13.0,
        "spouted": 4.0,
        "score": 14.0,
        "deck_size": 70.0,
        "ring_picks": 3.0,
        "retreat_taken": 10.0,
    }
    copies = np.array(COPIES, dtype=np.float32)
    scale = np.ones(OBS_SIZE, dtype=np.float32)
    for name, value in per_seat.items():
        scale[LAYOUT[name]] = value
    for name in ("hand", "discard", "scouted_hand", "scout_cards", "scout_placed"):
        scale[LAYOUT[name]] = copies
    scale[LAYOUT["protected"]] = np.tile(copies[list(BARRICADES)], MAX_PLAYERS)
    return 1.0 / scale


INV_SCALE = _scales()
_AT = {name: s.start for name, s in LAYOUT.items()}


_DENSE_END = _AT["turn"]
"""The fields before this position are written as one block; ``turn`` is a fraction set after scaling."""
_HAND_CLIP = int(HAND_SCALE)
_PAD = tuple([0] * k for k in range(len(BARRICADES) * MAX_PLAYERS + 1))
_SEATS = tuple([1] * n + [0] * (MAX_PLAYERS - n) for n in range(MAX_PLAYERS + 1))
_SEAT_ONE_HOT = tuple([int(i == r) for i in range(MAX_PLAYERS)] for r in range(MAX_PLAYERS))


def encode(st: GameState, viewer: int) -> np.ndarray:
    """The observation of ``viewer`` (float32, :data:`OBS_SIZE` values in [0, 1])."""
    n = st.num_players
    order = [(viewer + r) % n for r in range(n)]  # the absolute seat at each relative seat
    sides = [st.sides[seat] for seat in order]
    pad, pad3 = _PAD[MAX_PLAYERS - n], _PAD[len(BARRICADES) * (MAX_PLAYERS - n)]
    dense = st.hands[viewer][:]
    dense += [min(_HAND_CLIP, sum(st.hands[seat])) for seat in order] + pad  # clipped: the scale maps it to 1
    dense += _SEATS[n]
    dense += _SEAT_ONE_HOT[(st.turn_player - viewer) % n]
    dense += [st.declined[seat] for seat in order] + pad
    dense += [side.free for side in sides] + pad
    dense += [side.elder for side in sides] + pad
    for side in sides:
        dense += side.protected
    dense += pad3
    dense += [side.spouted for side in sides] + pad
    for side in sides:
        dense += side.rings
    dense += pad3
    dense += [side.score() for side in sides] + pad
    dense += st.discard
    dense += [letter in st.letters for letter in LETTERS]
    dense.append(len(st.deck))
    # Every raw value before scaling is a small count: a bytearray holds them far faster than numpy
    # takes them one by one (and refuses any value outside 0..255).
    raw = bytearray(OBS_SIZE)
    raw[:_DENSE_END] = dense
    for depth, kind in enumerate(st.seen_top[viewer][:SCOUT_DEPTH]):
        _one(raw, _AT["known_top"] + depth * NUM_KINDS, kind)
    seen = st.seen_hand[viewer]
    if seen is not None:
        _one(raw, _AT["scouted_seat"], (seen[0] - viewer) % n)
        _counts(raw, "scouted_hand", seen[1])
    _pending(st, viewer, raw)
    vector = np.frombuffer(raw, dtype=np.uint8) * INV_SCALE
    vector[_AT["turn"]] = min(1.0, st.turn / st.options.max_turns)
    return vector


def _one(raw: bytearray, at: int, offset: int | None) -> None:
    """A one-hot value at ``at + offset`` (nothing for ``None``)."""
    if offset is not None:
        raw[at + offset] = 1


def _counts(raw: bytearray, field: str, counts: list[int]) -> None:
    """A field of counts, written whole (``counts`` has exactly the field's size)."""
    raw[LAYOUT[field]] = counts


def _pending(st: GameState, viewer: int, raw: bytearray) -> None:
    pend = st.pending
    n = st.num_players
    play = pend.play
    card = play.card if play is not None else pend.event
    _one(raw, _AT["step"], pend.step)
    raw[_AT["to_act"]] = pend.step is not Step.OVER and pend.actor == viewer
    _one(raw, _AT["pending_card"], card)
    if card is not None:
        _one(raw, _AT["pending_by"], (pend.by - viewer) % n)
    if play is not None:
        _one(raw, _AT["pending_as"], play.as_kind)
        _one(raw, _AT["pending_use"], play.use)
        _one(raw, _AT["pending_target"], None if play.seat is None else (play.seat - viewer) % n)
        _one(raw, _AT["pending_part"], play.part)
        _one(raw, _AT["pending_detail"], play.detail)
    if play is not None and play.use is Use.RING:  # also in the cancel window after the picks
        picks = [0] * MAX_PLAYERS
        for seat in pend.picks:
            picks[(seat - viewer) % n] += 1
        _counts(raw, "ring_picks", picks)
    if pend.step is Step.RETREAT:
        raw[_AT["retreat_taken"]] = min(10, len(pend.picks))
    if pend.step is Step.SCOUT and pend.by == viewer:  # private to the scouting player
        _counts(raw, "scout_cards", _kind_counts(pend.cards))
        _counts(raw, "scout_placed", _kind_counts(pend.placed))
    if pend.step is Step.CURE:
        for seat, saved in enumerate(pend.marks):
            if saved:
                _one(raw, _AT["saved"], (seat - viewer) % n)


def _kind_counts(kinds: list[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for kind in kinds:
        counts[kind] += 1
    return counts


def markdown_table() -> str:
    """The layout as Markdown (docs/observation.md is generated from it)."""
    lines = [
        "# Observation layout",
        "",
        f"A float32 vector of {OBS_SIZE} values in [0, 1], the same size for every player count. Seats are",
        "relative to the viewer (0 = the viewer, 1 = the next seat clockwise, ...), padded to 6 with zeros.",
        "Generated by `python -m gubs_env.encoding.observation`; do not edit by hand.",
        "",
        *_table("field", FIELDS, LAYOUT),
        "",
        "## Rule facts",
        "",
        f"`gubs_env.encoding.rule_facts.rule_facts(obs)` works out {FACTS_SIZE} more values from observations alone",
        "(batched, numpy), the facts a player's choices turn on; `policy_input(obs)` appends them to the observation.",
        "The self-play learner's `rule_facts` lever and `python train.py --rule-facts` feed them to their networks",
        "(docs/training.md).",
        "",
        *_table("fact", FACT_FIELDS, FACT_LAYOUT),
    ]
    return "\n".join(lines) + "\n"


def _table(what: str, fields: tuple[Field, ...], layout: dict[str, slice]) -> list[str]:
    """A Markdown table of ``fields``: name, slice, size, meaning."""
    rows = [f"| {what} | slice | size | meaning |", "|---|---|---:|---|"]
    for field in fields:
        s = layout[field.name]
        rows.append(f"| `{field.name}` | {s.start}:{s.stop} | {field.size} | {field.meaning} |")
    return rows


def unpack(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Split a vector into its named fields (for inspection and tests)."""
    return {name: vector[s] for name, s in LAYOUT.items()}


assert Kind.GUB == 0  # one-hot kind indices are the Kind values


def build_parser() -> argparse.ArgumentParser:
    """The command line: no options but ``--help``."""
    from gubs_env.support.cli import CommandParser

    return CommandParser(
        prog="python -m gubs_env.encoding.observation", description="Print the observation layout as Markdown."
    )


def main(argv: list[str] | None = None) -> int:
    """Print :func:`markdown_table` (``python -m gubs_env.encoding.observation``); no options but ``--help``."""
    from gubs_env.support.cli import EXIT_OK

    build_parser().parse_args(argv)
    print(markdown_table(), end="")
    return EXIT_OK


if __name__ == "__main__":
    import sys

    from gubs_env.support.cli import run_command

    sys.exit(run_command(main))
