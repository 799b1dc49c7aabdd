"""The flow of play: the legal actions of the pending decision, and the transition an action makes.

Every decision is :class:`~gubs_env.engine.state.Pending` data. ``legal_actions`` reads it;
``advance`` applies one (already validated) action and leaves the next decision in its place.
"""

from __future__ import annotations

from collections.abc import Callable

from gubs_env.engine.actions import (
    BLINDFOLDABLE,
    CANCELLABLE,
    DECLINE,
    DRAW,
    END_TURN,
    PASS,
    STOP,
    WINDOW_USES,
    Action,
    Op,
    Use,
    card_uses,
    make,
    target_space,
)
from gubs_env.engine.cards import EVENTS, HAND_LIMIT, LETTERS, Kind, effects, events
from gubs_env.engine.log import Count, Fact
from gubs_env.engine.state import LETTER_DRAWN, RING_BASE, RING_SIZES, GameState, Pending, Step

KINDS: tuple[Kind, ...] = tuple(Kind)
_LETTER_SET = frozenset(int(k) for k in LETTERS)


def _playable() -> dict[Kind, list[tuple]]:
    """Per card kind: its play-phase uses, each with its targets function and its actions by target."""
    table: dict[Kind, list[tuple]] = {}
    for card, as_kind, use in card_uses():
        by_target = {t: make(Op.PLAY, card, as_kind, use, *t) for t in target_space(as_kind, use)}
        table.setdefault(card, []).append((effects.targets_function(as_kind, use), by_target))
    return table


PLAYABLE: tuple[tuple[Kind, tuple[tuple, ...]], ...] = tuple((k, tuple(v)) for k, v in _playable().items())
"""Every card kind playable in the play phase, Cricket Song included (FAQ 3), with its uses."""

Facts = list[Fact]


def _answer(card: Kind, use: Use, as_kind: Kind | None = None) -> Action:
    return make(Op.PLAY, card, as_kind or card, use)


FEATHER = _answer(Kind.FEATHER, Use.CANCEL)
BLINDFOLD = _answer(Kind.BLINDFOLD, Use.CANCEL)
WILD_FEATHER = _answer(Kind.CRICKET_SONG, Use.CANCEL, Kind.FEATHER)
WILD_BLINDFOLD = _answer(Kind.CRICKET_SONG, Use.CANCEL, Kind.BLINDFOLD)
FLOP_BOAT = _answer(Kind.FLOP_BOAT, Use.FLOP)
WILD_FLOP = _answer(Kind.CRICKET_SONG, Use.FLOP, Kind.FLOP_BOAT)
CURE = _answer(Kind.AGE_OLD_CURE, Use.SAVE)
WILD_CURE = _answer(Kind.CRICKET_SONG, Use.SAVE, Kind.AGE_OLD_CURE)
DISCARDS = tuple(make(Op.DISCARD, detail=k) for k in KINDS)
KEEPS = tuple(make(Op.KEEP, detail=k) for k in KINDS)
PLACES = tuple(make(Op.PLACE, detail=k) for k in KINDS)
assert set(WINDOW_USES) == {a.as_kind for a in (FEATHER, BLINDFOLD, FLOP_BOAT, CURE)}


# --- legal actions -------------------------------------------------------------------------------


def legal_actions(st: GameState) -> list[Action]:
    """Every action the pending decision allows, in a fixed order; empty only when the game is over."""
    pend = st.pending
    return _LEGAL[pend.step](st, pend)


def _legal_draw(st: GameState, pend: Pending) -> list[Action]:
    return [DRAW] if st.declined[pend.actor] else [DRAW, DECLINE]


def _legal_play(st: GameState, pend: Pending) -> list[Action]:
    p = pend.actor
    hand = st.hands[p]
    out: list[Action] = []
    for card, uses in PLAYABLE:
        if hand[card]:
            for targets, by_target in uses:
                out += [by_target[t] for t in targets(st, p)]
    out.append(END_TURN)
    return out


def _kinds_in_hand(hand: list[int], table: tuple[Action, ...]) -> list[Action]:
    return [table[k] for k, n in enumerate(hand) if n]


