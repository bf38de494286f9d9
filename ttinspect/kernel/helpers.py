"""Which `@triton.jit` functions of a file are device helpers rather than kernels, read from their source
with `ast` (pure: no triton import).

A kernel is what a launch runs: it returns nothing (Triton cannot lower a kernel's `return VALUE`: "failed
to legalize operation 'tt.return'"). A helper is a device function the file's kernels call, often
returning a value. The rule, the same for every file:
- a function that returns a value is a helper: it cannot be launched;
- a function another jit function of the file calls is a helper too, though one that returns nothing
  still compiles on its own (it is then both);
- everything else is a kernel, the one to suggest.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Role:
    """What one jit function is within its file."""

    called_by: tuple[str, ...]  # the file's jit functions that call it, in the file's order
    returns_value: bool  # it has a `return VALUE`: a device function, never a kernel

    @property
    def helper(self) -> bool:
        return self.returns_value or bool(self.called_by)

    @property
    def launchable(self) -> bool:
        return not self.returns_value

    def describe(self) -> str:
        """"helper: called by a, b" / "helper: returns a value" / "" for a kernel."""
        if self.called_by:
            return "helper: called by " + ", ".join(self.called_by)
        return "helper: returns a value" if self.returns_value else ""


def _function(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    return next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _own_nodes(function: ast.AST):
    """The nodes of a function's body, not those of functions or lambdas nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def returns_value(source: str) -> bool:
    """True when the function in `source` has a `return VALUE` (`return` and `return None` do not count)."""
    function = _function(source)
    if function is None:
        return False
    return any(isinstance(node, ast.Return) and node.value is not None
               and not (isinstance(node.value, ast.Constant) and node.value.value is None)
               for node in _own_nodes(function))


def called_names(source: str) -> set[str]:
    """The bare names the function in `source` calls (`silu(x)` → "silu"; `tl.sum(x)` is not a bare name)."""
    function = _function(source)
    if function is None:
        return set()
    return {node.func.id for node in _own_nodes(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def roles(sources: Mapping[str, str]) -> dict[str, Role]:
    """Name → Role for the jit functions of one file, given as name → source text (the file's order)."""
    calls = {name: called_names(source) for name, source in sources.items()}
    return {name: Role(tuple(caller for caller in sources if caller != name and name in calls[caller]),
                       returns_value(source))
            for name, source in sources.items()}


def first_kernel(names: list[str], found: Mapping[str, Role]) -> str | None:
    """The first name that is a kernel (no helper), else the first launchable one, else None."""
    kernels = [name for name in names if name in found and not found[name].helper]
    launchable = [name for name in names if name in found and found[name].launchable]
    found_any = kernels or launchable
    return found_any[0] if found_any else None
