"""The observation vector: what one player may know, ego-centric and padded to six seats.

The layout is a list of named :class:`Field` s; :data:`LAYOUT` gives each field its slice, so code and the
generated docs/observation.md read the same definition. Seats are relative to the viewer (0 = the viewer,
1 = the next seat clockwise, ...); seats beyond the player count are zero. Every value lies in [0, 1]:
counts are divided by a fixed scale and clipped.

Hidden information is left out by construction: other hands appear only as sizes, the deck only as its
size and the top cards the viewer's own Scout showed, and private decision data (the Scout's cards, the
cards kept for the Traveling Merchant) only for the player it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gubs_env.engine.actions import Part, Use
from gubs_env.engine.cards import BARRICADES, COPIES, LETTERS, MAX_PLAYERS, NUM_KINDS, RINGS, Kind
from gubs_env.engine.state import GameState, Step

SCOUT_DEPTH = 3
HAND_SCALE = 20.0
"""Hand sizes are divided by this (and clipped at 1): hands above 20 cards are practically unseen."""
_INV_COPIES = [1.0 / c for c in COPIES]


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


def _one_hot(size: int, index: int | None) -> list[float]:
    out = [0.0] * size
    if index is not None:
        out[index] = 1.0
    return out


def _per_kind(counts: list[int]) -> list[float]:
    return [n * inv for n, inv in zip(counts, _INV_COPIES, strict=True)]


def encode(st: GameState, viewer: int) -> np.ndarray:
    """The observation of ``viewer`` (float32, :data:`OBS_SIZE` values in [0, 1])."""
    n = st.num_players
    seats = [(viewer + r) % n for r in range(n)]  # relative seat r -> absolute seat
    pad = [0.0] * (MAX_PLAYERS - n)
    rel = _relative(viewer, n)
    sides = [st.sides[s] for s in seats]
    out: list[float] = _per_kind(st.hands[viewer])
    out += [min(1.0, sum(st.hands[s]) / HAND_SCALE) for s in seats] + pad
    out += [1.0] * n + pad
    out += _one_hot(MAX_PLAYERS, rel(st.turn_player))
    out += [float(st.declined[s]) for s in seats] + pad
    out += [side.free / 13 for side in sides] + pad
    out += [float(side.elder) for side in sides] + pad
    for side in sides:
        out += [c * _INV_COPIES[b] for c, b in zip(side.protected, BARRICADES, strict=True)]
    out += pad * len(BARRICADES)
    out += [side.spouted / 4 for side in sides] + pad
    for side in sides:
        out += [float(r) for r in side.rings]
    out += pad * len(RINGS)
    out += [side.score() / 14 for side in sides] + pad
    out += _per_kind(st.discard)
    out += [float(letter in st.letters) for letter in LETTERS]
    out += [len(st.deck) / 70, min(1.0, st.turn / st.options.max_turns)]
    out += _known_top(st.seen_top[viewer])
    out += _scouted_hand(st, viewer, rel)
    out += _pending(st, viewer, rel)
    vector = np.array(out, dtype=np.float32)
    assert vector.shape == (OBS_SIZE,)
    return vector


def _relative(viewer: int, n: int):
    return lambda seat: None if seat is None or seat < 0 else (seat - viewer) % n


def _known_top(top: list[int]) -> list[float]:
    out = [0.0] * (SCOUT_DEPTH * NUM_KINDS)
    for depth, kind in enumerate(top[:SCOUT_DEPTH]):
        out[depth * NUM_KINDS + kind] = 1.0
    return out


def _scouted_hand(st: GameState, viewer: int, rel) -> list[float]:
    seen = st.seen_hand[viewer]
    if seen is None:
        return [0.0] * (MAX_PLAYERS + NUM_KINDS)
    return _one_hot(MAX_PLAYERS, rel(seen[0])) + _per_kind(seen[1])


def _pending(st: GameState, viewer: int, rel) -> list[float]:
    pend = st.pending
    play = pend.play
    card = play.card if play is not None else pend.event
    out = _one_hot(len(Step), pend.step)
    out.append(float(pend.step is not Step.OVER and pend.actor == viewer))
    out += _one_hot(NUM_KINDS, card)
    out += _one_hot(NUM_KINDS, None if play is None else play.as_kind)
    out += _one_hot(len(Use), None if play is None else play.use)
    out += _one_hot(MAX_PLAYERS, rel(pend.by) if card is not None else None)
    out += _one_hot(MAX_PLAYERS, None if play is None else rel(play.seat))
    out += _one_hot(len(Part), None if play is None else play.part)
    out += _one_hot(NUM_KINDS, None if play is None else play.detail)
    out += _ring_picks(st, pend, rel)
    out.append(min(1.0, len(pend.picks) / 10) if pend.step is Step.RETREAT else 0.0)
    mine = pend.step is Step.SCOUT and pend.by == viewer
    out += _kind_counts(pend.cards if mine else ())
    out += _kind_counts(pend.placed if mine else ())
    saved = pend.marks if pend.step is Step.CURE else ()
    out += _one_hot_many(MAX_PLAYERS, [rel(s) for s, m in enumerate(saved) if m])
    return out


def _ring_picks(st: GameState, pend, rel) -> list[float]:
    out = [0.0] * MAX_PLAYERS
    if pend.play is not None and pend.play.use is Use.RING:
        for seat in pend.picks:
            out[rel(seat)] += 1 / 3
    return out


def _kind_counts(kinds) -> list[float]:
    counts = [0] * NUM_KINDS
    for kind in kinds:
        counts[kind] += 1
    return _per_kind(counts)


def _one_hot_many(size: int, indices: list[int]) -> list[float]:
    out = [0.0] * size
    for i in indices:
        out[i] = 1.0
    return out


def markdown_table() -> str:
    """The layout as Markdown (docs/observation.md is generated from it)."""
    lines = [
        "# Observation layout",
        "",
        f"A float32 vector of {OBS_SIZE} values in [0, 1], the same size for every player count. Seats are",
        "relative to the viewer (0 = the viewer, 1 = the next seat clockwise, ...), padded to 6 with zeros.",
        "Generated by `python -m gubs_env.envs.observation`; do not edit by hand.",
        "",
        "| field | slice | size | meaning |",
        "|---|---|---:|---|",
    ]
    for field in FIELDS:
        s = LAYOUT[field.name]
        lines.append(f"| `{field.name}` | {s.start}:{s.stop} | {field.size} | {field.meaning} |")
    return "\n".join(lines) + "\n"


def unpack(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Split a vector into its named fields (for inspection and tests)."""
    return {name: vector[s] for name, s in LAYOUT.items()}


assert Kind.GUB == 0  # one-hot kind indices are the Kind values
