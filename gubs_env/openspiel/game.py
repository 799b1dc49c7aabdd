"""The game and state classes behind ``python_gubs``, and the observer OpenSpiel reads them through.

:mod:`gubs_env.openspiel` imports this module (after checking that OpenSpiel is installed) and registers
:class:`GubsGame`; the model it implements is described there and in docs/openspiel.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pyspiel

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec, decode, describe_id
from gubs_env.encoding.observation import LAYOUT, OBS_SIZE, encode
from gubs_env.engine.cards import CARDS, MAX_PLAYERS, MIN_PLAYERS
from gubs_env.engine.game import Game, IllegalActionError
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import is_player_count

GAME_NAME = "python_gubs"
DEAL = 0
"""The one outcome of the chance node: deal the cards."""
DECISIONS_PER_TURN_BOUND = 1000
"""Used for ``max_game_length``: decisions in one turn, everything counted (windows, Ring picks, discards).

Not a proof: random play peaks at 18, and a policy that stretches every turn (never "Go" or "stop" while
anything else is legal) at 27, in hundreds of games at 2 to 6 players; a turn's decisions are bounded by the
cards that can leave hands in it, so this leaves a wide margin.
"""
_MAX_GAME_LENGTH_CAP = 2**31 - 2
"""OpenSpiel stores lengths in a C++ int, and adds the one chance node to the game length for the history's."""
_DEFAULTS = RuleOptions()

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Gubs (gubs_env reference engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "players": MIN_PLAYERS,
        "rng_seed": -1,
        "letter_placement": _DEFAULTS.letter_placement,
        "max_turns": _DEFAULTS.max_turns,
        "record_log": False,
    },
)


@cache
def _codec(num_players: int) -> ActionCodec:
    """One id cache per table size, shared by every state (it is pure: the same answers for every game)."""
    return ActionCodec(num_players)


def _cards(counts: list[int]) -> str:
    return ", ".join(f"{CARDS[k].name} x{n}" if n > 1 else CARDS[k].name for k, n in enumerate(counts) if n) or "none"


