"""The state as a JSON-serialisable dict, and back, with validation.

Cards are named by their printed names (``"Toad Rider"``), hands and the discard pile are
``{name: count}`` maps, the deck is listed **top first**. A dict can be written by hand for a test or a
notebook; :func:`complete_deck` fills the deck with every card not placed elsewhere.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from gubs_env.engine.actions import CANCELLABLE, Action, Op, Part, Use, make
from gubs_env.engine.cards import BARRICADES, CARDS, COPIES, EVENTS, LETTERS, MAX_PLAYERS, MIN_PLAYERS, RINGS, Kind
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.rules import legal_actions
from gubs_env.engine.state import GameState, Pending, Side, Step

FORMAT_VERSION = 1
KEYS = (
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
            value = value.label
        elif isinstance(value, IntEnum):
            value = value.name.lower()
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
    }


# --- from dict -----------------------------------------------------------------------------------


def _fail(msg: str) -> InvalidStateError:
    return InvalidStateError(f"invalid state: {msg}")


def _get(d: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise _fail(f"{where} needs key {key!r}")
    value = d[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise _fail(f"{where}.{key} must be {getattr(kind, '__name__', kind)}, not {type(value).__name__}")
    return value


def _int(d: Any, key: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    value = _get(d, key, int, where)
    if value < lo or (hi is not None and value > hi):
        raise _fail(f"{where}.{key} = {value} is out of range")
    return value


def _kind(name: Any, where: str) -> Kind:
    if not isinstance(name, str):
        raise _fail(f"{where}: card names are strings, not {type(name).__name__}")
    for spec in CARDS:
        if spec.name == name:
            return spec.kind
    raise _fail(f"{where}: unknown card {name!r}")


def _kind_list(values: Any, where: str) -> list[int]:
    if not isinstance(values, list):
        raise _fail(f"{where} must be a list of card names")
    return [int(_kind(v, where)) for v in values]


def _counts(values: Any, where: str, allowed: tuple[Kind, ...] | None = None) -> list[int]:
    if not isinstance(values, dict):
        raise _fail(f"{where} must be a {{card name: count}} dict")
    counts = [0] * len(CARDS)
    for name, n in values.items():
        kind = _kind(name, where)
        if allowed is not None and kind not in allowed:
            raise _fail(f"{where}: {name} can't be here")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise _fail(f"{where}[{name!r}] must be a count >= 0")
        counts[kind] = n
    return counts


def _enum(enum: type[IntEnum], value: Any, where: str) -> Any:
    if not isinstance(value, str) or value.upper() not in enum.__members__:
        raise _fail(f"{where}: {value!r} is not one of {[m.lower() for m in enum.__members__]}")
    return enum[value.upper()]


def action_from_dict(d: Any) -> Action:
    """The action a dict from :func:`action_to_dict` describes."""
    if not isinstance(d, dict) or "op" not in d or not set(d) <= set(Action._fields):
        raise _fail(f"an action is a dict with keys from {Action._fields}, not {d!r}")
    seat = d.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise _fail(f"action seat must be an int, not {seat!r}")
    card = lambda key: None if d.get(key) is None else _kind(d[key], f"action.{key}")  # noqa: E731
    return make(
        _enum(Op, d["op"], "action.op"),
        card("card"),
        card("as_kind"),
        None if d.get("use") is None else _enum(Use, d["use"], "action.use"),
        seat,
        None if d.get("part") is None else _enum(Part, d["part"], "action.part"),
        card("detail"),
    )


def _side_from_dict(d: Any, where: str) -> Side:
    protected = _counts(_get(d, "protected", dict, where), f"{where}.protected", BARRICADES)
    rings = _kind_list(_get(d, "rings", list, where), f"{where}.rings")
    if any(r not in RINGS for r in rings) or len(set(rings)) != len(rings):
        raise _fail(f"{where}.rings must list distinct Ring names")
    return Side(
        free=_int(d, "free", where),
        elder=int(_get(d, "elder", bool, where)),
        protected=[protected[b] for b in BARRICADES],
        spouted=_int(d, "spouted", where),
        rings=[int(r in rings) for r in RINGS],
    )


def _seat_list(values: Any, n: int, where: str) -> list[int]:
    if not isinstance(values, list) or any(
        isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n for v in values
    ):
        raise _fail(f"{where} must be a list of seats 0..{n - 1}")
    return values[:]


def _pending_from_dict(d: Any, n: int) -> Pending:
    where = "pending"
    step = _enum(Step, _get(d, "step", str, where), f"{where}.step")
    actor = _get(d, "actor", int, where)
    if not (-1 if step is Step.OVER else 0) <= actor < n:
        raise _fail(f"{where}.actor = {actor} is not a seat")
    play = _get(d, "play", (dict, type(None)), where)
    event = _get(d, "event", (str, type(None)), where)
    marks = _get(d, "marks", list, where)
    if any(isinstance(m, bool) or not isinstance(m, int) for m in marks):
        raise _fail(f"{where}.marks must be ints")
    return Pending(
        step=step,
        actor=actor,
        by=_int(d, "by", where, 0, n - 1),
        play=None if play is None else action_from_dict(play),
        event=None if event is None else _kind(event, f"{where}.event"),
        queue=_seat_list(_get(d, "queue", list, where), n, f"{where}.queue"),
        picks=_get(d, "picks", list, where)[:],
        cards=_kind_list(_get(d, "cards", list, where), f"{where}.cards"),
        placed=_kind_list(_get(d, "placed", list, where), f"{where}.placed"),
        marks=marks[:],
    )


def _rng_from_dict(state: Any) -> np.random.Generator:
    if not isinstance(state, dict) or not isinstance(state.get("bit_generator"), str):
        raise _fail("rng must be a bit generator state dict")
    try:
        bit_generator = getattr(np.random, state["bit_generator"])()
        bit_generator.state = state
    except (AttributeError, TypeError, ValueError, KeyError) as err:
        raise _fail(f"rng state is not valid: {err}") from None
    return np.random.Generator(bit_generator)


def state_from_dict(d: Any) -> GameState:
    """Rebuild a state, checking its shape, card conservation and the pending decision."""
    if not isinstance(d, dict):
        raise _fail(f"a state is a dict, not {type(d).__name__}")
    missing, unknown = set(KEYS) - set(d), set(d) - set(KEYS)
    if missing or unknown:
        raise _fail(f"missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")
    if d["version"] != FORMAT_VERSION:
        raise _fail(f"version {d['version']!r} is not {FORMAT_VERSION}")
    n = _int(d, "num_players", "state", MIN_PLAYERS, MAX_PLAYERS)
    try:
        options = RuleOptions.from_dict(d["options"])
    except (TypeError, ValueError) as err:
        raise _fail(f"options: {err}") from None
    st = GameState(n, options, _rng_from_dict(d["rng"]))
    turn = _get(d, "turn", dict, "state")
    st.turn_player = _int(turn, "player", "turn", 0, n - 1)
    st.turn = _int(turn, "number", "turn", 1)
    st.declined = _get(turn, "declined", list, "turn")[:]
    if len(st.declined) != n or not all(isinstance(x, bool) for x in st.declined):
        raise _fail(f"turn.declined must be {n} booleans")
    st.deck = _kind_list(d["deck"], "deck")[::-1]
    st.discard = _counts(d["discard"], "discard")
    st.letters = _kind_list(d["letters"], "letters")
    st.hands = [_counts(h, f"hands[{i}]") for i, h in enumerate(_exactly(d["hands"], n, "hands"))]
    st.sides = [_side_from_dict(s, f"sides[{i}]") for i, s in enumerate(_exactly(d["sides"], n, "sides"))]
    st.pending = _pending_from_dict(d["pending"], n)
    for i, seen in enumerate(_exactly(d["seen"], n, "seen")):
        st.seen_top[i] = _kind_list(_get(seen, "top", list, f"seen[{i}]"), f"seen[{i}].top")
        hand = _get(seen, "hand", (dict, type(None)), f"seen[{i}]")
        if hand is not None:
            seat = _int(hand, "seat", f"seen[{i}].hand", 0, n - 1)
            st.seen_hand[i] = (seat, _counts(_get(hand, "cards", dict, f"seen[{i}].hand"), f"seen[{i}].hand"))
    st.truncated = _get(d, "truncated", bool, "state")
    check_state(st)
    return st


def _exactly(values: Any, n: int, where: str) -> list:
    if not isinstance(values, list) or len(values) != n:
        raise _fail(f"{where} must be a list of {n} entries, one per seat")
    return values


def check_state(st: GameState) -> None:
    """Raise :class:`InvalidStateError` unless the position is one the rules can reach."""
    counts = st.card_counts()
    wrong = [f"{CARDS[k].name}: {c} (should be {COPIES[k]})" for k, c in enumerate(counts) if c != COPIES[k]]
    if wrong:
        raise _fail("cards are not conserved: " + "; ".join(wrong))
    for i, hand in enumerate(st.hands):
        if any(hand[e] for e in EVENTS):
            raise _fail(f"hands[{i}] holds an Event; Events never stay in a hand")
    if any(st.discard[k] for k in LETTERS) or any(k not in LETTERS for k in st.letters):
        raise _fail("Letters are only ever in the deck or laid out")
    if len(set(st.letters)) != len(st.letters):
        raise _fail("a Letter is laid out twice")
    _check_pending(st)


_STEP_USES = {
    Step.CANCEL: CANCELLABLE,
    Step.RING: {Use.RING},
    Step.RETREAT: {Use.RETREAT},
    Step.SCOUT: {Use.SCOUT_DECK},
}


def _check_pending(st: GameState) -> None:
    pend = st.pending
    over = len(st.letters) == len(LETTERS) or st.truncated
    if over != (pend.step is Step.OVER):
        raise _fail("the pending step must be 'over' exactly when three Letters are out or the game was truncated")
    needs_play = {Step.CANCEL, Step.RING, Step.RETREAT, Step.SCOUT}
    needs_event = {Step.FLOP, Step.CURE, Step.KEEP}
    if (pend.play is not None) != (pend.step in needs_play):
        raise _fail(f"pending.play must be set exactly for steps {sorted(s.name.lower() for s in needs_play)}")
    if (pend.event is not None) != (pend.step in needs_event):
        raise _fail(f"pending.event must be set exactly for steps {sorted(s.name.lower() for s in needs_event)}")
    if pend.play is not None and (pend.play.op is not Op.PLAY or pend.play.use not in _STEP_USES[pend.step]):
        raise _fail(f"pending.play {pend.play} does not fit step {pend.step.name.lower()}")
    if pend.step is Step.SCOUT and sorted(pend.placed + pend.cards) != sorted(
        st.deck[-len(pend.placed + pend.cards) :]
    ):
        raise _fail("the Scout's cards must be the top cards of the deck")
    if pend.event is not None and pend.event not in EVENTS:
        raise _fail("pending.event must be an Event")
    if pend.step in (Step.CURE, Step.KEEP) and len(pend.marks) != st.num_players:
        raise _fail("pending.marks needs one entry per seat")
    if (
        pend.step is not Step.OVER
        and pend.step not in needs_event
        and pend.actor != st.turn_player
        and pend.step is not Step.CANCEL
    ):
        raise _fail("only the turn player decides outside windows")
    try:
        legal = legal_actions(st)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as err:
        raise _fail(f"the pending decision is inconsistent ({err!r})") from None
    if pend.step is not Step.OVER and not legal:
        raise _fail("the player to act would have no legal action")
