"""The search bot: determinized playouts over the heuristic, deviating from it only when the playouts say so.

At each decision with more than one legal id, the bot

1. ranks the legal ids by the heuristic's own scores and keeps the best ``top`` as candidates (the heuristic's
   choice first);
2. samples ``worlds`` full positions its seat cannot tell from the real one (:meth:`Game.resample`: the unseen
   cards dealt anew, the future draws unknown);
3. in every world plays every candidate and then the heuristic at every seat to the end, in compiled code
   (:mod:`~agents.bots.search.rollout`), all candidates of a world on the same deck and the same tie-breaks;
4. keeps the heuristic's choice unless another candidate's mean gain over it, paired world by world, exceeds
   ``z`` standard errors, in which case it plays the candidate with the best mean.

Step 4 is what makes it a lift of the heuristic rather than a noisy replacement: a playout's result is mostly
the luck of the draw, so with few worlds the plain argmax picks noise (measured: plain flat playouts at about
100 ms a decision are only as strong as the heuristic). :class:`AllSeeingSearchAgent` is the same search on the
true position, for measurement only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, fields

import numpy as np

from agents.bots.base import Agent
from agents.bots.heuristic.decide import heuristic_scores
from agents.bots.heuristic.tables import TABLES
from agents.bots.search.belief import reweight_hands
from agents.bots.search.rollout import candidate_values
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.engine.positions.determinize import knowledge, sample_world
from gubs_env.engine.state import GameState
from gubs_env.fast.convert import state_to_row
from gubs_env.fast.core import layout as L


@dataclass(frozen=True)
class SearchSettings:
    """How much the search bot searches; the spec ``search:worlds=64,top=4,z=1`` sets them by name."""

    worlds: int = 48
    """Sampled worlds per decision (every candidate is played once in each)."""
    top: int = 3
    """Candidates: the heuristic's best ``top`` legal ids."""
    z: float = 2.5
    """Leave the heuristic's choice only for a candidate whose paired mean gain exceeds ``z`` standard errors."""
    prior: float = 0.0
    """How strongly the other hands are drawn toward what players keep (:mod:`~agents.bots.search.belief`);
    0 deals them uniformly, as :meth:`Game.resample` does."""

    LIMITS = {"worlds": (1, 4096), "top": (1, 64), "z": (0.0, 10.0), "prior": (0.0, 2.0)}
    FLOATS = ("z", "prior")

    def __post_init__(self) -> None:
        for name, (low, high) in self.LIMITS.items():
            value = getattr(self, name)
            kind = float if name in self.FLOATS else int
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"search setting {name} must be {kind.__name__} from {low} to {high}, not {value!r}")
            if kind is int and not float(value).is_integer():
                raise ValueError(f"search setting {name} must be a whole number, not {value!r}")

    @classmethod
    def parse(cls, text: str) -> SearchSettings:
        """Settings from ``worlds=64,top=4,z=1`` (any subset, any order); ``ValueError`` names what is wrong."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, float | int] = {}
        for part in text.split(","):
            name, sep, raw = part.partition("=")
            name = name.strip()
            if not sep or name not in known:
                raise ValueError(f"unknown search setting {part.strip()[:40]!r}: use {', '.join(known)}")
            if name in values:
                raise ValueError(f"search setting {name} is given twice")
            try:
                number = float(raw.strip()[:40])
            except ValueError:
                raise ValueError(f"search setting {name} must be a number, not {raw.strip()[:40]!r}") from None
            values[name] = number if name in cls.FLOATS else _whole(name, number)
        return cls(**values)  # type: ignore[arg-type]

    def spec(self, name: str = "search") -> str:
        """The agent spec that builds these settings."""
        return f"{name}:worlds={self.worlds},top={self.top},z={self.z:g},prior={self.prior:g}"


def _whole(name: str, number: float) -> int:
    if not number.is_integer():
        raise ValueError(f"search setting {name} must be a whole number, not {number:g}")
    return int(number)


class SearchAgent(Agent):
    """The search bot (see the module docstring). It decides from the game, through what its seat may know."""

    name = "search"
    needs_game = True

    def __init__(self, seed: int | None = None, settings: SearchSettings | None = None) -> None:
        super().__init__(seed)
        self.settings = settings or SearchSettings()
        self.decision_seconds: list[float] = []
        """Wall time of each searched decision (those with more than one candidate), for the cost report."""
        self.deviations = 0
        """Searched decisions where the bot played something other than the heuristic's choice."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Not available: the bot needs the game, not its observation (use :meth:`act_in_game`)."""
        raise TypeError(
            f"{self.name} decides from the game itself: ask it with act_in_game(game, codec) (matches, tournaments "
            "and play do), not with an observation"
        )

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The id to play at ``game``'s current decision (see the module docstring)."""
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        candidates = self.candidates(game, seat, codec)
        if candidates.size == 1:
            return int(candidates[0])
        start = time.perf_counter()
        choice = self._search(game, seat, candidates)
        self.decision_seconds.append(time.perf_counter() - start)
        self.deviations += choice != candidates[0]
        return int(choice)

    def _search(self, game: Game, seat: int, candidates: np.ndarray) -> int:
        values = self.playout_values(game, seat, candidates, int(self.rng.integers(2**62)))
        return int(candidates[_pick(values, self.settings.z)])

    def playout_values(self, game: Game, seat: int, candidates: np.ndarray, seed: int) -> np.ndarray:
        """``(worlds, len(candidates))``: ``seat``'s playout value of each candidate in each of this bot's worlds.

        The worlds and the playouts depend on ``seed`` alone, so two bots given the same seed play the same
        futures: :mod:`agents.evaluate.search_gap` compares the sampled worlds with the true one that way.
        """
        worlds = np.empty((self.settings.worlds, L.ROW), dtype=np.int32)
        world_rngs = np.empty((self.settings.worlds, 6), dtype=np.uint64)
        for w, world in enumerate(self._worlds(game, seat, seed)):
            state_to_row(world, worlds[w], world_rngs[w])
        values = np.empty((self.settings.worlds, candidates.size), dtype=np.float64)
        candidate_values(worlds, world_rngs, candidates, seat, np.uint64(seed), TABLES.ints, TABLES.floats, values)
        return values

    def candidates(self, game: Game, seat: int, codec: ActionCodec) -> np.ndarray:
        """The legal ids this bot would try at ``game``'s decision: the heuristic's best ``top``, its choice first."""
        ids = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        scores = heuristic_scores(encode(game.state, seat), ids)
        return ids[np.argsort(-scores, kind="stable")[: self.settings.top]]

    def _worlds(self, game: Game, seat: int, seed: int) -> Iterator[GameState]:
        """``worlds`` positions ``seat`` cannot tell from the real one, each with its own future.

        With ``prior`` 0, equal to ``game.resample(seat, seed + w).state`` for each ``w`` (the seat's knowledge is
        read once); otherwise those worlds with the other hands moved toward what players keep.
        """
        known = knowledge(game.state, seat)
        for w in range(self.settings.worlds):
            world = sample_world(known, seed + w)
            reweight_hands(world, known, self.settings.prior, seed + w)
            yield world


class AllSeeingSearchAgent(SearchAgent):
    """The same search on the true position (every hand and the deck order known): for measurement only.

    Its win rate is a ceiling that says how much of the search bot's gap is hidden information. It is built
    only by :func:`agents.bots.registry.make_agent` with ``allow_all_seeing=True``, which the ladder passes and
    play against people never does.
    """

    name = "search-all-seeing"

    def _worlds(self, game: Game, seat: int, seed: int) -> Iterator[GameState]:
        for w in range(self.settings.worlds):
            world = game.state.copy()
            world.rng = np.random.default_rng(seed + w)  # the true position, but not the true future draws
            yield world


def _pick(values: np.ndarray, z: float) -> int:
    """The column to play: 0 (the heuristic's choice) unless another's paired gain over it is clear (see above)."""
    gains = values[:, 1:] - values[:, :1]
    mean = gains.mean(axis=0)
    worlds = values.shape[0]
    spread = gains.std(axis=0, ddof=1) if worlds > 1 else np.zeros_like(mean)
    clear = mean > z * spread / np.sqrt(worlds)
    if not clear.any():
        return 0
    return 1 + int(np.argmax(np.where(clear, mean, -np.inf)))
