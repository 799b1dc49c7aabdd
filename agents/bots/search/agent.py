"""The search bot: determinized playouts that correct a base policy only where they clearly disagree with it.

At each decision with more than one legal id, the bot

1. takes as candidates its base policy's choice (a shipped network, or the heuristic), then the heuristic's and
   the base's next best ids, up to ``top``;
2. samples ``worlds`` full positions its seat cannot tell from the real one (the distribution of
   :meth:`Game.resample`: the unseen cards dealt anew, the future draws unknown), in one compiled call, with
   the other hands moved toward a belief about them if ``prior`` is set (:mod:`~agents.bots.search.belief`);
3. in every world plays every candidate and then the heuristic at every seat for ``leaf`` decisions, in
   compiled code (:mod:`~agents.bots.search.rollout`), all candidates of a world on the same deck and the same
   tie-breaks, and values a playout still going by the value network (:mod:`~agents.bots.search.value`);
4. keeps the base's choice unless another candidate's mean gain over it, paired world by world, exceeds
   ``z`` standard errors, in which case it plays the candidate with the best mean.

Step 4 is what makes it a lift of the base policy rather than a noisy replacement: a playout's result is mostly
the luck of the draw, so with few worlds the plain argmax picks noise (measured: plain flat playouts at about
100 ms a decision are only as strong as the heuristic they play out). :class:`AllSeeingSearchAgent` is the same
search on the true position, for measurement only.

With ``rollout=base`` (``selfplay-search``: :class:`SelfPlaySearchSettings`) every part comes from the base network:
its best ids are the candidates, its playout policy (:mod:`~agents.bots.search.playout_net`) plays every seat of
every playout, and with ``leaf`` a value fitted on that policy's own games judges the leaves. No heuristic is asked
anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from agents.bots.base import Agent, NeedsGameError
from agents.bots.heuristic.decide import heuristic_scores
from agents.bots.heuristic.tables import TABLES, HeuristicTables
from agents.bots.heuristic.weights_file import load_weights
from agents.bots.model_file import PolicyWeights
from agents.bots.names import CATALOGUE, LEAF_VALUES, NETWORKS, PLAYOUTS, SELFPLAY_SEARCH, TUNED
from agents.bots.ppo import PPOAgent
from agents.bots.search.belief import BELIEFS, reweight_rows, shipped_hands, static_weights
from agents.bots.search.playout_net import NO_NET, PlayoutNet, shipped_playout
from agents.bots.search.rollout import FULL_PLAYOUTS, Leaves, candidate_values, paired_gains, seat_tables
from agents.bots.search.value import own_value, shipped_value
from agents.bots.settings import Settings
from agents.bots.threads import one_blas_thread
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.engine.positions.determinize import knowledge
from gubs_env.fast import new_rows, redeal_rows, sample_rows, seed_futures, state_to_row

BASES = ("auto", "heuristic", TUNED, *NETWORKS)
"""The policies a search may start from: the heuristic, its tuned weights, a shipped network, or ``auto``
(see :func:`base_for`)."""


def base_for(base: str, num_players: int) -> str:
    """The base policy a search with setting ``base`` plays at a table of ``num_players``.

    ``auto`` is the strongest shipped policy at that size as measured against heuristics (docs/search_bots.md):
    ppo-2p at 2 players, gubs-net at 3 to 6.
    """
    if base != "auto":
        return base
    return "ppo-2p" if num_players == 2 else "gubs-net"


SELF = "base"
"""The ``rollout`` that plays the base network's playout policy at every seat
(:mod:`~agents.bots.search.playout_net`)."""
ROLLOUTS = ("heuristic", TUNED, SELF)
"""What the searching seat may play its playouts with: a heuristic weight set, or :data:`SELF`."""


@dataclass(frozen=True)
class SearchSettings(Settings):
    """How much the search bot searches; the spec ``search:worlds=64,top=4,z=1,base=gubs-net`` sets them by name."""

    worlds: int = 512
    """Sampled worlds per decision: with a ``steps`` budget, at most; without one, every candidate in each."""
    top: int = 3
    """Candidates: the base policy's choice, then the heuristic's and the base's next best, up to ``top``."""
    z: float = 2.5
    """Leave the base's choice only for a candidate whose paired mean gain exceeds ``z`` standard errors."""
    prior: float = 0.0
    """How strongly the other hands are drawn toward the ``belief`` (:mod:`~agents.bots.search.belief`); 0 deals
    them uniformly, as :meth:`Game.resample` does."""
    base: str = "auto"
    """The policy whose choice the search keeps unless the playouts say otherwise: one of :data:`BASES`."""
    steps: int = 60_000
    """Playout decisions a searched decision may spend, about 100 ms on one core (0: no budget, every candidate in
    every one of ``worlds``). The worlds are played in rounds of :data:`ROUND` and a candidate leaves once it cannot
    show a gain in what is left (:func:`~agents.bots.search.rollout.paired_gains`), so a clear decision costs a
    round and a close one the whole budget."""

    rollout: str = TUNED
    """The weights the searching seat plays its playouts with: ``heuristic-tuned`` (nearer the base networks'
    strength than the heuristic) or ``heuristic``, the other seats the default heuristic; or ``base``, the base
    network's playout policy at every seat. With ``base`` nothing hand-written takes part: the candidates are the
    base's own best ids, the leaves are judged by the base's own value (:data:`~agents.bots.names.LEAF_VALUES`),
    and the belief (fitted on the heuristic's games) is refused."""
    leaf: int = 0
    """Decisions a playout plays after the candidate before the value network (:mod:`~agents.bots.search.value`)
    judges the position in place of the draws still to come; 0 plays every playout to the end."""
    belief: str = "static"
    """What the other hands are drawn toward: ``static``, what players keep in general (the same for every seat and
    position), or ``learned``, what the hand model reads from the searching seat's observation."""

    LIMITS = {
        "worlds": (1, 4096),
        "top": (1, 64),
        "z": (0.0, 10.0),
        "prior": (0.0, 2.0),
        "steps": (0, 10_000_000),
        "leaf": (0, 10_000),
    }
    FLOATS = ("z", "prior")
    WORDS = {"base": BASES, "rollout": ROLLOUTS, "belief": BELIEFS}

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rollout != SELF:
            return
        if self.base not in PLAYOUTS:
            raise ValueError(
                f"{self.KIND} setting rollout=base needs a base with a playout policy ({', '.join(PLAYOUTS)}), "
                f"not {self.base!r}"
            )
        if self.prior > 0:
            raise ValueError(
                f"{self.KIND} setting rollout=base takes no prior: the belief was fitted on the heuristic's games"
            )
        if self.leaf > 0 and self.base not in LEAF_VALUES:
            raise ValueError(
                f"{self.KIND} setting rollout=base takes a leaf only over a base with a value of its own games "
                f"({', '.join(LEAF_VALUES)}), not {self.base!r}"
            )

    @property
    def hand_written(self) -> bool:
        """Whether the heuristic takes part (as a candidate, in the playouts, or through a net fitted on its games)."""
        return self.rollout != SELF


