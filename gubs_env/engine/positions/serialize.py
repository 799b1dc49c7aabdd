"""The state as a JSON-serialisable dict, and back, with validation.

Cards are named by their printed names (``"Toad Rider"``), hands and the discard pile are
``{name: count}`` maps, the deck is listed **top first**. A dict can be written by hand for a test or a
notebook; :func:`complete_deck` fills the deck with every card not placed elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

import numpy as np

from gubs_env.engine.actions import CANCELLABLE, RETREAT_PARTS, Action, Op, Part, Use
from gubs_env.engine.cards import (
    BARRICADES,
    CARDS,
    COPIES,
    DECK_SIZE,
    EVENTS,
    HAND_LIMIT,
    LETTERS,
    MAX_PLAYERS,
    NUM_KINDS,
    RINGS,
    Kind,
)
from gubs_env.engine.options import LETTER_PLACEMENTS, MAX_TURNS_LIMIT, RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.engine.rules import PLAYABLE, cancel_answers, cure_answers, flop_answers, legal_actions
from gubs_env.engine.setup import CARDS_DEALT
from gubs_env.engine.state import (
    LETTER_DRAWN,
    MAX_DECK_EVENTS,
    PUT_BACK,
    PUT_BACK_LETTER,
    RING_BASE,
    RING_SIZES,
    DeckEvent,
    GameState,
    Pending,
    Side,
    Step,
)

FORMAT_VERSION = 2
"""Version 2 added ``deck_history``; a version-1 dict (0.2 and earlier) loads with the history unknown (None)."""
OLDEST_VERSION = 1
KEYS_V1 = (
    "version",
    "num_players",
    "options",
    "turn",
    "deck",
    "discard",
    "letters",
    "hands",
    "sides",
    "pending",
    "seen",
    "rng",
    "truncated",
)
KEYS = (*KEYS_V1, "deck_history")


class InvalidStateError(ValueError):
    """A state dict that is malformed or describes an impossible position."""


# --- to dict -------------------------------------------------------------------------------------


def _names(kinds: list[int]) -> list[str]:
    return [CARDS[k].name for k in kinds]


def _count_map(counts: list[int]) -> dict[str, int]:
    return {CARDS[k].name: n for k, n in enumerate(counts) if n}


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action as a JSON-serialisable dict (``None`` fields left out)."""
    out: dict[str, Any] = {}
    for name, value in zip(Action._fields, action, strict=True):
        if value is None:
            continue
        if isinstance(value, Kind):
            out[name] = value.label
        elif isinstance(value, IntEnum):
            out[name] = value.name.lower()
        else:
            out[name] = value
    return out


def _side_to_dict(side: Side) -> dict[str, Any]:
    return {
        "free": side.free,
        "elder": bool(side.elder),
        "protected": {CARDS[b].name: n for b, n in zip(BARRICADES, side.protected, strict=True) if n},
        "spouted": side.spouted,
        "rings": [CARDS[r].name for r, here in zip(RINGS, side.rings, strict=True) if here],
    }


def _pending_to_dict(pend: Pending) -> dict[str, Any]:
    return {
        "step": pend.step.name.lower(),
        "actor": pend.actor,
        "by": pend.by,
        "play": None if pend.play is None else action_to_dict(pend.play),
        "event": None if pend.event is None else CARDS[pend.event].name,
        "queue": pend.queue[:],
        "picks": pend.picks[:],
        "cards": _names(pend.cards),
        "placed": _names(pend.placed),
        "marks": pend.marks[:],
    }


def state_to_dict(st: GameState) -> dict[str, Any]:
    """Every fact of the position, the random generator's state included."""
    return {
        "version": FORMAT_VERSION,
        "num_players": st.num_players,
        "options": st.options.to_dict(),
        "turn": {"player": st.turn_player, "number": st.turn, "declined": st.declined[:]},
        "deck": _names(st.deck[::-1]),
        "discard": _count_map(st.discard),
        "letters": _names(st.letters),
        "hands": [_count_map(h) for h in st.hands],
        "sides": [_side_to_dict(s) for s in st.sides],
        "pending": _pending_to_dict(st.pending),
        "seen": [
            {"top": _names(top), "hand": None if hand is None else {"seat": hand[0], "cards": _count_map(hand[1])}}
            for top, hand in zip(st.seen_top, st.seen_hand, strict=True)
        ],
        "rng": st.rng.bit_generator.state,
        "truncated": st.truncated,
        "deck_history": None if st.deck_history is None else [list(event) for event in st.deck_history],
    }


