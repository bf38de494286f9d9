"""ttinspect's import graph, read with `ast` (nothing is imported): what tests/test_architecture.py checks and
`python tests/import_graph.py` prints (the layers, then every edge that breaks a rule).

An edge is one `import`/`from ... import` of a ttinspect module by another, at module level or inside a
function (`if TYPE_CHECKING:` blocks are left out: they never run). `from pkg import name` where `pkg.name` is
a module is an edge to that module.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ttinspect"

# The layers, lowest first: a package may import its own modules and those of the layers below it, never one
# above nor a neighbour in its own layer (docs/architecture.md says what each owns). Root modules count as
# packages of their own name.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("files",),
    ("dialects", "targets"),
    ("kernel",),
    ("virtual",),
    ("capture",),
    ("caches",),
    ("compile",),
    ("toolchains",),
    ("engine",),
    ("refs",),
    ("facts", "source"),
    ("backends",),
    ("report",),
    ("passes",),
    ("check", "compare"),
    ("api",),
    ("render",),
    ("ci",),
    ("html",),
    ("sweep", "gpu", "versions"),
    ("perf",),
    ("snapshot", "mcpserver"),
    ("cli", "pytest_plugin"),
    ("__main__", "__init__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


@dataclass(frozen=True)
class Edge:
    source: str          # importing module, dotted
    target: str          # imported module, dotted
    line: int
    in_function: bool
    names: tuple[str, ...]  # the names a `from` import takes
    reason: str          # the comment on the import's line or the line above ("" if none)

    @property
    def where(self) -> str:
        return f"{self.source.replace('.', '/')}.py:{self.line}"


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def group(module: str) -> str:
    """The layer unit a module belongs to: its package under ttinspect, or the root module's own name."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _comment(lines: list[str], line: int) -> str:
    text = lines[line - 1]
    if "#" in text:
        return text[text.index("#") + 1:].strip()
    # A comment above a block of imports speaks for each of them.
    above = line - 2
    while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
        above -= 1
    text = lines[above].strip() if above >= 0 else ""
    return text[1:].strip() if text.startswith("#") else ""


def edges() -> list[Edge]:
    mods = modules()
    found: list[Edge] = []
    for module, path in mods.items():
        text = path.read_text()
        lines = text.splitlines()
        is_package = path.name == "__init__.py"
        bound: dict[str, tuple[str, bool]] = {}  # a local name bound to a ttinspect module -> (module, in function)

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    for orelse in child.orelse:
                        visit(orelse, in_function)
                    continue
                inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.ImportFrom):
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    if child.level:
                        base = base[: len(base) - (child.level - 1)]
                        target = ".".join(base + ([child.module] if child.module else []))
                    else:
                        target = child.module or ""
                    if target.split(".")[0] == "ttinspect":
                        plain = []
                        for alias in child.names:
                            if f"{target}.{alias.name}" in mods:
                                bound[alias.asname or alias.name] = (f"{target}.{alias.name}", in_function)
                                found.append(Edge(module, f"{target}.{alias.name}", child.lineno, in_function,
                                                  (), _comment(lines, child.lineno)))
                            else:
                                plain.append(alias.name)
                        if plain:
                            found.append(Edge(module, target, child.lineno, in_function, tuple(plain),
                                              _comment(lines, child.lineno)))
                elif isinstance(child, ast.Import):
                    for alias in child.names:
                        if alias.name.split(".")[0] == "ttinspect":
                            if alias.asname:
                                bound[alias.asname] = (alias.name, in_function)
                            found.append(Edge(module, alias.name, child.lineno, in_function, (),
                                              _comment(lines, child.lineno)))
                visit(child, inside)

        tree = ast.parse(text)
        visit(tree, False)
        # `module._private` through a module bound by an import counts as importing that private name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                target, in_function = bound[node.value.id]
                found.append(Edge(module, target, node.lineno, in_function, (node.attr,), "attribute access"))
    return found


def cycles(all_edges: list[Edge]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for edge in all_edges:
        if edge.target != edge.source:
            graph.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def upward(all_edges: list[Edge]) -> list[Edge]:
    """Imports of a package in a higher layer, or of a neighbour in the same layer."""
    bad = []
    for edge in all_edges:
        source, target = group(edge.source), group(edge.target)
        if source == target or target == "__init__" and edge.target == "ttinspect":
            continue
        if source not in RANK or target not in RANK or RANK[target] >= RANK[source]:
            bad.append(edge)
    return bad


def private_crossings(all_edges: list[Edge]) -> list[Edge]:
    """`from other_module import _private`: a name its own module keeps to itself."""
    return [edge for edge in all_edges
            if edge.source != edge.target and any(name.startswith("_") for name in edge.names)]


def unexplained_lazy(all_edges: list[Edge]) -> list[Edge]:
    """Imports inside functions with no comment saying why (a warm path kept light, a heavy dependency)."""
    return [edge for edge in all_edges if edge.in_function and not edge.reason]


if __name__ == "__main__":
    everything = edges()
    for names in LAYERS:
        print("  " + " | ".join(names))
    for component in cycles(everything):
        print("cycle:", " -> ".join(component))
    for edge in upward(everything):
        print(f"upward: {edge.where} {group(edge.source)} -> {edge.target}")
    for edge in private_crossings(everything):
        print(f"private: {edge.where} {edge.target} {', '.join(edge.names)}")
    lazy = unexplained_lazy(everything)
    print(f"{len(lazy)} function-level imports without a reason")
