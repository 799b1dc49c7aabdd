"""Ray's start-up logging: warnings only unless ``--verbose``."""

from __future__ import annotations

import logging
from typing import Any

import pytest

pytest.importorskip("ray")

import ray

from agents.training import TrainingConfig
from agents.training.core.config import RllibSettings
from agents.training.rllib.backend import start_ray


@pytest.mark.parametrize(("flags", "level"), [([], logging.WARNING), (["--verbose"], logging.INFO)])
def test_ray_starts_quiet_unless_verbose(
    flags: list[str], level: int, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs))
    before = logging.getLogger("ray").level
    try:
        verbose = "--verbose" in flags
        start_ray(TrainingConfig(backend="rllib"), verbose)
        assert calls[0]["logging_level"] == level and calls[0]["log_to_driver"] is False
        assert logging.getLogger("ray").level == level
        calls.clear()
        start_ray(TrainingConfig(backend="rllib", rllib=RllibSettings(address="auto")), verbose)
        assert calls[0]["logging_level"] == level
    finally:
        logging.getLogger("ray").setLevel(before)
