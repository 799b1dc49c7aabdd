"""Policy weights from model files, read without running anything the file holds.

A stable-baselines3 ``.zip`` keeps parts of its settings as cloudpickle (the learning-rate schedule, the spaces,
the policy class): loading one with ``MaskablePPO.load`` runs whatever code the file's author put there. Playing
needs none of it, only the actor's weights. :func:`load_policy` is the one way this project reads a model file
to play it; it never unpickles and refuses anything it does not fully understand with a :class:`ModelFileError`.

Two formats are read, told apart by their contents (both are zip archives), not by the file name:

- a stable-baselines3 / sb3-contrib ``MaskablePPO`` save: only ``policy.pth`` (the state dict, through
  ``torch.load(weights_only=True)``, which rebuilds tensors and refuses any other object) and the plain-JSON
  ``policy_kwargs`` of ``data`` are read. The activation is SB3's default, Tanh: a file whose ``policy_kwargs``
  is not plain JSON (a custom activation or network class, stored as a pickle) is refused.
- the project's weights-only format (``.npz`` by convention, :data:`agents.bots.spec.POLICY_FILE_SUFFIX`),
  written by :func:`save_policy`: numpy arrays only,
  read with ``allow_pickle=False`` after checking every array header against the bytes that follow it. It holds
  ``format`` (:data:`FORMAT_NAME`), ``version`` (:data:`FORMAT_VERSION`), ``activation`` (one of
  :data:`ACTIVATIONS`), ``observation_size``, ``action_count``, ``layer_count`` and ``weight_<i>`` /
  ``bias_<i>`` for each layer from input to output (weights shaped ``(out, in)`` as in ``torch.nn.Linear``).

The same weights-only format holds the search's other networks (:class:`NetworkKind`: the leaf value of
:mod:`agents.bots.search.value`, the hand model of :mod:`agents.bots.search.belief`), each under its own format
name and sizes, written by :func:`save_network` and read by :func:`load_network` with the same checks.

An actor may also read the observation followed by its rule facts (:mod:`gubs_env.encoding.rule_facts`), which its
player computes: a weights-only file says so by its format name (:data:`POLICY_WITH_FACTS`), an SB3 save by its first
layer's width (:func:`reads_rule_facts`). Either way the layers must chain from the observation size
(:data:`~gubs_env.encoding.observation.OBS_SIZE`, or that and the facts) to the action count
(:data:`~gubs_env.encoding.action_table.NUM_ACTIONS`) through at least one hidden layer, with finite float32
values; archives, members and networks beyond the size limits below are refused before they are read into memory.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE
from gubs_env.support.files import FileTooLargeError, read_bounded, write_atomically

FORMAT_NAME = "gubs-policy-weights"
FORMAT_VERSION = 1
ACTIVATIONS = ("tanh", "relu")
"""Activations between the actor's layers that the numpy forward pass implements."""

MAX_FILE_BYTES = 256 * 2**20
"""Largest model file read at all (a 256x256 actor is 2 MiB; a full SB3 save of it 6 MiB)."""
MAX_MEMBER_BYTES = 256 * 2**20
"""Largest uncompressed archive member read (a zip bomb is refused before it expands)."""
MAX_TOTAL_BYTES = 512 * 2**20
"""Largest sum of the members' declared sizes (zipfile never reads past a member's declared size)."""
MAX_MEMBERS = 64
MAX_LAYERS = 16
MAX_WIDTH = 8192
"""Widest hidden layer accepted."""

Layer = tuple[np.ndarray, np.ndarray]
"""One linear layer: weight shaped ``(out, in)`` and bias shaped ``(out,)``, float32."""

_SB3_ACTOR = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.(weight|bias)")
_SB3_HEAD = re.compile(r"action_net\.(weight|bias)")
_SB3_CRITIC = re.compile(r"(mlp_extractor\.value_net\.\d+|value_net)\.(weight|bias)")
_SB3_PLAIN_POLICY_KWARGS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}
"""``policy_kwargs`` that leave the actor a Tanh MLP on the raw observation (net_arch is read from the weights)."""


