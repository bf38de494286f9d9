"""Whether a Python file declares a name, read statically (`ast`): nothing of the file runs.

A glob such as `kernels = ["**/*.py"]` matches files that are not kernels — a cleanup script, a setup
script, a benchmark that launches on import. Importing a file runs its top-level code, so only the files
that mention the name (`TTINSPECT_EXAMPLES`) as code are ever imported: assigned, imported, annotated, or
spelled as a string (`globals()["TTINSPECT_EXAMPLES"] = ...`, `setattr(module, "TTINSPECT_EXAMPLES", ...)`),
which covers a declaration built dynamically. A comment or a docstring that names it is not a declaration.
A file that is not valid Python counts as declaring when its text holds the name (importing it then says
what is wrong with it, as a failing entry); a file too big to parse cheaply, likewise by its text.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ttinspect.files.source_files import read_regular

_MAX_PARSED_BYTES = 8 << 20  # a kernel file is kilobytes; above this the text alone decides (bounded work)


def mention_line(path: Path, name: str) -> int | None:
    """The line where the file first mentions `name` as code (1-based), or None: no mention, or not a regular
    file (never opened if it is a FIFO or a device)."""
    data = read_regular(path)
    if data is None:
        return None
    if len(data) <= _MAX_PARSED_BYTES:
        try:
            tree = ast.parse(data, filename=str(path))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass  # not Python this interpreter reads: the text decides, and importing it will say why
        else:
            return _first_mention(tree, name)
    return _text_line(data, name)


def _first_mention(tree: ast.AST, name: str) -> int | None:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name \
                or isinstance(node, ast.Attribute) and node.attr == name \
                or isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value == name:
            lines.append(node.lineno)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) \
                and any(name in (alias.name, alias.asname) for alias in node.names):
            lines.append(node.lineno)
    return min(lines) if lines else None


def _text_line(data: bytes, name: str) -> int | None:
    at = data.find(name.encode())
    return None if at < 0 else data.count(b"\n", 0, at) + 1
