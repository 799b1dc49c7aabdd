"""The compiled heuristic against HeuristicAgent: the same id and the same generator state, position by position."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

# imported after the skip: the module under test needs numba
from agents.base import Agent
from agents.fast_heuristic import (
    FIELDS,
    TABLES,
    TF_CARD_VALUE,
    TF_VAR,
    TI_LAYOUT,
    TI_TEMPLATES,
    TI_THREAT_COUNT,
    TI_VAR,
    _sum_is_compensated,
    heuristic_action,
    heuristic_actions,
    rng_state,
)
from agents.heuristic import CARD_VALUE, SCORERS, THREATS, HeuristicAgent, View
from agents.ppo import PPOAgent
from agents.random_agent import RandomAgent
from gubs_env.engine import Game
from gubs_env.engine.actions import CANCELLABLE, PLAY_USES, Op, Part, Use
from gubs_env.engine.cards import Kind
from gubs_env.engine.state import Step
from gubs_env.envs.action_table import NUM_ACTIONS, TEMPLATES, ActionCodec
from gubs_env.envs.observation import LAYOUT, OBS_SIZE, encode
from gubs_env.fast.rng import RNG_WORDS

Positions = tuple[np.ndarray, np.ndarray]


def _drivers() -> list[Callable[[int], Agent]]:
    """What plays the games the positions come from: the heuristic, random play, the shipped models (sampling)."""
    models = {name: PPOAgent.pretrained(name, deterministic=False) for name in ("2p", "4p")}

    def model(seed: int, name: str) -> Agent:
        agent = models[name]
        agent.reset(seed)
        return agent

    return [HeuristicAgent, RandomAgent, lambda seed: model(seed, "2p"), lambda seed: model(seed, "4p")]


def play_positions(games: int, first_seed: int) -> Positions:
    """Every decision with several legal ids, from ``games`` games at 2 to 6 players with a mix of drivers per seat."""
    drivers = _drivers()
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    for seed in range(first_seed, first_seed + games):
        players = 2 + seed % 5
        codec = ActionCodec(players)
        game = Game(players, seed=seed, record_log=False)
        seats = [drivers[(seed + s) % len(drivers)](seed * 10 + s) for s in range(players)]
        while (seat := game.current_player) is not None:
            observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
            if np.count_nonzero(mask) > 1:
                observations.append(observation)
                masks.append(mask)
            game.apply(codec.action(seats[seat].act(observation, mask), seat))
    return np.array(observations, dtype=np.float32), np.array(masks, dtype=np.int8)


def reference_decisions(positions: Positions, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per position: the generator state before, HeuristicAgent.act's id, and the state after (a fresh seed each)."""
    before, after, chosen = [], [], []
    for k, (observation, mask) in enumerate(zip(*positions, strict=True)):
        agent = HeuristicAgent(seed + k)
        before.append(rng_state(agent.rng))
        chosen.append(agent.act(observation, mask))
        after.append(rng_state(agent.rng))
    return np.array(before), np.array(chosen, dtype=np.int64), np.array(after)


def assert_same_decisions(positions: Positions, seed: int) -> int:
    """The compiled batch chooses every id HeuristicAgent chooses and leaves every generator as it does.

    Returns how many decisions drew from their generator (a tie).
    """
    states, expected, expected_states = reference_decisions(positions, seed)
    drawn = int((states != expected_states).any(axis=1).sum())
    observations, masks = positions
    rows = np.arange(len(observations), dtype=np.int64)
    out = np.full(len(observations), -1, dtype=np.int64)
    heuristic_actions(observations, masks, rows, rows, states, out)
    differ = np.flatnonzero((out != expected) | (states != expected_states).any(axis=1))
    assert differ.size == 0, f"{differ.size} of {rows.size} decisions differ, first at position {differ[:5]}"
    return drawn


