"""Model files are read without running anything they hold (agents/bots/model_file.py and every route to it).

The hostile files are built here: a stable-baselines3 archive whose ``data`` JSON carries a pickle payload, a
``policy.pth`` that is a pickle payload, and a ``.npz`` with a pickled object array. Each payload creates a
marker file when unpickled; no route may ever create it.
"""

import base64
import contextlib
import io
import itertools
import json
import os
import pickle
import struct
import subprocess
import sys
import zipfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from agents.bots.model_file import (
    FORMAT_VERSION,
    MAX_MEMBER_BYTES,
    ModelFileError,
    PolicyWeights,
    export_policy,
    load_policy,
    save_policy,
)
from agents.bots.ppo import PPOAgent
from agents.bots.registry import AgentSpecError, make_agent
from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from tests.helpers import NETWORK

ROOT = Path(__file__).resolve().parents[2]


class CreateOnLoad:
    """Unpickling this creates ``marker``: the stand-in for code a hostile file would run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@cache
def tiny_model_zip() -> bytes:
    """A genuine MaskablePPO save with an 8-unit actor (what train.py writes, only smaller)."""
    from sb3_contrib import MaskablePPO

    from gubs_env.envs.selfplay import SelfPlayEnv

    model = MaskablePPO("MlpPolicy", SelfPlayEnv(2), n_steps=32, batch_size=32, seed=0, policy_kwargs={"net_arch": [8]})
    buffer = io.BytesIO()
    model.save(buffer)
    return buffer.getvalue()


def rewrite_zip(data: bytes, replace: dict[str, bytes | None]) -> bytes:
    """The archive with members replaced (None: removed) or added."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            if name not in replace:
                target.writestr(name, source.read(name))
        for name, content in replace.items():
            if content is not None:
                target.writestr(name, content)
    return out.getvalue()


def evil_model_zip(marker: Path, field: str = "policy_kwargs") -> bytes:
    """A model whose ``data`` JSON holds a pickle payload (SB3's ``:serialized:`` form) in ``field``."""
    data = json.loads(zipfile.ZipFile(io.BytesIO(tiny_model_zip())).read("data"))
    data[field] = {
        ":type:": "<class 'dict'>",
        ":serialized:": base64.b64encode(pickle.dumps(CreateOnLoad(marker))).decode(),
    }
    return rewrite_zip(tiny_model_zip(), {"data": json.dumps(data).encode()})


def evil_policy_pth_zip(marker: Path) -> bytes:
    """A model whose policy.pth is a pickle payload instead of a weights-only state dict."""
    import torch

    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": CreateOnLoad(marker)}, buffer)
    return rewrite_zip(tiny_model_zip(), {"policy.pth": buffer.getvalue()})


def write(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def random_layers(widths=(OBS_SIZE, 16, NUM_ACTIONS), seed=0):
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(n_out, n_in)).astype(np.float32), rng.normal(size=n_out).astype(np.float32))
        for n_in, n_out in itertools.pairwise(widths)
    ]


def test_the_payloads_are_live_when_loaded_the_unsafe_way(tmp_path):
    """Without this, the tests below could pass with payloads that run nothing."""
    import torch
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "ran"
    evil = write(tmp_path / "evil.zip", evil_model_zip(marker))
    with contextlib.suppress(Exception):  # the payload replaced policy_kwargs with a file object: the load fails
        MaskablePPO.load(evil, device="cpu")
    assert marker.exists()
    marker.unlink()
    torch.load(
        io.BytesIO(zipfile.ZipFile(io.BytesIO(evil_policy_pth_zip(marker))).read("policy.pth")), weights_only=False
    )
    assert marker.exists()


