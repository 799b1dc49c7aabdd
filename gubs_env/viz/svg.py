"""An SVG picture of the table, from one seat's point of view or seen by all.

:func:`table_svg` draws every side (Free Gubs, the Esteemed Elder, Protected Gubs under their Barricade,
Gubs under Sud Spouts, Rings holding their Gubs), the hands (the viewer's face up, the others' as card
backs with their counts), the deck, the Letters laid, the discard pile, the card in play and whose
decision it is, the scores, and the winners once the game is over.

Only what ``viewer`` may know is written into the SVG (texts, titles and attributes alike): the other
hands are backs, the deck is a count, and what a Scout showed appears only in its owner's picture.
With ``viewer=None`` the picture is *all-seeing*: every hand is face up (for watching bots play).

Cards are told apart by a colour and a small symbol per card type and by their printed name. The SVG
fetches nothing: generic font families only, no images, no scripts.

Command line (writes the picture after ``--steps`` random legal actions)::

    python -m gubs_env.viz --seed 9 --players 3 --steps 70 --seat 0 --svg docs/images/table.svg
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from gubs_env.engine import rules
from gubs_env.engine.cards import BARRICADES, CARDS, LETTERS, MAX_PLAYERS, MIN_PLAYERS, RINGS, CardType, Kind
from gubs_env.engine.render import outcome_text, render
from gubs_env.engine.state import RING_SIZES, GameState, Side, Step

if TYPE_CHECKING:
    from gubs_env.engine.game import Game

DESIGN_WIDTH = 900
"""Width of the drawing in its own units; ``width`` only scales the picture (the viewBox stays put)."""

FONT = "Helvetica, Arial, sans-serif"
"""Generic families only: nothing is fetched."""

CARD_W, CARD_H = 74, 54
"""A card on the table (type band at the top, name below)."""
GAP = 8
CAPTION_H = 13
ITEM_H = CARD_H + CAPTION_H + 12
"""Height of one row of cards: card, caption below, room for a stacked card peeking above."""
PANEL_X, PANEL_W = 10, DESIGN_WIDTH - 20
LEFT_W = 128
"""The left column of a seat panel: name, score, badges."""
FLOW_X = PANEL_X + LEFT_W + 10
FLOW_W = PANEL_X + PANEL_W - FLOW_X - 8

TYPE_STYLE: dict[CardType, tuple[str, str, str]] = {
    CardType.GUB: ("#2e7d32", "#e8f5e9", "Gub"),
    CardType.BARRICADE: ("#8d5524", "#f6ebe0", "Barricade"),
    CardType.TRAP: ("#6a3d9a", "#efe7f7", "Trap"),
    CardType.HAZARD: ("#c62828", "#fdecea", "Hazard"),
    CardType.TOOL_OR_HAZARD: ("#e65100", "#fff0e0", "Tool/Hazard"),
    CardType.TOOL: ("#1565c0", "#e6f0fb", "Tool"),
    CardType.INTERRUPT: ("#00838f", "#e0f5f6", "Interrupt"),
    CardType.WILD: ("#ad1457", "#fbe6ef", "Wild"),
    CardType.LETTER: ("#b8860b", "#fdf6dc", "Letter"),
    CardType.EVENT: ("#37474f", "#eceff1", "Event"),
}
"""Per card type: band colour, face tint, label."""

INK, MUTED, PAPER, BACK = "#212121", "#616161", "#fbfaf6", "#3949ab"
TURN_COLOUR, DECIDE_COLOUR, WIN_COLOUR = "#1565c0", "#ef6c00", "#f9a825"


def _attr(value: object) -> str:
    """An XML attribute value, quoted and escaped."""
    return quoteattr(str(value))


def _text(
    x: float, y: float, words: str, *, size: float = 11, weight: str = "normal", fill: str = INK, anchor: str = "start"
) -> str:
    return (
        f"<text x={_attr(_n(x))} y={_attr(_n(y))} font-size={_attr(size)} font-weight={_attr(weight)} "
        f"fill={_attr(fill)} text-anchor={_attr(anchor)}>{escape(words)}</text>"
    )


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", *, rx: float = 6) -> str:
    return (
        f"<rect x={_attr(_n(x))} y={_attr(_n(y))} width={_attr(_n(w))} height={_attr(_n(h))} "
        f"rx={_attr(rx)} fill={_attr(fill)} stroke={_attr(stroke)}/>"
    )


_GLUE = "\x00"
"""Stands for a space that must not break a line while wrapping (inside "seat 2", after an arrow)."""


def _wrap(words: str, max_chars: int) -> list[str]:
    """Greedy word wrap by character count (good enough for a sans-serif face at a known size).

    "seat 2" and "→ seat 2" are never split across lines.
    """
    glued = re.sub(
        r"(→ )?seat (\d)", lambda m: (m.group(1) or "").replace(" ", _GLUE) + "seat" + _GLUE + m.group(2), words
    )
    lines: list[str] = []
    for word in glued.split():
        if lines and len(lines[-1]) + 1 + len(word) <= max_chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def _symbol(card_type: CardType, cx: float, cy: float) -> str:
    """A small white symbol for a card type, drawn in the card's band."""
    fill = 'fill="#ffffff"'
    if card_type is CardType.GUB:  # a little round creature with eyes
        return (
            f'<circle cx="{cx}" cy="{cy}" r="5" {fill}/><circle cx="{cx - 1.8}" cy="{cy - 1}" r="1" fill="#2e7d32"/>'
            f'<circle cx="{cx + 1.8}" cy="{cy - 1}" r="1" fill="#2e7d32"/>'
        )
    if card_type is CardType.BARRICADE:  # a shield
        return (
            f'<path d="M{cx - 5},{cy - 5} L{cx + 5},{cy - 5} L{cx + 5},{cy} Q{cx + 5},{cy + 4} {cx},{cy + 6} '
            f'Q{cx - 5},{cy + 4} {cx - 5},{cy} Z" {fill}/>'
        )
    if card_type is CardType.TRAP:  # a ring
        return f'<circle cx="{cx}" cy="{cy}" r="4.2" fill="none" stroke="#ffffff" stroke-width="2.2"/>'
    if card_type in (CardType.HAZARD, CardType.TOOL_OR_HAZARD):  # a warning triangle
        return f'<path d="M{cx},{cy - 5.5} L{cx + 6},{cy + 5} L{cx - 6},{cy + 5} Z" {fill}/>'
    if card_type is CardType.TOOL:  # a diamond
        return f'<path d="M{cx},{cy - 6} L{cx + 5},{cy} L{cx},{cy + 6} L{cx - 5},{cy} Z" {fill}/>'
    if card_type is CardType.INTERRUPT:  # a lightning bolt: it strikes in between
        return (
            f'<path d="M{cx + 1.5},{cy - 6} L{cx - 4},{cy + 1} L{cx},{cy + 1} L{cx - 1.5},{cy + 6} '
            f'L{cx + 4},{cy - 1} L{cx},{cy - 1} Z" {fill}/>'
        )
    if card_type is CardType.WILD:  # a question mark in a circle: it can be many things
        return (
            f'<circle cx="{cx}" cy="{cy}" r="5.5" {fill}/>'
            f'<text x="{cx}" y="{cy + 3.5}" font-size="9" font-weight="bold" fill="#ad1457" '
            f'text-anchor="middle">?</text>'
        )
    if card_type is CardType.LETTER:  # an envelope
        return (
            f'<rect x="{cx - 5.5}" y="{cy - 4}" width="11" height="8" {fill}/>'
            f'<path d="M{cx - 5.5},{cy - 4} L{cx},{cy + 0.5} L{cx + 5.5},{cy - 4}" fill="none" '
            f'stroke="#b8860b" stroke-width="1"/>'
        )
    # EVENT: a star
    points = " ".join(
        f"{cx + r * dx:.1f},{cy + r * dy:.1f}"
        for r, (dx, dy) in zip(
            [6, 2.6] * 5,
            [
                (0, -1),
                (0.59, -0.81),
                (0.95, -0.31),
                (0.95, 0.31),
                (0.59, 0.81),
                (0, 1),
                (-0.59, 0.81),
                (-0.95, 0.31),
                (-0.95, -0.31),
                (-0.59, -0.81),
            ],
            strict=True,
        )
    )
    return f'<polygon points="{points}" {fill}/>'


