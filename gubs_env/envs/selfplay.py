"""A single-agent Gymnasium view of Gubs for self-play training with sb3-contrib's ``MaskablePPO``.

The learner sits at one seat; every other seat is played by an opponent: any callable
``(observation, action_mask) -> action id``. ``step()`` plays the opponents until the learner must decide
again or the game ends, so the learner sees only its own decisions, interrupts out of turn included.

>>> from gubs_env.envs.selfplay import SelfPlayEnv
>>> env = SelfPlayEnv(num_players=3)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, env.action_masks().any()
((512,), np.True_)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.engine.positions.serialize import brief
from gubs_env.viz.raster import state_rgb

Opponent = Callable[[np.ndarray, np.ndarray], int]
"""An opponent policy: (observation vector, int8 action mask) -> action id."""


def next_game(rng: np.random.Generator, players: int, fixed_seat: int | None = None) -> tuple[int, int]:
    """The learner's seat (``fixed_seat`` when given) and the deal's seed of the next game from a game stream.

    Every self-play loop draws its games this way: ``SelfPlayEnv`` from its ``np_random``, the self-play core
    (:class:`gubs_env.fast.SelfPlayTables`) from each slot's stream, in compiled code, bit for bit.
    """
    seat = int(rng.integers(players)) if fixed_seat is None else fixed_seat
    return seat, int(rng.integers(2**63))


class RandomOpponent:
    """Uniform over the legal ids, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal id."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


