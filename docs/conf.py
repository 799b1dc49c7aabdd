"""Sphinx configuration of the documentation site: the guides of docs/, the results and the API reference.

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (every warning is an error: a
broken link, a page in no table of contents or a reference to a name that does not exist fails the build).
"""

from __future__ import annotations

import sys
from pathlib import Path

import sphinx.ext.napoleon as napoleon
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the packages import from the checkout, installed or not

import gubs_env  # noqa: E402  (after the path above)

project = "gubs_env"
author = "the gubs_env authors"
copyright = "the gubs_env authors, MIT license"
release = gubs_env.__version__  # the package's own (an editable install's metadata can lag)
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "results/**/*.md"]

# --- MyST ---------------------------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4  # `page.md#a-section` links resolve to the heading's GitHub-style slug

# --- autodoc and the google-style docstrings ------------------------------------------------------------------------
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"  # the types go to the parameter list, keeping the signatures short
autodoc_class_signature = "separated"

# --- HTML -----------------------------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"gubs_env {release}"

# --- napoleon on attribute docstrings -------------------------------------------------------------------------------
# napoleon reads the first line of an attribute's or a property's docstring as "type: description", and this
# project's are prose whose first line often has a colon ("Deal index: the game was dealt with seed ..."): it would
# print "Deal index" as the type. The types are the annotations, so such a docstring is read as any other one is
# (its sections, "Raises:" and so on, still parsed).
_ATTRIBUTE_LIKE = {"attribute", "data", "property"}


def _google_docstring(app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]) -> None:
    what = "function" if what in _ATTRIBUTE_LIKE else what
    napoleon._process_docstring(app, what, name, obj, options, lines)


def setup(app: Sphinx) -> None:
    """Reads attribute docstrings through napoleon as prose (above)."""
    for listener in app.events.listeners["autodoc-process-docstring"]:
        if listener.handler is napoleon._process_docstring:
            app.disconnect(listener.id)
    app.connect("autodoc-process-docstring", _google_docstring)
