"""The on-disk cache of compiled functions follows edits to the files they import (gubs_env/fast/cache.py)."""

import subprocess
import sys
import textwrap

PACKAGE = {
    "__init__.py": "",
    # a cached kernel that compiles in a function of another file, as kernels.py compiles in core/rules.py
    "a.py": "import numba as nb\nfrom pkgx.b import f\n\n@nb.njit(cache=True)\ndef g(x):\n    return f(x) * 2\n",
    "b.py": "import numba as nb\n\n@nb.njit\ndef f(x):\n    return x + 1\n",
    # a cached kernel that imports nothing of the package
    "c.py": "import numba as nb\n\n@nb.njit(cache=True)\ndef h(x):\n    return x - 1\n",
}


def run(folder) -> str:
    """In a fresh process: whether each kernel would compile, then what each returns."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(folder)!r})
        from gubs_env.fast import cache
        cache.ROOTS = (*cache.ROOTS, "pkgx")
        from gubs_env.support.compiling import is_cold
        from pkgx.a import g
        from pkgx.c import h
        print(is_cold(g), is_cold(h), g(1), h(1))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return result.stdout.strip()


def test_an_edit_to_an_imported_file_recompiles_its_importers_and_nothing_else(tmp_path):
    package = tmp_path / "pkgx"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    assert run(tmp_path) == "True True 4 0"  # nothing cached yet
    assert run(tmp_path) == "False False 4 0"  # both loaded from the cache
    (package / "b.py").write_text(PACKAGE["b.py"].replace("x + 1", "x + 100"))
    assert run(tmp_path) == "True False 202 0"  # numba alone would load g's stale code and print 4
