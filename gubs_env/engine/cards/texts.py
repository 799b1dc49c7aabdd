"""What each card does, in the project's words: the "what the use does" column of docs/rules.md's card table.

The terminal game's card help reads it (``h mushroom``); ``tests/engine/test_card_texts.py`` keeps it and the
table in docs/rules.md word for word the same.
"""

from __future__ import annotations

from gubs_env.engine.cards import CARDS, Kind

CARD_TEXT: dict[Kind, str] = {
    Kind.GUB: "Goes onto the player's own side as a Free Gub.",
    Kind.ELDER: "Goes onto the player's own side. It is always Free, worth 1 point and wins ties. Only Lightning can affect it.",
    Kind.MUSHROOM: "`PROTECT`: covers one of the player's Free Gubs. `REMOVE`: this card and one Mushroom on any side both go to the discard pile, and the Gub that was under it becomes Free.",
    Kind.TOAD_RIDER: "`PROTECT`: covers one of the player's Free Gubs. `REMOVE`: this card and one Barricade of any kind on any side both go to the discard pile, and the Gub that was under it becomes Free.",
    Kind.VELVET_MOTH: "`PROTECT`: covers one of the player's Free Gubs. It has no other use.",
    Kind.SINGLE_RING: "Traps 1 Free Gub, chosen with `PICK` from any side. The Ring, with that Gub under it, goes onto the player's side; the Gub scores for no one.",
    Kind.DOUBLE_RING: "Traps 2 Free Gubs, chosen one at a time with `PICK` from any side. The Ring, with those Gubs under it, goes onto the player's side; the Gubs score for no one.",
    Kind.TRIPLE_RING: "Traps 3 Free Gubs, chosen one at a time with `PICK` from any side. The Ring, with those Gubs under it, goes onto the player's side; the Gubs score for no one.",
    Kind.SUD_SPOUT: "Traps a Free Gub on any side. The Spout and the Gub stay on that side, and the Gub scores 0.",
    Kind.LURE: "Takes one Free Gub off an opponent's side and puts it on the player's.",
    Kind.SUPER_LURE: "Moves every Free and Protected Gub of one opponent to the player's side, as Free Gubs. That opponent's Barricades go back to their hand.",
    Kind.CYCLONE: "Sends every Barricade of one opponent to the discard pile. Their Gubs stay where they are, now Free.",
    Kind.LIGHTNING: "Either discards the Elder from whichever side holds it, or empties one opponent's hand into the discard pile.",
    Kind.OMEN_BEETLE: "Discards every Mushroom in play, on all sides, together with the Gub under it.",
    Kind.SMAHL_THIEF: "Takes one card, or a Gub with its Barricade, from an opponent's side into the player's hand (R9).",
    Kind.SPEAR: "`KILL` (its Hazard use) discards one Free Gub on any side. `FREE` (its Tool use) discards a Sud Spout on any side, and that Gub stays where it is, Free.",
    Kind.HAKI_FLUTE: "Discards a Ring from any side. The Ring's Gubs join the player's side as Free Gubs.",
    Kind.RETREAT: "The player moves cards from their own side to their hand, one at a time (R13).",
    Kind.SCOUT: "Either shows the player one opponent's hand, or shows the top three cards of the deck, which the player then reorders (R22).",
    Kind.AGE_OLD_CURE: "`RETRIEVE` (on the player's own play step): moves a plain Gub from the discard pile to the hand. `SAVE` (in the cure window): discarding it keeps the player's hand through Gargok Plague.",
    Kind.BLINDFOLD: "Cancels a Lure or Super Lure while it is being played.",
    Kind.FEATHER: "Cancels any Hazard or Trap use while it is being played (R6).",
    Kind.FLOP_BOAT: "A drawn Event, Letters included, is cancelled and returns to the deck (R20).",
    Kind.CRICKET_SONG: "Played *as* any Hazard, Tool or Interrupt (`as_kind`), with that card's uses and timing. It is always discarded afterwards.",
    Kind.LETTER_G: "When drawn, it is laid face up beside the deck. Laying the third Letter ends the game.",
    Kind.LETTER_U: "When drawn, it is laid face up beside the deck. Laying the third Letter ends the game.",
    Kind.LETTER_B: "When drawn, it is laid face up beside the deck. Laying the third Letter ends the game.",
    Kind.DANGEROUS_ALCHEMY: "Everything on the drawer's side goes to the discard pile, except the Elder (R16).",
    Kind.FLASH_FLOOD: "All Free plain Gubs, wherever they are, return to the deck.",
    Kind.GARGOK_PLAGUE: "Opens the cure window. Afterwards, every hand that was not saved goes into the deck.",
    Kind.RUMOR_OF_WASPS: "Each Toad Rider on any side returns to the deck along with its Gub.",
    Kind.TRAVELING_MERCHANT: "Opens the `KEEP` round. Then each player passes the remaining cards to the previous seat (R19).",
}
"""Per kind, what playing it (or drawing it, for an Event) does; rulings are named by their ids (docs/rules.md)."""


def card_help(kind: Kind) -> str:
    """A card's help: its name, type and number of copies, then what it does (backticks dropped, for a terminal)."""
    spec = CARDS[kind]
    kind_type = spec.type.name.replace("_", " ").lower()
    return f"{spec.name} ({kind_type}, {spec.copies} in the deck): {CARD_TEXT[kind].replace('`', '')}"