def card_svg(kind: Kind, x: float, y: float, count: int = 1, *, highlight: bool = False) -> str:
    """One face-up card at (x, y): type band with symbol and type name, printed name, count badge."""
    spec = CARDS[kind]
    band, face, type_label = TYPE_STYLE[spec.type]
    stroke = f' stroke="{DECIDE_COLOUR}" stroke-width="3"' if highlight else f' stroke="{band}" stroke-width="1.5"'
    right = CARD_W
    parts = [
        f'<g class="card" data-kind="{kind.name.lower()}" transform="translate({_n(x)},{_n(y)})">',
        f"<title>{escape(spec.name)} ({type_label})</title>",
        f'<rect width="{CARD_W}" height="{CARD_H}" rx="6" fill="{face}"{stroke}/>',
        f'<path d="M0,6 Q0,0 6,0 L{right - 6},0 Q{right},0 {right},6 L{right},15 L0,15 Z" fill="{band}"/>',
        _symbol(spec.type, 10, 7.5),
        _band_label(type_label.upper()),
    ]
    lines = _wrap(spec.name, 12)
    first = 31 if len(lines) == 1 else 27
    parts += [
        _text(CARD_W / 2, first + 12 * i, line, size=10.5, weight="bold", anchor="middle")
        for i, line in enumerate(lines[:2])
    ]
    if count > 1:
        parts.append(_badge(CARD_W - 4, CARD_H - 4, f"×{count}", band))
    parts.append("</g>")
    return "".join(parts)


