"""Play games in both engines side by side and compare them after every action."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.engine.actions import Op
from gubs_env.engine.cards import EVENTS, Kind
from gubs_env.engine.state import Step
from gubs_env.fast import FastGames
from gubs_env.fast.convert import canonical_row, state_to_row
from gubs_env.fast.core import layout as L

Policy = Callable[[np.ndarray, np.ndarray], int]
TALLY: Counter[str] = Counter()
"""Per run: decisions per step, card uses, Cricket Song imitations and Events drawn, over compared games."""


def coverage_lines() -> list[str]:
    """The tally as sorted ``name: count`` lines."""
    return [f"{name}: {count}" for name, count in sorted(TALLY.items())]


def assert_same(fast: FastGames, i: int, game: Game) -> None:
    """Slot ``i`` holds exactly the reference position, generator included."""
    row = np.zeros(L.ROW, dtype=np.int32)
    rng = np.zeros(6, dtype=np.uint64)
    state_to_row(game.state, row, rng)
    if not np.array_equal(canonical_row(fast.states[i]), row) or not np.array_equal(fast.rngs[i], rng):
        assert fast.to_dict(i) == game.to_dict()  # shows the difference field by field
        raise AssertionError(f"game {i}: rows differ although the dicts agree")


def assert_view(fast: FastGames, i: int, game: Game, codec: ActionCodec) -> tuple[np.ndarray, np.ndarray]:
    """The seat to act, its mask and its observation agree; returns the reference observation and mask."""
    seat = game.current_player
    assert seat is not None and fast.actor[i] == seat, (i, fast.actor[i], seat)
    mask = codec.mask(game.legal_actions(), seat)
    assert np.array_equal(fast.mask[i], mask), (i, np.flatnonzero(fast.mask[i]), np.flatnonzero(mask))
    obs = encode(game.state, seat)
    assert np.array_equal(fast.obs[i].view(np.uint32), obs.view(np.uint32)), (i, np.flatnonzero(fast.obs[i] != obs))
    return obs, mask


def expected_rewards(game: Game) -> np.ndarray:
    """What the environments give each seat at the end: +1 per winner, -1 otherwise, 0 when truncated."""
    out = np.zeros(6, dtype=np.float32)
    if game.is_over and not game.truncated:
        winners = set(game.winners())
        for s in range(game.num_players):
            out[s] = 1.0 if s in winners else -1.0
    return out


def tally(game: Game, action_id: int, codec: ActionCodec) -> None:
    """Count the decision about to be taken in :data:`TALLY`."""
    pend = game.pending
    TALLY[f"step {pend.step.name.lower()}"] += 1
    action = codec.action(action_id, pend.actor)
    if action.op is Op.PLAY and action.use is not None and action.as_kind is not None:
        TALLY[f"use {action.use.name.lower()}"] += 1
        if action.card is Kind.CRICKET_SONG:
            TALLY[f"cricket song as {action.as_kind.label}"] += 1
    elif action.op is Op.DRAW and Kind(game.state.deck[-1]) in EVENTS:
        TALLY[f"event {Kind(game.state.deck[-1]).label}"] += 1


def play_compared(
    num_players: int,
    seeds: list[int],
    policies: Callable[[int], list[Policy]],
    dict_every: int = 25,
    **options: Any,
) -> int:
    """Play one game per seed in both engines, comparing after every action; return the decisions made.

    ``policies(seed)`` gives one policy per seat. The full state is compared after every action (as
    rows), the exported ``to_dict`` every ``dict_every`` decisions and at the end.
    """
    games = [Game(num_players, seed=s, record_log=False, **options) for s in seeds]
    fast = FastGames(len(seeds), num_players, threads=1, **options)
    fast.reset(seeds)
    codec = ActionCodec(num_players)
    seats = [policies(s) for s in seeds]
    live = list(range(len(seeds)))
    decisions = 0
    while live:
        actions = np.full(len(seeds), -1, dtype=np.int64)
        for i in live:
            game = games[i]
            assert_same(fast, i, game)
            obs, mask = assert_view(fast, i, game, codec)
            if decisions % dict_every == 0:
                assert fast.to_dict(i) == game.to_dict()
            seat = int(fast.actor[i])
            action_id = int(seats[i][seat](obs, mask))
            tally(game, action_id, codec)
            game.apply(codec.action(action_id, seat))
            actions[i] = action_id
            decisions += 1
        fast.step(actions)
        for i in live:
            game = games[i]
            assert np.array_equal(fast.rewards[i], expected_rewards(game)), (i, fast.rewards[i])
            assert fast.terminated[i] == (game.is_over and not game.truncated)
            assert fast.truncated[i] == game.truncated
        for i in [i for i in live if games[i].is_over]:
            assert_same(fast, i, games[i])
            assert fast.to_dict(i) == games[i].to_dict()
            assert fast.winners(i) == games[i].winners()
            assert fast.actor[i] == -1 and not fast.mask[i].any()
            assert games[i].pending.step is Step.OVER
            TALLY["games compared"] += 1
            TALLY["games truncated"] += games[i].truncated
            live.remove(i)
    return decisions


def random_policy(seed: int) -> Policy:
    """Uniformly random legal ids from a seeded generator."""
    rng = np.random.default_rng(seed)

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        ids = np.flatnonzero(mask)
        return int(ids[rng.integers(len(ids))])

    return policy


def play_lockstep(num_players: int, seeds: list[int], choice_seed: int = 0) -> int:
    """Random games in both engines with the same ids: legal ids compared after every action, state at the end.

    Cheaper per action than :func:`play_compared` (no observation or state conversion on every step), so
    many more games fit in the default run; the final ``to_dict`` (generator included) still has to match,
    which no diverging trajectory would reach. Returns the decisions made.
    """
    games = [Game(num_players, seed=s, record_log=False) for s in seeds]
    fast = FastGames(len(seeds), num_players, threads=1)
    fast.reset(seeds)
    codec = ActionCodec(num_players)
    rng = np.random.default_rng(choice_seed)
    live = list(range(len(seeds)))
    decisions = 0
    actions = np.full(len(seeds), -1, dtype=np.int64)
    while live:
        actions[:] = -1
        for i in live:
            game = games[i]
            seat = int(fast.actor[i])
            legal = game.legal_actions()
            ids = codec.ids(legal, seat)
            assert seat == game.current_player and sorted(ids) == np.flatnonzero(fast.mask[i]).tolist(), (i, seat)
            pick = int(rng.integers(len(ids)))
            game.apply(legal[pick])
            actions[i] = ids[pick]
            decisions += 1
        fast.step(actions)
        for i in [i for i in live if games[i].is_over]:
            assert np.array_equal(fast.rewards[i], expected_rewards(games[i]))
            assert fast.to_dict(i) == games[i].to_dict()
            TALLY["games compared (lockstep)"] += 1
            live.remove(i)
    return decisions
