"""numpy's random generator, bit for bit, inside compiled code.

The reference engine draws from ``np.random.default_rng(seed)``: a PCG64 bit generator seeded through a
``SeedSequence``. This module reproduces, in numba, exactly the parts it uses:

* ``SeedSequence(seed)`` and PCG64's seeding from it (:func:`seed_pcg64`);
* PCG64's 128-bit LCG step with the XSL-RR output, and its buffered 32-bit draws (:func:`next_uint32`);
* ``Generator.shuffle`` / ``permutation`` (:func:`random_interval`, the bounded draw they use);
* ``Generator.integers(n)`` (:func:`integers`, Lemire's bounded method on 32-bit draws).

A generator's state is a row of six ``uint64``: the 128-bit LCG state (high, low), the 128-bit
increment (high, low), ``has_uint32`` and ``uinteger`` -- the same four numbers numpy's
``bit_generator.state`` dict holds, so a state converts both ways without loss.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba as nb
import numpy as np

from gubs_env.fast.core.jit import NO_REFCOUNT

RNG_WORDS = 6
ST_HI, ST_LO, INC_HI, INC_LO, HAS32, UINT32 = range(RNG_WORDS)

_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)
_SH32 = _U64(32)
_MULT_HI = _U64(2549297995355413924)
_MULT_LO = _U64(4865540595714422341)

# SeedSequence constants (numpy/random/bit_generator.pyx): 32-bit hash multipliers.
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_POOL_SIZE = 4


@nb.njit(cache=True, inline="always")
def _mulhi64(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo, a_hi = a & _MASK32, a >> _SH32
    b_lo, b_hi = b & _MASK32, b >> _SH32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _SH32) + (hi_lo & _MASK32) + lo_hi
    return hi_hi + (hi_lo >> _SH32) + (cross >> _SH32)


@nb.njit(cache=True, inline="always")
def _step(rng: np.ndarray) -> None:
    """One LCG step: ``state = state * MULT + inc`` modulo 2**128."""
    hi, lo = rng[ST_HI], rng[ST_LO]
    new_lo = lo * _MULT_LO
    new_hi = hi * _MULT_LO + lo * _MULT_HI + _mulhi64(lo, _MULT_LO)
    sum_lo = new_lo + rng[INC_LO]
    carry = _U64(1) if sum_lo < new_lo else _U64(0)
    rng[ST_LO] = sum_lo
    rng[ST_HI] = new_hi + rng[INC_HI] + carry


@nb.njit(cache=True, inline="always")
def next_uint64(rng: np.ndarray) -> np.uint64:
    """PCG64's next 64-bit output (step first, then XSL-RR of the new state)."""
    _step(rng)
    hi, lo = rng[ST_HI], rng[ST_LO]
    value = hi ^ lo
    rot = hi >> _U64(58)
    return (value >> rot) | (value << ((_U64(64) - rot) & _U64(63)))


@nb.njit(cache=True, inline="always")
def next_uint32(rng: np.ndarray) -> np.uint64:
    """The buffered 32-bit draw of numpy's PCG64: the low half of a 64-bit output now, its high half next time."""
    if rng[HAS32] != 0:
        rng[HAS32] = 0
        return rng[UINT32]
    value = next_uint64(rng)
    rng[HAS32] = 1
    rng[UINT32] = value >> _SH32
    return value & _MASK32


@nb.njit(cache=True, inline="always", **NO_REFCOUNT)  # see gubs_env.fast.core.jit
def covering_mask(top: np.uint64) -> np.uint64:
    """The smallest all-ones bit mask that covers ``top``: masked rejection draws below it and retries above ``top``."""
    mask = top
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> _U64(shift)
    return mask


@nb.njit(cache=True, **NO_REFCOUNT)  # see gubs_env.fast.core.jit
def random_interval(rng: np.ndarray, upper: int) -> int:
    """A uniform int in ``[0, upper]`` by masked rejection (what ``shuffle`` and ``permutation`` draw)."""
    if upper == 0:
        return np.int64(0)
    top = _U64(upper)
    mask = covering_mask(top)
    value = next_uint32(rng) & mask
    while value > top:
        value = next_uint32(rng) & mask
    return np.int64(value)


@nb.njit(cache=True, **NO_REFCOUNT)  # see gubs_env.fast.core.jit
def integers(rng: np.ndarray, high: int) -> int:
    """``Generator.integers(high)``: a uniform int in ``[0, high)`` by Lemire's method on 32-bit draws."""
    if high <= 1:
        return np.int64(0)  # numpy draws nothing when the range holds one value
    bound = _U64(high)
    product = next_uint32(rng) * bound
    leftover = product & _MASK32
    if leftover < bound:
        threshold = ((_MASK32 - (bound - _U64(1))) % bound) & _MASK32
        while leftover < threshold:
            product = next_uint32(rng) * bound
            leftover = product & _MASK32
    return np.int64(product >> _SH32)


