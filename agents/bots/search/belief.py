"""What the search bot believes about the other hands: not uniform, because players keep some cards and spend others.

The engine's sampler (:meth:`Game.resample`) deals the unseen cards uniformly: it uses no inference from how
the others have played. But a player who plays Gubs and Barricades at once and keeps Feathers, Flop Boats and
Blindfolds for later has a hand that looks nothing like a uniform draw from the unseen cards: measured over
heuristic games, an opponent's hand holds Flop Boats, Feathers and Blindfolds about three times as often as
uniform dealing would put them there, and Gubs a twelfth as often. Playouts in uniform worlds then meet
defenceless opponents and overrate attacks.

:data:`HOLD_RATIO` is that measurement: per kind, its share among the cards in another player's hand divided by
its share among all the cards that player's opponent cannot see (``python benchmarks/hold_ratio.py``
measures it again); :func:`static_weights` turns it into a weight per seat and kind. The :class:`HandModel`
gives weights that depend on the position: a network reads the searching seat's observation and says, for each
other seat, the share of each kind among its cards (:meth:`HandModel.weights_for`).

:func:`reweight_hands` moves a uniform world toward such weights by Metropolis swaps between the other hands and
the hidden deck, each accepted with the ratio of the two cards' weights for the seat that holds them. The hands
then follow the uniform deal weighted by the product of ``weights[seat, kind]`` over the cards held, and
everything the searching seat knows stays as it is: its own hand, the known top of the deck, an asked seat's
answer card, the Events and Letters in the deck. :func:`reweight_rows` makes the same moves on the compiled rows
of many worlds in one call; the search uses it.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numba as nb
import numpy as np

from agents.bots.model_file import NetworkKind, PolicyWeights, load_network
from agents.bots.names import CATALOGUE
from agents.bots.ppo import policy_logits
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.cards import MAX_PLAYERS, NUM_KINDS, Kind
from gubs_env.engine.positions.determinize import Knowledge, answer_queue, unknown_counts
from gubs_env.engine.rules import cancel_answers, cure_answers, flop_answers
from gubs_env.engine.state import GameState, Step
from gubs_env.fast import (
    S_CANCEL,
    S_CURE,
    S_FLOP,
    S_KEEP,
    can_answer,
    hand_size,
    integers,
    next_uint64,
    rebuild_queue,
    seed_pcg64,
    world_seed,
)
from gubs_env.fast import layout as L

HOLD_RATIO: dict[Kind, float] = {
    Kind.FLOP_BOAT: 3.63,
    Kind.OMEN_BEETLE: 3.21,
    Kind.TRIPLE_RING: 3.11,
    Kind.FEATHER: 2.98,
    Kind.HAKI_FLUTE: 2.94,
    Kind.BLINDFOLD: 2.85,
    Kind.RETREAT: 2.24,
    Kind.DOUBLE_RING: 2.09,
    Kind.CYCLONE: 1.55,
    Kind.SUD_SPOUT: 1.45,
    Kind.SINGLE_RING: 1.28,
    Kind.AGE_OLD_CURE: 1.11,
    Kind.MUSHROOM: 1.10,
    Kind.VELVET_MOTH: 1.06,
    Kind.LURE: 0.94,
    Kind.SPEAR: 0.94,
    Kind.TOAD_RIDER: 0.69,
    Kind.LIGHTNING: 0.62,
    Kind.SUPER_LURE: 0.55,
    Kind.SMAHL_THIEF: 0.31,
    Kind.CRICKET_SONG: 0.09,
    Kind.GUB: 0.08,
    Kind.ELDER: 0.07,
    Kind.SCOUT: 0.03,
}
"""Per kind: how much more often than uniform dealing an opponent's hand holds it (two-player heuristic games,
``python benchmarks/hold_ratio.py``). Kinds not listed (Events) never sit in a hand."""

SWAPS_PER_CARD = 4
"""Metropolis steps per card in the other hands: enough for the hands to forget the uniform start."""

_TOP_KEPT = 3
"""The top cards of the deck are never swapped: a Scout may have shown them, or be placing them now."""
_FIRST_LETTER = int(Kind.LETTER_G)
"""Kinds from here on (the Letters, then the Events) never sit in a hand: they are never swapped."""


BELIEFS = ("static", "learned")
"""Where the other hands' weights come from: :data:`HOLD_RATIO` for every seat and position, or the hand model
(:class:`HandModel`) reading the searching seat's observation."""

HANDS = NetworkKind(
    "gubs-hand-weights",
    OBS_SIZE,
    (MAX_PLAYERS - 1) * NUM_KINDS,
    "observation values",
    "hand logits",
    output_member="output_count",
)
"""A hand model file: a seat's observation in, one logit per kind for each other relative seat (1 to 5) out."""