def coverage(positions: Positions) -> Counter[str]:
    """What the positions make the heuristic score: steps, play uses, cancelled uses, Smahl Thief parts, ties."""
    counts: Counter[str] = Counter()
    for observation, mask in zip(*positions, strict=True):
        view = View(observation)
        step = Step(view.step)
        counts[f"step {step.name}"] += 1
        ids = np.flatnonzero(mask).tolist()
        if step is Step.PLAY:
            for i in ids:
                action = TEMPLATES[i]
                if action.op is Op.PLAY and action.use is not None:
                    counts[f"play {action.use.name}"] += 1
                    if action.use is Use.STEAL and action.part is not None:
                        counts[f"steal {action.part.name}"] += 1
        if step is Step.CANCEL:
            counts[f"cancel {Use(view.pending_use).name}"] += 1
            if view.pending_use == Use.STEAL:
                counts[f"cancel steal {Part(view.pending_part).name}"] += 1
        if step is Step.FLOP:
            counts[f"flop {Kind(view.pending_card).name}"] += 1
        scores = [SCORERS[view.step](view, TEMPLATES[i]) for i in ids]
        if sum(s >= max(scores) - 1e-9 for s in scores) > 1:
            counts["tie"] += 1
    return counts


def required_coverage() -> set[str]:
    """Every step the heuristic scores, every play use, every cancellable use, every Smahl Thief part, a tie."""
    play_uses = {use for uses in PLAY_USES.values() for use in uses}
    steal_parts = {part for part in Part if part is not Part.RING}  # Smahl Thief never takes a Ring
    return (
        {f"step {Step(step).name}" for step in SCORERS}
        | {f"play {use.name}" for use in play_uses}
        | {f"cancel {use.name}" for use in CANCELLABLE}
        | {f"steal {part.name}" for part in steal_parts}
        | {"tie"}
    )


@pytest.fixture(scope="module")
def positions() -> Positions:
    return play_positions(games=40, first_seed=0)


# --- the differential test ---------------------------------------------------------------------------------


def test_same_ids_and_generators_as_heuristic_agent(positions):
    assert assert_same_decisions(positions, seed=1000) >= 50  # ties drawn alike, many times


def test_positions_reach_every_step_use_part_and_ties(positions):
    counts = coverage(positions)
    print(f"\n{len(positions[0])} positions:", dict(sorted(counts.items())))
    missing = required_coverage() - set(counts)
    assert not missing, f"no position reaches {sorted(missing)}"
    assert counts["tie"] >= 50  # ties draw from the generator: the state comparison needs many


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_heuristic_only_tables_at_every_size(players):
    """Whole games of heuristics at each table size: each decision of each seat checked from its own generator."""
    codec = ActionCodec(players)
    game = Game(players, seed=77 + players, record_log=False)
    agents = [HeuristicAgent(players * 10 + s) for s in range(players)]
    states = [rng_state(agent.rng) for agent in agents]
    while (seat := game.current_player) is not None:
        observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
        expected = agents[seat].act(observation, mask)
        assert heuristic_action(observation, mask, states[seat]) == expected
        assert (states[seat] == rng_state(agents[seat].rng)).all()
        game.apply(codec.action(expected, seat))


def test_a_single_legal_id_is_played_without_drawing():
    observation, mask = play_positions(games=1, first_seed=3)
    only = np.zeros(NUM_ACTIONS, dtype=np.int8)
    only[int(np.flatnonzero(mask[0])[-1])] = 1
    state = rng_state(np.random.default_rng(5))
    untouched = state.copy()
    assert heuristic_action(observation[0], only, state) == int(np.flatnonzero(only)[0])
    assert (state == untouched).all()


def test_only_the_rows_asked_are_written_and_rows_share_generators_in_order(positions):
    observations, masks = positions
    rows = np.array([5, 2, 9, 2], dtype=np.int64)  # a game asked twice draws twice from its generator, in order
    shared = np.zeros(4, dtype=np.int64)
    states = np.tile(rng_state(np.random.default_rng(11)), (1, 1))
    out = np.full(len(observations), -7, dtype=np.int64)
    heuristic_actions(observations, masks, rows, shared, states, out)
    agent = HeuristicAgent(11)
    expected = [agent.act(observations[r], masks[r]) for r in rows]
    assert out[rows[:3]].tolist() == expected[:3] and out[2] == expected[3]
    assert (states[0] == rng_state(agent.rng)).all()
    assert (np.delete(out, rows) == -7).all()


# --- tables and arithmetic ---------------------------------------------------------------------------------


