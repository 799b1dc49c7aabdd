"""Information-set Monte Carlo tree search: one tree over the searching seat's information set, a fresh world per pass.

Each iteration takes its own sampled world (every iteration a new one, so no pass "knows" where the Letters lie
or what the next draw is), walks down one shared tree from the real decision, and plays the rest out with the
heuristic at every seat, all in one compiled call (:func:`tree_visits`):

- **Nodes are action sequences.** A child is the position after one more decision of *whoever* decides there,
  the searching seat or another; forced decisions (one legal id) are played without a node. The same node is
  therefore reached in worlds that differ in what the searching seat cannot see, which is what makes the tree
  one over its information set (single-observer ISMCTS); chance (the draws) is not a node either, so the seat's
  later decisions share statistics across draws it would in fact tell apart.
- **Selection** at a node takes, among the ids legal in *this* world, the child with the best upper confidence
  bound for the seat deciding there: its mean value for that seat plus ``c * sqrt(ln(available) / visits)``,
  where ``available`` counts the passes in which the child was legal (availability, since an id may be legal in
  some worlds only, e.g. an answer in a window). At 3 or more players each seat maximises its own value.
- **Expansion**: the first legal id without a child is added, the heuristic's preferred one first.
- **Value**: a finished playout gives every seat :func:`~agents.bots.search.rollout.outcome_of` (win share plus
  the weighted margin), added along the path.

The move played is the root child visited most. :class:`ISMCTSAgent` is the bot (spec ``ismcts:...``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from agents.bots.heuristic.decide import choose_among, new_scratch
from agents.bots.heuristic.tables import TABLES
from agents.bots.search.agent import GameSearcher
from agents.bots.search.playout_net import NO_NET
from agents.bots.search.rollout import legal_ids, load_world, outcome_of, play_to_end, playout_scratch, seat_tables
from agents.bots.settings import Settings
from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.engine import Game
from gubs_env.engine.positions.determinize import knowledge
from gubs_env.fast import S_OVER, advance, encode, new_rows, sample_rows, seed_pcg64
from gubs_env.fast import layout as L


@nb.njit(cache=True)
def tree_visits(
    worlds: np.ndarray,
    world_rngs: np.ndarray,
    tie_seed: np.uint64,
    explore: float,
    ti: np.ndarray,
    tfs: np.ndarray,
    visits_out: np.ndarray,
) -> int:
    """Run one iteration per world from the shared root; ``visits_out[a]``: how often root id ``a`` was followed.

    Args:
        worlds: ``(W, ROW)`` int32 rows, all of the same information set of the seat deciding in them (not changed).
        world_rngs: ``(W, 6)`` uint64, each world's own generator (not changed).
        tie_seed: the tie-break generators' seed; iteration ``w`` uses ``tie_seed + w``.
        explore: the exploration constant ``c``.
        ti: the heuristic's integer tables.
        tfs: ``(SEATS, F)``, the float tables each seat's heuristic weighs.
        visits_out: ``(N_ACTIONS,)`` int64, overwritten.

    Returns:
        How many decisions the iterations made in all (tree walks and playouts), for the cost report.
    """
    iterations = worlds.shape[0]
    capacity = iterations + 1  # the root, and at most one new node per iteration
    child = np.full((capacity, NUM_ACTIONS), -1, dtype=np.int32)
    visits = np.zeros(capacity, dtype=np.int64)
    available = np.zeros(capacity, dtype=np.int64)
    value = np.zeros((capacity, L.SEATS), dtype=np.float64)
    path = np.empty(capacity, dtype=np.int64)
    reward = np.zeros(L.SEATS, dtype=np.float64)
    obs, mask, g, r, tie = playout_scratch(worlds.shape[1])
    legal = np.empty(NUM_ACTIONS, dtype=np.int64)
    untried = np.empty(NUM_ACTIONS, dtype=np.int64)
    raw, c, f, ids, scores = new_scratch()
    nodes = 1
    made = 0
    for w in range(iterations):
        load_world(worlds, world_rngs, w, g, r)
        seed_pcg64(tie, tie_seed + np.uint64(w))
        node = 0
        depth = 0
        path[0] = 0
        while g[L.STEP] != S_OVER:
            count = legal_ids(g, mask, legal)
            made += 1
            if count == 1:
                advance(g, r, legal[0])
                continue
            actor = g[L.ACTOR]
            fresh = 0
            best = -1
            chosen = -1
            best_bound = -math.inf
            for j in range(count):
                kid = child[node, legal[j]]
                if kid < 0:
                    untried[fresh] = legal[j]
                    fresh += 1
                    continue
                available[kid] += 1
                bound = value[kid, actor] / visits[kid] + explore * math.sqrt(math.log(available[kid]) / visits[kid])
                if bound > best_bound:
                    best_bound = bound
                    best = kid
                    chosen = legal[j]
            if fresh > 0:
                encode(g, actor, obs)
                chosen = choose_among(obs, untried, fresh, tie, ti, tfs[actor], raw, c, f, scores)
                best = nodes
                nodes += 1
                child[node, chosen] = best
                available[best] += 1
            advance(g, r, chosen)
            node = best
            depth += 1
            path[depth] = node
            if fresh > 0:
                break  # a new leaf: the heuristic plays on from here
        made += play_to_end(g, r, tie, ti, tfs, obs, mask, raw, c, f, ids, scores, 1 << 30, NO_NET)
        n = g[L.NUM_PLAYERS]
        for s in range(n):
            reward[s] = outcome_of(g, s)
        for d in range(depth + 1):
            visits[path[d]] += 1
            for s in range(n):
                value[path[d], s] += reward[s]
    for a in range(NUM_ACTIONS):
        visits_out[a] = visits[child[0, a]] if child[0, a] >= 0 else 0
    return made


@dataclass(frozen=True)
class ISMCTSSettings(Settings):
    """The tree search's budget; the spec ``ismcts:iterations=2000,c=0.5`` sets them by name."""

    iterations: int = 120
    """Passes down the tree, each in a world of its own."""
    c: float = 0.7
    """Exploration constant of the upper confidence bound (values are win shares, about 0 to 1)."""

    LIMITS = {"iterations": (1, 20_000), "c": (0.0, 10.0)}
    FLOATS = ("c",)
    WORDS = {}
    KIND = "ismcts"


class ISMCTSAgent(GameSearcher):
    """Information-set MCTS (see the module docstring). It decides from the game, through what its seat may know."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, settings: ISMCTSSettings | None = None) -> None:
        super().__init__(seed)
        self.settings = settings or ISMCTSSettings()

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The id to play at ``game``'s current decision: the root child the tree visited most."""
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        ids = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        if ids.size == 1:
            return int(ids[0])
        start = time.perf_counter()
        visits = self.root_visits(game, seat, int(self.rng.integers(2**62)))
        self.decision_seconds.append(time.perf_counter() - start)
        return int(ids[np.argmax(visits[ids])])

    def root_visits(self, game: Game, seat: int, seed: int) -> np.ndarray:
        """``(N_ACTIONS,)``: how often each id at ``game``'s decision was followed; depends on ``seed`` alone."""
        rows, rngs = new_rows(self.settings.iterations)
        sample_rows(knowledge(game.state, seat), seed, rows, rngs)
        visits = np.zeros(NUM_ACTIONS, dtype=np.int64)
        tree_visits(rows, rngs, np.uint64(seed), self.settings.c, TABLES.ints, seat_tables(TABLES.floats), visits)
        return visits