def _band_label(label: str) -> str:
    """The type name in a card's band, squeezed to fit when it is long (TOOL/HAZARD)."""
    fit = f' textLength="{CARD_W - 24}" lengthAdjust="spacingAndGlyphs"' if len(label) > 9 else ""
    return f'<text x="19" y="11" font-size="7.5" font-weight="bold" fill="#ffffff"{fit}>{escape(label)}</text>'


def _n(value: float) -> str:
    """A coordinate with at most one decimal: ``12``, ``12.5``."""
    return f"{value:.1f}".removesuffix(".0")


def _badge(cx: float, cy: float, label: str, colour: str) -> str:
    width = 8 + 6.5 * len(label)
    return _rect(cx - width / 2, cy - 8, width, 16, colour, "#ffffff", rx=8) + _text(
        cx, cy + 4, label, size=10, weight="bold", fill="#ffffff", anchor="middle"
    )


def card_back_svg(x: float, y: float) -> str:
    """The back of a card: what everybody sees of a card they may not know."""
    return (
        f'<g class="card-back"><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="{BACK}" '
        f'stroke="#ffffff" stroke-width="1.5"/><rect x="{x + 5}" y="{y + 5}" width="{CARD_W - 10}" '
        f'height="{CARD_H - 10}" rx="4" fill="none" stroke="#9fa8da" stroke-width="1.2"/>'
        + _text(x + CARD_W / 2, y + CARD_H / 2 + 5, "GUBS", size=12, weight="bold", fill="#c5cae9", anchor="middle")
        + "</g>"
    )


@dataclass
class _Item:
    """One group of cards in a flow row: its drawing (relative to its own origin) and its width."""

    body: str
    width: float


def _item_card(kind: Kind, count: int, caption: str, *, highlight: bool = False) -> _Item:
    body = card_svg(kind, 0, 8, count, highlight=highlight)
    body += _text(CARD_W / 2, 8 + CARD_H + CAPTION_H, caption, size=10, fill=MUTED, anchor="middle")
    return _Item(body, CARD_W)


def _item_stack(top: Kind, under: Kind, count: int, caption: str) -> _Item:
    """A card lying on another (a Barricade on its Gub, a Sud Spout on its Gub, a Ring on its Gubs)."""
    body = card_svg(under, 8, 0) + card_svg(top, 0, 8, count)
    body += _text((CARD_W + 8) / 2, 8 + CARD_H + CAPTION_H, caption, size=10, fill=MUTED, anchor="middle")
    return _Item(body, CARD_W + 8)


def _item_backs(count: int) -> _Item:
    shown = min(count, 5)
    body = "".join(card_back_svg(6 * i, 8) for i in range(shown))
    width = CARD_W + 6 * max(shown - 1, 0)
    label = f"{count} card{'s' * (count != 1)} in hand" if count else "no cards in hand"
    if not count:
        body = _rect(0, 8, CARD_W, CARD_H, "none", "#bdbdbd", rx=6)
    body += _text(width / 2, 8 + CARD_H + CAPTION_H, label, size=10, fill=MUTED, anchor="middle")
    return _Item(body, max(width, 7 * len(label)))