@pytest.mark.parametrize("build", [evil_model_zip, evil_policy_pth_zip])
def test_hostile_models_are_refused_by_every_in_process_route(tmp_path, build):
    marker = tmp_path / "ran"
    evil = write(tmp_path / "evil.zip", build(marker))
    with pytest.raises(ModelFileError, match=r"evil\.zip"):
        load_policy(evil)
    with pytest.raises(ModelFileError):
        PPOAgent.load(evil)
    with pytest.raises(AgentSpecError, match=r"evil\.zip"):
        make_agent(str(evil))
    with pytest.raises(AgentSpecError):
        make_agent(f"{evil}:sample")
    with pytest.raises(ModelFileError):
        PPOAgent.export(evil, tmp_path / "exported.npz")
    assert not marker.exists()
    assert not (tmp_path / "exported.npz").exists()


def test_a_payload_in_a_field_that_is_never_read_stays_inert(tmp_path):
    marker = tmp_path / "ran"
    evil = write(tmp_path / "evil.zip", evil_model_zip(marker, field="lr_schedule"))
    agent = make_agent(str(evil))
    observation = np.zeros(OBS_SIZE, dtype=np.float32)
    assert agent.act(observation, np.ones(NUM_ACTIONS, dtype=bool)) in range(NUM_ACTIONS)
    assert not marker.exists()


def run_command(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "argv",
    [
        ("-m", "agents.evaluate", "{evil}", "random", "--players", "2", "--games", "2"),
        ("-m", "agents.play", "--bots", "{evil}", "--watch", "--delay", "0"),
    ],
    ids=["evaluate", "play"],
)
def test_hostile_models_on_the_command_line_exit_2_with_one_line(tmp_path, argv):
    marker = tmp_path / "ran"
    evil = write(tmp_path / "evil.zip", evil_model_zip(marker))
    result = run_command(*(a.format(evil=evil) for a in argv))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    # the error is one line (a command whose parser still prints its usage first shows that above it)
    (error,) = [line for line in result.stderr.splitlines() if "error:" in line]
    assert "evil.zip" in error and "not plain JSON" in error
    assert not marker.exists()


def test_shipped_format_round_trip_keeps_every_value(tmp_path):
    layers = random_layers()
    path = save_policy(tmp_path / "sub" / "policy.npz", layers, "relu")
    loaded = load_policy(path)
    assert isinstance(loaded, PolicyWeights) and loaded.source == path
    assert loaded.activation == "relu" and (loaded.observation_size, loaded.action_count) == (OBS_SIZE, NUM_ACTIONS)
    assert not loaded.layers[0][0].flags.writeable  # shared by every agent that plays it
    for (weight, bias), (w, b) in zip(layers, loaded.layers, strict=True):
        np.testing.assert_array_equal(weight, w)
        np.testing.assert_array_equal(bias, b)
    assert [p.name for p in path.parent.iterdir()] == ["policy.npz"]  # no temporary file left
    float64 = [(w.astype(np.float64), b.astype(np.float64)) for w, b in layers]
    np.testing.assert_array_equal(
        load_policy(save_policy(tmp_path / "f64.npz", float64, "tanh")).layers[0][0], layers[0][0]
    )


def test_relu_weights_play_the_numpy_forward_pass(tmp_path):
    layers = random_layers()
    agent = PPOAgent.load(save_policy(tmp_path / "relu.npz", layers, "relu"))
    observation = np.random.default_rng(1).random(OBS_SIZE).astype(np.float32)
    hidden = np.maximum(layers[0][0] @ observation + layers[0][1], 0)
    np.testing.assert_allclose(agent.action_logits(observation), layers[1][0] @ hidden + layers[1][1], **NETWORK)
    assert make_agent(str(tmp_path / "relu.npz")).name == str(tmp_path / "relu.npz")


def test_export_from_a_live_policy_gives_its_logits(tmp_path):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(io.BytesIO(tiny_model_zip()), device="cpu")  # our own file: a full load is fine here
    path = export_policy(model, tmp_path / "live.npz")
    observation = np.random.default_rng(2).random(OBS_SIZE).astype(np.float32)
    np.testing.assert_array_equal(
        PPOAgent.load(path).action_logits(observation), PPOAgent(model).action_logits(observation)
    )