def _legal_discard(st: GameState, pend: Pending) -> list[Action]:
    return _kinds_in_hand(st.hands[pend.actor], DISCARDS)


def _legal_keep(st: GameState, pend: Pending) -> list[Action]:
    return _kinds_in_hand(st.hands[pend.actor], KEEPS)


def cancel_answers(hand: list[int], played: Action) -> list[Action]:
    """How a hand may cancel ``played`` (R6; Blindfold only against Lure and Super Lure)."""
    blind = played.as_kind in BLINDFOLDABLE
    out = []
    if hand[Kind.FEATHER]:
        out.append(FEATHER)
    if blind and hand[Kind.BLINDFOLD]:
        out.append(BLINDFOLD)
    if hand[Kind.CRICKET_SONG]:
        out.append(WILD_FEATHER)
        if blind:
            out.append(WILD_BLINDFOLD)
    return out


def flop_answers(hand: list[int]) -> list[Action]:
    """How a hand may flop a drawn Event."""
    return [a for a, k in ((FLOP_BOAT, Kind.FLOP_BOAT), (WILD_FLOP, Kind.CRICKET_SONG)) if hand[k]]


def cure_answers(hand: list[int]) -> list[Action]:
    """How a hand may keep itself through Gargok Plague (R11)."""
    return [a for a, k in ((CURE, Kind.AGE_OLD_CURE), (WILD_CURE, Kind.CRICKET_SONG)) if hand[k]]


def _legal_cancel(st: GameState, pend: Pending) -> list[Action]:
    assert pend.play is not None  # a cancel window is always about a card being played
    return [PASS, *cancel_answers(st.hands[pend.actor], pend.play)]


def _legal_flop(st: GameState, pend: Pending) -> list[Action]:
    return [PASS, *flop_answers(st.hands[pend.actor])]


def _legal_cure(st: GameState, pend: Pending) -> list[Action]:
    return [PASS, *cure_answers(st.hands[pend.actor])]


def _legal_ring(st: GameState, pend: Pending) -> list[Action]:
    picks = pend.picks
    return [make(Op.PICK, seat=s) for s, side in enumerate(st.sides) if side.free > picks.count(s)]


def _legal_retreat(st: GameState, pend: Pending) -> list[Action]:
    out = [make(Op.TAKE, seat=s, part=part, detail=detail) for s, part, detail in effects.retreat_parts(st, pend.actor)]
    if pend.picks:  # at least one card must be taken (docs/rules.md "P1")
        out.append(STOP)
    return out


def _legal_scout(st: GameState, pend: Pending) -> list[Action]:
    return [PLACES[k] for k in sorted(set(pend.cards))]


_LEGAL = {
    Step.DRAW: _legal_draw,
    Step.PLAY: _legal_play,
    Step.DISCARD: _legal_discard,
    Step.CANCEL: _legal_cancel,
    Step.FLOP: _legal_flop,
    Step.CURE: _legal_cure,
    Step.KEEP: _legal_keep,
    Step.RING: _legal_ring,
    Step.RETREAT: _legal_retreat,
    Step.SCOUT: _legal_scout,
    Step.OVER: lambda st, pend: [],
}


# --- transitions ---------------------------------------------------------------------------------


def advance(st: GameState, action: Action, facts: Facts) -> None:
    """Apply a legal ``action`` of the pending decision; the caller has checked it is legal."""
    _ADVANCE[st.pending.step](st, action, facts)


def _back_to_play(st: GameState) -> None:
    st.pending = Pending(Step.PLAY, st.turn_player, st.turn_player)


def _draw_to_play(st: GameState) -> None:
    st.pending.step = Step.PLAY  # the draw decision carries no other data


def _on_draw_step(st: GameState, action: Action, facts: Facts) -> None:
    p = st.turn_player
    if action.op is Op.DECLINE:
        st.declined[p] = True
        facts.append(Fact(None, "seat {} declines to draw", (p,)))
        _draw_to_play(st)
        return
    st.declined[p] = False
    if st.deck[-1] in _LETTER_SET:
        st.note_deck_event(LETTER_DRAWN)
    kind = st.deck.pop()
    for seen in st.seen_top:
        if seen:
            seen.pop(0)
    if kind in EVENTS:
        facts.append(Fact(None, "seat {} draws {}", (p, KINDS[kind])))
        _open_event(st, KINDS[kind], facts)
        return
    st.hands[p][kind] += 1
    facts.append(Fact(None, "seat {} draws a card", (p,)))
    facts.append(Fact(p, "you draw {}", (KINDS[kind],)))
    _draw_to_play(st)