def static_weights(strength: float, num_players: int) -> np.ndarray:
    """``(num_players, NUM_KINDS)``: :data:`HOLD_RATIO` to the power ``strength``, the same for every seat."""
    weights = np.ones(NUM_KINDS)
    for kind, ratio in HOLD_RATIO.items():
        weights[int(kind)] = ratio**strength
    return np.tile(weights, (num_players, 1))


class HandModel:
    """A network's guess at what each other seat holds, from one seat's observation (its own information only).

    Its :meth:`shares` are, per other seat, the expected share of each kind among that seat's cards. It was
    fitted to the hands of the compiled engine's heuristic games (:mod:`agents.recipes.search_nets`), so it has
    learned, for instance, that a seat which has not played a Gub for several turns is unlikely to hold one.
    """

    def __init__(self, weights: PolicyWeights) -> None:
        self.weights = weights

    @classmethod
    def load(cls, path: str | Path) -> HandModel:
        """Read a hand model file (``ModelFileError`` for anything else, see :mod:`agents.bots.model_file`)."""
        return cls(load_network(path, HANDS))

    def shares(self, observation: np.ndarray) -> np.ndarray:
        """``(MAX_PLAYERS - 1, NUM_KINDS)``: per relative seat 1 to 5, the kinds' expected shares of its hand."""
        logits = policy_logits(self.weights, observation).reshape(MAX_PLAYERS - 1, NUM_KINDS).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)

    def weights_for(self, observation: np.ndarray, known: Knowledge, strength: float) -> np.ndarray:
        """``(num_players, NUM_KINDS)`` weights for :func:`reweight_hands`, from the viewer's observation.

        A seat's weight of a kind is the model's share of that kind in the seat's hand over the kind's share among
        the cards the viewer has not seen, to the power ``strength``. Only the viewer's observation and
        knowledge enter: nothing the viewer cannot see changes the weights.
        """
        n = len(known.sides)
        unseen = np.array(unknown_counts(known), dtype=np.float64)
        unseen[int(Kind.LETTER_G) :] = 0  # Letters and Events never sit in a hand
        uniform = unseen / max(unseen.sum(), 1.0)
        shares = self.shares(observation)
        weights = np.ones((n, NUM_KINDS))
        for rel in range(1, n):
            ratio = np.where(uniform > 0, shares[rel - 1] / np.maximum(uniform, 1e-12), 1.0)
            weights[(known.viewer + rel) % n] = np.clip(ratio, 1e-3, 1e3) ** strength
        return weights


@cache
def shipped_hands() -> HandModel:
    """The shipped hand model, read once per process."""
    return HandModel.load(CATALOGUE["hands"].path)


def _answers(st: GameState, seat: int) -> bool:
    """Whether ``seat`` holds a card that answers the open window (True when no window asks it)."""
    pend = st.pending
    if seat != pend.actor or pend.step not in (Step.CANCEL, Step.FLOP, Step.CURE):
        return True
    hand = st.hands[seat]
    if pend.step is Step.CANCEL:
        assert pend.play is not None  # a cancel window is always about a play
        return bool(cancel_answers(hand, pend.play))
    return bool(flop_answers(hand) if pend.step is Step.FLOP else cure_answers(hand))


def _card_at(hand: list[int], index: int) -> int:
    """The kind of the ``index``-th card of a hand held as counts."""
    for kind, count in enumerate(hand):
        index -= count
        if index < 0:
            return kind
    raise IndexError("no such card in the hand")


def reweight_hands(st: GameState, known: Knowledge, weights: np.ndarray, seed: int) -> None:
    """Move the other hands of world ``st`` toward ``weights`` (in place); see the module docstring.

    ``weights[seat, kind]`` (positive) is how much more likely than uniform dealing ``seat`` holds a card of
    ``kind``: :func:`static_weights`, or a :class:`HandModel`'s. Worlds at a Traveling Merchant choice are left
    uniform: a hidden keep names a card of its seat's hand.
    """
    if st.pending.step is Step.KEEP:
        return
    rnd = random.Random(seed)
    others = [s for s in range(st.num_players) if s != known.viewer and sum(st.hands[s]) > 0]
    hidden = len(st.deck) - max(_TOP_KEPT, len(known.seen_top))
    deck_slots = [i for i in range(hidden) if st.deck[i] < _FIRST_LETTER]
    if not others or not deck_slots:
        return
    held = sum(sum(st.hands[s]) for s in others)
    for _ in range(SWAPS_PER_CARD * held):
        seat = rnd.choice(others)
        hand = st.hands[seat]
        out_kind = _card_at(hand, rnd.randrange(sum(hand)))
        slot = rnd.choice(deck_slots)
        in_kind = st.deck[slot]
        if in_kind == out_kind or rnd.random() * weights[seat, out_kind] >= weights[seat, in_kind]:
            continue
        hand[out_kind] -= 1
        hand[in_kind] += 1
        if not _answers(st, seat):  # the asked seat must keep an answer
            hand[in_kind] -= 1
            hand[out_kind] += 1
            continue
        st.deck[slot] = out_kind
    st.pending.queue = answer_queue(known, st)
    for s in range(st.num_players):  # other seats' records of a scouted hand follow the hand they looked at
        seen = st.seen_hand[s]
        if s != known.viewer and seen is not None:
            st.seen_hand[s] = (seen[0], st.hands[seen[0]][:])