@dataclass(frozen=True)
class NetworkKind:
    """What a weights-only file holds: its format name, and the sizes its first layer takes and its last gives.

    The file names the two sizes ``input_member`` and ``output_member``; a file of another kind, or made for
    other sizes, is refused.
    """

    format_name: str
    inputs: int
    outputs: int
    input_words: str
    """What the first layer takes, for messages (``observation values``)."""
    output_words: str
    """What the last layer gives, for messages (``action logits``)."""
    input_member: str = "observation_size"
    output_member: str = "action_count"

    @property
    def scalars(self) -> tuple[str, ...]:
        """The file's members besides the layers."""
        return ("format", "version", "activation", self.input_member, self.output_member, "layer_count")


POLICY = NetworkKind(FORMAT_NAME, OBS_SIZE, NUM_ACTIONS, "observation values", "action logits")
"""An actor: the observation in, one logit per action id out."""
POLICY_WITH_FACTS = NetworkKind(
    "gubs-policy-weights+rule-facts",
    POLICY_INPUT_SIZE,
    NUM_ACTIONS,
    "observation values and rule facts",
    "action logits",
)
"""An actor that reads the observation followed by its rule facts (:mod:`gubs_env.encoding.rule_facts`), which
its player computes: the self-play learner's ``rule_facts`` lever writes these."""


class ModelFileError(ValueError):
    """A model file that cannot be read safely: the message names the file and what is wrong (one line)."""


@dataclass(frozen=True, eq=False)
class PolicyWeights:
    """An actor network in numpy: enough for a forward pass, nothing else.

    Attributes:
        layers: (weight, bias) pairs from input to output, float32, weights shaped ``(out, in)`` (read-only
            arrays when loaded from a file: one PolicyWeights is shared by every agent that plays it).
        activation: the nonlinearity between layers (one of :data:`ACTIVATIONS`); none after the last.
        source: the file the weights came from (None: built in memory).
    """

    layers: tuple[Layer, ...]
    activation: str
    source: Path | None = None
    rule_facts: bool = False
    """The first layer reads the observation followed by its rule facts (:data:`POLICY_WITH_FACTS`)."""

    @property
    def observation_size(self) -> int:
        """Inputs of the first layer."""
        return int(self.layers[0][0].shape[1])

    @property
    def observation_length(self) -> int:
        """Values of the observation a player gives the actor (the rule facts are appended by the forward pass)."""
        return OBS_SIZE if self.rule_facts else self.observation_size

    @property
    def action_count(self) -> int:
        """Outputs of the last layer: one logit per action id."""
        return int(self.layers[-1][0].shape[0])


def load_policy(path: str | Path) -> PolicyWeights:
    """Read the actor's weights from a model file of either format (see the module docstring).

    Raises:
        ModelFileError: the file is missing, unreadable, too large, of another kind, or holds weights that are
            not a valid actor for this environment.
    """
    path = Path(path)
    members = _open_archive(path)
    try:
        names = set(members.namelist())
        kind = POLICY
        if "policy.pth" in names:
            layers, activation = _read_sb3(members, path)
            kind = POLICY_WITH_FACTS if reads_rule_facts(layers) else POLICY
        elif "format.npy" in names:
            kind = _policy_kind(members, path)
            layers, activation = _read_weights_file(members, path, kind)
        else:
            raise ModelFileError(
                f"{path}: neither a stable-baselines3 model (no policy.pth) nor a policy weights file (no format.npy)"
            )
    finally:
        members.close()
    return _read_only(
        _validated(layers, activation, path, kind), activation, path, rule_facts=kind is POLICY_WITH_FACTS
    )


def load_network(path: str | Path, kind: NetworkKind) -> PolicyWeights:
    """Read a weights-only file of ``kind`` (written by :func:`save_network`), with every check of :func:`load_policy`.

    Raises:
        ModelFileError: the file is missing, unreadable, too large, of another kind or made for other sizes.
    """
    if kind == POLICY:
        return load_policy(path)
    path = Path(path)
    members = _open_archive(path)
    try:
        layers, activation = _read_weights_file(members, path, kind)
    finally:
        members.close()
    return _read_only(_validated(layers, activation, path, kind), activation, path)