def _on_play_step(st: GameState, action: Action, facts: Facts) -> None:
    p = st.turn_player
    if action.op is Op.END_TURN:
        facts.append(Fact(None, "seat {} ends the turn", (p,)))
        _end_of_turn(st, facts)
        return
    assert action.card is not None and action.use is not None  # every other play-step action plays a card
    st.hands[p][action.card] -= 1
    facts.append(Fact(None, "seat {} plays {}", (p, action)))
    use = action.use
    follow_up = _FOLLOW_UP.get(use)
    if follow_up is not None:
        st.pending = Pending(follow_up, p, p, play=action, picks=[])
        if use is Use.SCOUT_DECK:
            _start_scout(st, facts)
    elif use in CANCELLABLE and _open_cancel(st, p, action):
        return
    else:
        _resolve(st, p, action, facts)  # the play step goes on unchanged


_FOLLOW_UP = {Use.RING: Step.RING, Use.RETREAT: Step.RETREAT, Use.SCOUT_DECK: Step.SCOUT}


def _open_cancel(st: GameState, by: int, action: Action, picks: list[int] | None = None) -> bool:
    """Open the cancel window for a Hazard or Trap (docs/rules.md §5) if anybody can answer it."""
    queue = [q for q in _seats_from(st, by)[1:] if cancel_answers(st.hands[q], action)]
    if not queue:
        return False
    st.pending = Pending(Step.CANCEL, queue[0], by, play=action, queue=queue[1:], picks=picks or [])
    return True


def _resolve(st: GameState, p: int, action: Action, facts: Facts, picks: list[int] | None = None) -> None:
    """Apply a card use that nobody cancelled; its card goes to its side or to the discard pile."""
    assert action.card is not None and action.use is not None
    if action.use is Use.RING:
        assert picks is not None  # a Ring resolves with its picks
        effects.resolve_ring(st, p, action, picks, facts)
    else:
        effects.RESOLVE[action.use](st, p, action, facts)
    if action.use not in effects.STAYS_IN_PLAY:
        st.discard[action.card] += 1


def _resolve_pending_play(st: GameState, facts: Facts) -> None:
    pend = st.pending
    assert pend.play is not None
    _resolve(st, pend.by, pend.play, facts, pend.picks)
    _back_to_play(st)


def _on_cancel_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    if action.op is Op.PASS:
        _next_in_window(st, facts, lambda: _resolve_pending_play(st, facts))
        return
    _spend_interrupt(st, action)
    assert pend.play is not None and pend.play.card is not None
    st.discard[pend.play.card] += 1
    facts.append(
        Fact(None, "seat {} plays {}: seat {}'s {} is cancelled", (pend.actor, action, pend.by, pend.play.card))
    )
    _back_to_play(st)


def _spend_interrupt(st: GameState, action: Action) -> None:
    """The answering player's interrupt card (or Cricket Song) goes from their hand to the discard pile."""
    assert action.card is not None
    st.hands[st.pending.actor][action.card] -= 1
    st.discard[action.card] += 1


def _next_in_window(st: GameState, facts: Facts, close: Callable[[], None]) -> None:
    facts.append(Fact(None, "seat {} passes", (st.pending.actor,)))
    _ask_next(st, close)


def _ask_next(st: GameState, close: Callable[[], None]) -> None:
    """Hand the decision to the next player queued in a window or round, or ``close`` it when none is left."""
    pend = st.pending
    if pend.queue:
        pend.actor = pend.queue.pop(0)
    else:
        close()


def _on_ring_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    assert action.seat is not None and pend.play is not None and pend.play.as_kind is not None
    pend.picks.append(action.seat)
    complete = len(pend.picks) == RING_SIZES[pend.play.as_kind - RING_BASE]
    if complete and not _open_cancel(st, pend.by, pend.play, pend.picks):
        _resolve_pending_play(st, facts)