def _side_items(side: Side) -> list[_Item]:
    items: list[_Item] = []
    if side.free:
        items.append(_item_card(Kind.GUB, side.free, "Free"))
    if side.elder:
        items.append(_item_card(Kind.ELDER, 1, "Free (Elder)"))
    for barricade, n in zip(BARRICADES, side.protected, strict=True):
        if n:
            items.append(_item_stack(barricade, Kind.GUB, n, "Protected"))
    if side.spouted:
        items.append(_item_stack(Kind.SUD_SPOUT, Kind.GUB, side.spouted, "Gub trapped"))
    for ring, size, here in zip(RINGS, RING_SIZES, side.rings, strict=True):
        if here:
            items.append(_item_stack(ring, Kind.GUB, 1, f"holds {size} Gub{'s' * (size != 1)}"))
    return items


def _hand_items(counts: Sequence[int]) -> list[_Item]:
    return [_item_card(Kind(k), n, "") for k, n in enumerate(counts) if n]


def _flow(items: list[_Item], x0: float, y0: float, width: float) -> tuple[str, float]:
    """Lay items left to right, wrapping; returns the drawing and the height used."""
    if not items:
        return "", 0
    parts, x, y = [], x0, y0
    for item in items:
        if x > x0 and x + item.width > x0 + width:
            x, y = x0, y + ITEM_H + 4
        parts.append(f'<g transform="translate({_n(x)},{_n(y)})">{item.body}</g>')
        x += item.width + GAP
    return "".join(parts), y + ITEM_H - y0


@dataclass
class _Canvas:
    """The drawing being built, top to bottom."""

    parts: list[str] = field(default_factory=list)
    y: float = 0

    def add(self, *snippets: str) -> None:
        self.parts.extend(snippets)


def _seat_name(seat: int, viewer: int | None) -> str:
    return f"Seat {seat} (you)" if seat == viewer else f"Seat {seat}"


def decision_text(st: GameState, viewer: int | None = None) -> str:
    """What the game waits for, in words: who decides and what about (or how it ended)."""
    pend = st.pending
    if pend.step is Step.OVER:
        return f"Game over: {outcome_text(st)}"
    who = "Your decision" if pend.actor == viewer else f"Seat {pend.actor} to decide"
    played = f"seat {pend.by}'s {pend.play}" if pend.play is not None else ""
    ring = pend.play.as_kind.label if pend.play is not None and pend.play.as_kind is not None else "Ring"
    event = Kind(pend.event).label if pend.event is not None else ""
    what = {
        Step.DRAW: "draw a card or decline",
        Step.PLAY: "play a card or end the turn (Go)",
        Step.DISCARD: "discard down to the hand limit",
        Step.CANCEL: f"cancel {played}, or pass",
        Step.FLOP: f"flop {event} back into the deck, or pass",
        Step.CURE: "keep the hand through Gargok Plague with Age-Old Cure, or pass",
        Step.KEEP: "choose a card to keep (Traveling Merchant)",
        Step.RING: f"pick the next Free Gub for seat {pend.by}'s {ring} to trap",
        Step.RETREAT: "take the next card back into the hand, or stop (Retreat)",
        Step.SCOUT: "choose the next card for the top of the deck (Scout)",
    }[pend.step]
    return f"{who}: {what}"


def _header(canvas: _Canvas, st: GameState, viewer: int | None, scores: list[int]) -> None:
    view = "all-seeing view" if viewer is None else f"seen by seat {viewer}"
    canvas.add(
        _rect(0, 0, DESIGN_WIDTH, 38, "#263238", rx=0),
        _text(14, 25, "Gubs", size=18, weight="bold", fill="#ffffff"),
        _text(70, 25, f"turn {st.turn} · {st.num_players} players · {view}", size=13, fill="#cfd8dc"),
        _text(
            DESIGN_WIDTH - 14,
            25,
            "scores: " + " · ".join(f"seat {s} {p}" for s, p in enumerate(scores)),
            size=13,
            weight="bold",
            fill="#ffffff",
            anchor="end",
        ),
    )
    canvas.y = 46