class _Engine:
    """Holds a state's engine game and tells OpenSpiel how to copy and pickle it.

    OpenSpiel clones a Python state by deep-copying each attribute and serializes it by pickling them.
    The engine's own :meth:`Game.clone` is the fast, exact copy (random generator included), and its
    validated JSON dict is the safe saved form, so both go through here.
    """

    __slots__ = ("game",)

    def __init__(self, game: Game | None) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(None if self.game is None else self.game.clone())

    def __getstate__(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.to_dict()  # the deck's history is part of it

    def __setstate__(self, data: dict[str, Any] | None) -> None:
        # from_dict validates every field, so a tampered saved state fails here with InvalidStateError; a state saved
        # by version 0.2 loads with its deck history unknown
        self.game = None if data is None else Game.from_dict(data, record_log=False)


class GubsGame(pyspiel.Game):
    """The OpenSpiel game ``python_gubs``.

    Args:
        params: OpenSpiel game parameters: ``players`` (2 to 6, default 2), ``rng_seed`` (the generator the
            deals are drawn from; -1 for fresh entropy), and the rule options ``letter_placement``
            (``"thirds"`` or ``"uniform"``) and ``max_turns`` (docs/rules.md, R2 and R23).

    Raises:
        ValueError: for an unknown parameter or a bad value (a player count outside 2..6, a bad rule option).
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - set(GAME_TYPE.parameter_specification))
        if unknown:
            raise ValueError(f"{GAME_NAME}: unknown parameter(s) {', '.join(unknown)}")
        players = params.get("players", MIN_PLAYERS)
        if not is_player_count(players):
            raise ValueError(
                f"{GAME_NAME}: players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, not {players!r}"
            )
        rng_seed = params.get("rng_seed", -1)
        if isinstance(rng_seed, bool) or not isinstance(rng_seed, int) or rng_seed < -1:
            raise ValueError(f"{GAME_NAME}: rng_seed must be -1 (fresh entropy) or an int >= 0, not {rng_seed!r}")
        try:
            options = RuleOptions.from_dict(
                {
                    "letter_placement": params.get("letter_placement", _DEFAULTS.letter_placement),
                    "max_turns": params.get("max_turns", _DEFAULTS.max_turns),
                }
            )
        except ValueError as error:
            raise ValueError(f"{GAME_NAME}: {error}") from None
        record_log = bool(params.get("record_log", False))  # OpenSpiel checks its type against the specification
        self.num_seats = players
        self.options = options
        self.record_log = record_log
        self._deals = np.random.default_rng(None if rng_seed == -1 else rng_seed)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=1,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=min(_MAX_GAME_LENGTH_CAP, options.max_turns * DECISIONS_PER_TURN_BOUND),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> GubsState:
        """The state before the deal: a chance node whose one outcome deals from this game's generator."""
        return GubsState(self)

    def max_chance_nodes_in_history(self) -> int:
        """One: the deal (OpenSpiel would otherwise assume as many as the game has decisions)."""
        return 1

    def next_deal_seed(self) -> int:
        """The engine seed of the next deal, drawn from the generator that ``rng_seed`` fixes."""
        return int(self._deals.integers(2**63))

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> GubsObserver:
        """The observer OpenSpiel asks for: the observation (default) or the information state (perfect recall).

        Raises:
            ValueError: observer parameters were given, or a kind of observation this game does not provide.
        """
        # OpenSpiel calls this with the parameters alone when no observation type is named; they come as a dict
        if isinstance(iig_obs_type, dict):
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{GAME_NAME}: observer parameters are not supported, got {params}")
        return GubsObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class GubsState(pyspiel.State):
    """One position of ``python_gubs``: before the deal, a chance node; after it, the engine's game.

    Attributes:
        deal_seed: the engine seed the cards were dealt from (``None`` before the deal, or for a resampled
            world): ``gubs_env.Game(players, seed=deal_seed, **options)`` is the same game.
    """

    def __init__(self, game: GubsGame) -> None:
        super().__init__(game)
        self.deal_seed: int | None = None
        self._engine = _Engine(None)

    # --- the engine behind the state ----------------------------------------------------------------

    @property
    def engine(self) -> Game:
        """The engine's game at this position (read it; play through :meth:`apply_action`).

        Raises:
            RuntimeError: the cards are not dealt yet (apply the chance outcome first).
        """
        game = self._engine.game
        if game is None:
            raise RuntimeError(f"{GAME_NAME}: the cards are not dealt yet; apply the chance outcome {DEAL} first")
        return game

    def deal(self, seed: int) -> None:
        """Apply the chance node with a chosen engine seed instead of the game's generator (for replays and tests).

        Raises:
            RuntimeError: the cards are already dealt.
            ValueError: ``seed`` is not an int >= 0; nothing changes.
        """
        if self._engine.game is not None:
            raise RuntimeError(f"{GAME_NAME}: the cards are already dealt")
        self._pending_seed = seed
        try:
            self.apply_action(DEAL)  # through OpenSpiel, so that the history records the chance outcome
        finally:
            del self._pending_seed

    def _dealt(self, seed: int) -> None:
        game: GubsGame = self.get_game()
        # build first: a bad seed raises from Game before anything of this state changes
        self._engine = _Engine(Game(game.num_seats, seed=seed, record_log=game.record_log, **game.options.to_dict()))
        self.deal_seed = seed

    # --- OpenSpiel's state API ----------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to decide (the one asked, during a window), ``CHANCE`` before the deal, ``TERMINAL`` at the end."""
        game = self._engine.game
        if game is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = game.current_player
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        """The ids of the engine's legal actions, ascending (OpenSpiel asks only for the player to act)."""
        game = self.engine
        return sorted(_codec(game.num_players).ids(game.legal_actions(), player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance node's one outcome: the deal, whose cards the game's generator decides."""
        return [(DEAL, 1.0)]

    def _apply_action(self, action: int) -> None:
        """Deal (at the chance node) or apply the engine action the id means for the player to act.

        Raises:
            IllegalActionError: (a ``ValueError``) the id is not legal here; nothing changes.
        """
        game = self._engine.game
        if game is None:
            seed = getattr(self, "_pending_seed", None)
            self._dealt(self.get_game().next_deal_seed() if seed is None else seed)
            return
        seat = game.current_player
        assert seat is not None, "OpenSpiel applies no action to a terminal state"
        game.apply(_codec(game.num_players).action(int(action), seat))

    def string_to_action(self, *args: Any) -> int:
        """The id of the legal action a text names, for the player to act: ``string_to_action([player,] text)``.

        The text is the action notation (:mod:`gubs_env.engine.notation`): an action's text as
        :meth:`action_to_string` writes it (case and spacing forgiven), or its number in the legal moves the
        observation string lists, from 1. At the chance node ``"Deal"`` is its one outcome.

        Raises:
            IllegalActionError: (a ``ValueError``) the text names no legal action of that player now.
        """
        if len(args) not in (1, 2):
            raise TypeError("string_to_action takes the text, or a player and the text")
        text = args[-1]
        game = self._engine.game
        if game is None:
            if isinstance(text, str) and text.strip().casefold() == "deal":
                return DEAL
            raise IllegalActionError(f"{GAME_NAME}: before the deal the one outcome is 'Deal'")
        seat = game.current_player
        if seat is None or (len(args) == 2 and args[0] != seat):
            raise IllegalActionError(f"{GAME_NAME}: only the player to act ({seat}) has legal actions")
        return _codec(game.num_players).ids((game.parse_action(text),), seat)[0]

    def _action_to_string(self, player: int, action: int) -> str:
        """The action in words with absolute seats (``"Lure → seat 2"``), as the engine writes it."""
        if player == pyspiel.PlayerId.CHANCE:
            return "Deal"
        try:
            return str(decode(int(action), player, self.get_game().num_seats))
        except ValueError:  # an id aiming at a seat this table does not have: say what it means in general
            return describe_id(int(action)) if 0 <= action < NUM_ACTIONS else f"action {action}"

    def is_terminal(self) -> bool:
        """Whether the game has ended, by the rules or at the turn limit."""
        game = self._engine.game
        return game is not None and game.is_over

    def returns(self) -> list[float]:
        """+1 for every winner and -1 for every other seat at the end; 0 for all before it or after a truncation."""
        game = self._engine.game
        if game is None or not game.is_over:
            return [0.0] * self.get_game().num_seats
        return final_returns(game)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | None = None
    ) -> GubsState:
        """A state that seat ``player_id`` cannot tell from this one, drawn by :meth:`Game.resample`.

        The hidden cards are spread over what the seat's knowledge allows (the Letters by their posterior given the
        deck's public history since the deal, which clones and serialized states keep), and the world's random
        generator is fresh, so its future draws are not this state's. The OpenSpiel history is copied as it is.

        Args:
            player_id: the seat whose information state is kept.
            probability_sampler: a callable giving floats in [0, 1), such as ``pyspiel.UniformProbabilitySampler``;
                two of its draws seed the world. ``None``: Python's generator.

        Raises:
            RuntimeError: the cards are not dealt yet.
            ValueError: ``player_id`` is not a seat of this game.
        """
        game = self.engine
        if probability_sampler is None:
            seed = random.getrandbits(63)
        else:
            # two draws give 52 random bits: plenty to pick a world, and a seeded sampler makes it reproducible
            seed = (int(probability_sampler() * 2**26) << 26) | int(probability_sampler() * 2**26)
        world = game.resample(player_id, seed=seed)
        other: GubsState = self.clone()
        other._engine = _Engine(world)
        other.deal_seed = None
        return other

    def __str__(self) -> str:
        """The whole position, hidden cards included: the public table, every hand and the deck, top first."""
        game = self._engine.game
        if game is None:
            return "Before the deal"
        st = game.state
        hands = [f"Hand of seat {seat}: {_cards(hand)}" for seat, hand in enumerate(st.hands)]
        deck = ", ".join(CARDS[k].name for k in st.deck) or "empty"
        return "\n".join([game.render(None), *hands, f"Deck, top first: {deck}"])


def final_returns(game: Game) -> list[float]:
    """The returns of a finished engine game: +1 per winner, -1 per other seat, all 0 after a truncation."""
    winners = set(game.winners())  # empty after a truncation
    if not winners:
        return [0.0] * game.num_players
    return [1.0 if seat in winners else -1.0 for seat in range(game.num_players)]


class GubsObserver:
    """An OpenSpiel observer (the ``PyObserver`` shape: ``tensor``, ``dict``, ``set_from``, ``string_from``).

    The default observation is the environments' 512-value vector, split into its named fields (the same
    slices as :func:`gubs_env.encoding.observation.unpack`), with ``Game.render(seat)`` as its string. The
    information state (perfect recall asked for) is a string only: ``Game.information_state(seat)``.

    Args:
        iig_obs_type: what to observe; private information of one player and the public information are
            supported, with or without perfect recall.

    Raises:
        ValueError: another kind of observation was asked for.
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                f"{GAME_NAME} observes one player's private and the public information only, not "
                f"private_info={iig_obs_type.private_info.name}, public_info={iig_obs_type.public_info}"
            )
        self.info_state = bool(iig_obs_type.perfect_recall)
        self.tensor: np.ndarray | None
        if self.info_state:
            self.tensor, self.dict = None, {}
        else:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            self.dict = {name: self.tensor[s] for name, s in LAYOUT.items()}

    def set_from(self, state: GubsState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into :attr:`tensor` (zeros before the deal)."""
        if self.tensor is None:
            return
        game = state._engine.game
        if game is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = encode(game.state, player)

    def string_from(self, state: GubsState, player: int) -> str:
        """``player``'s information-state key, or the game in words as ``player`` sees it (``Game.seat_text``)."""
        game = state._engine.game
        if game is None:
            return "Before the deal"
        return game.information_state(player) if self.info_state else game.seat_text(player)
