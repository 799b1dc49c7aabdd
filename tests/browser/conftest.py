"""Browser tests: Debian's Chromium driven headless by Playwright; skipped when either is missing.

No browser is ever downloaded: Playwright starts the system's ``/usr/bin/chromium``. Every page opened here
fails its test on a script error, and records the requests it made so tests can check that none leave.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (it comes with the dev extra: pip install -e '.[dev]')"
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        return f"no Chromium at {CHROMIUM} (install it with: apt-get install -y chromium)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class PageLog:
    """What a page did besides drawing: its script errors and the URLs it requested."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []


@pytest.fixture
def page_and_log(browser) -> Iterator[tuple[Any, PageLog]]:
    """A fresh page in a fresh context, with its :class:`PageLog`; a script error fails the test."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    log = PageLog()
    page.on("pageerror", lambda error: log.errors.append(str(error)))

    def console(message: Any) -> None:
        if message.type == "error":
            log.errors.append(message.text)

    page.on("console", console)
    page.on("request", lambda request: log.requests.append(request.url))
    yield page, log
    context.close()
    # a refused request or a stopped server is logged by the browser as a failed load: the tests cause those
    assert not [e for e in log.errors if not e.startswith("Failed to load resource")], log.errors
