"""The package's shape holds: one import name, layers that import one way, no import circles.

Read from the source (every import, inside functions too), so a forbidden import fails here
even on a path no other test runs. docs/architecture.md explains the layers.
"""

import ast
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
FOLDERS = PYPROJECT["tool"]["setuptools"]["package-dir"]  # gammon.X -> the folder that holds it

# A layer may import only layers of a lower rank (and itself): engine's layers in order, then the
# parts built on the engine. options and models share a rank: neither may import the other.
RANK = {
    "gammon.engine": 0, "gammon.engine.errors": 0, "gammon.engine.files": 1,
    "gammon.engine.rules": 2, "gammon.engine.cube": 3, "gammon.engine.search": 4,
    "gammon.engine.play": 5, "gammon.engine.records": 6, "gammon.engine.review": 7,
    "gammon.options": 8, "gammon.models": 8, "gammon.training": 9, "gammon.app": 10,
    "gammon.benchmarks": 11, "gammon.__main__": 12,
}
OLD_TOP_NAMES = {"engine", "models", "training", "app", "benchmarks"}
ENGINE_MAY_NOT_IMPORT = {"torch", "tqdm", "argparse", "gnubg_nn", "ray", "fastapi", "uvicorn", "socket"}


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name, found through pyproject's folder map."""
    modules = {}
    for package, folder in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = module_files()


def imported_names(path: Path) -> set[str]:
    """The absolute module names a file imports, at the top or inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import; write gammon.… in full"
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def internal_imports(path: Path) -> set[str]:
    return {name for name in imported_names(path) if name in MODULES}


def layer(module: str) -> str:
    depth = 3 if module.startswith("gammon.engine.") else 2
    return ".".join(module.split(".")[:depth])


def test_every_package_folder_is_mapped_and_listed():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert {name.split(".")[0] for name in listed} == {"gammon"}, "an installed package outside gammon"
    found = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert found == listed, f"not listed: {sorted(found - listed)}; listed, no folder: {sorted(listed - found)}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    if module == "gammon":
        return
    mine = layer(module)
    assert mine in RANK, f"{module} is in no layer of RANK"
    for other in internal_imports(MODULES[module]):
        theirs = layer(other)
        if theirs != mine and theirs != "gammon":
            assert RANK[theirs] < RANK[mine], f"{module} imports {other}: {mine} may not import {theirs}"


def test_no_old_top_level_imports_anywhere():
    files = [*MODULES.values(), *(ROOT / "tests").rglob("*.py")]
    for path in files:
        tops = {name.split(".")[0] for name in imported_names(path)}
        old = sorted(tops & OLD_TOP_NAMES)
        assert not old, f"{path.relative_to(ROOT)} imports {old}: write gammon.…"


def test_the_engine_stays_a_numpy_library():
    for module, path in MODULES.items():
        if module.startswith("gammon.engine"):
            tops = {name.split(".")[0] for name in imported_names(path)}
            assert not tops & ENGINE_MAY_NOT_IMPORT, f"{module} imports {sorted(tops & ENGINE_MAY_NOT_IMPORT)}"


def test_no_import_circles():
    graph = {module: internal_imports(path) - {module} for module, path in MODULES.items()}
    done, on_path = set(), []

    def visit(module):
        if module in on_path:
            circle = on_path[on_path.index(module):] + [module]
            pytest.fail("import circle: " + " -> ".join(circle))
        if module in done:
            return
        on_path.append(module)
        for other in sorted(graph[module]):
            visit(other)
        on_path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_the_checks_see_what_they_check():
    # the walk finds the whole package, and a circle or a wrong-way import would be seen
    assert {"gammon.engine.rules.board", "gammon.app.cli", "gammon.models.players"} <= set(MODULES)
    assert "gammon.engine.rules.board" in internal_imports(MODULES["gammon.engine.rules.movegen"])
    assert "gammon.engine.errors" in internal_imports(MODULES["gammon.engine.rules.board"])


def layer_graph() -> dict[str, set[str]]:
    """Which layer imports which, directly."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        for other in internal_imports(path):
            if layer(other) not in (layer(module), "gammon"):
                graph.setdefault(layer(module), set()).add(layer(other))
    return graph


def drawn_arrows(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The arrows a drawing needs: a direct import no longer path already shows (the transitive reduction)."""

    def reachable(start: str, without: tuple[str, str]) -> set[str]:
        seen, todo = set(), [b for b in graph.get(start, ()) if (start, b) != without]
        while todo:
            here = todo.pop()
            if here not in seen:
                seen.add(here)
                todo.extend(graph.get(here, ()))
        return seen

    def short(name: str) -> str:
        return name.rsplit(".", 1)[-1].strip("_")

    return {(short(a), short(b)) for a, bs in graph.items() for b in bs if b not in reachable(a, (a, b))}


def test_the_drawing_in_docs_is_the_code():
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("```mermaid", 1)[1].split("```", 1)[0]
    drawn = {tuple(line.split(" --> ")) for line in map(str.strip, block.splitlines()) if " --> " in line}
    expected = drawn_arrows(layer_graph())
    assert drawn == expected, f"drawn, not in the code: {sorted(drawn - expected)}; missing: {sorted(expected - drawn)}"
