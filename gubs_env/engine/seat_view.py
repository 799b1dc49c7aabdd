"""The game for one seat, in words and as a struct: what a player at that seat sees when it is asked to decide.

:func:`seat_view` gathers, from the state and the log, everything the seat may know and nothing else: the phase and
whose decision it is and why (a turn's step, an interrupt window, a card's follow-up choice), its own hand, every
colony (side) with what protects and traps its Gubs, the deck, the discard pile, the Letters, the scores, what its
own Scout showed, the events since its last decision as it saw them, and its legal moves in the action notation
(:mod:`gubs_env.engine.notation`). The struct is JSON-ready (card names, ints, bools, strings); :func:`seat_text` writes
it as text for a person or a language model. :data:`RULES` is the game's rules in words for a player who has not read
docs/rules.md (a prompt sends it once per game).

What the seat can't see stays out: other hands (only their sizes), the deck's order (but for the seat's own Scout
knowledge), another seat's Traveling Merchant choice and Scout cards, and every private fact of the log.
``tests/agents/test_llm_leaks.py`` checks it: a view is the same for every position and log the seat can't tell apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gubs_env.engine import rules
from gubs_env.engine.cards import BARRICADES, CARDS, HAND_LIMIT, RINGS, Kind
from gubs_env.engine.cards.texts import CARD_TEXT
from gubs_env.engine.log import LogEntry
from gubs_env.engine.notation import action_texts
from gubs_env.engine.render import outcome_text
from gubs_env.engine.state import RING_SIZES, GameState, Pending, Side, Step

VIEW_FORMAT = 1
"""Bumped whenever the struct's fields change."""


def _cards(counts: Sequence[int]) -> dict[str, int]:
    """Counts per kind as ``{card name: count}``, in the card table's order, zero counts left out."""
    return {CARDS[k].name: n for k, n in enumerate(counts) if n}


def _names(kinds: Sequence[int]) -> list[str]:
    return [CARDS[k].name for k in kinds]


def _colony(st: GameState, seat: int, viewer: int) -> dict[str, Any]:
    side: Side = st.sides[seat]
    return {
        "seat": seat,
        "you": seat == viewer,
        "score": side.score(),
        "free_gubs": side.free,
        "elder": bool(side.elder),
        "protected": {CARDS[b].name: n for b, n in zip(BARRICADES, side.protected, strict=True) if n},
        "under_sud_spout": side.spouted,
        "rings": {CARDS[r].name: size for r, size, here in zip(RINGS, RING_SIZES, side.rings, strict=True) if here},
        "hand_size": st.hand_size(seat),
        "declined_last_draw": st.declined[seat],
    }


def seat_view(st: GameState, log: Sequence[LogEntry] | None, seat: int, since: int | None = None) -> dict[str, Any]:
    """What seat ``seat`` knows of the position ``st``, as a JSON-ready dict (see the module docstring).

    Args:
        st: the position.
        log: the game's log (``Game.log``), for the events since the seat's last decision; ``None`` where it was not
            kept (``"events_recorded"`` is then false).
        seat: the viewer, a seat of the table.
        since: the log entry the events start from (``None``: the seat's last decision). A player that lets some
            decisions pass unseen (a forced move) gives the entry of the last one it saw.
    """
    pend = st.pending
    deciding = None if pend.step is Step.OVER else pend.actor
    mine = deciding == seat
    seen = st.seen_hand[seat]
    legal = rules.legal_actions(st) if mine else []
    return {
        "format": VIEW_FORMAT,
        "seat": seat,
        "players": st.num_players,
        "turn": st.turn,
        "turn_player": st.turn_player,
        "phase": pend.step.name.lower(),
        "deciding": deciding,
        "your_decision": mine,
        "decision": _decision(st, seat),
        "hand": _cards(st.hands[seat]),
        "colonies": [_colony(st, s, seat) for s in range(st.num_players)],
        "scores": [side.score() for side in st.sides],
        "deck_size": len(st.deck),
        "discard_size": sum(st.discard),
        "discard": _cards(st.discard),
        "letters_laid": _names(st.letters),
        "your_deck_knowledge": _names(st.seen_top[seat]),
        "your_scouted_hand": None if seen is None else {"seat": seen[0], "cards": _cards(seen[1])},
        "deck_history_known": st.deck_history is not None,
        "events_recorded": log is not None,
        "events": [] if log is None else events_since(log, seat, since),
        "legal_moves": [{"number": i, "text": text} for i, text in enumerate(action_texts(legal), 1)],
        "outcome": outcome_text(st) if pend.step is Step.OVER else None,
    }


