"""The folder tree is the architecture: imports point one way, between rooms and between modules.

Read from the source with :mod:`ast` (every import, also those inside functions and ``TYPE_CHECKING`` blocks), so
a lazy import that closes a cycle fails too. docs/architecture.md draws the same rooms.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gubs_env", "agents")

LIBRARY = {"gubs_env.engine", "gubs_env.support", "gubs_env.encoding", "gubs_env.fast", "gubs_env.records"}
ALLOWED: dict[str, set[str]] = {
    "gubs_env.engine": set(),
    "gubs_env.support": {"gubs_env.engine"},
    "gubs_env.encoding": {"gubs_env.engine", "gubs_env.support"},
    "gubs_env.fast": {"gubs_env.engine", "gubs_env.encoding", "gubs_env.support"},
    "gubs_env.records": {"gubs_env.engine", "gubs_env.support"},
    "gubs_env.viz": {"gubs_env.engine", "gubs_env.records", "gubs_env.support"},
    "gubs_env.envs": {"gubs_env.engine", "gubs_env.encoding", "gubs_env.fast", "gubs_env.support", "gubs_env.viz"},
    "gubs_env.openspiel": {"gubs_env.engine", "gubs_env.encoding"},
    "gubs_env": LIBRARY | {"gubs_env.viz", "gubs_env.envs"},
    "agents.bots": LIBRARY,
    "agents.evaluate": LIBRARY | {"gubs_env.envs", "agents.bots"},
    # one trainer, two backends: the sb3 one in its modules, the RLlib one in agents/training/rllib/, a folder of
    # the same room (its modules and the trainer's import each other one way: tested by the cycle test below)
    "agents.training": LIBRARY | {"gubs_env", "gubs_env.envs", "agents", "agents.bots", "agents.evaluate"},
    # the recipes beside the trainer (search labels, the search's networks, the heuristic's tuning, several seeds)
    "agents.recipes": LIBRARY | {"gubs_env.envs", "agents.bots", "agents.evaluate", "agents.training"},
    "agents.play": LIBRARY | {"gubs_env.viz", "agents.bots", "agents.evaluate"},
    "agents": {"agents.bots", "agents.evaluate", "gubs_env.support"},  # support: the moved-module finder
}
"""Which rooms each room may import, besides itself. A room is a package's folder; the modules directly in
``gubs_env/`` and ``agents/`` (their public names and commands) form the rooms ``gubs_env`` and ``agents``."""


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules that ``name`` imports (``from a import b`` counts as ``a.b`` when that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            for alias in node.names:
                full = f"{module}.{alias.name}"
                found.add(full if full in MODULES else module)
    return {m for m in found if m.split(".")[0] in (*PACKAGES, "train")}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _room(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / parts[0] / parts[1]).is_dir():
        return ".".join(parts[:2])
    return parts[0]


def test_every_room_is_known() -> None:
    assert {_room(m) for m in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_a_room_imports_only_the_rooms_below_it(room: str) -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if _room(module) == room
        for target in targets
        if _room(target) != room and _room(target) not in ALLOWED[room]
    )
    assert not wrong


TRAINING_FOLDERS = {
    # what the loop and every backend share imports no backend: only its own modules and the rooms below
    "agents.training.core": {"agents.training.core"},
    # a backend: an adapter over one trainer, on the shared core; the warm start fits its network
    "agents.training.sb3": {"agents.training.core", "agents.training.sb3", "agents.training.imitation"},
    "agents.training.rllib": {"agents.training.core", "agents.training.rllib", "agents.training.imitation"},
    "agents.training.native": {"agents.training.core", "agents.training.native"},
    # the warm start of every backend, and the labels file it reads
    "agents.training.imitation": {"agents.training.core", "agents.training.imitation"},
}
"""Within the training room, which of its modules and folders each folder may import."""


def _within(module: str, allowed: set[str]) -> bool:
    """Whether ``module`` is one of ``allowed`` or in one of their folders (``agents.training`` is its __init__)."""
    return any(module == a or (a != "agents.training" and module.startswith(a + ".")) for a in allowed)


LOOP_BOOKKEEPING = {
    "commit_checkpoint": "the checkpoint commit",
    "League.from_json": "the league's shares",
    "plot_learning_curve": "the curve",
    "LearnerThreads": "the thread set-up",
    "read_checkpoint": "the resume check",
}
"""What only the loop does, by the call that does it: each called once in the training room, in its loop."""


def _called(tree: ast.AST, name: str) -> int:
    """How many calls of ``name`` (``f`` or ``a.f``, or ``A.f`` for ``A.f``) a module's tree holds."""
    *owner, function = name.split(".")
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and not owner and func.id == function:
                count += 1
            elif isinstance(func, ast.Attribute) and func.attr == function:
                count += not owner or (isinstance(func.value, ast.Name) and func.value.id == owner[0])
    return count