BELIEF_STREAM = 3
"""The stream of :func:`~gubs_env.fast.world_seed` a world's belief swaps draw from (the sampler's and
the future's are 1 and 2)."""


@nb.njit(cache=True)
def _reweight_row(row: np.ndarray, viewer: int, weights: np.ndarray, rng: np.ndarray) -> None:
    """:func:`reweight_hands` on one compiled row, with ``rng``'s draws (the same moves, another stream)."""
    step = row[L.STEP]
    if step == S_KEEP:
        return
    n = row[L.NUM_PLAYERS]
    others = np.empty(L.SEATS, dtype=np.int64)
    count = 0
    held = 0
    for s in range(n):
        if s != viewer and hand_size(row, s) > 0:
            others[count] = s
            count += 1
            held += hand_size(row, s)
    hidden = row[L.DECK_LEN] - max(_TOP_KEPT, row[L.SEEN_TOP_LEN + viewer])
    slots = np.empty(max(hidden, 0), dtype=np.int64)
    slot_count = 0
    for i in range(hidden):
        if row[L.DECK + i] < _FIRST_LETTER:
            slots[slot_count] = i
            slot_count += 1
    if count == 0 or slot_count == 0:
        return
    asked = row[L.ACTOR] if step in (S_CANCEL, S_FLOP, S_CURE) else -1
    for _ in range(SWAPS_PER_CARD * held):
        seat = others[integers(rng, count)]
        pick = integers(rng, hand_size(row, seat))
        out_kind = 0
        while pick >= row[L.HANDS + seat * L.KINDS + out_kind]:
            pick -= row[L.HANDS + seat * L.KINDS + out_kind]
            out_kind += 1
        slot = slots[integers(rng, slot_count)]
        in_kind = row[L.DECK + slot]
        if in_kind == out_kind:
            continue
        if np.float64(next_uint64(rng) >> np.uint64(11)) * 2.0**-53 * weights[seat, out_kind] >= weights[seat, in_kind]:
            continue
        row[L.HANDS + seat * L.KINDS + out_kind] -= 1
        row[L.HANDS + seat * L.KINDS + in_kind] += 1
        if seat == asked and not can_answer(row, step, seat):  # the asked seat must keep an answer
            row[L.HANDS + seat * L.KINDS + in_kind] -= 1
            row[L.HANDS + seat * L.KINDS + out_kind] += 1
            continue
        row[L.DECK + slot] = out_kind
    rebuild_queue(row, n)
    for s in range(n):  # other seats' records of a scouted hand follow the hand they looked at
        seen = row[L.SEEN_SEAT + s]
        if s != viewer and seen >= 0:
            for k in range(L.KINDS):
                row[L.SEEN_HAND + s * L.KINDS + k] = row[L.HANDS + seen * L.KINDS + k]


@nb.njit(cache=True)
def _reweight_rows(rows: np.ndarray, viewer: int, weights: np.ndarray, seed: np.uint64) -> None:
    rng = np.empty(6, dtype=np.uint64)
    for w in range(rows.shape[0]):
        seed_pcg64(rng, world_seed(seed, w, BELIEF_STREAM))
        _reweight_row(rows[w], viewer, weights, rng)


def reweight_rows(rows: np.ndarray, viewer: int, weights: np.ndarray, seed: int) -> None:
    """Move the other hands of sampled world rows toward ``weights``, in one compiled call (in place).

    The moves of :func:`reweight_hands` on the compiled rows :func:`~gubs_env.fast.sample_rows` wrote:
    the same swaps with the hidden deck and the same acceptance, each world drawing from its own generator
    (``(seed, w)`` alone), so the worlds follow the same distribution; the queue of an open window and other seats'
    records of a scouted hand are rebuilt from the new hands.

    Args:
        rows: int32 ``(W, ROW)`` worlds of ``viewer`` (changed in place).
        viewer: the searching seat, whose hand and known deck top stay.
        weights: float64 ``(num_players, NUM_KINDS)``, positive (:func:`static_weights`, :meth:`HandModel.weights_for`).
        seed: an int in ``[0, 2**64)``.
    """
    _reweight_rows(rows, viewer, np.ascontiguousarray(weights, dtype=np.float64), np.uint64(seed))