def state_to_dict_checked(st: object) -> dict[str, Any]:
    """``st`` as :func:`state_to_dict` writes it, for :func:`state_from_dict` to validate.

    Raises:
        InvalidStateError: ``st`` is not a :class:`GameState`, or holds values that can't be written.
    """
    if type(st) is not GameState:
        raise _fail(f"a state is a GameState, not {brief(st)}")
    try:
        return state_to_dict(st)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as err:
        raise _fail(f"the state holds values the engine never writes ({type(err).__name__})") from None


# --- reading untrusted values --------------------------------------------------------------------
#
# A state dict may come from anywhere (a file, a notebook, another tool), so every value is checked for
# its exact JSON type and range before it is used, and error messages never print an untrusted value
# whole: a deep or huge value must not make the error itself fail or take long.

MAX_SHOWN = 40
"""Characters of an untrusted string an error message shows."""
_U32, _U128 = 2**32 - 1, 2**128 - 1
_KIND_BY_NAME: dict[str, Kind] = {spec.name: spec.kind for spec in CARDS}
_HOLDABLE = tuple(k for k in Kind if k not in EVENTS)
"""Kinds a hand can hold (Events never stay in one)."""
_DISCARDABLE = tuple(k for k in Kind if k not in LETTERS)
"""Kinds the discard pile can hold (Letters are only ever in the deck or laid out)."""
SCOUT_DEPTH = 3
"""Cards a Scout sees on top of the deck (R22)."""


def brief(value: object) -> str:
    """A short description of an untrusted value for an error message: never a full ``repr``."""
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return repr(value)
    if kind is int:
        bits = value.bit_length()  # type: ignore[attr-defined]
        return repr(value) if bits <= 64 else f"an int of {bits} bits"
    if kind is str:
        text = str(value)
        return repr(text[:MAX_SHOWN]) + ("…" if len(text) > MAX_SHOWN else "")
    return f"a value of type {kind.__name__[:MAX_SHOWN]}"


def _fail(msg: str) -> InvalidStateError:
    return InvalidStateError(f"invalid state: {msg}")


