"""A kernel defined in the program's own script: a capture's compile record whose module was `__main__`
(`ttinspect capture -- python train.py`, the kernel in train.py). Importing that file would run the program
again — its launches, its synchronizations, its prints — which is neither possible offline nor wanted. So
such a file is loaded for its *definitions*: its imports, functions, classes, assignments and the
`if`/`try` blocks that choose among them run; the statements that only act — a bare call (`print(...)`,
`main()`, `benchmark.run()`), a loop, a `with` block — are left out; and a kernel launched while it loads (an
assignment that calls a function that launches, as tutorials write `output = add(x, y)`) is not run.

Line numbers stay the file's own (the statements kept are compiled from the file's syntax tree), so errors,
source lines and the kernels' own text are the file's.
"""

from __future__ import annotations

import ast
import contextlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

# statements that bind names a kernel or its decorators may read; everything else at the top level only acts
_DEFINES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
            ast.AnnAssign, ast.AugAssign, ast.If, ast.Try, ast.Global)


def _kept(body: list[ast.stmt]) -> list[ast.stmt]:
    kept: list[ast.stmt] = []
    for index, node in enumerate(body):
        is_docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if is_docstring or isinstance(node, _DEFINES):
            if isinstance(node, ast.If):  # a choice among definitions: its branches are filtered alike
                node.body = _kept(node.body) or [ast.Pass(lineno=node.lineno, col_offset=node.col_offset)]
                node.orelse = _kept(node.orelse)
            kept.append(node)
    return kept


def definitions(path: Path) -> ast.Module:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    tree.body = _kept(tree.body)
    return tree


@contextlib.contextmanager
def launches_skipped() -> Iterator[None]:
    """`kernel[grid](...)` does nothing while the script's definitions load (triton is imported by then)."""
    jit = sys.modules.get("triton.runtime.jit")
    interface = getattr(jit, "KernelInterface", None)
    if interface is None:
        yield
        return
    original = interface.__getitem__

    def not_launched(self: Any, grid: Any) -> Any:
        return lambda *args, **kwargs: None
    interface.__getitem__ = not_launched
    try:
        yield
    finally:
        interface.__getitem__ = original


def run_definitions(module: ModuleType, path: Path) -> None:
    """Execute `path`'s definitions in `module` (set up as the loader would: name, file, sys.modules)."""
    code = compile(definitions(path), str(path), "exec")
    with launches_skipped():
        exec(code, vars(module))  # noqa: S102 - the user's own file, as importing it would