def _on_retreat_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    if action.op is Op.STOP:
        facts.append(Fact(None, "seat {} retreats {} to their hand", (pend.by, Count(len(pend.picks), "card"))))
        _discard_played(st)
        return
    assert action.part is not None  # every other retreat action takes a part
    effects.take_part(st, pend.by, action.part, action.detail)
    pend.picks.append(int(action.part))


def _start_scout(st: GameState, facts: Facts) -> None:
    pend = st.pending
    top = st.deck[-1:-4:-1]  # R22: the top min(3, deck size) cards, top first
    facts.append(Fact(pend.by, "you see the top of the deck: {}", ([Kind(k) for k in top],)))
    pend.cards, pend.placed = top, []
    _finish_scout_if_done(st, facts)


def _on_scout_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    assert action.detail is not None  # a place action names its card
    pend.cards.remove(action.detail)
    pend.placed.append(int(action.detail))
    _finish_scout_if_done(st, facts)


def _finish_scout_if_done(st: GameState, facts: Facts) -> None:
    pend = st.pending
    if len(pend.cards) > 1:
        return
    order = pend.placed + pend.cards  # top first; the last card needs no choice
    st.deck[len(st.deck) - len(order) :] = order[::-1]
    for seen in st.seen_top:
        seen.clear()
    st.seen_top[pend.by] = order[:]
    if len(order) > 1:
        facts.append(
            Fact(None, "seat {} puts the top {} cards back in an order of their choice", (pend.by, len(order)))
        )
    elif order:
        facts.append(Fact(None, "seat {} puts the top card back", (pend.by,)))
    else:
        facts.append(Fact(None, "seat {} finds the deck empty", (pend.by,)))
    _discard_played(st)


def _discard_played(st: GameState) -> None:
    assert st.pending.play is not None and st.pending.play.card is not None
    st.discard[st.pending.play.card] += 1
    _back_to_play(st)


# --- events --------------------------------------------------------------------------------------


def _open_event(st: GameState, kind: Kind, facts: Facts) -> None:
    """A drawn Event: the flop window asks every holder, drawer first (docs/rules.md §5)."""
    p = st.turn_player
    queue = [q for q in _seats_from(st, p) if flop_answers(st.hands[q])]
    st.pending = Pending(Step.FLOP, p, p, event=kind)
    if queue:
        st.pending.actor, st.pending.queue = queue[0], queue[1:]
    else:
        _resolve_event(st, facts)


def _on_flop_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    if action.op is Op.PASS:
        _next_in_window(st, facts, lambda: _resolve_event(st, facts))
        return
    _spend_interrupt(st, action)
    facts.append(Fact(None, "seat {} plays {}: {} goes back into the deck", (pend.actor, action, pend.event)))
    assert pend.event is not None  # a flop window is always about a drawn Event
    events.insert_into_deck(st, pend.event)  # R20
    _back_to_play(st)


def _resolve_event(st: GameState, facts: Facts) -> None:
    pend = st.pending
    kind, p = pend.event, pend.by
    if kind in LETTERS:
        st.letters.append(int(kind))
        facts.append(Fact(None, "{} is laid out ({} of 3)", (kind, len(st.letters))))
        if len(st.letters) == len(LETTERS):
            st.pending = Pending(Step.OVER, -1, p)
        else:
            _back_to_play(st)
        return
    if kind is Kind.GARGOK_PLAGUE:
        _open_cure(st, facts)
        return
    if kind is Kind.TRAVELING_MERCHANT:
        _open_keep(st, facts)
        return
    if kind is Kind.DANGEROUS_ALCHEMY:
        events.alchemy(st, p, facts)
    elif kind is Kind.FLASH_FLOOD:
        events.flood(st, facts)
    else:
        events.wasps(st, facts)
    _event_done(st)


def _event_done(st: GameState) -> None:
    assert st.pending.event is not None
    st.discard[st.pending.event] += 1
    _back_to_play(st)


def _ask_round(st: GameState, queue: list[int], step: Step, marks: list[int], close) -> None:
    pend = st.pending
    pend.marks = marks
    if queue:
        pend.step, pend.actor, pend.queue = step, queue[0], queue[1:]
    else:
        close()