def _dict(value: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    """``value`` as a dict with exactly ``keys``."""
    if type(value) is not dict:
        raise _fail(f"{where} must be a dict, not {brief(value)}")
    if not all(type(k) is str for k in value):
        raise _fail(f"{where} has a key that is not a string")
    if set(value) != set(keys):
        missing = [k for k in keys if k not in value][:3]
        unknown = [brief(k) for k in value if k not in keys][:3]
        raise _fail(f"{where} must have exactly the keys {list(keys)} (missing {missing}, unknown {unknown}, ...)")
    return value


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if type(value) is not int:
        raise _fail(f"{where} must be an int, not {brief(value)}")
    if not lo <= value <= hi:
        raise _fail(f"{where} = {brief(value)} is outside {lo}..{hi}")
    return value


def _player_count(value: Any) -> int:
    """The state's ``num_players``: a JSON int that is a table size the game allows."""
    if type(value) is not int:  # JSON's ints only, as every other field (check_player_count takes numpy's too)
        raise _fail(f"num_players must be an int, not {brief(value)}")
    try:
        return check_player_count(value)
    except ValueError as err:
        raise _fail(str(err)) from None


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise _fail(f"{where} must be true or false, not {brief(value)}")
    return value


def _list(value: Any, where: str, max_len: int) -> list[Any]:
    if type(value) is not list:
        raise _fail(f"{where} must be a list, not {brief(value)}")
    if len(value) > max_len:
        raise _fail(f"{where} has {len(value)} entries, more than {max_len}")
    return value


def _kind(name: Any, where: str) -> Kind:
    if type(name) is not str:
        raise _fail(f"{where}: a card is named by a string, not {brief(name)}")
    kind = _KIND_BY_NAME.get(name)
    if kind is None:
        raise _fail(f"{where}: unknown card {brief(name)}")
    return kind


def _kind_list(values: Any, where: str, max_len: int) -> list[int]:
    return [int(_kind(v, where)) for v in _list(values, where, max_len)]


def _counts(values: Any, where: str, allowed: tuple[Kind, ...] = tuple(Kind)) -> list[int]:
    """A ``{card name: count}`` dict as a count vector; no count above the copies of its kind."""
    if type(values) is not dict:
        raise _fail(f"{where} must be a {{card name: count}} dict, not {brief(values)}")
    counts = [0] * NUM_KINDS
    for name, n in values.items():
        kind = _kind(name, where)
        if kind not in allowed:
            raise _fail(f"{where}: {kind.label} can't be here")
        counts[kind] = _int(n, f"{where}[{kind.label!r}]", 0, COPIES[kind])
    return counts


def _ints(values: Any, where: str, max_len: int, lo: int, hi: int) -> list[int]:
    return [_int(v, f"{where}[{i}]", lo, hi) for i, v in enumerate(_list(values, where, max_len))]


def _enum(enum: type[IntEnum], value: Any, where: str) -> Any:
    names = [m.lower() for m in enum.__members__]
    if type(value) is not str or value.lower() not in names:
        raise _fail(f"{where}: {brief(value)} is not one of {names}")
    return enum[value.upper()]


def action_from_dict(d: Any) -> Action:
    """The action a dict from :func:`action_to_dict` describes (checked for shape, not for legality).

    Raises:
        InvalidStateError: the dict is not an action dict.
    """
    if type(d) is not dict or "op" not in d or not all(type(k) is str and k in Action._fields for k in d):
        raise _fail(f"an action is a dict with 'op' and keys from {list(Action._fields)}, not {brief(d)}")
    seat = d.get("seat")
    if seat is not None:
        _int(seat, "action.seat", 0, MAX_PLAYERS - 1)

    def card(key: str) -> Kind | None:
        return None if d.get(key) is None else _kind(d[key], f"action.{key}")

    return Action(
        _enum(Op, d["op"], "action.op"),
        card("card"),
        card("as_kind"),
        None if d.get("use") is None else _enum(Use, d["use"], "action.use"),
        seat,
        None if d.get("part") is None else _enum(Part, d["part"], "action.part"),
        card("detail"),
    )


# --- from dict -----------------------------------------------------------------------------------

_TURN_KEYS = ("player", "number", "declined")
_SIDE_KEYS = ("free", "elder", "protected", "spouted", "rings")
_PENDING_KEYS = ("step", "actor", "by", "play", "event", "queue", "picks", "cards", "placed", "marks")
_SEEN_KEYS = ("top", "hand")
_SEEN_HAND_KEYS = ("seat", "cards")
_RNG_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")
_OPTION_KEYS = ("letter_placement", "max_turns")
_BIT_GENERATORS = ("PCG64",)
"""The only generator a saved game may name: the one :func:`numpy.random.default_rng` gives the engine."""


def _options_from_dict(value: Any) -> RuleOptions:
    d = _dict(value, _OPTION_KEYS, "options")
    placement = d["letter_placement"]
    if type(placement) is not str or placement not in LETTER_PLACEMENTS:
        raise _fail(f"options.letter_placement: {brief(placement)} is not one of {list(LETTER_PLACEMENTS)}")
    return RuleOptions(placement, _int(d["max_turns"], "options.max_turns", 1, MAX_TURNS_LIMIT))


def _rng_from_dict(value: Any) -> np.random.Generator:
    """A PCG64 generator in exactly the saved state; every field is checked before numpy sees it."""
    d = _dict(value, _RNG_KEYS, "rng")
    name = d["bit_generator"]
    if type(name) is not str or name not in _BIT_GENERATORS:
        raise _fail(f"rng.bit_generator: {brief(name)} is not one of {list(_BIT_GENERATORS)}")
    inner = _dict(d["state"], ("state", "inc"), "rng.state")
    lcg_state = _int(inner["state"], "rng.state.state", 0, _U128)
    inc = _int(inner["inc"], "rng.state.inc", 0, _U128)
    if inc % 2 == 0:  # PCG64's increment is always odd; an even one can make the generator stall
        raise _fail("rng.state.inc must be odd")
    has_uint32 = _int(d["has_uint32"], "rng.has_uint32", 0, 1)
    uinteger = _int(d["uinteger"], "rng.uinteger", 0, _U32)
    bit_generator = np.random.PCG64(0)  # a fixed seed reads no OS entropy; the state is replaced at once
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": lcg_state, "inc": inc},
        "has_uint32": has_uint32,
        "uinteger": uinteger,
    }
    return np.random.Generator(bit_generator)