def _banner(canvas: _Canvas, st: GameState, viewer: int | None, winners: list[int], scores: list[int]) -> None:
    over = st.pending.step is Step.OVER
    colour = WIN_COLOUR if over and winners else ("#9e9e9e" if over else DECIDE_COLOUR)
    text = decision_text(st, viewer)
    lines = _wrap(text, 118)
    height = 12 + 17 * len(lines)
    canvas.add(f'<g class="decision">{_rect(PANEL_X, canvas.y, PANEL_W, height, colour, rx=6)}')
    for i, line in enumerate(lines):
        canvas.add(_text(PANEL_X + 12, canvas.y + 21 + 17 * i, line, size=14, weight="bold", fill="#ffffff"))
    canvas.add("</g>")
    canvas.y += height + 8


def _chip(kind: Kind, count: int) -> _Item:
    band, face, _ = TYPE_STYLE[CARDS[kind].type]
    label = f"{CARDS[kind].name} ×{count}" if count > 1 else CARDS[kind].name
    width = 20 + 6.4 * len(label)
    body = (
        _rect(0, 0, width, 18, face, band, rx=9)
        + f'<circle cx="9" cy="9" r="4" fill="{band}"/>'
        + _text(16, 13, label, size=10.5, fill=INK)
    )
    return _Item(body, width)


def _chips(items: list[_Item], x0: float, y0: float, width: float) -> tuple[str, float]:
    parts, x, y = [], x0, y0
    for item in items:
        if x > x0 and x + item.width > x0 + width:
            x, y = x0, y + 22
        parts.append(f'<g transform="translate({_n(x)},{_n(y)})">{item.body}</g>')
        x += item.width + 5
    return "".join(parts), (y + 18 - y0) if items else 0


def _table_zone(canvas: _Canvas, st: GameState, viewer: int | None) -> None:
    """Deck, Letters, the card in play, the discard pile (and what the viewer knows of the deck)."""
    top = canvas.y
    label_y = top + 14
    deck = len(st.deck)
    canvas.add(
        _text(PANEL_X + 4, label_y, "Deck", size=11, weight="bold", fill=MUTED),
        card_back_svg(PANEL_X + 4, top + 22)
        if deck
        else _rect(PANEL_X + 4, top + 22, CARD_W, CARD_H, "none", "#bdbdbd"),
        _text(
            PANEL_X + 4 + CARD_W / 2,
            top + 22 + CARD_H + 14,
            f"{deck} card{'s' * (deck != 1)}",
            size=11,
            anchor="middle",
        ),
    )
    # The three Letters: laid ones face up, missing ones as dashed slots.
    x = PANEL_X + 100
    canvas.add(_text(x, label_y, f"Letters laid: {len(st.letters)} of 3", size=11, weight="bold", fill=MUTED))
    laid = set(st.letters)
    for i, letter in enumerate(LETTERS):
        lx = x + i * (CARD_W + 4)
        if letter in laid:
            canvas.add(card_svg(letter, lx, top + 22))
        else:
            canvas.add(
                f'<rect x="{lx}" y="{top + 22}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="none" '
                f'stroke="#bdbdbd" stroke-dasharray="4 3"/>',
                _text(
                    lx + CARD_W / 2,
                    top + 22 + CARD_H / 2 + 7,
                    CARDS[letter].name[-1],
                    size=20,
                    weight="bold",
                    fill="#e0e0e0",
                    anchor="middle",
                ),
            )
    in_play_h = _in_play(canvas, st, PANEL_X + 340, top)
    # The discard pile, as chips.
    x = PANEL_X + 570
    total = sum(st.discard)
    canvas.add(_text(x, label_y, f"Discard pile: {total} card{'s' * (total != 1)}", size=11, weight="bold", fill=MUTED))
    chips = [_chip(Kind(k), n) for k, n in enumerate(st.discard) if n]
    body, chips_h = _chips(chips, x, top + 22, PANEL_X + PANEL_W - x)
    canvas.add(body)
    height = max(22 + CARD_H + 20, 22 + chips_h + 6, 22 + in_play_h)
    canvas.y = top + height
    _known_to_viewer(canvas, st, viewer)
    canvas.y += 6


