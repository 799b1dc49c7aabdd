"""Every code block of README.md, docs/*.md and docs/results/*.md runs as written, within the test budget of
:mod:`tests.snippets`.

The python blocks of each file run in the default suite (seconds); the bash blocks start a process per command
(torch, a short training run), so they are behind the ``slow`` marker, which ``.ci/run`` runs after the default
suite. The runner itself is tested on broken blocks: a snippet test that could not fail would prove nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from tests.snippets import BUDGET, ROOT, blocks, check_command, commands, run_bash, run_python, with_budget

DOCS = ROOT / "docs"
DOCUMENTS = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((DOCS / "results").glob("*.md"))]
"""README, the guides and the result pages (docs/results/*.md, the training logs; not the tables written into the
result folders below it)."""
WITH_PYTHON = [d for d in DOCUMENTS if any(b.language == "python" and not b.skip_reason for b in blocks(d))]
BASH_BLOCKS = [b for d in DOCUMENTS for b in blocks(d) if b.language == "bash" and not b.skip_reason]
WITH_BASH = [d for d in DOCUMENTS if any(b.path == d for b in BASH_BLOCKS)]


def _report(result) -> str:
    return f"exit status {result.returncode}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"


@pytest.mark.parametrize("document", WITH_PYTHON, ids=[str(d.relative_to(ROOT)) for d in WITH_PYTHON])
def test_the_python_blocks_of_a_document_run(document: Path, tmp_path: Path) -> None:
    runnable = [b for b in blocks(document) if b.language == "python" and not b.skip_reason]
    result = run_python(runnable, tmp_path)
    assert result.returncode == 0, _report(result)


@pytest.mark.slow
@pytest.mark.parametrize("document", WITH_BASH, ids=[str(d.relative_to(ROOT)) for d in WITH_BASH])
def test_the_bash_blocks_of_a_document_run_in_order(document: Path, tmp_path: Path) -> None:
    # one test per document, its blocks in order in one folder: a later block may read what an earlier one made (a
    # --resume finds its run), whichever worker of ``pytest -n`` takes the document
    for block in (b for b in BASH_BLOCKS if b.path == document):
        for command, result in run_bash(block, tmp_path):
            assert result.returncode == 0, f"{block.where}: {command}\n{_report(result)}"


def test_every_block_runs_or_says_why_not() -> None:
    """A bash block that no test can run must carry a no-run marker; a marker must give a reason."""
    for document in DOCUMENTS:
        for block in blocks(document):
            if block.language == "bash" and block.skip_reason is None:
                for command in commands(with_budget(block.code)):
                    check_command(command)  # raises for a command the test cannot run
        text = document.read_text(encoding="utf-8")
        assert "<!-- no-run -->" not in text, f"{document.name}: a no-run marker without its reason"


def test_the_example_bot_is_the_file_the_docs_show() -> None:
    shown = [b for b in blocks(ROOT / "docs" / "evaluation.md") if b.code.startswith('"""An agent of your own')]
    assert shown, "docs/evaluation.md no longer shows examples/my_agents.py"
    assert shown[0].code == (ROOT / "examples" / "my_agents.py").read_text(encoding="utf-8")


# --- the runner on blocks that must fail ------------------------------------------------------------------------


def _markdown(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_broken_python_block_fails_and_names_its_line(tmp_path: Path) -> None:
    doc = _markdown(tmp_path, "# doc\n\n```python\nx = 1\n```\n\ntext\n\n```python\nprint(x / 0)\n```\n")
    result = run_python(blocks(doc), tmp_path)
    assert result.returncode == 1
    assert "doc.md:9 failed" in result.stderr and "ZeroDivisionError" in result.stderr


def test_python_blocks_share_a_namespace_and_get_the_budget(tmp_path: Path) -> None:
    text = "```python\ngames = dict(games=2000)\n```\n\n```python\nassert games['games'] == 4\n```\n"
    doc = _markdown(tmp_path, text)
    assert ("games=2000", "games=4") in BUDGET
    result = run_python(blocks(doc), tmp_path)
    assert result.returncode == 0, _report(result)


def test_a_broken_bash_block_fails(tmp_path: Path) -> None:
    doc = _markdown(tmp_path, "```bash\npython -m gubs_env.demo --players 2 --seed 1 \\\n  --no-such-flag\n```\n")
    [(command, result)] = run_bash(blocks(doc)[0], tmp_path)
    assert "--no-such-flag" in command
    assert result.returncode == 2


def test_a_marked_block_is_skipped_and_an_unmarked_install_is_refused(tmp_path: Path) -> None:
    doc = _markdown(
        tmp_path,
        "<!-- no-run: installs packages -->\n```bash\npip install numpy\n```\n\n```bash\npip install numpy\n```\n",
    )
    marked, unmarked = blocks(doc)
    assert marked.skip_reason == "installs packages" and unmarked.skip_reason is None
    with pytest.raises(ValueError, match="no-run"):
        run_bash(unmarked, tmp_path)


# --- every dotted name the documents show imports -----------------------------------------------------------------

_FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_DOTTED = re.compile(r"(?<![\w./-])(?:gubs_env|agents)(?:\.[A-Za-z_]\w*)+(?![\w/-])")
"""``gubs_env.x.Y``, ``agents.x.y``; not a file (``agents/bots/ppo.py``, ``my_agents.py``, ``gubs_env.egg-info``)."""
_RUN_MODULE = re.compile(r"\bpython3? -m ((?:gubs_env|agents)(?:\.\w+)*)")


def _code_of(text: str) -> list[str]:
    """The fenced blocks and the code spans of a Markdown text: where a name is meant to be typed as it is."""
    fenced = [m.group(0) for m in _FENCED.finditer(text)]
    return fenced + [m.group(2) for m in _CODE_SPAN.finditer(_FENCED.sub("", text))]


def dotted_names(document: Path) -> set[str]:
    """The ``gubs_env.*`` and ``agents.*`` dotted names in ``document``'s code spans and code blocks."""
    return {m.group(0) for code in _code_of(document.read_text(encoding="utf-8")) for m in _DOTTED.finditer(code)}


def _is_ours(error: ImportError) -> bool:
    return (error.name or "").split(".")[0] in ("gubs_env", "agents")


def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or an attribute (of an attribute...) of the longest module it starts with.

    A name whose module needs an optional package that is missing here (open_spiel before Python 3.11) counts as
    resolving: it cannot be checked on this install.
    """
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        try:
            if importlib.util.find_spec(module) is None:
                continue
            obj = importlib.import_module(module) if end < len(parts) else None
        except ImportError as error:
            if _is_ours(error):
                continue
            return True
        for attribute in parts[end:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


def test_every_dotted_name_in_the_documents_imports() -> None:
    stale = sorted(
        f"{document.relative_to(ROOT)}: {name}"
        for document in DOCUMENTS
        for name in dotted_names(document)
        if not resolves(name)
    )
    assert not stale, "names the code no longer has:\n" + "\n".join(stale)


def test_every_python_m_command_of_the_documents_names_a_runnable_module() -> None:
    missing = []
    for document in DOCUMENTS:
        for module in set(_RUN_MODULE.findall(document.read_text(encoding="utf-8"))):
            spec = importlib.util.find_spec(module)
            runnable = spec is not None and (
                spec.submodule_search_locations is None or importlib.util.find_spec(f"{module}.__main__") is not None
            )
            if not runnable:
                missing.append(f"{document.relative_to(ROOT)}: python -m {module}")
    assert not missing, "commands that cannot run:\n" + "\n".join(missing)


def test_the_dotted_name_check_finds_stale_names_and_skips_files(tmp_path: Path) -> None:
    doc = _markdown(
        tmp_path,
        "Prose agents.evaluate.gone is not code. `agents.evaluate.matches.match` and `agents.evaluate.match`;\n"
        "`agents/bots/ppo.py`, `my_agents.py`, `gubs_env.egg-info`.\n\n"
        "```python\nfrom gubs_env.fast import FastGame\nimport gubs_env.no_such_module\n```\n",
    )
    names = dotted_names(doc)
    assert names == {
        "agents.evaluate.matches.match",
        "agents.evaluate.match",
        "gubs_env.fast",
        "gubs_env.no_such_module",
    }
    assert [n for n in sorted(names) if not resolves(n)] == ["agents.evaluate.match", "gubs_env.no_such_module"]
    assert resolves("agents.PPOAgent.pretrained") and resolves("gubs_env.envs.selfplay.SelfPlayEnv")
    assert not resolves("agents.PPOAgent.no_such_method")