def _side_from_dict(value: Any, where: str) -> Side:
    d = _dict(value, _SIDE_KEYS, where)
    protected = _counts(d["protected"], f"{where}.protected", BARRICADES)
    rings = _kind_list(d["rings"], f"{where}.rings", len(RINGS))
    if any(r not in RINGS for r in rings) or len(set(rings)) != len(rings):
        raise _fail(f"{where}.rings must list distinct Ring names")
    return Side(
        free=_int(d["free"], f"{where}.free", 0, COPIES[Kind.GUB]),
        elder=int(_bool(d["elder"], f"{where}.elder")),
        protected=[protected[b] for b in BARRICADES],
        spouted=_int(d["spouted"], f"{where}.spouted", 0, COPIES[Kind.SUD_SPOUT]),
        rings=[int(r in rings) for r in RINGS],
    )


def _play_from_dict(value: Any) -> Action | None:
    """The card use in transit: one of the engine's own play-phase actions, or None."""
    if value is None:
        return None
    action = action_from_dict(value)
    engine_action = _PLAY_ACTIONS.get(action)
    if engine_action is None:
        raise _fail(f"pending.play {action} is not a play-phase card use")
    return engine_action


def _pending_from_dict(value: Any, n: int) -> Pending:
    where = "pending"
    d = _dict(value, _PENDING_KEYS, where)
    step = _enum(Step, d["step"], f"{where}.step")
    event = d["event"]
    return Pending(
        step=step,
        actor=_int(d["actor"], f"{where}.actor", -1, n - 1),
        by=_int(d["by"], f"{where}.by", 0, n - 1),
        play=_play_from_dict(d["play"]),
        event=None if event is None else _kind(event, f"{where}.event"),
        queue=_ints(d["queue"], f"{where}.queue", n, 0, n - 1),
        picks=_ints(d["picks"], f"{where}.picks", DECK_SIZE, 0, DECK_SIZE),
        cards=_kind_list(d["cards"], f"{where}.cards", SCOUT_DEPTH),
        placed=_kind_list(d["placed"], f"{where}.placed", SCOUT_DEPTH),
        marks=_ints(d["marks"], f"{where}.marks", n, -1, NUM_KINDS - 1),
    )


def _seen_from_dict(st: GameState, values: Any) -> None:
    n = st.num_players
    for i, value in enumerate(_exactly(values, n, "seen")):
        d = _dict(value, _SEEN_KEYS, f"seen[{i}]")
        st.seen_top[i] = _kind_list(d["top"], f"seen[{i}].top", SCOUT_DEPTH)
        if d["hand"] is not None:
            hand = _dict(d["hand"], _SEEN_HAND_KEYS, f"seen[{i}].hand")
            seat = _int(hand["seat"], f"seen[{i}].hand.seat", 0, n - 1)
            st.seen_hand[i] = (seat, _counts(hand["cards"], f"seen[{i}].hand.cards", _HOLDABLE))