def _seats_from(st: GameState, first: int) -> list[int]:
    n = st.num_players
    return [(first + i) % n for i in range(n)]


def _open_cure(st: GameState, facts: Facts) -> None:
    queue = [q for q in _seats_from(st, st.pending.by) if cure_answers(st.hands[q])]
    _ask_round(st, queue, Step.CURE, [0] * st.num_players, lambda: _close_cure(st, facts))


def _on_cure_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    if action.op is Op.PLAY:
        pend.marks[pend.actor] = 1
        _spend_interrupt(st, action)
        facts.append(Fact(None, "seat {} plays {} and keeps their hand", (pend.actor, action)))
    else:
        facts.append(Fact(None, "seat {} passes", (pend.actor,)))
    _ask_next(st, lambda: _close_cure(st, facts))


def _close_cure(st: GameState, facts: Facts) -> None:
    events.plague(st, st.pending.by, st.pending.marks, facts)
    _event_done(st)


def _open_keep(st: GameState, facts: Facts) -> None:
    # R19: every player with two or more cards chooses, in seat order from the drawer.
    queue = [q for q in _seats_from(st, st.pending.by) if st.hand_size(q) >= 2]
    _ask_round(st, queue, Step.KEEP, [-1] * st.num_players, lambda: _close_keep(st, facts))


def _on_keep_step(st: GameState, action: Action, facts: Facts) -> None:
    pend = st.pending
    assert action.detail is not None  # a keep action names its card
    pend.marks[pend.actor] = int(action.detail)
    facts.append(Fact(None, "seat {} chooses a card to keep", (pend.actor,)))
    facts.append(Fact(pend.actor, "you keep {}", (action.detail,)))
    _ask_next(st, lambda: _close_keep(st, facts))


def _close_keep(st: GameState, facts: Facts) -> None:
    events.merchant(st, st.pending.marks, facts)
    _event_done(st)


# --- end of turn ---------------------------------------------------------------------------------


def _end_of_turn(st: GameState, facts: Facts) -> None:
    p = st.turn_player
    if st.hand_size(p) > HAND_LIMIT:  # R14: checked only now
        st.pending = Pending(Step.DISCARD, p, p)
        return
    _next_turn(st)


def _on_discard_step(st: GameState, action: Action, facts: Facts) -> None:
    p = st.turn_player
    assert action.detail is not None  # a discard action names its card
    st.hands[p][action.detail] -= 1
    st.discard[action.detail] += 1
    facts.append(Fact(None, "seat {} discards {}", (p, action.detail)))
    if st.hand_size(p) <= HAND_LIMIT:
        _next_turn(st)


def _next_turn(st: GameState) -> None:
    st.turn_player = p = (st.turn_player + 1) % st.num_players
    st.turn += 1
    if st.turn > st.options.max_turns:  # R23
        st.truncated = True
        st.pending = Pending(Step.OVER, -1, p)
    else:
        st.pending = Pending(Step.DRAW, p, p)


_ADVANCE = {
    Step.DRAW: _on_draw_step,
    Step.PLAY: _on_play_step,
    Step.DISCARD: _on_discard_step,
    Step.CANCEL: _on_cancel_step,
    Step.FLOP: _on_flop_step,
    Step.CURE: _on_cure_step,
    Step.KEEP: _on_keep_step,
    Step.RING: _on_ring_step,
    Step.RETREAT: _on_retreat_step,
    Step.SCOUT: _on_scout_step,
}


# --- scoring -------------------------------------------------------------------------------------


def scores(st: GameState) -> list[int]:
    """Free and Protected Gubs per seat, the Elder included (docs/rules.md §6)."""
    return [side.score() for side in st.sides]


def winners(st: GameState) -> list[int]:
    """Seats that win: highest score; ties go to the Elder in play, then fewest cards in hand (R3)."""
    points = scores(st)
    best = max(points)
    tied = [s for s, v in enumerate(points) if v == best]
    with_elder = [s for s in tied if st.sides[s].elder]
    if with_elder:
        return with_elder
    fewest = min(st.hand_size(s) for s in tied)
    return [s for s in tied if st.hand_size(s) == fewest]