def _in_play(canvas: _Canvas, st: GameState, x: float, top: float) -> float:
    """The card being played (or the Event being resolved) and what it aims at; returns the text height."""
    pend = st.pending
    kind: Kind | None = None
    if pend.play is not None and pend.play.card is not None:
        kind, note = pend.play.card, f"seat {pend.by} plays {pend.play}"
    elif pend.event is not None:
        kind, note = Kind(pend.event), f"seat {pend.by} drew {Kind(pend.event).label}"
    else:
        note = "nothing"
    canvas.add(
        f'<g class="in-play"><title>{escape(note)}</title>',
        _text(x, top + 14, "In play", size=11, weight="bold", fill=MUTED),
        card_svg(kind, x, top + 22, highlight=True)
        if kind is not None
        else _rect(x, top + 22, CARD_W, CARD_H, "none", "#bdbdbd"),
    )
    lines = _wrap(note, 24)[:4]
    for i, line in enumerate(lines):
        canvas.add(_text(x + CARD_W + 8, top + 36 + 14 * i, line, size=11))
    canvas.add("</g>")
    return 14.0 * len(lines)


def _known_to_viewer(canvas: _Canvas, st: GameState, viewer: int | None) -> None:
    """What a Scout showed the viewer (only ever drawn into that viewer's picture)."""
    if viewer is None:
        return
    notes = []
    if st.seen_top[viewer]:
        notes.append("You know the deck top: " + ", ".join(CARDS[k].name for k in st.seen_top[viewer]))
    seen = st.seen_hand[viewer]
    if seen is not None:
        shown = ", ".join(f"{CARDS[k].name} ×{n}" if n > 1 else CARDS[k].name for k, n in enumerate(seen[1]) if n)
        notes.append(f"Your Scout saw seat {seen[0]}'s hand: {shown or 'nothing'}")
    if st.pending.step is Step.SCOUT and st.pending.actor == viewer and st.pending.cards:
        notes.append("Cards you are placing: " + ", ".join(CARDS[k].name for k in st.pending.cards))
    for note in notes:
        canvas.add(_text(PANEL_X + 4, canvas.y + 14, note, size=11, fill=TURN_COLOUR))
        canvas.y += 16


def _row_width(items: list[_Item]) -> float:
    return sum(item.width for item in items) + GAP * max(len(items) - 1, 0)


def _seat_cards(st: GameState, seat: int, viewer: int | None, top: float) -> tuple[str, float]:
    """A seat's side and hand, drawn from ``top``; returns the drawing and the panel height it needs.

    The hand sits at the right of the side when both fit on one row (a hidden hand is a pile of backs),
    else on a row of its own below.
    """
    side = _side_items(st.sides[seat])
    face_up = viewer is None or viewer == seat
    hand = (_hand_items(st.hands[seat]) or [_item_backs(0)]) if face_up else [_item_backs(st.hand_size(seat))]
    side_w, hand_w = _row_width(side), _row_width(hand)
    parts = [_text(FLOW_X, top + 16, "On the table", size=10, weight="bold", fill=MUTED)]
    if not side:
        parts.append(_text(FLOW_X, top + 44, "nothing", size=11, fill=MUTED))
        side_w = 60
    if side_w + 3 * GAP + hand_w <= FLOW_W:
        hand_x = FLOW_X + FLOW_W - hand_w
        body, _ = _flow(side, FLOW_X, top + 20, FLOW_W)
        hand_body, _ = _flow(hand, hand_x, top + 20, hand_w)
        divider = hand_x - 2 * GAP
        parts += [
            body,
            f'<line x1="{divider}" y1="{top + 8}" x2="{divider}" y2="{top + 20 + ITEM_H}" stroke="#e0e0e0" '
            'stroke-dasharray="3 3"/>',
            _text(hand_x, top + 16, "Hand", size=10, weight="bold", fill=MUTED),
            hand_body,
        ]
        return "".join(parts), 20 + ITEM_H + 6
    body, side_h = _flow(side, FLOW_X, top + 20, FLOW_W)
    side_h = side_h or 30
    hand_top = top + 20 + side_h + 14
    hand_body, hand_h = _flow(hand, FLOW_X, hand_top + 4, FLOW_W)
    parts += [body, _text(FLOW_X, hand_top, "Hand", size=10, weight="bold", fill=MUTED), hand_body]
    return "".join(parts), hand_top + 4 + hand_h + 4 - top