def state_from_dict(d: Any) -> GameState:
    """Rebuild a state from a dict, checking every field and that the position is one the rules can play.

    The dict is only read, never changed, and nothing outside the new state is touched.

    Raises:
        InvalidStateError: naming the first field that is malformed or impossible.
    """
    version = d.get("version") if type(d) is dict else None
    d = _dict(d, KEYS_V1 if version == OLDEST_VERSION else KEYS, "state")
    if type(d["version"]) is not int or d["version"] not in (OLDEST_VERSION, FORMAT_VERSION):
        raise _fail(f"version {brief(d['version'])} is not {OLDEST_VERSION} or {FORMAT_VERSION}")
    n = _player_count(d["num_players"])
    st = GameState(n, _options_from_dict(d["options"]), _rng_from_dict(d["rng"]))
    turn = _dict(d["turn"], _TURN_KEYS, "turn")
    st.turn_player = _int(turn["player"], "turn.player", 0, n - 1)
    st.turn = _int(turn["number"], "turn.number", 1, MAX_TURNS_LIMIT + 1)
    st.declined = [
        _bool(x, f"turn.declined[{i}]") for i, x in enumerate(_exactly(turn["declined"], n, "turn.declined"))
    ]
    st.deck = _kind_list(d["deck"], "deck", DECK_SIZE)[::-1]
    st.discard = _counts(d["discard"], "discard", _DISCARDABLE)
    st.letters = _kind_list(d["letters"], "letters", len(LETTERS))
    st.hands = [_counts(h, f"hands[{i}]", _HOLDABLE) for i, h in enumerate(_exactly(d["hands"], n, "hands"))]
    st.sides = [_side_from_dict(s, f"sides[{i}]") for i, s in enumerate(_exactly(d["sides"], n, "sides"))]
    st.pending = _pending_from_dict(d["pending"], n)
    _seen_from_dict(st, d["seen"])
    st.truncated = _bool(d["truncated"], "truncated")
    history = d.get("deck_history")  # a version-1 dict has none: its past is not known
    st.deck_history = None if history is None else checked_deck_history(history)
    check_state(st)
    return st


def checked_deck_history(value: Any) -> list[DeckEvent]:
    """A saved deck history's shape checked: a list of ``[deck size, event]`` pairs of plain ints.

    Whether it fits the position is :func:`check_state`'s to check.

    Raises:
        InvalidStateError: anything else; nothing is kept.
    """
    if type(value) is not list or len(value) > MAX_DECK_EVENTS:
        raise _fail(f"deck_history must be a list of at most {MAX_DECK_EVENTS} events, not {brief(value)}")
    events: list[DeckEvent] = []
    for event in value:
        if (
            type(event) is not list
            or len(event) != 2
            or any(type(v) is not int for v in event)
            or not 0 <= event[0] <= DECK_SIZE
            or event[1] not in (PUT_BACK, PUT_BACK_LETTER, LETTER_DRAWN)
        ):
            raise _fail(f"a deck_history event is [deck size 0..{DECK_SIZE}, event 0..2], not {brief(event)}")
        events.append((event[0], event[1]))
    return events


def _exactly(values: Any, n: int, where: str) -> list[Any]:
    if type(values) is not list or len(values) != n:
        raise _fail(f"{where} must be a list of {n} entries, one per seat")
    return values


# --- is the position one the rules can play? ------------------------------------------------------


def check_state(st: GameState) -> None:
    """Raise :class:`InvalidStateError` unless a well-formed state is one the rules can play on.

    ``st`` must hold values of the engine's own types (as :func:`state_from_dict` builds them); this
    checks the facts between fields: card conservation, the turn, what each seat knows, and the
    pending decision.
    """
    if any(k not in LETTERS for k in st.letters) or len(set(st.letters)) != len(st.letters):
        raise _fail("letters must list distinct Letters")
    _check_turn(st)
    _check_pending_shape(st)  # first: a wrong play or event also shows as a card count
    counts = st.card_counts()
    wrong = [f"{CARDS[k].name}: {c} (should be {COPIES[k]})" for k, c in enumerate(counts) if c != COPIES[k]]
    if wrong:
        raise _fail("cards are not conserved: " + "; ".join(wrong[:4]))
    _check_seen(st)
    _check_deck_history(st)
    _check_pending(st)


