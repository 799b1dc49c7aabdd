"""A scripted OpenAI-compatible server (tests/llm_server.py) in a process of its own, for the tests that play models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.snippets import ROOT


class Server:
    """``python -m tests.llm_server`` started on ``port`` (0: any), stopped by :meth:`stop` (its own process only)."""

    def __init__(self, folder: Path, port: int = 0, die_after: int | None = None, slow: float = 1.0) -> None:
        port_file = folder / f"port-{time.monotonic_ns()}"
        command = [sys.executable, "-m", "tests.llm_server", "--port", str(port), "--port-file", str(port_file)]
        command += ["--slow", str(slow)] + ([] if die_after is None else ["--die-after", str(die_after)])
        self.process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the scripted model server did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def spec(self, model: str, **settings: object) -> str:
        """An ``llm`` spec for ``model`` on this server, short time-outs and few tries unless given."""
        given = {"timeout": 5, "attempts": 3, **settings}
        return f"llm:model={model},base_url={self.url}," + ",".join(f"{k}={v}" for k, v in given.items())

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as answer:
            return json.loads(answer.read())

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=30)
