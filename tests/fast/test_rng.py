"""The compiled generator reproduces numpy's default_rng (PCG64 + SeedSequence) bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from gubs_env.fast.core import rng as R

SEEDS = [0, 1, 2, 7, 12345, 2**31, 2**32 - 1, 2**32, 2**40 + 5, 2**63, 2**64 - 1]


def _seeded(seed: int) -> np.ndarray:
    row = np.zeros(R.RNG_WORDS, dtype=np.uint64)
    R.seed_pcg64(row, np.uint64(seed))
    return row


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_matches_default_rng(seed: int) -> None:
    assert R.state_to_numpy(_seeded(seed)) == np.random.default_rng(seed).bit_generator.state


@pytest.mark.parametrize("seed", SEEDS[:6])
def test_integers_and_shuffles_match_numpy(seed: int) -> None:
    row, ref = _seeded(seed), np.random.default_rng(seed)
    highs = [1, 2, 3, 5, 67, 70, 71, 1000, 2**31 + 7, 2**32]
    for trial in range(400):
        high = highs[trial % len(highs)]
        assert R.integers(row, high) == int(ref.integers(high))
        if trial % 9 == 0:
            size = trial % 71
            expected = list(range(size))
            ref.shuffle(expected)
            values = np.arange(size, dtype=np.int64)
            R.shuffle(row, values, size)
            assert values.tolist() == expected
            values = np.arange(3, dtype=np.int64)
            R.shuffle(row, values, 3)
            assert values.tolist() == ref.permutation(3).tolist()
        assert R.state_to_numpy(row) == ref.bit_generator.state


def test_raw_64_bit_outputs_match() -> None:
    row, ref = _seeded(99), np.random.default_rng(99)
    assert [int(R.next_uint64(row)) for _ in range(50)] == [int(v) for v in ref.bit_generator.random_raw(50)]


def test_state_round_trips_through_numpy_dicts() -> None:
    ref = np.random.default_rng(5)
    ref.integers(10)  # leaves a buffered 32-bit half
    row = np.zeros(R.RNG_WORDS, dtype=np.uint64)
    R.state_from_numpy(ref.bit_generator.state, row)
    assert R.state_to_numpy(row) == ref.bit_generator.state
    assert R.integers(row, 1000) == int(ref.integers(1000))


@pytest.mark.parametrize(
    "state",
    [
        None,
        [],
        {"bit_generator": "MT19937", "state": {"key": [], "pos": 0}},
        {"bit_generator": "PCG64"},
        {"bit_generator": "PCG64", "state": {"state": -1, "inc": 1}, "has_uint32": 0, "uinteger": 0},
        {"bit_generator": "PCG64", "state": {"state": 2**128, "inc": 1}, "has_uint32": 0, "uinteger": 0},
        {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 2, "uinteger": 0},
        {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 0, "uinteger": 2**32},
        {"bit_generator": "PCG64", "state": {"state": "1", "inc": 1}, "has_uint32": 0, "uinteger": 0},
        {"bit_generator": "PCG64", "state": {"state": 1.0, "inc": 1}, "has_uint32": 0, "uinteger": 0},
        {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": True, "uinteger": 0},
    ],
)
def test_garbage_generator_states_are_refused_unchanged(state: object) -> None:
    row = _seeded(3)
    before = row.copy()
    with pytest.raises(ValueError):
        R.state_from_numpy(state, row)  # type: ignore[arg-type]
    assert np.array_equal(row, before)
