"""Card behaviour, one small function per use: where it may aim, and what it does.

``TARGETS[use](state, player)`` lists the possible targets as ``(seat, part, detail)`` triples (an
empty list means the use can't be played now: a card is playable only when it can do what it says,
see docs/rules.md "P1"). ``RESOLVE[use](state, player, action, facts)`` applies the effect once no
interrupt cancelled it. Follow-up uses (Ring, Retreat, Scout on the deck) are resolved by
:mod:`gubs_env.engine.rules` through their follow-up decisions.
"""

from __future__ import annotations

from collections.abc import Callable

from gubs_env.engine.actions import RETREAT_PARTS, STEAL_PARTS, Action, Part, Use, part_text
from gubs_env.engine.cards import BARRICADES, RINGS, Kind
from gubs_env.engine.log import Count, Fact, GubsFrom, kinds
from gubs_env.engine.state import BARRICADE_BASE, RING_BASE, RING_SIZES, GameState, Side

Targets = list[tuple[int | None, Part | None, Kind | None]]
NO_TARGET: Targets = [(None, None, None)]
MUSHROOM_SLOT = Kind.MUSHROOM - BARRICADE_BASE
TOAD_SLOT = Kind.TOAD_RIDER - BARRICADE_BASE


def opponents(st: GameState, player: int) -> list[int]:
    """Other seats, clockwise from the next one."""
    n = st.num_players
    return [(player + i) % n for i in range(1, n)]


# --- targets -------------------------------------------------------------------------------------


def _enter(st: GameState, p: int) -> Targets:
    return NO_TARGET


def _protect(st: GameState, p: int) -> Targets:
    # R7: a Barricade goes on one of the player's own Free Gubs, never on the Elder.
    return NO_TARGET if st.sides[p].free else []


def _remove_mushroom(st: GameState, p: int) -> Targets:
    return [(s, None, Kind.MUSHROOM) for s, side in enumerate(st.sides) if side.protected[MUSHROOM_SLOT]]


def _remove_any(st: GameState, p: int) -> Targets:
    return [(s, None, BARRICADES[b]) for s, side in enumerate(st.sides) for b, n in enumerate(side.protected) if n]


def _free_anywhere(st: GameState, p: int) -> Targets:
    # R4/R10: Sud Spout and Spear's kill may aim at a Free Gub on any side, the own included.
    return [(s, None, None) for s, side in enumerate(st.sides) if side.free]


def _ring(st: GameState, p: int, size: int) -> Targets:
    # R12: a Ring needs at least its number of Free non-Elder Gubs in play, on any sides.
    return NO_TARGET if st.free_total() >= size else []


def _lure(st: GameState, p: int) -> Targets:
    return [(s, None, None) for s in opponents(st, p) if st.sides[s].free]


def _super_lure(st: GameState, p: int) -> Targets:
    # R17: only Free and Protected Gubs move.
    return [(s, None, None) for s in opponents(st, p) if st.sides[s].free or st.sides[s].barricades()]


def _cyclone(st: GameState, p: int) -> Targets:
    return [(s, None, None) for s in opponents(st, p) if st.sides[s].barricades()]


def _strike_elder(st: GameState, p: int) -> Targets:
    # R18: the Elder is hit wherever it is in play, the own side included.
    return NO_TARGET if any(side.elder for side in st.sides) else []


def _strike_hand(st: GameState, p: int) -> Targets:
    return [(s, None, None) for s in opponents(st, p) if any(st.hands[s])]


def _beetle(st: GameState, p: int) -> Targets:
    return NO_TARGET if any(side.protected[MUSHROOM_SLOT] for side in st.sides) else []


def _steal(st: GameState, p: int) -> Targets:
    # R9: every card or pair Smahl Thief may take from an opponent's side; never the Elder or Rings.
    return [t for s in opponents(st, p) for t in side_parts(st, s, STEAL_PARTS)]


def _free_spout(st: GameState, p: int) -> Targets:
    return [(s, None, None) for s, side in enumerate(st.sides) if side.spouted]