def test_the_loops_bookkeeping_is_written_once_in_the_training_room_and_no_league_lives_in_a_module() -> None:
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "agents" / "training").rglob("*.py")}
    trees = {p: ast.parse(text) for p, text in sources.items()}
    for call, what in LOOP_BOOKKEEPING.items():
        sites = [str(p.relative_to(ROOT)) for p, tree in trees.items() for _ in range(_called(tree, call))]
        assert sites == ["agents/training/loop.py"], f"{what}: {sites}"
    for path, tree in trees.items():  # the league crosses processes as an argument, never as module state
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.List, ast.Dict, ast.Set)):
                names = [t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
                assert not any("SNAPSHOT" in n or "LEAGUE" in n or "TALLY" in n for n in names), (path, names)


def test_the_training_room_holds_the_trainer_alone_in_short_functions() -> None:
    files = list((ROOT / "agents" / "training").rglob("*.py"))
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
    assert lines <= 6500, f"the training room holds {lines} lines"
    longest = max(
        (node.end_lineno - node.lineno + 1, f"{p.name}:{node.name}")
        for p in files
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    assert longest[0] <= 80, longest
    recipes = {"expert", "search_nets", "tune_heuristic", "seeds"}
    assert not any(p.stem in recipes or p.parent.name in recipes for p in files)


def test_every_training_folder_is_listed() -> None:
    folders = {
        f"agents.training.{p.name}" for p in (ROOT / "agents" / "training").iterdir() if (p / "__init__.py").exists()
    }
    assert folders == set(TRAINING_FOLDERS)


@pytest.mark.parametrize("folder", sorted(TRAINING_FOLDERS))
def test_a_training_folder_imports_only_what_it_builds_on(folder: str) -> None:
    allowed = TRAINING_FOLDERS[folder]
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module.startswith(folder + ".") or module == folder
        for target in targets
        if target.startswith("agents.training") and not _within(target, allowed)
    )
    assert not wrong


def test_the_library_never_imports_the_bots_or_the_training_script() -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if target.split(".")[0] == "train" or (module.startswith("gubs_env") and target.startswith("agents"))
    )
    assert not wrong


FAST = "gubs_env.fast"
"""The compiled engine's public face: its package module. Its other modules (``core``, ``kernels``, ``determinize``,
...) are internal and may change with any commit (docs/fast.md, "The public face")."""


def _private_fast_imports(graph: dict[str, set[str]], package: str = "agents") -> list[str]:
    """Each import of a ``package`` module that reaches past :data:`FAST` into one of its modules."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == package
        for target in targets
        if target.startswith(FAST + ".")
    )


ENGINE_BENCHMARKS = {"engine_speed", "world_sampler", "luck_cost"}
"""The benchmarks that time the compiled engine's internals (docs/fast.md, "The public face"): its own, and the luck
adjustment's, whose ``--reference-steps`` puts the reference's steps of the Letters' posterior in place of the
compiled ones."""


def test_the_other_benchmarks_use_the_compiled_engine_through_its_public_face_only() -> None:
    scripts = {p.stem: p for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in ENGINE_BENCHMARKS}
    graph = {f"benchmarks.{stem}": _imports(f"benchmarks.{stem}", path) for stem, path in scripts.items()}
    assert len(graph) >= 5 and _private_fast_imports(graph, "benchmarks") == []


def test_the_agents_use_the_compiled_engine_through_its_public_face_only() -> None:
    users = [m for m, targets in GRAPH.items() if m.startswith("agents") and FAST in targets]
    assert len(users) >= 10, "the search bots, the evaluations and the trainers all use the compiled engine"
    assert _private_fast_imports(GRAPH) == []


def test_the_public_face_rule_finds_an_import_of_the_engine_internals(tmp_path: Path) -> None:
    """The scanner and the rule on a made-up agents module, so that the rule above cannot pass by seeing nothing."""
    source = tmp_path / "made_up.py"
    source.write_text(
        "from gubs_env.fast import FastGames, layout\n"
        "from gubs_env.fast.core import tables as T\n"
        "def f():\n"
        "    from gubs_env.fast import kernels\n"
        "    import gubs_env.fast.determinize\n"
    )
    graph = {"agents.bots.made_up": _imports("agents.bots.made_up", source), "gubs_env.fast.made_up": {FAST + ".core"}}
    assert graph["agents.bots.made_up"] == {FAST, FAST + ".core.tables", FAST + ".kernels", FAST + ".determinize"}
    assert _private_fast_imports(graph) == [
        f"agents.bots.made_up imports {FAST}.core.tables",
        f"agents.bots.made_up imports {FAST}.determinize",
        f"agents.bots.made_up imports {FAST}.kernels",
    ]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in graph:
                continue
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_room_rules_catch_an_upward_import() -> None:
    assert "agents.bots" not in ALLOWED["gubs_env.engine"] | ALLOWED["gubs_env"]
    assert _room("gubs_env.engine.cards.effects") == "gubs_env.engine"
    assert _room("gubs_env.demo") == "gubs_env"


def test_every_data_file_in_the_packages_is_installed_with_them() -> None:
    """A non-editable install copies only what pyproject's package-data lists: the shipped models must be in it."""
    import fnmatch
    import subprocess
    import sys

    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")  # pytest needs tomli on 3.10
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(
        ["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    data = [path for path in tracked if not path.endswith(".py")]
    assert data, "the shipped models are data files of agents.bots"
    for path in data:
        matches = [
            package
            for package, patterns in listed.items()
            for pattern in patterns
            if fnmatch.fnmatch(path, package.replace(".", "/") + "/" + pattern)
        ]
        assert matches, f"{path} is not in [tool.setuptools.package-data]"


def test_measurements_live_in_benchmarks_and_the_packages_never_import_them() -> None:
    """Benchmarks and experiment scripts are in benchmarks/, not in the packages or docs/ (Sphinx's conf.py aside)."""
    measuring = {m for m in MODULES if m.rsplit(".", 1)[-1] in ("bench", "levers", "vine")}
    assert measuring == set()
    assert [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.py")] == ["docs/conf.py"]
    importing = [name for name, path in MODULES.items() if "benchmarks" in _top_level_imports(path)]
    assert importing == []


def _top_level_imports(path: Path) -> set[str]:
    """The top-level package of every import in a file (relative ones excluded)."""
    tops = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            tops.add(node.module.split(".")[0])
    return tops