def _check_deck_history(st: GameState) -> None:
    """The deck's history could have led from the deal to this deck: its sizes and its Letters.

    Between events the deck only shrinks (cards drawn); a Letter is drawn only while one is in the deck and put back
    only after one was drawn; the Letters in the deck now are the ones the history leaves there.
    """
    if st.deck_history is None:
        return
    size = sum(COPIES) - (CARDS_DEALT + 1) * st.num_players  # after the deal
    letters = len(LETTERS)
    for i, (at, what) in enumerate(st.deck_history):
        if at > size:
            raise _fail(f"deck_history[{i}]: the deck held at most {size} cards then, not {at}")
        if what == LETTER_DRAWN:
            if letters == 0 or at == 0:
                raise _fail(f"deck_history[{i}]: a Letter drawn from a deck that held none")
            letters, size = letters - 1, at - 1
        else:
            if what == PUT_BACK_LETTER:
                if letters == len(LETTERS):
                    raise _fail(f"deck_history[{i}]: a Letter put back while all three were in the deck")
                letters += 1
            size = at + 1
    if len(st.deck) > size:
        raise _fail(f"deck_history: the deck holds {len(st.deck)} cards, more than the {size} its history leaves")
    if sum(kind in LETTERS for kind in st.deck) != letters:
        raise _fail(f"deck_history leaves {letters} Letters in the deck, where it holds another number")


def _check_turn(st: GameState) -> None:
    limit = st.options.max_turns
    if st.truncated and (st.turn != limit + 1 or len(st.letters) == len(LETTERS)):
        raise _fail("truncated: a game is truncated only when turn.number passes options.max_turns (R23)")
    if not st.truncated and st.turn > limit:
        raise _fail(f"turn.number {st.turn} is past options.max_turns {limit} in a game not truncated")


def _check_seen(st: GameState) -> None:
    top_first = st.deck[::-1]
    for i, top in enumerate(st.seen_top):
        if top != top_first[: len(top)]:
            raise _fail(f"seen[{i}].top must be the top cards of the deck, top first")
        seen = st.seen_hand[i]
        if seen is not None and seen[0] == i:
            raise _fail(f"seen[{i}].hand.seat: a Scout shows another player's hand, not the own")


def _check_pending_shape(st: GameState) -> None:
    """The fields each step uses are set, the others empty, and the card in transit fits the step."""
    pend = st.pending
    over = len(st.letters) == len(LETTERS) or st.truncated
    if over != (pend.step is Step.OVER):
        raise _fail("pending.step must be 'over' exactly when three Letters are out or the game was truncated")
    if pend.by != st.turn_player:
        raise _fail("pending.by must be the turn player (turn.player)")
    if (pend.play is not None) != (pend.step in _NEEDS_PLAY):
        raise _fail(f"pending.play must be set exactly for steps {sorted(s.name.lower() for s in _NEEDS_PLAY)}")
    if (pend.event is not None) != (pend.step in _NEEDS_EVENT):
        raise _fail(f"pending.event must be set exactly for steps {sorted(s.name.lower() for s in _NEEDS_EVENT)}")
    for name in ("queue", "picks", "cards", "placed", "marks"):
        if getattr(pend, name) and name not in _STEP_FIELDS.get(pend.step, ()):
            raise _fail(f"pending.{name} must be empty in a {pend.step.name.lower()} step")
    if pend.play is not None and pend.play.use not in _STEP_USES[pend.step]:
        raise _fail(f"pending.play {pend.play} can't be resolved by a {pend.step.name.lower()} step")
    if pend.step in _TURN_PLAYER_DECIDES and pend.actor != st.turn_player:
        raise _fail(f"pending.actor: the turn player decides a {pend.step.name.lower()} step")


def _check_pending(st: GameState) -> None:
    """The pending decision agrees with the table, and its player has a legal action."""
    pend = st.pending
    _STEP_CHECKS.get(pend.step, _no_more_checks)(st, pend)
    if pend.step is not Step.OVER and not legal_actions(st):
        raise _fail("pending: the player to act would have no legal action")