def _shatter(st: GameState, p: int) -> Targets:
    # R12: Haki Flute may shatter any Ring on any side, the own included.
    return [(None, None, RINGS[r]) for side in st.sides for r, here in enumerate(side.rings) if here]


def side_parts(st: GameState, seat: int, parts: tuple[tuple[Part, Kind | None], ...]) -> Targets:
    """The ``(seat, part, detail)`` of each of ``parts`` present on ``seat``'s side."""
    side = st.sides[seat]
    return [(seat, part, detail) for part, detail in parts if _count(side, part, detail)]


def _count(side: Side, part: Part, detail: Kind | None) -> int:
    """How many of ``part`` the side holds."""
    if part is Part.FREE_GUB:
        return side.free
    if part is Part.PROTECTED_GUB or part is Part.BARRICADE:
        assert detail is not None  # these parts name their Barricade kind
        return side.protected[detail - BARRICADE_BASE]
    if part is Part.RING:
        assert detail is not None
        return side.rings[detail - RING_BASE]
    return side.spouted  # SPOUT and SPOUTED_GUB


def retreat_parts(st: GameState, p: int) -> Targets:
    """R13: what Retreat may take from the own side (never the Elder)."""
    return side_parts(st, p, RETREAT_PARTS)


def _retreat(st: GameState, p: int) -> Targets:
    return NO_TARGET if retreat_parts(st, p) else []


def _scout_hand(st: GameState, p: int) -> Targets:
    return [(s, None, None) for s in opponents(st, p) if any(st.hands[s])]


def _scout_deck(st: GameState, p: int) -> Targets:
    return NO_TARGET if st.deck else []


def _retrieve(st: GameState, p: int) -> Targets:
    # FAQ 5: only a plain Gub, never the Elder, comes back from the discard pile.
    return NO_TARGET if st.discard[Kind.GUB] else []


def targets_function(as_kind: Kind, use: Use) -> Callable[[GameState, int], Targets]:
    """The targets function of ``use`` when the card played is (or imitates) ``as_kind``."""
    if use is Use.REMOVE:
        return _remove_mushroom if as_kind is Kind.MUSHROOM else _remove_any
    if use is Use.RING:
        size = RING_SIZES[as_kind - RING_BASE]
        return lambda st, p: _ring(st, p, size)
    return TARGETS[use]


TARGETS: dict[Use, Callable[[GameState, int], Targets]] = {
    Use.ENTER: _enter,
    Use.PROTECT: _protect,
    Use.SPOUT: _free_anywhere,
    Use.LURE: _lure,
    Use.SUPER_LURE: _super_lure,
    Use.CYCLONE: _cyclone,
    Use.STRIKE_ELDER: _strike_elder,
    Use.STRIKE_HAND: _strike_hand,
    Use.BEETLE: _beetle,
    Use.STEAL: _steal,
    Use.KILL: _free_anywhere,
    Use.FREE: _free_spout,
    Use.SHATTER: _shatter,
    Use.RETREAT: _retreat,
    Use.SCOUT_HAND: _scout_hand,
    Use.SCOUT_DECK: _scout_deck,
    Use.RETRIEVE: _retrieve,
}


# --- resolution ----------------------------------------------------------------------------------

Facts = list[Fact]