@dataclass(frozen=True)
class SelfPlaySearchSettings(SearchSettings):
    """``selfplay-search``: the search over the pure self-play network, every part of it from that network."""

    base: str = "selfplay-2p"
    rollout: str = SELF
    KIND: ClassVar[str] = SELFPLAY_SEARCH


ROUND = 16
"""Worlds per round of a budgeted search (:func:`~agents.bots.search.rollout.paired_gains`)."""
LEAF_COST = 3.0
"""What the value network's judgement of one leaf costs, in playout decisions (measured: docs/search_bots.md)."""


class GameSearcher(Agent):
    """A bot that searches the game itself (``needs_game``), through what its seat may know, and times it."""

    needs_game = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.decision_seconds: list[float] = []
        """Wall time of each searched decision (those with more than one candidate), for the cost report."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """The id to play at ``game``'s current decision, which ``action_mask`` must be (:meth:`act_in_game`).

        Raises:
            NeedsGameError: no ``game`` (the bot searches the position, not an observation of it).
            ValueError: a game that is over, or whose legal ids are not the mask's.
        """
        if game is None:
            raise NeedsGameError(
                f"{self.name} searches the position: pass the game too, act(observation, action_mask, game=game) "
                "(a PettingZoo env's is env.unwrapped.game)"
            )
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        codec = ActionCodec(game.num_players)
        if not np.array_equal(codec.mask(game.legal_actions(), seat) != 0, np.asarray(action_mask) != 0):
            raise ValueError("action_mask is not the legal ids of game's current decision: pass the game it shows")
        return self.act_in_game(game, codec)


class SearchAgent(GameSearcher):
    """The search bot (see the module docstring). It decides from the game, through what its seat may know."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        settings: SearchSettings | None = None,
        network: PolicyWeights | None = None,
        playout: PlayoutNet | None = None,
    ) -> None:
        """A search with ``settings``; ``network`` and ``playout`` replace the base network's shipped files.

        Expert iteration searches over networks it has just trained (:mod:`agents.recipes.expert.rounds`): with
        ``rollout=base`` it passes the network (``base`` then names only the kind of base) and its playout policy.
        """
        super().__init__(seed)
        self.settings = settings or SearchSettings()
        self.deviations = 0
        """Searched decisions where the bot played something other than its base policy's choice."""
        self._networks: dict[str, PPOAgent] = {}
        if network is not None:
            self._networks[self.settings.base] = PPOAgent(network)
        self._playout = playout
        self._tuned_tables: HeuristicTables | None = None

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The id to play at ``game``'s current decision (see the module docstring)."""
        return self.decide(game, codec)[0]

    def decide(self, game: Game, codec: ActionCodec) -> tuple[int, np.ndarray]:
        """The id to play at ``game``'s current decision and the candidates it was chosen from (the base's first).

        A single candidate is played without a search; expert iteration labels only the searched decisions
        (:mod:`agents.recipes.expert`).
        """
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        candidates = self.candidates(game, seat, codec)
        if candidates.size == 1:
            return int(candidates[0]), candidates
        start = time.perf_counter()
        with one_blas_thread():  # the value network's passes are small
            choice = self._search(game, seat, candidates)
        self.decision_seconds.append(time.perf_counter() - start)
        self.deviations += choice != candidates[0]
        return int(choice), candidates

    def _search(self, game: Game, seat: int, candidates: np.ndarray) -> int:
        seed = int(self.rng.integers(2**62))
        if self.settings.steps == 0:
            return int(candidates[_pick(self.playout_values(game, seat, candidates, seed), self.settings.z)])
        worlds, world_rngs = self.world_rows(game, seat, seed)
        gains = np.zeros((candidates.size, 3), dtype=np.float64)
        tfs = self.playout_tables(seat)
        s = self.settings
        tie_seed = np.uint64(seed)
        paired_gains(
            worlds, world_rngs, candidates, seat, tie_seed, TABLES.ints, tfs, s.steps, ROUND, s.z, gains, self.leaves(),
            self.playout_net(),
        )  # fmt: skip
        return int(candidates[_pick_gain(gains, s.z)])

    def playout_values(self, game: Game, seat: int, candidates: np.ndarray, seed: int) -> np.ndarray:
        """``(worlds, len(candidates))``: ``seat``'s playout value of each candidate in each of this bot's worlds.

        The worlds and the playouts depend on ``seed`` alone, and every world's future generator is the one
        :func:`~gubs_env.fast.sample_rows` seeds for ``(seed, w)``, so two bots given the same seed
        play the same futures: :mod:`agents.evaluate.search_gap` compares the sampled worlds with the true one
        that way.
        """
        worlds, world_rngs = self.world_rows(game, seat, seed)
        values = np.empty((self.settings.worlds, candidates.size), dtype=np.float64)
        tfs = self.playout_tables(seat)
        candidate_values(
            worlds, world_rngs, candidates, seat, np.uint64(seed), TABLES.ints, tfs, values, self.leaves(),
            self.playout_net(),
        )  # fmt: skip
        return values

    def leaves(self) -> Leaves:
        """Where this bot's playouts stop: at the end, or ``leaf`` decisions on, judged by a value network.

        The value is the shipped one, fitted on the heuristic's games; with ``rollout=base``, the base's own.
        """
        if self.settings.leaf == 0:
            return FULL_PLAYOUTS
        value = own_value(self.settings.base) if self.settings.rollout == SELF else shipped_value()
        return Leaves(self.settings.leaf, value, LEAF_COST)

    def playout_net(self) -> PlayoutNet:
        """The playout policy every seat plays: the base network's with ``rollout=base``, else none (the heuristic)."""
        if self.settings.rollout != SELF:
            return NO_NET
        return self._playout if self._playout is not None else shipped_playout(self.settings.base)

    def playout_tables(self, seat: int) -> np.ndarray:
        """The weights each seat plays the playouts with: the default heuristic's, ``rollout``'s at ``seat``."""
        return seat_tables(TABLES.floats, seat, self._tuned().floats if self.settings.rollout == TUNED else None)

    def candidates(self, game: Game, seat: int, codec: ActionCodec) -> np.ndarray:
        """The legal ids this bot would try at ``game``'s decision, the base policy's choice first.

        After it come the heuristic's ids and the base network's in turn, each in its own order of preference,
        without repeats, up to ``top`` (with the heuristic as the base: its best ``top``; with ``rollout=base``, the
        base network's best ``top``, and the heuristic is not asked).
        """
        ids = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        observation = encode(game.state, seat)
        if not self.settings.hand_written:
            by_network = np.argsort(-self._network(self.settings.base).action_logits(observation, ids), kind="stable")
            return ids[by_network][: self.settings.top]
        by_heuristic = ids[np.argsort(-heuristic_scores(observation, ids), kind="stable")]
        base = base_for(self.settings.base, game.num_players)
        if base == "heuristic":
            return by_heuristic[: self.settings.top]
        if base == TUNED:
            by_base = ids[np.argsort(-heuristic_scores(observation, ids, self._tuned()), kind="stable")]
        else:
            by_base = ids[np.argsort(-self._network(base).action_logits(observation, ids), kind="stable")]
        chosen: list[int] = []
        for pair in zip(by_base, by_heuristic, strict=True):
            for action in pair:
                if int(action) not in chosen:
                    chosen.append(int(action))
        return np.asarray(chosen[: self.settings.top], dtype=np.int64)

    def _network(self, spec: str) -> PPOAgent:
        """The shipped network ``spec``, loaded once per bot."""
        if spec not in self._networks:
            self._networks[spec] = PPOAgent.pretrained(spec)
        return self._networks[spec]

    def _tuned(self) -> HeuristicTables:
        """The shipped tuned weights, read once per bot."""
        if self._tuned_tables is None:
            self._tuned_tables = load_weights(CATALOGUE[TUNED].path)
        return self._tuned_tables

    def world_rows(self, game: Game, seat: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """``worlds`` positions ``seat`` cannot tell from the real one, as compiled rows with their generators.

        They are drawn in one compiled call (:func:`~gubs_env.fast.sample_rows`, the distribution of
        :meth:`Game.resample`, world ``w``'s future generator seeded for ``(seed, w)``); with ``prior`` above 0 a
        second compiled call moves their other hands toward the ``belief``
        (:func:`~agents.bots.search.belief.reweight_rows`: what players keep, or what the hand model reads from
        the seat's observation).
        """
        known = knowledge(game.state, seat)
        rows, rngs = new_rows(self.settings.worlds)
        sample_rows(known, seed, rows, rngs)
        if self.settings.prior > 0:
            if self.settings.belief == "learned":
                weights = shipped_hands().weights_for(encode(game.state, seat), known, self.settings.prior)
            else:
                weights = static_weights(self.settings.prior, game.num_players)
            reweight_rows(rows, seat, weights, seed)
        return rows, rngs


class AllSeeingSearchAgent(SearchAgent):
    """The same search on the true position (every hand and the deck order known): for measurement only.

    Its win rate is a ceiling that says how much of the search bot's gap is hidden information. It is built
    only by :func:`agents.bots.registry.make_agent` with ``allow_all_seeing=True``, which the ladder passes and
    play against people never does.
    """

    name = "search-all-seeing"

    def world_rows(self, game: Game, seat: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The true position ``worlds`` times, each with the future generator the sampled world ``w`` gets."""
        rows, rngs = new_rows(self.settings.worlds)
        state_to_row(game.state, rows[0], rngs[0])
        rows[1:] = rows[0]  # the true position in every world, but the sampled worlds' future draws, not the true ones
        seed_futures(np.uint64(seed), rngs)
        return rows, rngs


class HandsSeeingSearchAgent(SearchAgent):
    """The same search in worlds that keep every true hand and deal only the deck anew: for measurement only.

    It knows what no player can (the other hands) but not what nobody can (the deck order), so its win rate bounds
    what inferring the hands could add to the search bot: the gap between ``search`` and this is what beliefs can
    win, and the gap between this and the all-seeing search is the luck of the draw. Built only where the caller
    allows it, as the all-seeing search is.
    """

    name = "search-hands-seeing"

    def world_rows(self, game: Game, seat: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """``worlds`` copies of the true position, each with the deck dealt anew (:func:`redeal_rows`).

        The Letters among the hidden cards follow their posterior given the game's deck history.
        """
        rows, rngs = new_rows(self.settings.worlds)
        redeal_rows(game.state, seat, seed, rows, rngs)
        return rows, rngs


MIN_WORLDS = 3
"""The fewest worlds a candidate's gain is judged on. Two playouts of a candidate often end alike, and their gains'
spread of 0 would make any mean gain "exceed" ``z`` standard errors; a search with fewer worlds keeps the base's
choice (the shipped searches judge whole rounds of :data:`ROUND` worlds)."""


def _pick_gain(gains: np.ndarray, z: float) -> int:
    """The candidate to play: 0 (the base's choice) unless another's paired mean gain exceeds ``z`` standard errors.

    Over at least :data:`MIN_WORLDS` worlds.

    ``gains[k]`` holds candidate ``k``'s worlds, and the sum and the sum of squares of its gain over candidate 0
    (:func:`~agents.bots.search.rollout.paired_gains`); of the clear gains the largest is played.
    """
    best, pick = 0.0, 0
    for k in range(1, gains.shape[0]):
        n, total, squares = gains[k]
        if n < MIN_WORLDS:
            continue
        mean = total / n
        spread = np.sqrt(max(squares / n - mean * mean, 0.0) * n / (n - 1)) if n > 1 else 0.0
        if mean > z * spread / np.sqrt(n) and mean > best:
            best, pick = mean, k
    return pick


def _pick(values: np.ndarray, z: float) -> int:
    """:func:`_pick_gain` from every candidate's value in every world (columns: candidates, the base's first)."""
    differences = values - values[:, :1]
    n = np.full(values.shape[1], float(values.shape[0]))
    return _pick_gain(np.stack([n, differences.sum(axis=0), (differences**2).sum(axis=0)], axis=1), z)
