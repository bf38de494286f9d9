"""Which exceptions the code around a line of Python catches, read from its source (`ast`, nothing run): the
handlers of every `try` whose body holds the line, and `contextlib.suppress(...)` blocks around it. A stand-in
asks it whether the code has a way on without what it stands in for — code that catches the failure takes
its fallback, as it would on a machine where the failure is real."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

_ANY = "BaseException"  # what a bare `except:` catches


def exception_names(node: ast.expr | None) -> set[str]:
    """`except (OSError, subprocess.CalledProcessError)` -> {"OSError", "CalledProcessError"}."""
    if node is None:
        return {_ANY}
    kinds = node.elts if isinstance(node, ast.Tuple) else [node]
    return {kind.id if isinstance(kind, ast.Name) else getattr(kind, "attr", "") for kind in kinds} - {""}


def suppressed_names(node: ast.With | ast.AsyncWith) -> set[str]:
    """`with contextlib.suppress(OSError, KeyError):` -> {"OSError", "KeyError"}."""
    caught: set[str] = set()
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", "")) == "suppress":
            for arg in call.args:
                caught |= exception_names(arg)
    return caught


def _holds(node: ast.AST, line: int) -> bool:
    start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    return start is not None and end is not None and start <= line <= end


def _caught(nodes: Sequence[Any], line: int) -> frozenset[str] | None:
    """The names caught around `line` among `nodes` (statements, handlers, match cases); None where none of
    them holds the line."""
    for node in nodes:
        if isinstance(node, ast.match_case):  # a case has no position of its own: its body has
            found = _caught(node.body, line)
            if found is not None:
                return found
            continue
        if not _holds(node, line):
            continue
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            tried: Any = node  # ast.Try or (3.11+) ast.TryStar: the same fields
            if any(_holds(stmt, line) for stmt in tried.body):
                handled = set().union(*(exception_names(h.type) for h in tried.handlers))
                return frozenset(handled) | (_caught(tried.body, line) or frozenset())
            return _caught([*tried.handlers, *tried.orelse, *tried.finalbody], line) or frozenset()
        inner = suppressed_names(node) if isinstance(node, (ast.With, ast.AsyncWith)) else set()
        children = [child for field in ("body", "orelse", "finalbody", "handlers", "cases")
                    for child in getattr(node, field, None) or ()]
        return frozenset(inner) | (_caught(children, line) or frozenset())
    return None


@lru_cache(maxsize=1024)
def caught_at(path: str, line: int) -> frozenset[str]:
    """The exception names (as written: `CalledProcessError`, bare `except:` as BaseException) that the code
    around `path:line` catches; empty where nothing does, or where the file cannot be read or parsed (nothing
    is taken as caught on a guess)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return _caught(list(tree.body), line) or frozenset()
