"""The dtype of the action masks an env hands out: ``int8`` or ``bool``, chosen by ``mask_dtype=``.

Trainers read masks differently: Gymnasium's ``Discrete.sample(mask=...)`` and PettingZoo's tests need ``int8``,
AgileRL's DQN computes ``1 - action_mask`` (an error on a bool tensor), sb3-contrib and most PyTorch code take
either. The vector env and the parallel view take ``mask_dtype=`` (docs/environment.md, "Action masks").
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from gymnasium import spaces

from gubs_env.engine.positions.serialize import brief

MaskDtype = Literal["int8", "bool"]
"""What a ``mask_dtype=`` argument names."""
MASK_DTYPES: tuple[MaskDtype, ...] = get_args(MaskDtype)


def mask_dtype(value: Any) -> np.dtype:
    """The numpy dtype of a ``mask_dtype=`` argument: ``"int8"``, ``"bool"``, or ``np.int8`` / ``bool`` / ``np.bool_``.

    Raises:
        ValueError: anything else (one line).
    """
    if isinstance(value, str) and value in MASK_DTYPES:
        return np.dtype(value)
    if value is np.int8 or value is bool or value is np.bool_:
        return np.dtype(value)
    raise ValueError(f"mask_dtype must be one of {MASK_DTYPES}, not {brief(value)}")


def mask_space(size: int, dtype: np.dtype) -> spaces.Box:
    """The space of a mask of ``size`` ids in ``dtype``: 0 or 1 (False or True) at each id."""
    kind: Any = dtype.type  # Box's annotation leaves bool out, which Box itself takes
    return spaces.Box(0, 1, (size,), kind)