@pytest.mark.parametrize(
    ("layers", "activation", "message"),
    [
        (random_layers(), "sigmoid", "activation"),
        (random_layers((OBS_SIZE, NUM_ACTIONS)), "tanh", "at least one hidden"),
        (random_layers((100, 16, NUM_ACTIONS)), "tanh", f"takes {OBS_SIZE} inputs"),
        (random_layers((OBS_SIZE, 16, 10)), "tanh", f"{NUM_ACTIONS} action logits"),
        ([*random_layers()[:1], *random_layers((17, 17, NUM_ACTIONS))], "tanh", "takes 16 inputs"),
        (
            [(np.full((16, OBS_SIZE), np.nan, np.float32), np.zeros(16, np.float32)), *random_layers()[1:]],
            "tanh",
            "NaN",
        ),
        ([(np.zeros((16, OBS_SIZE), np.int64), np.zeros(16, np.int64)), *random_layers()[1:]], "tanh", "not floats"),
        ([(np.zeros((16, OBS_SIZE), np.float32),), *random_layers()[1:]], "tanh", "pair"),
        ([([[0.0], [0.0, 1.0]], [0.0]), *random_layers()[1:]], "tanh", "not a pair of arrays"),
    ],
)
def test_save_refuses_what_would_not_load(tmp_path, layers, activation, message):
    with pytest.raises(ModelFileError, match=message):
        save_policy(tmp_path / "bad.npz", layers, activation)
    assert not list(tmp_path.iterdir())


def npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def valid_npz_arrays() -> dict:
    layers = random_layers()
    arrays = {
        "format": np.array("gubs-policy-weights"),
        "version": np.array(FORMAT_VERSION),
        "activation": np.array("tanh"),
        "observation_size": np.array(OBS_SIZE),
        "action_count": np.array(NUM_ACTIONS),
        "layer_count": np.array(2),
    }
    for i, (w, b) in enumerate(layers):
        arrays[f"weight_{i}"], arrays[f"bias_{i}"] = w, b
    return arrays


def with_changes(**changes) -> bytes:
    arrays = valid_npz_arrays()
    arrays.update(changes)
    return npz(**{k: v for k, v in arrays.items() if v is not None})


def huge_declared_size(data: bytes, member: str) -> bytes:
    """The archive with ``member``'s uncompressed size in the central directory set to 4 GiB - 2."""
    blob = bytearray(data)
    start = 0
    while (start := blob.find(b"PK\x01\x02", start)) >= 0:
        name_length = struct.unpack_from("<H", blob, start + 28)[0]
        if blob[start + 46 : start + 46 + name_length] == member.encode():
            struct.pack_into("<I", blob, start + 24, 2**32 - 2)
        start += 4
    return bytes(blob)


def lying_npy_header() -> bytes:
    """A weight whose header declares a shape far larger than the bytes that follow it."""
    raw = io.BytesIO()
    np.lib.format.write_array_header_1_0(raw, {"descr": "<f4", "fortran_order": False, "shape": (16_000_000, OBS_SIZE)})
    raw.write(np.zeros((16, OBS_SIZE), np.float32).tobytes())
    return rewrite_zip(with_changes(), {"weight_0.npy": raw.getvalue()})


