"""The documentation site: docs/ built by Sphinx (docs/conf.py) with every warning an error, and its contents.

The build takes about half a minute, so it is behind the ``slow`` marker (``.ci/run`` runs it after the default
suite); that every page of docs/ is in a table of contents of the front page is checked in the default suite.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.snippets import ROOT

DOCS = ROOT / "docs"
API_PAGES = ["gubs_env", "envs", "fast", "records", "agents", "training", "evaluate"]


def _toctrees(index: Path) -> list[tuple[bool, list[str]]]:
    """Each ``{toctree}`` block of a MyST page: whether it globs, and its entries."""
    found = []
    for block in re.findall(r"^```\{toctree\}\n(.*?)^```", index.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL):
        lines = [line.strip() for line in block.splitlines()]
        options = [line for line in lines if line.startswith(":")]
        entries = [re.sub(r"^.*<(.+)>$", r"\1", line) for line in lines if line and not line.startswith(":")]
        found.append((":glob:" in options, entries))  # "Title <page>" names page
    return found


def test_every_page_of_docs_is_in_a_table_of_contents_of_the_front_page() -> None:
    """As Sphinx reads ``docs/index.md``: a page in no table of contents, a missing page or a glob pattern that
    matches nothing would each be a warning, and so a failed build."""
    matching = pytest.importorskip("sphinx.util.matching")
    pages = {p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md")}
    pages = {p for p in pages if not p.startswith("_build/") and not re.match(r"results/.+/", p)} - {"index"}
    reached: set[str] = set()
    for globbing, entries in _toctrees(DOCS / "index.md"):
        left = set(pages)  # Sphinx lists a page once per table: a pattern skips the pages named before it
        for entry in entries:
            if globbing and re.search(r"[*?\[]", entry):
                matched = set(matching.patfilter(sorted(left), entry))
                assert matched, f"docs/index.md: the pattern {entry!r} matches no page"
            else:
                assert entry in pages, f"docs/index.md names {entry!r}, which is no page of docs/"
                matched = {entry}
            left -= matched
            reached |= matched
    assert pages - reached == set(), "pages of docs/ that no table of contents of docs/index.md reaches"
    assert {f"api/{name}" for name in API_PAGES} <= reached


@pytest.mark.slow
def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    html = tmp_path / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(tmp_path / "doctrees"), str(DOCS), str(html)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-5000:]}"

    for page in DOCS.glob("*.md"):
        assert (html / page.with_suffix(".html").name).exists(), page.name
    api = {name: (html / "api" / f"{name}.html").read_text(encoding="utf-8") for name in API_PAGES}
    assert 'id="agents.training.TrainingConfig"' in api["training"]
    assert 'id="agents.make_agent"' in api["agents"]
    assert 'id="gubs_env.Game"' in api["gubs_env"] and 'id="gubs_env.fast.FastGames"' in api["fast"]
    assert 'id="agents.evaluate.tournament.run_tournament"' in api["evaluate"]
    assert "ISMCTS" in (html / "search_bots.html").read_text(encoding="utf-8")