def _seat_panel(
    canvas: _Canvas, st: GameState, seat: int, viewer: int | None, winners: list[int], scores: list[int]
) -> None:
    top = canvas.y
    pend = st.pending
    over = pend.step is Step.OVER
    cards_body, cards_h = _seat_cards(st, seat, viewer, top)
    size = st.hand_size(seat)
    deciding = not over and pend.actor == seat
    won = seat in winners
    badges = _badges(st, seat, viewer, deciding=deciding, won=won)
    height = max(cards_h, 82 + 19 * len(badges) + 6, 110)
    border = WIN_COLOUR if won else (DECIDE_COLOUR if deciding else "#cfd8dc")
    fill = "#fffbea" if won else ("#fff7ef" if deciding else PAPER)
    points = f"point{'s' * (scores[seat] != 1)}"
    canvas.add(
        f'<g class="seat" data-seat="{seat}">',
        f'<rect x="{PANEL_X}" y="{top}" width="{PANEL_W}" height="{height}" rx="8" fill="{fill}" stroke="{border}" '
        f'stroke-width="{3 if won or deciding else 1.2}"/>',
        f'<line x1="{FLOW_X - 6}" y1="{top + 8}" x2="{FLOW_X - 6}" y2="{top + height - 8}" stroke="#e0e0e0"/>',
        _text(PANEL_X + 12, top + 24, _seat_name(seat, viewer), size=15, weight="bold"),
        _text(PANEL_X + 12, top + 56, str(scores[seat]), size=28, weight="bold", fill=INK),
        _text(PANEL_X + 14 + 18 * len(str(scores[seat])), top + 56, points, size=11, fill=MUTED),
        _text(PANEL_X + 12, top + 74, f"hand: {size} card{'s' * (size != 1)}", size=11, fill=MUTED),
    )
    for i, (label, colour) in enumerate(badges):
        width = 12 + 6.6 * len(label)
        canvas.add(
            _rect(PANEL_X + 10, top + 82 + 19 * i, width, 16, colour, rx=8),
            _text(PANEL_X + 15, top + 94 + 19 * i, label, size=9.5, weight="bold", fill="#ffffff"),
        )
    canvas.add(cards_body, "</g>")
    canvas.y = top + height + 8


def _badges(st: GameState, seat: int, viewer: int | None, *, deciding: bool, won: bool) -> list[tuple[str, str]]:
    """Short labels under a seat's score: winner, whose turn, who decides, a declined draw."""
    badges = []
    if won:
        badges.append(("WINNER", WIN_COLOUR))
    if st.pending.step is not Step.OVER and st.turn_player == seat:
        badges.append(("YOUR TURN" if seat == viewer else "THEIR TURN", TURN_COLOUR))
    if deciding:
        badges.append(("DECIDING", DECIDE_COLOUR))
    play = st.pending.play
    if play is not None and play.seat == seat and st.pending.step is not Step.OVER:
        badges.append(("TARGET", "#c62828"))
    if st.declined[seat]:
        badges.append(("DECLINED DRAW", "#78909c"))
    return badges


def _legend(canvas: _Canvas) -> None:
    x: float = PANEL_X + 4
    y = canvas.y + 4
    for card_type in CardType:
        band, _, label = TYPE_STYLE[card_type]
        width = 24 + 6.3 * len(label)
        if x + width > PANEL_X + PANEL_W:
            x, y = PANEL_X + 4, y + 22
        canvas.add(
            _rect(x, y, 18, 18, band, rx=4),
            f'<g transform="translate({_n(x)},{_n(y)})">{_symbol(card_type, 9, 9)}</g>',
            _text(x + 23, y + 13, label, size=11, fill=MUTED),
        )
        x += width + 10
    canvas.y = y + 28


def _check_viewer(viewer: object, num_players: int) -> None:
    if viewer is not None and (
        isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < num_players
    ):
        raise ValueError(f"viewer must be None or a seat from 0 to {num_players - 1}, not {viewer!r}")


def state_svg(st: GameState, viewer: int | None = None, *, width: int = 900) -> str:
    """The SVG picture of a raw state (see :func:`table_svg`)."""
    _check_viewer(viewer, st.num_players)
    if isinstance(width, bool) or not isinstance(width, int) or not 100 <= width <= 10_000:
        raise ValueError(f"width must be an int from 100 to 10000 pixels, not {width!r}")
    scores = [side.score() for side in st.sides]
    won = rules.winners(st) if st.pending.step is Step.OVER and not st.truncated else []
    canvas = _Canvas()
    _header(canvas, st, viewer, scores)
    _banner(canvas, st, viewer, won, scores)
    _table_zone(canvas, st, viewer)
    for seat in range(st.num_players):
        _seat_panel(canvas, st, seat, viewer, won, scores)
    _legend(canvas)
    height = round(canvas.y)
    title = f"Gubs table, turn {st.turn}, " + ("all-seeing view" if viewer is None else f"seen by seat {viewer}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{round(height * width / DESIGN_WIDTH)}" '
        f'viewBox="0 0 {DESIGN_WIDTH} {height}" font-family={_attr(FONT)} role="img">'
        f"<title>{escape(title)}</title>"
        f'<rect x="0" y="0" width="{DESIGN_WIDTH}" height="{height}" fill="#ffffff"/>'
        + "".join(canvas.parts)
        + "</svg>"
    )