CORRUPT = {
    "empty": (lambda tmp: b"", "empty file"),
    "text": (lambda tmp: b"hello, not a model", "not a zip archive"),
    "zip without policy.pth": (lambda tmp: rewrite_zip(tiny_model_zip(), {"policy.pth": None}), "neither"),
    "sb3 without data": (lambda tmp: rewrite_zip(tiny_model_zip(), {"data": None}), "without its data"),
    "data not JSON": (lambda tmp: rewrite_zip(tiny_model_zip(), {"data": b"{nope"}), "not JSON"),
    "data deeply nested": (lambda tmp: rewrite_zip(tiny_model_zip(), {"data": b"[" * 100_000}), "not JSON"),
    "policy.pth garbage": (lambda tmp: rewrite_zip(tiny_model_zip(), {"policy.pth": b"\x00" * 64}), "weights-only"),
    "huge declared size": (lambda tmp: huge_declared_size(tiny_model_zip(), "policy.pth"), "over the limit"),
    "npz wrong observation size": (lambda tmp: with_changes(observation_size=np.array(100)), "observation values"),
    "npz wrong version": (lambda tmp: with_changes(version=np.array(FORMAT_VERSION + 1)), "format version"),
    # a file that names the rule-facts actor must be made for the observation and its facts
    "npz rule facts, plain sizes": (
        lambda tmp: with_changes(format=np.array("gubs-policy-weights+rule-facts")),
        "observation values and rule facts",
    ),
    "npz format unknown": (lambda tmp: with_changes(format=np.array("gubs-policy-weights+x")), "does not name"),
    "npz unknown activation": (lambda tmp: with_changes(activation=np.array("gelu")), "activation"),
    "npz NaN weights": (lambda tmp: with_changes(bias_1=np.full(NUM_ACTIONS, np.nan, np.float32)), "NaN"),
    "npz float64 weights": (lambda tmp: with_changes(weight_1=np.zeros((NUM_ACTIONS, 16))), "not float32"),
    "npz wrong shapes": (lambda tmp: with_changes(weight_1=np.zeros((NUM_ACTIONS, 9), np.float32)), "shaped"),
    "npz missing layer": (lambda tmp: with_changes(bias_1=None), "missing or unexpected"),
    "npz extra member": (lambda tmp: with_changes(extra=np.zeros(3)), "missing or unexpected"),
    "npz too many layers": (lambda tmp: with_changes(layer_count=np.array(99)), "layers"),
    "npz lying header": (lambda tmp: lying_npy_header(), "declares shape"),
    "npz pickled object": (
        lambda tmp: rewrite_zip(with_changes(), {"weight_0.npy": object_npy(tmp / "ran")}),
        "not numbers or text",
    ),
}


def object_npy(marker: Path) -> bytes:
    """An .npy object array: its data is a pickle (here a payload), which numpy would unpickle if allowed."""
    raw = io.BytesIO()
    np.save(raw, np.array([CreateOnLoad(marker)], dtype=object), allow_pickle=True)
    return raw.getvalue()


@pytest.mark.parametrize("kind", list(CORRUPT))
def test_corrupt_and_odd_files_are_one_line_model_file_errors(tmp_path, kind):
    build, message = CORRUPT[kind]
    path = write(tmp_path / "odd.zip", build(tmp_path))
    with pytest.raises(ModelFileError, match=message) as error:
        load_policy(path)
    assert str(path) in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(AgentSpecError, match=message):
        make_agent(str(path))
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("special", ["directory", "/dev/zero", "fifo"])
def test_files_that_are_not_regular_files_fail_fast(tmp_path, special):
    if special == "directory":
        path = tmp_path / "folder.zip"
        path.mkdir()
    elif special == "fifo":
        path = tmp_path / "pipe.zip"
        os.mkfifo(path)  # opening it would block for ever
    else:
        path = tmp_path / "zero.zip"
        path.symlink_to(special)  # endless zeros behind a model's name
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_policy(path)
    with pytest.raises(AgentSpecError, match="not a regular file"):
        make_agent(str(path))
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_policy(special if special == "/dev/zero" else path)


def test_missing_and_oversized_files(tmp_path, monkeypatch):
    import agents.bots.model_file as model_file

    with pytest.raises(ModelFileError, match="cannot read"):
        load_policy(tmp_path / "missing.zip")
    with pytest.raises(AgentSpecError, match="no model file"):
        make_agent(str(tmp_path / "missing.zip"))
    path = write(tmp_path / "big.zip", tiny_model_zip())
    monkeypatch.setattr(model_file, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ModelFileError, match="over the 1,000-byte limit"):
        load_policy(path)
    assert MAX_MEMBER_BYTES >= 64 * 2**20  # room for any actor this project trains