def test_tables_come_from_the_heuristic_the_layout_and_the_action_table():
    ints, floats = TABLES
    for index, name in enumerate(FIELDS):
        at = TI_LAYOUT + 2 * index
        assert ints[at : at + 2].tolist() == [LAYOUT[name].start, LAYOUT[name].stop - LAYOUT[name].start]
    threats = int(ints[TI_THREAT_COUNT])
    assert ints[TI_VAR : TI_VAR + threats].tolist() == [int(k) for k in THREATS]  # in the dict's order
    assert floats[TF_VAR : TF_VAR + threats].tolist() == list(THREATS.values())
    card_values = floats[TF_CARD_VALUE : TF_CARD_VALUE + len(Kind)].tolist()
    assert card_values == [CARD_VALUE.get(Kind(k), 0.0) for k in range(len(Kind))]
    uses = ints[TI_TEMPLATES + 2 * NUM_ACTIONS : TI_TEMPLATES + 3 * NUM_ACTIONS].tolist()
    assert uses == [-1 if t.use is None else int(t.use) for t in TEMPLATES]


def test_python_sum_is_reproduced_on_awkward_floats():
    """The compiled sums add floats as this Python's sum() does (plainly, or compensated from 3.12 on)."""
    from agents.fast_heuristic import _sum_add, _sum_end

    rng = np.random.default_rng(2)
    compensated = _sum_is_compensated()
    for _ in range(200):
        values = (rng.standard_normal(rng.integers(1, 8)) * 10.0 ** rng.integers(-3, 17, 7)[0]).tolist()
        total, comp = 0.0, 0.0
        for x in values:
            total, comp = _sum_add(total, comp, x, compensated)
        assert _sum_end(total, comp) == sum(values)


# --- input checks -----------------------------------------------------------------------------------------


def batch(games: int = 2) -> dict[str, Any]:
    """A valid call: each game has one legal id, so nothing is scored."""
    masks = np.zeros((games, NUM_ACTIONS), dtype=np.int8)
    masks[:, 0] = 1
    return {
        "observations": np.zeros((games, OBS_SIZE), dtype=np.float32),
        "masks": masks,
        "rows": np.arange(games, dtype=np.int64),
        "rng_rows": np.zeros(games, dtype=np.int64),
        "rng_states": np.zeros((1, RNG_WORDS), dtype=np.uint64),
        "out": np.zeros(games, dtype=np.int64),
    }


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("observations", np.zeros((2, OBS_SIZE), dtype=np.float64)),
        ("observations", np.zeros((2, OBS_SIZE - 1), dtype=np.float32)),
        ("masks", np.ones((2, NUM_ACTIONS), dtype=bool)),
        ("masks", np.ones((3, NUM_ACTIONS), dtype=np.int8)),
        ("rows", np.arange(2, dtype=np.int32)),
        ("rng_rows", np.zeros(3, dtype=np.int64)),
        ("rng_states", np.zeros((1, RNG_WORDS + 1), dtype=np.uint64)),
        ("rng_states", np.zeros((1, RNG_WORDS), dtype=np.int64)),
        ("out", np.zeros(2, dtype=np.int32)),
        ("out", [0, 0]),
    ],
)
def test_bad_shapes_and_dtypes_raise_value_error(name, bad):
    arrays = batch()
    arrays[name] = bad
    with pytest.raises(ValueError, match=name):
        heuristic_actions(**arrays)


@pytest.mark.parametrize(("name", "value"), [("rows", 2), ("rows", -1), ("rng_rows", 1)])
def test_rows_out_of_range_raise_value_error(name, value):
    arrays = batch()
    arrays[name][1] = value
    with pytest.raises(ValueError, match="out of range"):
        heuristic_actions(**arrays)


def test_a_valid_call_passes_the_checks():
    arrays = batch()
    heuristic_actions(**arrays)
    assert arrays["out"].tolist() == [0, 0]


def test_an_empty_mask_raises_value_error():
    arrays = batch()
    arrays["masks"][1] = 0
    with pytest.raises(ValueError, match="allows no action"):
        heuristic_actions(**arrays)


# --- soak -------------------------------------------------------------------------------------------------


@pytest.mark.soak
def test_soak_many_more_games():
    positions = play_positions(games=600, first_seed=1000)
    print(f"\n{len(positions[0])} positions:", dict(sorted(coverage(positions).items())))
    assert assert_same_decisions(positions, seed=7) >= 1000
