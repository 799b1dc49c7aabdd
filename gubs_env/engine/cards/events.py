"""What Events do once nobody flopped them (docs/rules.md §1, R15, R16, R19).

Each function changes the zones only; the decisions around them (flop and cure windows, the
Traveling Merchant's choices) are steps of :mod:`gubs_env.engine.rules`.
"""

from __future__ import annotations

from gubs_env.engine.cards import BARRICADES, LETTERS, Kind
from gubs_env.engine.log import Count, Fact, kinds
from gubs_env.engine.state import BARRICADE_BASE, PUT_BACK, PUT_BACK_LETTER, RING_BASE, RING_SIZES, GameState

TOAD_SLOT = Kind.TOAD_RIDER - BARRICADE_BASE


def insert_into_deck(st: GameState, kind: int) -> None:
    """Put a card into the deck at a uniformly random position (R15, R20).

    Any Scout knowledge of the deck top is forgotten: the position is hidden, so no player can be
    sure the cards they saw are still on top (docs/rules.md "P2"). The deck's history records it.
    """
    st.note_deck_event(PUT_BACK_LETTER if kind in LETTERS else PUT_BACK)
    st.deck.insert(int(st.rng.integers(len(st.deck) + 1)), kind)
    for seen in st.seen_top:
        seen.clear()


def alchemy(st: GameState, drawer: int, facts: list[Fact]) -> None:
    """R16: everything on the drawer's side is discarded except the Elder."""
    side, discard = st.sides[drawer], st.discard
    discard[Kind.GUB] += side.free + side.spouted + side.barricades()
    discard[Kind.SUD_SPOUT] += side.spouted
    for b, n in enumerate(side.protected):
        discard[BARRICADES[b]] += n
        side.protected[b] = 0
    for r, here in enumerate(side.rings):
        if here:
            discard[RING_BASE + r] += 1
            discard[Kind.GUB] += RING_SIZES[r]
            side.rings[r] = 0
    side.free = side.spouted = 0
    facts.append(Fact(None, "everything on seat {}'s side but the Elder is discarded", (drawer,)))


def flood(st: GameState, facts: list[Fact]) -> None:
    """Every Free plain Gub on every side goes back into the deck; the Elder stays."""
    total = 0
    for side in st.sides:
        for _ in range(side.free):
            insert_into_deck(st, Kind.GUB)
        total += side.free
        side.free = 0
    verb = "is" if total == 1 else "are"
    facts.append(Fact(None, "{} {} washed back into the deck", (Count(total, "Free Gub"), verb)))


def wasps(st: GameState, facts: list[Fact]) -> None:
    """Every Toad Rider in play goes back into the deck with the Gub under it."""
    total = 0
    for side in st.sides:
        n = side.protected[TOAD_SLOT]
        side.protected[TOAD_SLOT] = 0
        for _ in range(n):
            insert_into_deck(st, Kind.TOAD_RIDER)
            insert_into_deck(st, Kind.GUB)
        total += n
    gubs = "its Gub goes" if total == 1 else "their Gubs go"
    facts.append(Fact(None, "{} and {} back into the deck", (Count(total, "Toad Rider"), gubs)))


def plague(st: GameState, drawer: int, saved: list[int], facts: list[Fact]) -> None:
    """Every hand not saved goes into the deck, card by card, drawer first (R15)."""
    n = st.num_players
    for i in range(n):
        seat = (drawer + i) % n
        if saved[seat]:
            continue
        hand = st.hands[seat]
        lost = sum(hand)
        for k in range(len(hand)):
            for _ in range(hand[k]):
                insert_into_deck(st, k)
            hand[k] = 0
        facts.append(Fact(None, "seat {}'s hand ({}) goes into the deck", (seat, Count(lost, "card"))))


def merchant(st: GameState, kept: list[int], facts: list[Fact]) -> None:
    """R19: each player keeps one card and passes the rest to the previous seat, all at once."""
    n = st.num_players
    passed: list[list[int]] = []
    for seat in range(n):
        hand = st.hands[seat][:]
        keep = kept[seat]
        if keep < 0 and sum(hand) == 1:  # a single card is kept without a choice
            keep = next(k for k, c in enumerate(hand) if c)
        if keep >= 0:
            hand[keep] -= 1
        passed.append(hand)
    for seat in range(n):
        receiver = (seat - 1) % n
        for k, c in enumerate(passed[seat]):
            st.hands[seat][k] -= c
            st.hands[receiver][k] += c
        facts.append(Fact(None, "seat {} passes {} to seat {}", (seat, Count(sum(passed[seat]), "card"), receiver)))
        facts.append(Fact(seat, "you pass {}", (kinds(passed[seat]),)))
        facts.append(Fact(receiver, "you receive {}", (kinds(passed[seat]),)))