def events_since(log: Sequence[LogEntry], seat: int, since: int | None = None) -> list[str]:
    """The log from entry ``since`` on, as ``seat`` saw it: one line per action, its facts after it.

    ``since`` defaults to the seat's last decision, so the first line says what came of it (what it drew, say).
    """
    start = 0
    if since is not None:
        start = min(max(since, 0), len(log))
    else:
        for i in range(len(log) - 1, -1, -1):
            if log[i].actor == seat:
                start = i
                break
    lines = []
    for entry in log[start:]:
        facts = entry.view(seat)
        said = f"seat {entry.actor}: {entry.action_text(seat)}"
        lines.append(said + (" — " + "; ".join(facts) if facts else ""))
    return lines


def _decision(st: GameState, seat: int) -> dict[str, Any]:
    """The pending decision as ``seat`` sees it: its step, who decides, what it is about, and why, in words."""
    pend = st.pending
    out: dict[str, Any] = {"step": pend.step.name.lower(), "seat": pend.actor, "by": pend.by}
    if pend.play is not None:
        out["card_played"] = str(pend.play)
    if pend.event is not None:
        out["event"] = Kind(pend.event).label
    if pend.step in (Step.RING, Step.CANCEL) and pend.play is not None and pend.play.card in RINGS:
        out["ring_picks"] = list(pend.picks)  # the seats picked so far: public
    if pend.step is Step.RETREAT:
        out["retreat_taken"] = len(pend.picks)
    if pend.step is Step.CURE:
        out["hands_saved"] = [s for s, saved in enumerate(pend.marks) if saved == 1]
    if pend.step is Step.KEEP and pend.marks[seat] >= 0:
        out["you_keep"] = CARDS[pend.marks[seat]].name  # another seat's choice is hidden (P7)
    if pend.step is Step.SCOUT:
        if pend.by == seat:
            out["scout_to_place"], out["scout_placed"] = _names(pend.cards), _names(pend.placed)
        else:
            out["scout_cards_left"] = len(pend.cards)
    out["why"] = _why(st, seat)
    return out


