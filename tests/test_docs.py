"""Every code block of README.md and docs/*.md runs as written, within the test budget of :mod:`tests.snippets`.

The python blocks of each file run in the default suite (seconds); the bash blocks start a process per command
(torch, a short training run), so they are behind the ``slow`` marker, which ``.ci/run`` runs after the default
suite. The runner itself is tested on broken blocks: a snippet test that could not fail would prove nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.snippets import BUDGET, ROOT, Block, blocks, check_command, commands, run_bash, run_python, with_budget

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WITH_PYTHON = [d for d in DOCUMENTS if any(b.language == "python" and not b.skip_reason for b in blocks(d))]
BASH_BLOCKS = [b for d in DOCUMENTS for b in blocks(d) if b.language == "bash" and not b.skip_reason]


def _report(result) -> str:
    return f"exit status {result.returncode}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"


@pytest.mark.parametrize("document", WITH_PYTHON, ids=[str(d.relative_to(ROOT)) for d in WITH_PYTHON])
def test_the_python_blocks_of_a_document_run(document: Path, tmp_path: Path) -> None:
    runnable = [b for b in blocks(document) if b.language == "python" and not b.skip_reason]
    result = run_python(runnable, tmp_path)
    assert result.returncode == 0, _report(result)


@pytest.mark.slow
@pytest.mark.parametrize("block", BASH_BLOCKS, ids=[b.where for b in BASH_BLOCKS])
def test_a_bash_block_runs(block: Block, tmp_path_factory: pytest.TempPathFactory) -> None:
    # the bash blocks of one document share a folder: a --resume finds the run an earlier command made
    folder = tmp_path_factory.getbasetemp() / ("bash-" + block.path.stem)
    folder.mkdir(exist_ok=True)
    for command, result in run_bash(block, folder):
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
