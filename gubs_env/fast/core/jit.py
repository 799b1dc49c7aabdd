"""How the compiled engine's functions are compiled: the numba options its modules share.

Most of the engine's functions allocate nothing and are compiled without numba's reference counting
(:data:`NO_REFCOUNT`). With it, a compiled function increments and decrements the count of every array it is
given, with atomic operations, on each path out of the function: about 70 ns per call of a small, branchy
rule (measured on the legal ids of a draw: 75 ns with it, 5 ns without), which was most of what the engine
spent on legal ids, observations and transitions. Such a function must not create arrays; functions that do
(set-up, the batch kernels) keep the counting.

**One type per argument.** numba compiles a function once per combination of argument types, and a constant
argument (``f(g, 0)``) or a cell of the int32 state row (``f(g, g[L.ACTOR])``) is a type of its own beside an
int64 variable: each such call site compiled the whole function (with everything inlined into it) again. Calls of
the engine's and the heuristic's larger functions therefore pass ``np.int64(...)`` where the types would differ,
which took about a fifth off the cold compile (docs/fast.md, "Compiling").
"""

from __future__ import annotations

from typing import Any

import numba as nb

NO_REFCOUNT: dict[str, Any] = {"_nrt": False}
"""numba's option for a function compiled without reference counting (numba calls it ``_nrt``)."""

pure = nb.njit(cache=True, error_model="numpy", **NO_REFCOUNT)
"""For rules that allocate nothing: no reference counting, and numpy's error model (no Python exception paths
in their integer arithmetic)."""