def reads_rule_facts(layers: Sequence[Layer]) -> bool:
    """Whether an SB3 actor reads the observation followed by its rule facts, told by its first layer's width.

    A rule-facts learner's feature layer appends the facts to the observation and has no parameters, so its actor
    is a plain MLP whose first layer reads :data:`POLICY_WITH_FACTS`' inputs.
    """
    first = layers[0][0]
    return first.ndim == 2 and first.shape[1] == POLICY_INPUT_SIZE


def _policy_kind(archive: zipfile.ZipFile, path: Path) -> NetworkKind:
    """:data:`POLICY_WITH_FACTS` when the file's format names it, else :data:`POLICY` (checked as it is read)."""
    name = _scalar_text(read_npy(archive, "format.npy", path))
    return POLICY_WITH_FACTS if name == POLICY_WITH_FACTS.format_name else POLICY


def _read_only(layers: tuple[Layer, ...], activation: str, path: Path, *, rule_facts: bool = False) -> PolicyWeights:
    """Checked layers as a :class:`PolicyWeights` whose arrays cannot be changed (one copy is shared)."""
    for weight, bias in layers:
        weight.flags.writeable = bias.flags.writeable = False
    return PolicyWeights(layers, activation, path, rule_facts)


def save_policy(
    path: str | Path, layers: Sequence[tuple[np.ndarray, np.ndarray]], activation: str, *, rule_facts: bool = False
) -> Path:
    """Write an actor in the weights-only format, atomically (a killed writer never leaves half a file).

    Args:
        path: the file to write (``.npz`` by convention); its folder is created if needed.
        layers: (weight, bias) pairs from input to output, weights shaped ``(out, in)`` like ``torch.nn.Linear``;
            any float dtype (stored as float32).
        activation: the nonlinearity between the layers, one of :data:`ACTIVATIONS`.
        rule_facts: the first layer reads the observation followed by its rule facts (:data:`POLICY_WITH_FACTS`).

    Returns:
        The path written.

    Raises:
        ModelFileError: the layers or activation would not load back (the checks :func:`load_policy` makes).
    """
    return save_network(path, layers, activation, POLICY_WITH_FACTS if rule_facts else POLICY)


