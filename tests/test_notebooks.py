"""Every example notebook runs from top to bottom without an error (with the small budgets of GUBS_NOTEBOOK_FAST).

Each notebook is copied to a temporary folder and run there, so files it writes (the agent module of
03_benchmark_your_agent) stay out of the repository.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def _kernel_missing() -> str | None:
    """Why the notebooks cannot run here, or None."""
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
        from jupyter_client.kernelspec import find_kernel_specs
    except ImportError as err:
        return f"the notebooks extra is not installed ({err.name} missing): pip install -e '.[notebooks]'"
    if "python3" not in find_kernel_specs():
        return "no 'python3' Jupyter kernel is registered (python -m ipykernel install --user)"
    return None


def test_the_four_example_notebooks_are_there() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb",
        "02_train_a_bot.ipynb",
        "03_benchmark_your_agent.ipynb",
        "04_benchmark_a_language_model.ipynb",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_notebook_runs_without_error(notebook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = _kernel_missing()
    if missing:
        pytest.skip(missing)
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("GUBS_NOTEBOOK_FAST", "1")  # the kernel inherits it: tiny training and tournament budgets
    monkeypatch.setenv("MPLBACKEND", "Agg")
    scratch = tmp_path / "tmp"  # the kernel's temporary folder: whatever a notebook leaves there is a leftover
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    copy = tmp_path / notebook.name
    shutil.copy(notebook, copy)
    book = nbformat.read(copy, as_version=4)
    NotebookClient(book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [out for cell in book.cells for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
    # torch keeps its compile cache in the temporary folder (torchinductor_<user>), on purpose and shared by every run
    leftovers = sorted(p.name for p in scratch.iterdir() if not p.name.startswith("torchinductor_"))
    assert not leftovers, f"{notebook.name} left {leftovers} in the temporary folder"


def test_stored_notebooks_keep_their_outputs_and_stay_small() -> None:
    import json

    for notebook in NOTEBOOKS:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        assert code and all(cell["outputs"] for cell in code), f"{notebook.name} is stored without its outputs"
        assert not any(out.get("output_type") == "error" for cell in code for out in cell["outputs"]), notebook.name
        assert any(cell["cell_type"] == "markdown" for cell in cells), notebook.name
        assert notebook.stat().st_size < 400_000, f"{notebook.name} is {notebook.stat().st_size} bytes"