def _resolve_enter(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.card is not None  # a play always names its card
    if a.card is Kind.ELDER:
        st.sides[p].elder = 1
    else:
        st.sides[p].free += 1
    article = "an" if Kind(a.card).label[0] in "AEIOU" else "a"
    facts.append(Fact(None, "seat {} puts {} {} into play", (p, article, a.card)))


def _resolve_protect(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.card is not None
    side = st.sides[p]
    side.free -= 1
    side.protected[a.card - BARRICADE_BASE] += 1
    facts.append(Fact(None, "seat {} protects a Gub with {}", (p, a.card)))


def _resolve_remove(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None and a.detail is not None  # REMOVE aims at a seat and a Barricade kind
    side = st.sides[a.seat]
    side.protected[a.detail - BARRICADE_BASE] -= 1
    side.free += 1
    st.discard[a.detail] += 1
    facts.append(Fact(None, "seat {}'s {} is removed; its Gub is Free", (a.seat, a.detail)))


def _resolve_spout(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None  # the use's target shape gives a seat
    side = st.sides[a.seat]
    side.free -= 1
    side.spouted += 1
    facts.append(Fact(None, "a Gub of seat {} is trapped under a Sud Spout", (a.seat,)))


def resolve_ring(st: GameState, p: int, a: Action, picks: list[int], facts: Facts) -> None:
    """Trap the picked Gubs under the Ring on the player's side (R12)."""
    assert a.card is not None
    for seat in picks:
        st.sides[seat].free -= 1
    st.sides[p].rings[a.card - RING_BASE] = 1
    facts.append(Fact(None, "seat {}'s {} traps {}", (p, a.card, GubsFrom(tuple(picks)))))


def _resolve_lure(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    st.sides[a.seat].free -= 1
    st.sides[p].free += 1
    facts.append(Fact(None, "seat {} lures a Gub from seat {}", (p, a.seat)))


def _resolve_super_lure(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    # R8/R17: the Gubs come over Free; the abandoned Barricades go back to their owner's hand.
    victim = st.sides[a.seat]
    hand = st.hands[a.seat]
    moved = victim.free + victim.barricades()
    for b, n in enumerate(victim.protected):
        hand[BARRICADE_BASE + b] += n
        victim.protected[b] = 0
    victim.free = 0
    st.sides[p].free += moved
    facts.append(Fact(None, "seat {} lures {} from seat {}", (p, Count(moved, "Gub"), a.seat)))


def _resolve_cyclone(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    victim = st.sides[a.seat]
    for b, n in enumerate(victim.protected):
        st.discard[BARRICADE_BASE + b] += n
        victim.free += n
        victim.protected[b] = 0
    facts.append(Fact(None, "seat {}'s Barricades are blown away", (a.seat,)))


def _resolve_strike_elder(st: GameState, p: int, a: Action, facts: Facts) -> None:
    for seat, side in enumerate(st.sides):
        if side.elder:
            side.elder = 0
            st.discard[Kind.ELDER] += 1
            facts.append(Fact(None, "the Esteemed Elder of seat {} is discarded", (seat,)))


def _resolve_strike_hand(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    hand = st.hands[a.seat]
    lost = kinds(hand)
    for k, n in enumerate(hand):
        st.discard[k] += n
        hand[k] = 0
    facts.append(Fact(None, "seat {} discards their hand: {}", (a.seat, lost)))


def _resolve_beetle(st: GameState, p: int, a: Action, facts: Facts) -> None:
    for side in st.sides:
        n = side.protected[MUSHROOM_SLOT]
        side.protected[MUSHROOM_SLOT] = 0
        st.discard[Kind.MUSHROOM] += n
        st.discard[Kind.GUB] += n
    facts.append(Fact(None, "every Mushroom in play is discarded with its Gub", ()))


def _resolve_steal(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None and a.part is not None  # STEAL aims at a seat and a part
    # R9: what Smahl Thief takes goes to the thief's hand.
    victim, hand, part = st.sides[a.seat], st.hands[p], a.part
    if part is Part.FREE_GUB:
        victim.free -= 1
        hand[Kind.GUB] += 1
    elif part is Part.PROTECTED_GUB:
        assert a.detail is not None  # the part names its Barricade kind
        victim.protected[a.detail - BARRICADE_BASE] -= 1
        st.hands[a.seat][a.detail] += 1  # R8: the abandoned Barricade goes to its owner's hand
        hand[Kind.GUB] += 1
    elif part is Part.BARRICADE:
        assert a.detail is not None
        victim.protected[a.detail - BARRICADE_BASE] -= 1
        victim.free += 1
        hand[a.detail] += 1
    elif part is Part.SPOUT:
        victim.spouted -= 1
        victim.free += 1
        hand[Kind.SUD_SPOUT] += 1
    else:  # SPOUTED_GUB (FAQ 8): the Spout is discarded
        victim.spouted -= 1
        st.discard[Kind.SUD_SPOUT] += 1
        hand[Kind.GUB] += 1
    facts.append(Fact(None, "seat {} steals {} from seat {}", (p, part_text(a.part, a.detail), a.seat)))


def _resolve_kill(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    st.sides[a.seat].free -= 1
    st.discard[Kind.GUB] += 1
    facts.append(Fact(None, "a Free Gub of seat {} is speared", (a.seat,)))


def _resolve_free(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    # FAQ 6: the freed Gub stays where it stands.
    side = st.sides[a.seat]
    side.spouted -= 1
    side.free += 1
    st.discard[Kind.SUD_SPOUT] += 1
    facts.append(Fact(None, "a Sud Spout of seat {} is broken; its Gub is Free", (a.seat,)))


def _resolve_shatter(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.detail is not None  # SHATTER names the Ring kind
    slot = a.detail - RING_BASE
    for seat, side in enumerate(st.sides):
        if side.rings[slot]:
            side.rings[slot] = 0
            st.discard[a.detail] += 1
            st.sides[p].free += RING_SIZES[slot]
            facts.append(
                Fact(
                    None,
                    "seat {} shatters the {} of seat {} and frees {}",
                    (p, a.detail, seat, Count(RING_SIZES[slot], "Gub")),
                )
            )


def _resolve_scout_hand(st: GameState, p: int, a: Action, facts: Facts) -> None:
    assert a.seat is not None
    seen = st.hands[a.seat][:]
    st.seen_hand[p] = (a.seat, seen)
    facts.append(Fact(None, "seat {} looks at seat {}'s hand", (p, a.seat)))
    facts.append(Fact(p, "you see seat {}'s hand: {}", (a.seat, kinds(seen))))


def _resolve_retrieve(st: GameState, p: int, a: Action, facts: Facts) -> None:
    st.discard[Kind.GUB] -= 1
    st.hands[p][Kind.GUB] += 1
    facts.append(Fact(None, "seat {} takes a Gub from the discard pile", (p,)))


def take_part(st: GameState, p: int, part: Part, detail: Kind | None) -> None:
    """R13: Retreat moves one card (or a Gub with its Barricade) from the own side to the hand."""
    side, hand = st.sides[p], st.hands[p]
    if part is Part.FREE_GUB:
        side.free -= 1
        hand[Kind.GUB] += 1
    elif part is Part.PROTECTED_GUB:
        assert detail is not None  # the part names its Barricade kind
        side.protected[detail - BARRICADE_BASE] -= 1
        hand[detail] += 1
        hand[Kind.GUB] += 1
    elif part is Part.BARRICADE:
        assert detail is not None
        side.protected[detail - BARRICADE_BASE] -= 1
        side.free += 1
        hand[detail] += 1
    elif part is Part.SPOUT:
        side.spouted -= 1
        side.free += 1
        hand[Kind.SUD_SPOUT] += 1
    else:  # RING: its Gubs stay on the side, Free
        assert detail is not None  # the part names its Ring kind
        side.rings[detail - RING_BASE] = 0
        side.free += RING_SIZES[detail - RING_BASE]
        hand[detail] += 1


RESOLVE: dict[Use, Callable[[GameState, int, Action, Facts], None]] = {
    Use.ENTER: _resolve_enter,
    Use.PROTECT: _resolve_protect,
    Use.REMOVE: _resolve_remove,
    Use.SPOUT: _resolve_spout,
    Use.LURE: _resolve_lure,
    Use.SUPER_LURE: _resolve_super_lure,
    Use.CYCLONE: _resolve_cyclone,
    Use.STRIKE_ELDER: _resolve_strike_elder,
    Use.STRIKE_HAND: _resolve_strike_hand,
    Use.BEETLE: _resolve_beetle,
    Use.STEAL: _resolve_steal,
    Use.KILL: _resolve_kill,
    Use.FREE: _resolve_free,
    Use.SHATTER: _resolve_shatter,
    Use.SCOUT_HAND: _resolve_scout_hand,
    Use.RETRIEVE: _resolve_retrieve,
}

STAYS_IN_PLAY: frozenset[Use] = frozenset({Use.ENTER, Use.PROTECT, Use.SPOUT, Use.RING})
"""Uses whose card stays on a side; every other card used goes to the discard pile."""