@nb.njit(cache=True, **NO_REFCOUNT)  # see gubs_env.fast.core.jit
def shuffle(rng: np.ndarray, values: np.ndarray, length: int) -> None:
    """``Generator.shuffle`` of ``values[:length]`` (Fisher-Yates from the end)."""
    for i in range(length - 1, 0, -1):
        j = random_interval(rng, i)
        values[i], values[j] = values[j], values[i]


@nb.njit(cache=True, inline="always")
def _mul32(a: np.uint64, b: np.uint64) -> np.uint64:
    return (a * b) & _MASK32


@nb.njit(cache=True)
def _hashmix(value: np.uint64, hash_const: np.ndarray) -> np.uint64:
    value = (value ^ hash_const[0]) & _MASK32
    hash_const[0] = _mul32(hash_const[0], _U64(_MULT_A))
    value = _mul32(value, hash_const[0])
    return value ^ (value >> _U64(16))


@nb.njit(cache=True)
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    result = (_mul32(_U64(_MIX_MULT_L), x) - _mul32(_U64(_MIX_MULT_R), y)) & _MASK32
    return result ^ (result >> _U64(16))


@nb.njit(cache=True)
def seed_pcg64(rng: np.ndarray, seed: np.uint64) -> None:
    """Set ``rng`` to ``PCG64(SeedSequence(seed))``, as ``np.random.default_rng(seed)`` does (seed < 2**64)."""
    # SeedSequence: the seed as little-endian 32-bit words, mixed into a pool of four.
    entropy = np.zeros(2, dtype=np.uint64)
    entropy[0] = seed & _MASK32
    entropy[1] = seed >> _SH32
    n_words = 2 if entropy[1] != 0 else 1
    pool = np.zeros(_POOL_SIZE, dtype=np.uint64)
    hash_const = np.full(1, _U64(_INIT_A), dtype=np.uint64)
    for i in range(_POOL_SIZE):
        pool[i] = _hashmix(entropy[i] if i < n_words else _U64(0), hash_const)
    for src in range(_POOL_SIZE):
        for dst in range(_POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], hash_const))
    # generate_state(4, uint64): eight 32-bit words read as four little-endian uint64.
    words = np.zeros(8, dtype=np.uint64)
    mult = _U64(_INIT_B)
    for i in range(8):
        value = (pool[i % _POOL_SIZE] ^ mult) & _MASK32
        mult = _mul32(mult, _U64(_MULT_B))
        value = _mul32(value, mult)
        words[i] = value ^ (value >> _U64(16))
    seed_hi = words[0] | (words[1] << _SH32)
    seed_lo = words[2] | (words[3] << _SH32)
    inc_hi = words[4] | (words[5] << _SH32)
    inc_lo = words[6] | (words[7] << _SH32)
    # pcg64_srandom: inc = (initseq << 1) | 1; state = 0; step; state += initstate; step.
    rng[INC_HI] = (inc_hi << _U64(1)) | (inc_lo >> _U64(63))
    rng[INC_LO] = (inc_lo << _U64(1)) | _U64(1)
    rng[ST_HI] = 0
    rng[ST_LO] = 0
    _step(rng)
    lo = rng[ST_LO] + seed_lo
    carry = _U64(1) if lo < seed_lo else _U64(0)
    rng[ST_LO] = lo
    rng[ST_HI] = rng[ST_HI] + seed_hi + carry
    _step(rng)
    rng[HAS32] = 0
    rng[UINT32] = 0


def state_to_numpy(rng: np.ndarray) -> dict[str, Any]:
    """The ``bit_generator.state`` dict numpy's PCG64 would report for this row."""
    words = [int(w) for w in rng]
    return {
        "bit_generator": "PCG64",
        "state": {"state": (words[ST_HI] << 64) | words[ST_LO], "inc": (words[INC_HI] << 64) | words[INC_LO]},
        "has_uint32": words[HAS32],
        "uinteger": words[UINT32],
    }


def state_from_numpy(state: Mapping[str, Any], out: np.ndarray) -> None:
    """Write numpy's PCG64 ``bit_generator.state`` dict into a row (raises ``ValueError`` if it is not one)."""
    if not isinstance(state, Mapping) or state.get("bit_generator") != "PCG64":
        raise ValueError("the compiled engine runs numpy's PCG64 only")
    inner = state.get("state")
    if not isinstance(inner, dict):
        raise ValueError("a PCG64 state needs a 'state' dict")
    values = [inner.get("state"), inner.get("inc"), state.get("has_uint32"), state.get("uinteger")]
    limits = [1 << 128, 1 << 128, 2, 1 << 32]
    for value, limit in zip(values, limits, strict=True):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < limit:
            raise ValueError(f"PCG64 state value {value!r} is out of range")
    full_state, inc, has32, cached = (int(v) for v in values)  # type: ignore[arg-type]
    mask = (1 << 64) - 1
    out[ST_HI], out[ST_LO] = full_state >> 64, full_state & mask
    out[INC_HI], out[INC_LO] = inc >> 64, inc & mask
    out[HAS32], out[UINT32] = has32, cached