class SelfPlayEnv(gym.Env):
    """One learner against opponents, as a Gymnasium env with ``action_masks()``.

    Args:
        num_players: 2 to 6.
        opponents: ``None`` (uniformly random players), one callable for every other seat, or a sequence
            of ``num_players - 1`` callables, given to the other seats clockwise from the learner.
        learner_seat: a fixed seat, or ``None`` to draw the seat at random at each reset.
        render_mode: ``None``, ``"ansi"`` (text), ``"human"`` (printed) or ``"rgb_array"`` (an ``H x W x 3``
            ``uint8`` frame of the table's picture, one shape per table size).
        on_illegal: what an id that is in the action space but not legal now does: ``"lose"`` (the default,
            PettingZoo's classic rule) ends the episode with reward -1 and ``info["illegal_action"] = True``;
            ``"raise"`` raises the engine's ``IllegalActionError`` and changes nothing. A value outside the
            action space always raises ``ValueError``.
        ask_forced: call the opponents for decisions with a single legal action too. By default such a move
            is played for them, which skips an observation and a policy call on about a third of their
            decisions; set it for opponents that must see every observation (e.g. ones that keep a memory).
        **rule_options: engine rule options.

    The reward is 0 until the end, then +1 if the learner is among the winners and -1 otherwise; a game cut at
    the turn limit ends with ``truncated=True`` and reward 0. ``info`` holds ``learner_seat``, and at the end of
    an episode also ``scores`` and ``winners`` (during it, ``env.game`` has them). Swap opponents between episodes with
    :meth:`set_opponents` (e.g. to rotate an opponent pool).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        opponents: Opponent | Sequence[Opponent] | None = None,
        learner_seat: int | None = None,
        render_mode: str | None = None,
        on_illegal: str = "lose",
        ask_forced: bool = False,
        **rule_options: Any,
    ) -> None:
        num_players = check_player_count(num_players)  # the engine's own checks, before any game is dealt
        RuleOptions.from_dict(rule_options)
        if learner_seat is not None and _int_or_none(learner_seat) not in range(num_players):
            raise ValueError(
                f"learner_seat must be None or an int seat from 0 to {num_players - 1}, not {brief(learner_seat)}"
            )
        if render_mode is not None and (
            type(render_mode) is not str or render_mode not in self.metadata["render_modes"]
        ):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not {brief(render_mode)}")
        if type(on_illegal) is not str or on_illegal not in ("lose", "raise"):
            raise ValueError(f"on_illegal must be 'lose' or 'raise', not {brief(on_illegal)}")
        if type(ask_forced) is not bool:
            raise ValueError(f"ask_forced must be True or False, not {brief(ask_forced)}")
        self.on_illegal = on_illegal
        self.ask_forced = ask_forced
        self.num_players = int(num_players)
        self.rule_options = rule_options
        self.fixed_seat = None if learner_seat is None else int(learner_seat)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._codec = ActionCodec(self.num_players)
        self._opponents: list[Opponent] = []
        self._random_opponents = opponents is None
        self.set_opponents(opponents)
        self.game: Game | None = None
        self.learner = 0
        self._ended = True
        self._ids_of: tuple[tuple | None, list[int]] = (None, [])  # the game's legal actions -> the learner's ids

    def set_opponents(self, opponents: Opponent | Sequence[Opponent] | None) -> None:
        """Replace the opponents; they play from the next reset on (or at once, mid-game)."""
        if opponents is None:
            self._random_opponents = True
            self._opponents = [RandomOpponent() for _ in range(self.num_players - 1)]
            return
        if callable(opponents):
            opponents = [opponents] * (self.num_players - 1)
        wanted = self.num_players - 1
        if not isinstance(opponents, (list, tuple)) or len(opponents) != wanted or not all(map(callable, opponents)):
            raise ValueError(
                f"opponents must be None, one callable or a list of {wanted} callables, not {brief(opponents)}"
            )
        self._random_opponents = False
        self._opponents = list(opponents)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game, seat the learner and play the opponents up to its first decision."""
        super().reset(seed=seed)
        if self._random_opponents:
            self._opponents = [RandomOpponent(int(self.np_random.integers(2**31))) for _ in self._opponents]
        while True:  # a game that ends before the learner's first decision is dealt again
            self.learner, deal = next_game(self.np_random, self.num_players, self.fixed_seat)
            self.game = Game(self.num_players, seed=deal, record_log=False, **self.rule_options)
            self._play_opponents()
            if not self.game.is_over:
                self._ended = False
                return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action id, then let the opponents play until the learner decides again.

        ``action`` is an id of the action space: a Python ``int``, a numpy integer scalar or a 0-d numpy integer
        array. A float (even ``3.0``), a bool, a string or anything else is refused, never converted.

        Raises:
            ValueError: the action is not an id of the action space (nothing changes).
            IllegalActionError: with ``on_illegal="raise"``, the id is not legal now (nothing changes).
        """
        game = self._started()
        if self._ended:
            raise RuntimeError("the episode has ended: call reset()")
        action_id = _action_id(action)
        if action_id not in self._learner_ids():
            if self.on_illegal == "raise":
                game.apply(self._codec.action(action_id, self.learner))  # raises with the reason
            self._ended = True
            return self._observation(), -1.0, True, False, {**self._info(final=True), "illegal_action": True}
        game.apply(self._codec.action(action_id, self.learner))
        self._play_opponents()
        self._ended = game.is_over
        if not game.is_over:
            return self._observation(), 0.0, False, False, self._info()
        if game.truncated:
            return self._observation(), 0.0, False, True, self._info(final=True)
        reward = 1.0 if self.learner in game.winners() else -1.0
        return self._observation(), reward, True, False, self._info(final=True)

    def action_masks(self) -> np.ndarray:
        """The learner's legal ids as a bool vector (what ``MaskablePPO`` asks for; also ``info["action_mask"]``).

        Once the episode has ended every id is allowed, as between the vector env's episodes: Gymnasium's vector
        modes reset this env at its next step and ignore the action, and a policy drawing from the mask needs an
        id to draw. A lone env is reset first, whatever its mask says.
        """
        self._started()
        if self._ended:
            return np.ones(NUM_ACTIONS, dtype=bool)
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self._learner_ids()] = True
        return mask

    def _learner_ids(self) -> list[int]:
        """The learner's legal ids now; none when the episode is over."""
        game = self._started()
        if self._ended or game.current_player != self.learner:
            return []
        legal = game.legal_actions()
        if legal is not self._ids_of[0]:  # the mask and the next step's check ask for the same position
            self._ids_of = (legal, self._codec.ids(legal, self.learner))
        return self._ids_of[1]

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # gymnasium types frames generically
        """The table as the learner sees it: text (``"ansi"``), printed (``"human"``) or a frame (``"rgb_array"``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return state_rgb(self._started().state, self.learner)
        text = self._started().render(self.learner)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _play_opponents(self) -> None:
        game = self._started()
        n = self.num_players
        while not game.is_over and game.current_player != self.learner:
            seat = game.current_player
            assert seat is not None  # the game is not over
            legal = game.legal_actions()
            if len(legal) == 1 and not self.ask_forced:
                game.apply(legal[0])
                continue
            opponent = self._opponents[(seat - self.learner) % n - 1]
            mask = self._codec.mask(legal, seat)
            game.apply(self._codec.action(_action_id(opponent(encode(game.state, seat), mask)), seat))

    def _observation(self) -> np.ndarray:
        return encode(self._started().state, self.learner)

    def _info(self, final: bool = False) -> dict[str, Any]:
        # the scores only at the end: vector envs deep-copy every step's info, and the game is at hand anyway
        if not final:
            return {"learner_seat": self.learner, "action_mask": self.action_masks()}
        game = self._started()
        end = {"scores": game.scores(), "winners": game.winners()}
        return {"learner_seat": self.learner, "action_mask": self.action_masks(), **end}

    def _started(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def _int_or_none(value: Any) -> int | None:
    """``value`` as an int when it is exactly an integer (a Python int, a numpy integer scalar or 0-d array)."""
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if type(value) is np.ndarray and value.shape == () and np.issubdtype(value.dtype, np.integer):
        return int(value)
    return None  # bools, floats, strings, containers: never converted


def _action_id(action: Any) -> int:
    value = _int_or_none(action)
    if value is None or not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}, not {brief(action)}")
    return value
