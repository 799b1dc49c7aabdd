"""The labels file: decisions of a searching seat with the search's choices, for a network to imitate.

Expert iteration's labelling (``python -m agents.recipes.expert``) writes one; a training run's warm start
(``python train.py --labels FILE``) reads it. A labels file is data: :func:`load_labels` reads it with
``allow_pickle=False`` after checking the archive's declared sizes, and checks every array
(:class:`LabelsFileError` otherwise). Its arrays, one row per decision:

- ``observations`` and ``masks``: what the searching seat saw;
- ``actions``: the search's choice, the policy target;
- ``base_actions``: the base policy's choice, kept beside it to show how much the search changed;
- ``returns``: the game's outcome for that seat (+1 win, -1 loss, 0 truncated), discounted once per later
  decision of the seat, the value target;
- ``players``: the table size.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.training.imitation.demonstrations import Demonstrations
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine.players import TableSizes

MAX_LABELS_BYTES = 2 * 2**30
"""Largest labels file read at all (a million decisions take about 30 MB compressed, 1.4 GB unpacked)."""
MAX_UNPACKED_BYTES = 8 * 2**30
"""Largest sum of the archive members' declared sizes: a zip bomb is refused before anything is unpacked."""


class LabelsFileError(ValueError):
    """A labels file that cannot be read or does not hold what :func:`save_labels` writes."""


@dataclass
class SearchLabels(Demonstrations):
    """The searching seat's decisions with the search's choices (``actions``); see the module docstring."""

    base_actions: np.ndarray
    """The base policy's choice at each decision (``actions`` differs from it where the search corrected it)."""
    players: np.ndarray
    """The table size of each decision's game."""

    @property
    def corrected(self) -> int:
        """Decisions where the search played something other than its base policy's choice."""
        return int((self.actions != self.base_actions).sum())


KINDS = {
    "observations": ("f", 2, OBS_SIZE),
    "masks": ("b", 2, NUM_ACTIONS),
    "actions": ("i", 1, None),
    "returns": ("f", 1, None),
    "base_actions": ("i", 1, None),
    "players": ("i", 1, None),
}
"""Each array of a labels file: its numpy kind, its dimensions and its width (None: one value per decision)."""


def join_labels(parts: list[SearchLabels]) -> SearchLabels:
    """One set of labels holding every decision of ``parts``, in their order (the first part itself if alone)."""
    if len(parts) == 1:
        return parts[0]
    arrays: dict[str, Any] = {name: np.concatenate([getattr(p, name) for p in parts]) for name in KINDS}
    return SearchLabels(**arrays)


def save_labels(path: str | Path, labels: SearchLabels) -> Path:
    """Write ``labels`` as a compressed ``.npz`` of plain arrays (:func:`load_labels` reads it back)."""
    from gubs_env.support.files import write_atomically

    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{name: getattr(labels, name) for name in KINDS})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, buffer.getvalue())
    return path


def load_labels(path: str | Path) -> SearchLabels:
    """The labels a :func:`save_labels` file holds, read as data and checked.

    The file is read once (a regular file of at most :data:`MAX_LABELS_BYTES`), then each array through
    :func:`~agents.bots.model_file.read_npy`: its header checked against its bytes before numpy reads it, and
    never unpickled.

    Raises:
        LabelsFileError: not a regular file, over the size limits, not an archive of exactly the expected
            arrays, an array of the wrong kind or shape, a label that is not legal in its mask, a return
            outside [-1, 1] or a table size the game does not have.
    """
    from agents.bots.model_file import ModelFileError, read_npy
    from gubs_env.support.files import FileTooLargeError, read_bounded

    path = Path(path)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
        data = read_bounded(path, MAX_LABELS_BYTES) if regular else b""
    except FileTooLargeError:
        raise LabelsFileError(f"{path}: over the {MAX_LABELS_BYTES:,}-byte limit") from None
    except (OSError, ValueError) as err:
        raise LabelsFileError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    if not regular:
        raise LabelsFileError(f"{path}: not a regular file")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as err:
        raise LabelsFileError(f"{path}: not a labels file ({str(err)[:80]})") from None
    with archive:
        members = archive.infolist()
        if sorted(m.filename for m in members) != sorted(f"{name}.npy" for name in KINDS):
            raise LabelsFileError(f"{path}: not a labels file (it must hold exactly {', '.join(sorted(KINDS))})")
        if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
            raise LabelsFileError(f"{path}: its arrays declare more than {MAX_UNPACKED_BYTES:,} bytes")
        kinds = "".join(kind for kind, _, _ in KINDS.values())
        try:
            arrays = {name: read_npy(archive, f"{name}.npy", path, kinds, MAX_UNPACKED_BYTES) for name in KINDS}
        except ModelFileError as err:
            raise LabelsFileError(str(err)) from None
    return _checked(arrays, path)


def _checked(arrays: dict[str, np.ndarray], path: Path) -> SearchLabels:
    """The labels, once every array has its kind and shape and every value its range."""
    count = len(arrays["actions"]) if arrays["actions"].ndim == 1 else -1
    for name, (kind, dims, width) in KINDS.items():
        array = arrays[name]
        shape_ok = array.ndim == dims and len(array) == count and (width is None or array.shape[1] == width)
        if array.dtype.kind != kind or not shape_ok or count < 1:
            raise LabelsFileError(f"{path}: {name} holds {array.dtype} values shaped {array.shape}, not labels")
    for name in ("actions", "base_actions"):
        ids = arrays[name]
        if ids.min() < 0 or ids.max() >= NUM_ACTIONS or not arrays["masks"][np.arange(count), ids].all():
            raise LabelsFileError(f"{path}: {name} holds an id that is not legal at its decision")
    returns = arrays["returns"]
    if not (np.isfinite(returns).all() and np.abs(returns).max() <= 1.0):
        raise LabelsFileError(f"{path}: returns must be finite numbers from -1 to 1")
    if not np.isfinite(arrays["observations"]).all():
        raise LabelsFileError(f"{path}: observations must be finite numbers")
    players = arrays["players"]
    try:
        TableSizes.of(np.unique(players))  # each size once: a file holds a row per decision
    except ValueError as err:
        raise LabelsFileError(f"{path}: players must be table sizes: {err}") from None
    return SearchLabels(
        observations=arrays["observations"].astype(np.float16),
        masks=arrays["masks"],
        actions=arrays["actions"].astype(np.int64),
        returns=returns.astype(np.float32),
        base_actions=arrays["base_actions"].astype(np.int64),
        players=players.astype(np.int64),
    )


def summary(labels: SearchLabels) -> str:
    """How many decisions per table size, and how many the expert corrected."""
    sizes = ", ".join(f"{n}p {int((labels.players == n).sum()):,}" for n in np.unique(labels.players))
    share = labels.corrected / len(labels)
    corrected = f"the expert corrected its base at {labels.corrected:,} ({share:.1%})"
    return f"{len(labels):,} labelled decisions ({sizes}); {corrected}"
