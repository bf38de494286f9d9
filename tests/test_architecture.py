"""The house stays true: the layers of docs/architecture.md, read from the import graph (tests/import_graph.py).

Each rule fails with the offending imports listed (file:line), so a new import that runs the wrong way names
itself. Nothing is imported: the graph is read with `ast`.
"""

from __future__ import annotations

import ast
import re
import sys

import pytest

from import_graph import (LAYERS, PACKAGE, ROOT, cycles, edges, group, modules, private_crossings, unexplained_lazy,
                          upward)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

EDGES = edges()
MAX_LINES = 400


def test_no_import_cycles():
    found = cycles(EDGES)
    assert not found, "import cycles (imports inside functions count):\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_import_runs_up_or_sideways():
    bad = upward(EDGES)
    assert not bad, "imports of a higher layer or a same-layer neighbour (docs/architecture.md):\n" + "\n".join(
        f"  {e.where}: {group(e.source)} imports {e.target}" for e in bad)


def test_no_private_name_crosses_modules():
    bad = private_crossings(EDGES)
    assert not bad, "private names imported from another module (make them public):\n" + "\n".join(
        f"  {e.where}: {e.target} {', '.join(e.names)}" for e in bad)


def test_every_function_level_import_says_why():
    bad = unexplained_lazy(EDGES)
    assert not bad, "imports inside functions without a comment saying why (hoist them, or say what they keep " \
        "off the warm path):\n" + "\n".join(f"  {e.where}: {e.target}" for e in bad)


def test_every_package_has_a_layer():
    packages = {group(m) for m in modules()}
    layered = {name for names in LAYERS for name in names}
    assert packages <= layered, f"packages missing from the layer table: {sorted(packages - layered)}"
    assert not layered - packages - {"__init__", "__main__"}, f"layers naming no package: {sorted(layered - packages)}"


_REEXPORT_NODES = (ast.ImportFrom, ast.Import)
_REEXPORT_NAMES = re.compile(r"^(__all__|_EXPORTS|_HOMES)$")


def _is_reexport(node: ast.stmt) -> bool:
    if isinstance(node, _REEXPORT_NODES):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return True  # the docstring
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) and _REEXPORT_NAMES.match(t.id) for t in targets)
    if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
        return all(isinstance(n, _REEXPORT_NODES) for n in node.body)
    # The lazy re-export of a name (`__getattr__` importing it on first use) and `__dir__` for completion.
    return isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")


@pytest.mark.parametrize("init", sorted(PACKAGE.rglob("__init__.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_package_init_only_reexports(init):
    tree = ast.parse(init.read_text())
    logic = [f"{init.relative_to(ROOT)}:{node.lineno}" for node in tree.body if not _is_reexport(node)]
    assert not logic, "an __init__.py holds a docstring and re-exports only; move this into a named module: " + \
        ", ".join(logic)


def test_modules_stay_small():
    big = {str(path.relative_to(ROOT)): n for path in PACKAGE.rglob("*.py")
           if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines (split by idea): {big}"


def test_pyproject_ships_every_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {"ttinspect." + str(p.parent.relative_to(PACKAGE)).replace("/", ".") if p.parent != PACKAGE
               else "ttinspect" for p in PACKAGE.rglob("__init__.py")}
    assert folders <= listed, f"packages a non-editable install would miss: {sorted(folders - listed)}"


def test_the_graph_reader_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The rules above are only as good as the reader: a planted cycle, an upward import, a private name (imported,
    or read as a module's attribute) and a silent lazy import are each found (a reader that saw nothing would
    pass every test here)."""
    import import_graph as graph

    package = tmp_path / "ttinspect"
    for folder, text in {
        "errors.py": "from ttinspect.render.view import show\n",
        "render/__init__.py": "",
        "render/view.py": "from ttinspect.errors import _secret\n\ndef show():\n    from ttinspect.facts import x\n",
        "facts/__init__.py": "",
        "facts/x.py": "def f():\n    # keeps the warm path light\n    from ttinspect.render import view\n"
                      "    return view._hidden\n",
    }.items():
        (package / folder).parent.mkdir(parents=True, exist_ok=True)
        (package / folder).write_text(text)
    monkeypatch.setattr(graph, "ROOT", tmp_path)
    monkeypatch.setattr(graph, "PACKAGE", package)
    found = graph.edges()
    assert graph.cycles(found) == [["ttinspect.errors", "ttinspect.facts.x", "ttinspect.render.view"]]
    assert {(e.source, e.target) for e in graph.upward(found)} == {
        ("ttinspect.errors", "ttinspect.render.view"), ("ttinspect.facts.x", "ttinspect.render.view")}
    assert {(e.source, e.names) for e in graph.private_crossings(found)} == {
        ("ttinspect.render.view", ("_secret",)), ("ttinspect.facts.x", ("_hidden",))}
    assert [e.source for e in graph.unexplained_lazy(found)] == ["ttinspect.render.view"]
