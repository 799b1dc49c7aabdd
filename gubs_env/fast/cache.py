"""numba's on-disk cache, made to notice an edit to any code a kernel compiles in.

numba stamps a cached function with its own source file only. A kernel inlines the rules, layouts and constants of
the modules it imports, so after an edit to ``core/rules.py`` alone the cached kernels of ``kernels.py`` would go on
running the old rules, and an engine changed by a ``git pull`` could disagree with the reference engine without a
word. Importing this module (:mod:`gubs_env.fast` does so first) runs :func:`install`, which puts cache locators in
front of numba's own: a function defined in the ``gubs_env`` or ``agents`` packages is stamped with a digest of its
file and of every file of those packages it imports, directly or through others (found by reading their import
statements, not by running them). An edit there recompiles what depends on it, and nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

ROOTS: tuple[str, ...] = ("gubs_env", "agents")
"""The packages whose files stamp the cache of the functions defined in them."""


@functools.cache
def _root_folder(top: str) -> Path | None:
    """The folder that holds the package ``top``, without importing it."""
    module = sys.modules.get(top)
    origin = getattr(module, "__file__", None)
    if origin is None:
        spec = importlib.util.find_spec(top)
        origin = spec.origin if spec is not None else None
    return Path(origin).resolve().parent.parent if origin else None


def module_name(path: Path) -> str | None:
    """The dotted name of the file ``path`` when it lies in one of :data:`ROOTS`, else None."""
    for top in ROOTS:
        folder = _root_folder(top)
        if folder is not None and path.is_relative_to(folder / top):
            parts = path.relative_to(folder).with_suffix("").parts
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


@functools.cache
def _module_file(name: str) -> Path | None:
    """The source file of the module or package ``name`` when it lies in one of :data:`ROOTS`."""
    top = name.split(".")[0]
    folder = _root_folder(top) if top in ROOTS else None
    if folder is None:
        return None
    path = folder.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _absolute(module: str | None, level: int, package: str) -> str:
    """The dotted name ``from <level dots><module> import ...`` names, inside ``package``."""
    if not level:
        return module or ""
    parts = package.split(".")
    return ".".join([*parts[: len(parts) - level + 1], *([module] if module else [])])


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)|import[ \t]+([^\n#]+))", re.MULTILINE
)
"""An import statement at any indentation: ``from`` with its dots, module and names, or ``import`` with its modules."""


def _names(text: str) -> list[str]:
    """The names of an import list (``a, b as c`` or a parenthesised one), without their ``as`` parts."""
    return [part.split()[0] for part in text.strip("()").replace("\\", " ").split(",") if part.split()]


@functools.cache
def _imports(path: Path) -> frozenset[Path]:
    """The files of :data:`ROOTS` that ``path`` imports anywhere in its text, relative imports included.

    A line scan rather than a parse: fast enough to run on every start, and one that errs only by taking in a file
    too many (an import in a string or a branch never taken), which costs a compile, never a stale kernel.
    """
    name = module_name(path) or ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[Path | None] = set()
    for dots, module, names, plain in _IMPORT.findall(_source(path).decode("utf-8")):
        if plain:
            found.update(_module_file(each) for each in _names(plain))
            continue
        base = _absolute(module, len(dots), package)
        for each in _names(names):  # ``from a import b``: the module a.b where there is one, else a itself
            found.add(_module_file(f"{base}.{each}") or _module_file(base))
    return frozenset(file for file in found if file is not None and file != path)


@functools.cache
def sources_digest(path: Path) -> bytes:
    """SHA-256 over ``path`` and every file of :data:`ROOTS` it imports, directly or through others."""
    seen: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(_imports(current))
    digest = hashlib.sha256()
    for file in sorted(seen):
        digest.update(str(file).encode() + b"\0" + hashlib.sha256(_source(file)).digest())
    return digest.digest()


@functools.cache
def _source(path: Path) -> bytes:
    """One file's bytes, read once per process however many kernels import it."""
    return path.read_bytes()


class _Stamped:
    """A numba cache locator, for functions of :data:`ROOTS` only, whose stamp covers what they import."""

    _py_file: str

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if module_name(Path(py_file).resolve()) is None:
            return None  # not ours: numba's own locators take it
        return super().from_function(py_func, py_file)  # type: ignore[misc]

    def get_source_stamp(self) -> Any:
        return super().get_source_stamp(), sources_digest(Path(self._py_file).resolve())  # type: ignore[misc]


def install() -> None:
    """Put the stamped locators in front of numba's own; call before any cached function is defined."""
    try:
        from numba.core import caching

        locators: list[Any] = caching.CacheImpl._locator_classes
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
    except (ImportError, AttributeError):  # a numba without these internals caches as it always did
        return
    if not any(issubclass(cls, _Stamped) for cls in locators):
        locators[:0] = [type(f"Stamped{base.__name__}", (_Stamped, base), {}) for base in bases]


install()  # on import: gubs_env.fast imports this module before any module that defines a kernel