_NEEDS_PLAY = frozenset({Step.CANCEL, Step.RING, Step.RETREAT, Step.SCOUT})
_STEP_USES: dict[Step, frozenset[Use]] = {
    Step.CANCEL: CANCELLABLE,
    Step.RING: frozenset({Use.RING}),
    Step.RETREAT: frozenset({Use.RETREAT}),
    Step.SCOUT: frozenset({Use.SCOUT_DECK}),
}
"""The card uses each step resolves (a cancel window: any Hazard or Trap use)."""
_NEEDS_EVENT = frozenset({Step.FLOP, Step.CURE, Step.KEEP})
_TURN_PLAYER_DECIDES = frozenset({Step.DRAW, Step.PLAY, Step.DISCARD, Step.RING, Step.RETREAT, Step.SCOUT})
_STEP_FIELDS: dict[Step, tuple[str, ...]] = {
    Step.CANCEL: ("queue", "picks"),
    Step.FLOP: ("queue",),
    Step.CURE: ("queue", "marks"),
    Step.KEEP: ("queue", "marks"),
    Step.RING: ("picks",),
    Step.RETREAT: ("picks",),
    Step.SCOUT: ("cards", "placed"),
}
"""The list fields each step uses; every other one must be empty."""


def _no_more_checks(st: GameState, pend: Pending) -> None:
    """DRAW and PLAY need nothing beyond the common checks."""


def _check_over(st: GameState, pend: Pending) -> None:
    if pend.actor != -1:
        raise _fail("pending.actor must be -1 once the game is over")


def _check_discard(st: GameState, pend: Pending) -> None:
    if st.hand_size(pend.actor) <= HAND_LIMIT:
        raise _fail(f"pending: a discard step needs a hand over the limit of {HAND_LIMIT} (R14)")


def _check_ring_picks(st: GameState, pend: Pending, complete: bool) -> None:
    ring = pend.play.card if pend.play is not None else None
    assert ring is not None  # checked by _check_pending_shape: a Ring is being played
    size = RING_SIZES[ring - RING_BASE]
    if complete != (len(pend.picks) == size) or len(pend.picks) > size:
        wanted = f"exactly {size}" if complete else f"fewer than {size}"
        raise _fail(f"pending.picks: {len(pend.picks)} picks, where this step has {wanted} for the {ring.label}")
    if any(seat >= st.num_players for seat in pend.picks):
        raise _fail("pending.picks: a Ring picks Gubs by seat, and one of them is not a seat")
    if any(pend.picks.count(s) > side.free for s, side in enumerate(st.sides)):
        raise _fail("pending.picks: more Gubs picked from a seat than it has Free")
    if st.free_total() < size:
        raise _fail(f"pending: the {ring.label} needs {size} Free Gubs in play (R12)")


def _check_ring(st: GameState, pend: Pending) -> None:
    _check_ring_picks(st, pend, complete=False)


def _check_retreat(st: GameState, pend: Pending) -> None:
    if any(p not in _RETREAT_PART_VALUES for p in pend.picks):
        raise _fail(f"pending.picks: a retreat step lists the parts taken, from {sorted(_RETREAT_PART_VALUES)}")
    if len(pend.picks) > st.hand_size(pend.actor):  # every card taken went to the hand
        raise _fail("pending.picks: more cards taken than the hand holds")


_RETREAT_PART_VALUES = frozenset(int(part) for part, _ in RETREAT_PARTS)


def _check_scout(st: GameState, pend: Pending) -> None:
    seen = min(SCOUT_DEPTH, len(st.deck))
    if len(pend.cards) < 2 or len(pend.cards) + len(pend.placed) != seen:
        raise _fail(f"pending.cards and placed: the Scout sees the top {seen} cards and places all but the last")
    if sorted(pend.placed + pend.cards) != sorted(st.deck[-seen:]):
        raise _fail("pending.cards and placed must be the top cards of the deck")


def _clockwise(st: GameState, first: int, seat: int) -> int:
    """How many seats clockwise from ``first`` ``seat`` is."""
    return (seat - first) % st.num_players


def _check_asked(st: GameState, pend: Pending, can_answer: Callable[[int], bool], first: int, what: str) -> None:
    """A window or round asks ``pend.actor`` now and then exactly the later seats that can answer, in order."""
    if not 0 <= pend.actor < st.num_players or _clockwise(st, pend.by, pend.actor) < first:
        raise _fail(f"pending.actor: seat {pend.actor} is not asked in this {what}")
    if not can_answer(pend.actor):
        raise _fail(f"pending.actor: seat {pend.actor} has nothing to answer this {what} with")
    later = range(_clockwise(st, pend.by, pend.actor) + 1, st.num_players)
    expected = [s for s in ((pend.by + k) % st.num_players for k in later) if can_answer(s)]
    if pend.queue != expected:
        raise _fail(f"pending.queue must be {expected}: the later seats that can answer this {what}, in order")