def save_network(
    path: str | Path, layers: Sequence[tuple[np.ndarray, np.ndarray]], activation: str, kind: NetworkKind
) -> Path:
    """Write a network of ``kind`` in the weights-only format, atomically (see :func:`save_policy`)."""
    path = Path(path)
    if activation not in ACTIVATIONS:
        raise ModelFileError(f"{path}: activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
    converted = []
    for index, pair in enumerate(layers):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ModelFileError(f"{path}: layer {index} is not a (weight, bias) pair")
        try:
            weight, bias = (np.asarray(a) for a in pair)
        except (ValueError, TypeError) as err:
            raise ModelFileError(f"{path}: layer {index} is not a pair of arrays ({err})") from None
        if weight.dtype.kind != "f" or bias.dtype.kind != "f":
            raise ModelFileError(f"{path}: layer {index} holds {weight.dtype}/{bias.dtype} values, not floats")
        converted.append((weight.astype(np.float32), bias.astype(np.float32)))
    checked = _validated(converted, activation, path, kind)
    arrays: dict[str, np.ndarray] = {
        "format": np.array(kind.format_name),
        "version": np.array(FORMAT_VERSION, dtype=np.int64),
        "activation": np.array(activation),
        kind.input_member: np.array(kind.inputs, dtype=np.int64),
        kind.output_member: np.array(kind.outputs, dtype=np.int64),
        "layer_count": np.array(len(checked), dtype=np.int64),
    }
    for index, (weight, bias) in enumerate(checked):
        arrays[f"weight_{index}"], arrays[f"bias_{index}"] = weight, bias
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    write_atomically(path, buffer.getvalue())
    return path


def export_policy(policy: Any, path: str | Path) -> Path:
    """Write the actor of a live ``MaskablePPO`` (or its ``.policy``) in the weights-only format.

    Raises:
        ModelFileError: the network is not an MLP actor this project can play (see :func:`actor_modules`).
    """
    weights = policy_weights(policy)
    return save_policy(path, weights.layers, weights.activation, rule_facts=weights.rule_facts)


def policy_weights(policy: Any) -> PolicyWeights:
    """A copy of a live ``MaskablePPO``'s (or its ``.policy``'s) actor in numpy, which later updates leave alone.

    Raises:
        ModelFileError: the network is not an MLP actor this project can play (see :func:`actor_modules`).
    """
    linears, activation = actor_modules(getattr(policy, "policy", policy))
    layers = tuple((m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears)
    return PolicyWeights(layers, activation, rule_facts=reads_rule_facts(layers))


def actor_modules(policy: Any) -> tuple[list[Any], str]:
    """A live SB3 actor-critic policy's actor: its ``torch.nn.Linear`` layers (input to output) and activation.

    Raises:
        ModelFileError: the actor mixes activations or uses one outside :data:`ACTIVATIONS`.
    """
    import torch

    network = policy.mlp_extractor.policy_net
    linears = [m for m in network if isinstance(m, torch.nn.Linear)]
    kinds = {type(m) for m in network if not isinstance(m, torch.nn.Linear)}
    by_kind = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if len(kinds) != 1 or next(iter(kinds)) not in by_kind:
        found = ", ".join(sorted(k.__name__ for k in kinds)) or "none"
        raise ModelFileError(f"the actor network's activations ({found}) are not one of Tanh or ReLU")
    return [*linears, policy.action_net], by_kind[next(iter(kinds))]


def _open_archive(path: Path) -> zipfile.ZipFile:
    """The file as an in-memory zip archive, after the size checks (the file is read once: it cannot change)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ModelFileError(f"{path}: not a regular file")
        if info.st_size == 0:
            raise ModelFileError(f"{path}: empty file")
        if info.st_size > MAX_FILE_BYTES:
            raise ModelFileError(f"{path}: {info.st_size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
        data = read_bounded(path, MAX_FILE_BYTES)  # the file may have grown since the stat
    except OSError as err:
        raise ModelFileError(f"{path}: cannot read: {err.strerror or err}") from None
    except FileTooLargeError:
        raise ModelFileError(f"{path}: over the {MAX_FILE_BYTES:,}-byte limit") from None
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError):
        raise ModelFileError(f"{path}: not a zip archive (neither a stable-baselines3 model nor a .npz)") from None
    names = archive.namelist()
    if len(names) > MAX_MEMBERS or len(set(names)) != len(names):
        archive.close()
        raise ModelFileError(f"{path}: {len(names)} archive members, duplicated or over the limit of {MAX_MEMBERS}")
    declared = sum(info.file_size for info in archive.infolist())
    if declared > MAX_TOTAL_BYTES:
        archive.close()
        raise ModelFileError(f"{path}: members declare {declared:,} bytes in all, over the limit")
    return archive


def _read_member(archive: zipfile.ZipFile, name: str, path: Path, limit: int | None = None) -> bytes:
    """One member's bytes, refusing it before decompression when it declares (or turns out) over ``limit`` bytes.

    ``limit`` defaults to :data:`MAX_MEMBER_BYTES`.
    """
    limit = MAX_MEMBER_BYTES if limit is None else limit
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise ModelFileError(f"{path}: member {name} declares {info.file_size:,} bytes, over the limit")
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError, OSError, ValueError) as err:
        raise ModelFileError(f"{path}: member {name} is corrupt or unsupported ({err})") from None
    if len(data) > limit:
        raise ModelFileError(f"{path}: member {name} is over the {limit:,}-byte limit")
    return data


def _read_sb3(archive: zipfile.ZipFile, path: Path) -> tuple[list[Layer], str]:
    """The actor of a stable-baselines3 save: policy.pth's actor tensors; Tanh unless the settings say otherwise."""
    if "data" not in archive.namelist():
        raise ModelFileError(f"{path}: stable-baselines3 archive without its data member")
    activation = _sb3_activation(_read_member(archive, "data", path), path)
    state = _load_state_dict(_read_member(archive, "policy.pth", path), path)
    hidden: dict[int, dict[str, np.ndarray]] = {}
    head: dict[str, np.ndarray] = {}
    for key, tensor in state.items():
        actor, action = _SB3_ACTOR.fullmatch(key), _SB3_HEAD.fullmatch(key)
        if actor:
            hidden.setdefault(int(actor[1]), {})[actor[2]] = _tensor_array(tensor, key, path)
        elif action:
            head[action[1]] = _tensor_array(tensor, key, path)
        elif not _SB3_CRITIC.fullmatch(key):
            raise ModelFileError(f"{path}: unexpected parameter {key[:80]!r} in policy.pth (not an MLP policy)")
    layers = []
    for index in sorted(hidden):
        parts = hidden[index]
        if set(parts) != {"weight", "bias"}:
            raise ModelFileError(f"{path}: actor layer {index} lacks its weight or bias")
        layers.append((parts["weight"], parts["bias"]))
    if set(head) != {"weight", "bias"}:
        raise ModelFileError(f"{path}: policy.pth has no complete action_net")
    return [*layers, (head["weight"], head["bias"])], activation


def _sb3_activation(raw: bytes, path: Path) -> str:
    """SB3's default actor activation (Tanh), provided the plain-JSON settings change nothing about the actor."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ModelFileError(f"{path}: the data member is not JSON") from None
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: the data member is not a JSON object")
    kwargs = data.get("policy_kwargs", {})
    if not isinstance(kwargs, dict) or ":serialized:" in kwargs:
        raise ModelFileError(
            f"{path}: policy_kwargs is not plain JSON (a custom activation or network, stored as a pickle, "
            "which is never loaded); export the policy with agents.bots.model_file.export_policy instead"
        )
    unknown = sorted(set(kwargs) - _SB3_PLAIN_POLICY_KWARGS)
    if unknown:
        raise ModelFileError(f"{path}: policy_kwargs {', '.join(map(repr, unknown))[:120]} not supported")
    return "tanh"


def _load_state_dict(raw: bytes, path: Path) -> dict[str, Any]:
    """policy.pth as a state dict, through torch's weights-only unpickler (tensors and plain containers only)."""
    import torch

    try:
        state = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
    except Exception as err:  # any failure of the restricted reader means a file we refuse
        reason = str(err).strip().splitlines()[0][:160] if str(err).strip() else type(err).__name__
        raise ModelFileError(f"{path}: policy.pth is not a weights-only state dict ({reason})") from None
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ModelFileError(f"{path}: policy.pth does not hold a state dict")
    return state


def _tensor_array(tensor: Any, key: str, path: Path) -> np.ndarray:
    """A dense float32 CPU tensor as a numpy array of its own."""
    import torch

    if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided or tensor.is_quantized:
        raise ModelFileError(f"{path}: {key} is not a dense tensor")
    if tensor.dtype != torch.float32:
        raise ModelFileError(f"{path}: {key} holds {tensor.dtype} values, not float32")
    return np.array(tensor.detach().cpu().numpy(), dtype=np.float32, copy=True)


def _read_weights_file(archive: zipfile.ZipFile, path: Path, kind: NetworkKind) -> tuple[list[Layer], str]:
    """The layers and activation of a file of ``kind`` written by :func:`save_network`."""
    names = set(archive.namelist())
    missing = [f"{n}.npy" for n in kind.scalars if f"{n}.npy" not in names]
    if missing:
        raise ModelFileError(f"{path}: {kind.format_name} file without {', '.join(missing)}")
    scalars = {n: read_npy(archive, f"{n}.npy", path) for n in kind.scalars}
    if _scalar_text(scalars["format"]) != kind.format_name:
        raise ModelFileError(f"{path}: format.npy does not name {kind.format_name}")
    version = _scalar_int(scalars["version"], "version", path)
    if version != FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {version}; this version of gubs_env reads {FORMAT_VERSION}")
    activation = _scalar_text(scalars["activation"])
    if activation not in ACTIVATIONS:
        raise ModelFileError(f"{path}: activation {activation!r:.40} is not one of {', '.join(ACTIVATIONS)}")
    sizes = {n: _scalar_int(scalars[n], n, path) for n in (kind.input_member, kind.output_member, "layer_count")}
    if (sizes[kind.input_member], sizes[kind.output_member]) != (kind.inputs, kind.outputs):
        raise ModelFileError(
            f"{path}: made for {sizes[kind.input_member]} {kind.input_words} and {sizes[kind.output_member]} "
            f"{kind.output_words}; this environment has {kind.inputs} and {kind.outputs}"
        )
    count = sizes["layer_count"]
    if not 2 <= count <= MAX_LAYERS:
        raise ModelFileError(f"{path}: {count} layers; 2 to {MAX_LAYERS} are accepted")
    expected = {f"{n}.npy" for n in kind.scalars} | {f"{k}_{i}.npy" for i in range(count) for k in ("weight", "bias")}
    if names != expected:
        odd = sorted(names ^ expected)
        raise ModelFileError(f"{path}: members {', '.join(odd)[:120]} missing or unexpected")
    layers = [
        (read_npy(archive, f"weight_{i}.npy", path), read_npy(archive, f"bias_{i}.npy", path)) for i in range(count)
    ]
    return layers, activation


def read_npy(
    archive: zipfile.ZipFile, name: str, path: Path, kinds: str = "fiU", limit: int | None = None
) -> np.ndarray:
    """One .npy member, its header checked against its length before numpy reads it (no pickled objects).

    Args:
        archive: the open archive.
        name: the member.
        path: the file, for messages.
        kinds: the numpy dtype kinds accepted (numbers and text by default; ``b`` adds booleans).
        limit: the member's largest size in bytes (default :data:`MAX_MEMBER_BYTES`).

    Raises:
        ModelFileError: the member is too large, corrupt, not a .npy array of those kinds, or its header
            declares more or fewer bytes than it holds (a huge declared shape is refused before allocation).
    """
    raw = _read_member(archive, name, path, limit)
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"npy version {version}")
    except (ValueError, EOFError, SyntaxError, TypeError) as err:
        raise ModelFileError(f"{path}: {name} is not a numpy array file ({str(err)[:80]})") from None
    if dtype.kind not in kinds or dtype.hasobject or len(shape) > 2:
        raise ModelFileError(f"{path}: {name} holds {dtype} values shaped {shape}, not numbers or text")
    if math.prod(shape) * dtype.itemsize != len(raw) - stream.tell():  # exact integers: no overflow
        raise ModelFileError(f"{path}: {name} declares shape {shape} but holds a different number of bytes")
    try:
        return np.load(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, EOFError, OSError) as err:
        raise ModelFileError(f"{path}: {name} cannot be read ({str(err)[:80]})") from None


def _scalar_text(array: np.ndarray) -> str:
    return str(array[()]) if array.shape == () and array.dtype.kind == "U" else ""


def _scalar_int(array: np.ndarray, name: str, path: Path) -> int:
    if array.shape != () or array.dtype.kind != "i":
        raise ModelFileError(f"{path}: {name}.npy is not a whole number")
    return int(array[()])


def _validated(layers: Sequence[Layer], activation: str, path: Path, kind: NetworkKind) -> tuple[Layer, ...]:
    """The layers, once they chain from ``kind``'s inputs to its outputs with finite float32 values."""
    if activation not in ACTIVATIONS:
        raise ModelFileError(f"{path}: activation {activation!r:.40} is not one of {', '.join(ACTIVATIONS)}")
    if not 2 <= len(layers) <= MAX_LAYERS:
        raise ModelFileError(f"{path}: {len(layers)} layers; 2 to {MAX_LAYERS} are accepted (at least one hidden)")
    inputs = kind.inputs
    for index, (weight, bias) in enumerate(layers):
        if weight.dtype != np.float32 or bias.dtype != np.float32:
            raise ModelFileError(f"{path}: layer {index} holds {weight.dtype}/{bias.dtype} values, not float32")
        if weight.ndim != 2 or bias.shape != weight.shape[:1] or weight.shape[1] != inputs:
            raise ModelFileError(
                f"{path}: layer {index} is shaped {weight.shape} + {bias.shape}; it takes {inputs} inputs"
            )
        outputs = weight.shape[0]
        last = index == len(layers) - 1
        if (last and outputs != kind.outputs) or (not last and not 1 <= outputs <= MAX_WIDTH):
            wanted = f"{kind.outputs} {kind.output_words}" if last else f"1 to {MAX_WIDTH} units"
            raise ModelFileError(f"{path}: layer {index} has {outputs} outputs, not {wanted}")
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise ModelFileError(f"{path}: layer {index} holds NaN or infinite values")
        inputs = outputs
    return tuple((np.ascontiguousarray(w), np.ascontiguousarray(b)) for w, b in layers)