def table_svg(game: Game, viewer: int | None = None, *, width: int = 900) -> str:
    """The table as an inline ``<svg>`` element, as ``viewer`` sees it (``None``: all-seeing, every hand shown).

    Args:
        game: the game to draw (not changed).
        viewer: the seat whose point of view is drawn; the other hands appear as backs with their counts.
        width: the picture's width in pixels (the drawing scales; its proportions stay).

    Raises:
        ValueError: ``viewer`` is not a seat of this game, or ``width`` is not an int from 100 to 10000.
    """
    return state_svg(game.state, viewer, width=width)


def save_svg(game: Game, path: str | Path, viewer: int | None = None) -> Path:
    """Write :func:`table_svg` to ``path`` (a standalone ``.svg`` file) and return the path."""
    target = Path(path)
    target.write_text(table_svg(game, viewer) + "\n", encoding="utf-8")
    return target


class TableView:
    """A game seen from one seat (``None``: all-seeing): a picture in Jupyter, the text view elsewhere.

    It reads the game when shown, so it follows the game as it goes on. Made by :meth:`Game.view`.

    Raises:
        ValueError: ``viewer`` is not a seat of the game.
    """

    __slots__ = ("game", "viewer")

    def __init__(self, game: Game, viewer: int | None = None) -> None:
        _check_viewer(viewer, game.num_players)
        self.game = game
        self.viewer = viewer

    def _repr_svg_(self) -> str:
        return table_svg(self.game, self.viewer)

    def __repr__(self) -> str:
        return render(self.game.state, self.viewer)

    def save(self, path: str | Path) -> Path:
        """Write this view's picture to an ``.svg`` file."""
        return save_svg(self.game, path, self.viewer)


def _random_game(seed: int, players: int, steps: int) -> Game:
    from gubs_env.engine.game import Game

    game = Game(players, seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(chooser.choice(game.legal_actions()))
    return game


PROG = "python -m gubs_env.viz"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m gubs_env.viz``."""
    from gubs_env.support.cli import CommandParser, non_negative_int, player_count

    parser = CommandParser(
        prog=PROG, description="Draw the table after some random legal actions and write it to an SVG file."
    )
    parser.add_argument("--seed", type=non_negative_int, default=7, help="the game's seed (default: 7)")
    parser.add_argument(
        "--players", type=player_count, default=3, help=f"table size, {MIN_PLAYERS} to {MAX_PLAYERS} (default: 3)"
    )
    parser.add_argument(
        "--steps", type=non_negative_int, default=40, help="random legal actions to play first (default: 40)"
    )
    parser.add_argument(
        "--seat", type=non_negative_int, default=None, help="the seat whose view is drawn (default: all-seeing)"
    )
    parser.add_argument("--svg", type=Path, required=True, metavar="FILE", help="the .svg file to write")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: draw the table after some random legal actions and write it to a file."""
    from gubs_env.support.cli import failure, unwritable_file

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.seat is not None and args.seat >= args.players:
        parser.error(f"--seat must be a seat from 0 to {args.players - 1}, not {args.seat}")
    problem = unwritable_file(args.svg)
    if problem:
        parser.error(f"--svg: {problem}")
    game = _random_game(args.seed, args.players, args.steps)  # a game ends by the turn limit: --steps is bounded
    try:
        path = save_svg(game, args.svg, args.seat)
    except OSError as err:  # checked above; the disk may still fill up or change
        return failure(PROG, f"cannot write {args.svg}: {err.strerror or err}", argv)
    print(f"wrote {path} (turn {game.state.turn}, {'over' if game.is_over else 'in progress'})")
    return 0


if __name__ == "__main__":  # the command is gubs_env.viz; this module only holds its code
    from gubs_env.support.cli import not_a_command

    sys.exit(not_a_command("gubs_env.viz.svg", "python -m gubs_env.viz"))