def _why(st: GameState, seat: int) -> str:
    """Why the decision is asked, and what the choices mean, from ``seat``'s point of view."""
    pend = st.pending
    step, actor, by = pend.step, pend.actor, pend.by
    if step is Step.OVER:
        return f"The game is over: {outcome_text(st)}."
    who = "You" if actor == seat else f"Seat {actor}"
    by_who = "you" if by == seat else f"seat {by}"
    if step is Step.DRAW:
        extra = " Declining is not allowed: the previous draw was declined." if st.declined[actor] else ""
        return f"{who} begin{'s' * (who != 'You')} a turn: draw the top card of the deck or decline to draw.{extra}"
    if step is Step.PLAY:
        return f"{who} may play a card from the hand, one at a time, or say Go to end the turn."
    if step is Step.DISCARD:
        size = st.hand_size(actor)
        return f"{who} said Go with {size} cards in hand: discard one card at a time until {HAND_LIMIT} are left."
    if step is Step.CANCEL:
        return (
            f"Cancel window: {by_who} played {pend.play}{_picks_text(pend)}. {who} hold{'s' * (who != 'You')} a card "
            "that can cancel it (the played card and the answer both go to the discard pile): cancel it or pass."
        )
    if step is Step.FLOP:
        return (
            f"Flop window: {by_who} drew {Kind(pend.event).label if pend.event is not None else 'an Event'}. "
            f"{who} may flop it back into the deck at a random place, without effect, or pass."
        )
    if step is Step.CURE:
        return (
            f"Gargok Plague, drawn by {by_who}: every hand that is not saved goes into the deck. {who} may discard an "
            "Age-Old Cure (or Cricket Song as one) to keep the hand, or pass."
        )
    if step is Step.KEEP:
        return (
            f"Traveling Merchant, drawn by {by_who}: {who.lower() if who == 'You' else who} choose"
            f"{'s' * (who != 'You')} one card to keep; then every seat passes the rest of its hand to the seat "
            "before it (seat 1 to seat 0, seat 0 to the last seat)."
        )
    if step is Step.RING:
        size = RING_SIZES[int(pend.play.card) - int(RINGS[0])] if pend.play is not None and pend.play.card else 0
        return (
            f"{who} played {pend.play}: pick the seat of the next Free Gub to trap "
            f"({len(pend.picks) + 1} of {size}; the same seat may be picked again while it has Free Gubs)."
        )
    if step is Step.RETREAT:
        return f"{who} played Retreat: take one more card from {'your' if who == 'You' else 'its'} side, or stop."
    if step is Step.SCOUT:
        return f"{who} looked at the top of the deck with Scout: choose which seen card goes next from the top."
    return f"{who} decide{'s' * (who != 'You')} a {step.name.lower()} step."


def _picks_text(pend: Pending) -> str:
    """A Ring's picked seats, as the cancel window shows them."""
    if not pend.picks:
        return ""
    return " (taking Free Gubs from seats " + ", ".join(str(s) for s in pend.picks) + ")"


def seat_text(view: dict[str, Any]) -> str:
    """A :func:`seat_view` as text: the table, the decision, the events since the last one and the legal moves."""
    seat = view["seat"]
    lines = [
        f"You are seat {seat} of {view['players']} (seats 0 to {view['players'] - 1}; play passes from each seat to "
        f"the next, the last to seat 0). Turn {view['turn']}, seat {view['turn_player']}'s turn.",
        "",
        "What happened since your last decision (that decision first):"
        if view["events_recorded"]
        else "What happened: not recorded for this game.",
    ]
    if view["events_recorded"]:
        lines += [f"- {event}" for event in view["events"]] or ["- none"]
    lines += ["", "The table:"]
    for colony in view["colonies"]:
        who = "you" if colony["you"] else f"seat {colony['seat']}"
        declined = ", declined its last draw" if colony["declined_last_draw"] else ""
        lines.append(
            f"- {who}: score {colony['score']}; {_colony_text(colony)}; {colony['hand_size']} card"
            f"{'s' * (colony['hand_size'] != 1)} in hand{declined}"
        )
    letters = ", ".join(view["letters_laid"]) or "none"
    lines += [
        f"- deck: {view['deck_size']} cards; Letters laid: {letters} (the third ends the game)",
        f"- discard pile ({view['discard_size']} cards): {_counts_text(view['discard'])}",
        "",
        f"Your hand: {_counts_text(view['hand'])}",
    ]
    if view["your_deck_knowledge"]:
        lines.append("You know the top of the deck (top first): " + ", ".join(view["your_deck_knowledge"]))
    if view["your_scouted_hand"] is not None:
        scouted = view["your_scouted_hand"]
        lines.append(f"Your Scout last saw seat {scouted['seat']}'s hand: {_counts_text(scouted['cards'])}")
    decision = view["decision"]
    if "scout_to_place" in decision:
        lines.append(
            "Your Scout's cards still to place: "
            + ", ".join(decision["scout_to_place"])
            + "; placed so far (top first): "
            + (", ".join(decision["scout_placed"]) or "none")
        )
    if "you_keep" in decision:
        lines.append(f"You keep: {decision['you_keep']}")
    lines += ["", decision["why"]]
    if view["legal_moves"]:
        lines += ["", "Your legal moves:"] + [f"{move['number']}. {move['text']}" for move in view["legal_moves"]]
    return "\n".join(lines)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} x{n}" if n > 1 else name for name, n in counts.items()) or "none"


