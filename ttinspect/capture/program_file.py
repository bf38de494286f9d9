"""Whether a captured kernel's file is a program — a script that acts when it runs — decided from the file.

A kernel in a program's own script (`python train.py`, the kernel in train.py) is loaded for its
definitions only (refs/program_script.py): importing the file would run the program again — its launches,
its prints, whatever else it does. Which files get that treatment must not be a capture's choice: a capture
may come from someone else, and its `module` field is only a string in it (`"module": "os"` on train.py
would otherwise run the whole script). So the file decides. It is a program when, imported, it would act:
a bare call (`main()`, `kernel[grid](...)`, `print(...)`), a loop or a `with` block at its top level or in
an `if` branch there (`if __name__ == "__main__":` does not count: an import never runs it). A file of a
package (its folder holds `__init__.py`) is imported as Python imports a module, by the name its place in
the package gives it — never by the capture's. The capture's word can only narrow what runs: a record whose
module was `__main__` is loaded for its definitions whatever the file holds.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ttinspect.files.source_files import read_regular

# statements that act when a module runs, where a library's module defines; an expression statement that
# is a constant (a docstring, `...`) does not act
_ACTS = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.test.comparators) != 1:
        return False
    sides = [node.test.left, node.test.comparators[0]]
    return isinstance(node.test.ops[0], ast.Eq) and \
        any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def _acts(body: list[ast.stmt]) -> bool:
    for node in body:
        if isinstance(node, _ACTS) or isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            return True
        if isinstance(node, ast.If) and not _is_main_guard(node) and (_acts(node.body) or _acts(node.orelse)):
            return True
    return False


def is_program(path: str | Path | None) -> bool:
    """Whether the file at `path` acts when imported (a bare call, a loop, a `with` block). False for a file
    that is not here or does not parse: loading it fails the same way either way, and runs nothing."""
    data = read_regular(path) if path else None
    if data is None:
        return False
    try:
        return _acts(ast.parse(data, filename=str(path)).body)
    except (SyntaxError, ValueError):
        return False


def loads_definitions_only(module: str | None, path: str | Path | None) -> bool:
    """The rule in one place: the capture said `__main__` (its word can only narrow what runs), or the file
    is a program that belongs to no package."""
    if module == "__main__":
        return True
    return path is not None and not (Path(path).parent / "__init__.py").is_file() and is_program(path)