def _check_cancel(st: GameState, pend: Pending) -> None:
    play = pend.play
    assert play is not None  # checked by _check_pending_shape
    if play.use is Use.RING:
        _check_ring_picks(st, pend, complete=True)
    elif play not in _aims(st, play):
        raise _fail(f"pending.play {play} aims at something that is not there")
    _check_asked(st, pend, lambda s: bool(cancel_answers(st.hands[s], play)), 1, "cancel window")


def _aims(st: GameState, play: Action) -> list[Action]:
    """The actions ``play``'s card use could take now for the turn player."""
    targets, by_target = _USE_OF[play]
    return [by_target[t] for t in targets(st, st.turn_player)]


def _check_flop(st: GameState, pend: Pending) -> None:
    if pend.event not in EVENTS:
        raise _fail("pending.event must be an Event or a Letter in a flop step")
    _check_asked(st, pend, lambda s: bool(flop_answers(st.hands[s])), 0, "flop window")


def _check_cure(st: GameState, pend: Pending) -> None:
    if pend.event is not Kind.GARGOK_PLAGUE:
        raise _fail("pending.event must be Gargok Plague in a cure step")
    _check_asked(st, pend, lambda s: bool(cure_answers(st.hands[s])), 0, "cure round")
    _check_marks(st, pend, lambda seat, mark: mark in (0, 1), "0 or 1 (1: kept the hand)")


def _check_keep(st: GameState, pend: Pending) -> None:
    if pend.event is not Kind.TRAVELING_MERCHANT:
        raise _fail("pending.event must be Traveling Merchant in a keep step")
    _check_asked(st, pend, lambda s: st.hand_size(s) >= 2, 0, "keep round")

    def kept(seat: int, mark: int) -> bool:  # R19: only a hand of two or more chooses, a card it holds
        if st.hand_size(seat) < 2:
            return mark == -1
        return mark >= 0 and st.hands[seat][mark] > 0

    _check_marks(st, pend, kept, "a kind the seat holds (-1 for a seat not asked)")


def _check_marks(st: GameState, pend: Pending, asked_ok: Callable[[int, int], bool], meaning: str) -> None:
    """One mark per seat: seats already asked hold a valid answer, the others the initial value."""
    n = st.num_players
    if len(pend.marks) != n:
        raise _fail("pending.marks needs one entry per seat")
    initial = 0 if pend.step is Step.CURE else -1
    asked_before = _clockwise(st, pend.by, pend.actor)
    for seat, mark in enumerate(pend.marks):
        if _clockwise(st, pend.by, seat) >= asked_before:
            if mark != initial:
                raise _fail(f"pending.marks[{seat}] = {mark}: seat {seat} is not asked yet, so it must be {initial}")
        elif not asked_ok(seat, mark):
            raise _fail(f"pending.marks[{seat}] = {mark}: it must be {meaning}")


_STEP_CHECKS: dict[Step, Callable[[GameState, Pending], None]] = {
    Step.DISCARD: _check_discard,
    Step.CANCEL: _check_cancel,
    Step.FLOP: _check_flop,
    Step.CURE: _check_cure,
    Step.KEEP: _check_keep,
    Step.RING: _check_ring,
    Step.RETREAT: _check_retreat,
    Step.SCOUT: _check_scout,
    Step.OVER: _check_over,
}


def _play_universe() -> tuple[dict[Action, Action], dict[Action, tuple[Callable[..., Any], dict[tuple, Action]]]]:
    """Every play-phase action (by value -> the engine's own object), and its use's targets."""
    canonical: dict[Action, Action] = {}
    use_of: dict[Action, tuple[Callable[..., Any], dict[tuple, Action]]] = {}
    for _card, uses in PLAYABLE:
        for targets, by_target in uses:
            for action in by_target.values():
                canonical[action] = action
                use_of[action] = (targets, by_target)
    return canonical, use_of


_PLAY_ACTIONS, _USE_OF = _play_universe()