def _colony_text(colony: dict[str, Any]) -> str:
    parts = []
    if colony["free_gubs"]:
        parts.append(f"{colony['free_gubs']} Free Gub{'s' * (colony['free_gubs'] != 1)}")
    if colony["elder"]:
        parts.append("the Esteemed Elder")
    parts += [f"{n} Gub{'s' * (n != 1)} protected by {name}" for name, n in colony["protected"].items()]
    if colony["under_sud_spout"]:
        parts.append(f"{colony['under_sud_spout']} Gub{'s' * (colony['under_sud_spout'] != 1)} trapped by Sud Spout")
    parts += [f"{name} trapping {size} Gubs" for name, size in colony["rings"].items()]
    return ", ".join(parts) or "no cards"


def plain_card_text(kind: Kind) -> str:
    """What a card does, for a player: the card table's text without engine names and ruling ids."""
    text = re.sub(r"\s*\((?:`[^`]+`|R\d+|P\d+)\)", "", CARD_TEXT[kind])
    return text.replace("`", "").replace("*", "")


def _card_lines() -> list[str]:
    lines = []
    for spec in CARDS:
        kind_type = spec.type.name.replace("_", " ").lower()
        lines.append(f"- {spec.name} ({kind_type}, {spec.copies} in the deck): {plain_card_text(spec.kind)}")
    return lines


RULES = "\n".join(
    [
        "Gubs is a card game for 2 to 6 players. Each player builds a colony of Gubs (a side of the table); when the "
        "game ends, the player with the most points wins.",
        "",
        "Scoring: each Free Gub and each Gub protected by a Barricade on your side is worth 1 point, and the Esteemed "
        "Elder 1 point. Gubs trapped under a Sud Spout or in a Ring score for nobody, and cards in hands score "
        "nothing. Ties go to the player holding the Esteemed Elder, then to the one with fewer cards in hand; if "
        "still tied, they share the win.",
        "",
        "The end: the deck holds three Letters (G, U, B). A drawn Letter is laid face up; laying the third ends the "
        "game at once.",
        "",
        "A turn: (1) draw the top card of the deck, or decline to draw (never twice in a row). A drawn Event or "
        "Letter is shown to all and takes effect at once, unless someone flops it. (2) Play any number of cards, one "
        f"at a time, then say Go. (3) With more than {HAND_LIMIT} cards in hand after Go, discard down to "
        f"{HAND_LIMIT}.",
        "",
        "Windows: when a Hazard or a Trap is played, each other player holding an answer (Feather; Blindfold against "
        "a Lure or Super Lure; Cricket Song as either) is asked in turn whether to cancel it; the first answer "
        "cancels it. When an Event or Letter is drawn, each player holding Flop Boat (or Cricket Song) is asked "
        "whether to flop it back into the deck. When Gargok Plague is drawn, each holder of Age-Old Cure (or Cricket "
        "Song) may save their own hand. A player with no answer is not asked. Targets are chosen before a window "
        "opens, so everyone answers knowing the whole play.",
        "",
        "Hidden information: you see your own hand, every colony, the discard pile, the Letters laid, hand and deck "
        "sizes, and what your own Scout showed you. Cards put back into the deck go to random places.",
        "",
        "Seats are numbered clockwise; targets name absolute seats (seat 0, seat 1, ...).",
        "",
        "The cards:",
        *_card_lines(),
    ]
)
"""The rules of Gubs in words for a player (the terminal game's card texts, without engine names and ruling ids)."""
