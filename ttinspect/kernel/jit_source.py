"""Where a @triton.jit function's body comes from, as Triton reads it: the file and the line of its `def`
(Triton's AST of the body starts there: decorators are not in it), and the names the body sees beyond its own.
A compile error's lines (compile/failures.py) and the written-parameters analysis (pointer_origins.py) read both."""

from __future__ import annotations

import inspect
from typing import Any


def def_location(jit_function: Any) -> tuple[str, int]:
    """The function's file and the line of its `def`. Where its file cannot be read again now, what Triton kept
    when it read it: `file_name`, and `def_file_line_number` (3.9) or the first line of the source it kept
    (`starting_line_number` + `raw_src`, before); ("<unknown>", 1) where neither says."""
    python: Any = getattr(jit_function, "fn", None)
    lines: list[str]
    start: Any
    file: Any
    try:
        lines, start = inspect.getsourcelines(python)
        file = inspect.getsourcefile(python) or "<unknown>"
    except (OSError, TypeError):
        file = getattr(jit_function, "file_name", None) or getattr(getattr(python, "__code__", None),
                                                                   "co_filename", "<unknown>")
        kept = getattr(jit_function, "def_file_line_number", None)
        if isinstance(kept, int):
            return file, kept
        start, raw = getattr(jit_function, "starting_line_number", None), getattr(jit_function, "raw_src", None)
        if not isinstance(start, int):
            return file, 1
        lines = raw.splitlines() if isinstance(raw, str) else list(raw or ())
    offset = next((i for i, text in enumerate(lines) if text.lstrip().startswith(("def ", "async def "))), 0)
    return file, start + offset


def capture_scope(python: Any) -> dict[str, Any]:
    """The names a function's body sees beyond its own, as Triton looks them up (JITFunction.get_capture_scope):
    its module's globals, and over them the variables its closure captured (a kernel made inside a factory
    function may call a helper the factory was given, under a name the module also defines)."""
    scope = dict(getattr(python, "__globals__", None) or {})
    cells = getattr(python, "__closure__", None) or ()
    for name, cell in zip(getattr(getattr(python, "__code__", None), "co_freevars", ()), cells, strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # a cell not yet filled: the name is nothing to look up
            scope.pop(name, None)
    return scope