def test_a_zip_bomb_member_is_refused_before_it_expands(tmp_path, monkeypatch):
    import agents.bots.model_file as model_file

    bomb = rewrite_zip(tiny_model_zip(), {"data": b"{" + b" " * 3_000_000 + b"}"})  # a few KB compressed
    monkeypatch.setattr(model_file, "MAX_MEMBER_BYTES", 1_000_000)
    with pytest.raises(ModelFileError, match="member data"):
        load_policy(write(tmp_path / "bomb.zip", bomb))


@pytest.mark.parametrize(
    ("policy_kwargs", "message"),
    [
        ({"net_arch": [8], "activation_fn": "relu"}, "'activation_fn'"),
        ([1, 2], "not plain JSON"),
    ],
)
def test_sb3_settings_that_change_the_actor_are_refused(tmp_path, policy_kwargs, message):
    data = json.loads(zipfile.ZipFile(io.BytesIO(tiny_model_zip())).read("data"))
    data["policy_kwargs"] = policy_kwargs
    path = write(tmp_path / "odd.zip", rewrite_zip(tiny_model_zip(), {"data": json.dumps(data).encode()}))
    with pytest.raises(ModelFileError, match=message):
        load_policy(path)


def test_sb3_state_dicts_with_other_parameters_are_refused(tmp_path):
    import torch

    state = torch.load(io.BytesIO(zipfile.ZipFile(io.BytesIO(tiny_model_zip())).read("policy.pth")), weights_only=True)
    for change, message in (
        ({"features_extractor.linear.weight": torch.zeros(3, 3)}, "unexpected parameter"),
        ({"action_net.weight": torch.zeros(NUM_ACTIONS, 8, dtype=torch.float64)}, "not float32"),
        ({"mlp_extractor.policy_net.0.bias": None}, "lacks its weight or bias"),
    ):
        changed = {k: v for k, v in {**state, **change}.items() if v is not None}
        buffer = io.BytesIO()
        torch.save(changed, buffer)
        path = write(tmp_path / "odd.zip", rewrite_zip(tiny_model_zip(), {"policy.pth": buffer.getvalue()}))
        with pytest.raises(ModelFileError, match=message):
            load_policy(path)


def test_an_sb3_actor_over_the_observation_and_its_facts_is_read_as_a_rule_facts_actor(tmp_path):
    """train.py --rule-facts saves a plain MLP over 580 inputs: the width says what it reads, and nothing else
    changes the checks (a first layer of that width that does not chain is refused as any other)."""
    import torch

    from gubs_env.encoding.rule_facts import POLICY_INPUT_SIZE

    state = torch.load(io.BytesIO(zipfile.ZipFile(io.BytesIO(tiny_model_zip())).read("policy.pth")), weights_only=True)

    def saved(first: torch.Tensor) -> Path:
        buffer = io.BytesIO()
        torch.save({**state, "mlp_extractor.policy_net.0.weight": first}, buffer)
        return write(tmp_path / "facts.zip", rewrite_zip(tiny_model_zip(), {"policy.pth": buffer.getvalue()}))

    assert not load_policy(write(tmp_path / "plain.zip", tiny_model_zip())).rule_facts
    weights = load_policy(saved(torch.full((8, POLICY_INPUT_SIZE), 0.01)))
    assert weights.rule_facts and weights.observation_length == OBS_SIZE
    observation = np.zeros(OBS_SIZE, dtype=np.float32)
    assert PPOAgent(weights).act(observation, np.ones(NUM_ACTIONS, dtype=bool)) in range(NUM_ACTIONS)
    with pytest.raises(ModelFileError):
        load_policy(saved(torch.full((9, POLICY_INPUT_SIZE), 0.01)))  # 9 outputs into an 8-wide head
    with pytest.raises(ModelFileError):
        load_policy(saved(torch.full((8, POLICY_INPUT_SIZE + 1), 0.01)))
