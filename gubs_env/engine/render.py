"""A readable text picture of the table from one player's point of view."""

from __future__ import annotations

from gubs_env.engine import rules
from gubs_env.engine.cards import BARRICADES, CARDS, RINGS, Kind
from gubs_env.engine.state import RING_SIZES, GameState, Side, Step


def _cards(counts: list[int]) -> str:
    return ", ".join(f"{CARDS[k].name} x{n}" if n > 1 else CARDS[k].name for k, n in enumerate(counts) if n) or "none"


def side_text(side: Side) -> str:
    """One side in words, e.g. ``"2 Free, 1 under Mushroom, Elder (score 4)"``."""
    parts = []
    if side.free:
        parts.append(f"{side.free} Free")
    if side.elder:
        parts.append("Esteemed Elder")
    parts += [f"{n} under {CARDS[b].name}" for b, n in zip(BARRICADES, side.protected, strict=True) if n]
    if side.spouted:
        parts.append(f"{side.spouted} under Sud Spout")
    rings = zip(RINGS, RING_SIZES, side.rings, strict=True)
    parts += [f"{CARDS[r].name} ({size} trapped)" for r, size, here in rings if here]
    return f"{', '.join(parts) or 'empty'} (score {side.score()})"


def render(st: GameState, player: int | None) -> str:
    """The table as ``player`` sees it: their own hand, every side, the public zones and the decision."""
    letters = " ".join(CARDS[k].name[-1] for k in st.letters) or "none"
    deck = len(st.deck)
    whose = "game over" if st.pending.step is Step.OVER else f"seat {st.turn_player} to play"
    lines = [
        f"Turn {st.turn} - {whose} - deck {deck} card{'s' * (deck != 1)} - letters: {letters}",
        f"Discard pile: {_cards(st.discard)}",
    ]
    for seat, side in enumerate(st.sides):
        me = " (you)" if seat == player else ""
        skip = ", declined last draw" if st.declined[seat] else ""
        size = st.hand_size(seat)
        lines.append(f"  seat {seat}{me}: {side_text(side)} | hand {size} card{'s' * (size != 1)}{skip}")
    if player is not None:
        lines.append(f"Your hand: {_cards(st.hands[player])}")
        if st.seen_top[player]:
            lines.append("You know the deck top: " + ", ".join(CARDS[k].name for k in st.seen_top[player]))
        seen = st.seen_hand[player]
        if seen is not None:
            seat, counts = seen
            lines.append(f"Your Scout saw seat {seat}'s hand: {_cards(counts)}")
    lines.append(_decision_text(st))
    return "\n".join(lines)


def _points(n: int) -> str:
    return f"{n} point{'s' * (n != 1)}"


def outcome_text(st: GameState) -> str:
    """How a finished game ended, e.g. ``"seat 2 wins with 3 points (scores 1, 0, 3)"``.

    Ties name every winner (docs/rules.md §6 tie-breaks applied); a truncated game has no winner (R23).
    """
    points = [side.score() for side in st.sides]
    scores = f"scores {', '.join(map(str, points))}"
    if st.truncated:
        return f"stopped at the turn limit, no winner ({scores})"
    won = rules.winners(st)
    if len(won) == 1:
        return f"seat {won[0]} wins with {_points(points[won[0]])} ({scores})"
    seats = ", ".join(map(str, won[:-1])) + f" and {won[-1]}"
    return f"seats {seats} share the win with {_points(points[won[0]])} ({scores})"


def _decision_text(st: GameState) -> str:
    pend = st.pending
    if pend.step is Step.OVER:
        return f"Game over: {outcome_text(st)}."
    about = ""
    if pend.play is not None:
        about = f" about seat {pend.by}'s {pend.play}"
    elif pend.event is not None:
        about = f" about {Kind(pend.event).label}"
    return f"Waiting for seat {pend.actor}: {pend.step.name.lower()}{about}"
