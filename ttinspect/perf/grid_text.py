"""`--launch-grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"`: a grid written as Python arithmetic over the launch's
names (arguments and constexprs), read without `eval`: numbers, names, + - * // / % ( ), tuples, and the calls
cdiv, min, max, triton.cdiv. Anything else is refused in one line."""

from __future__ import annotations

import ast
import operator
from typing import Any, Callable, Mapping

from ttinspect.errors import UsageError

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.floordiv, ast.Mod: operator.mod}
_CALLS: Mapping[str, Callable[..., int]] = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def grid_from_text(text: str) -> Callable[[Mapping[str, Any]], tuple[int, ...]]:
    """The grid callable (meta dict -> 1-3 ints) that the text describes; checked for syntax now."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise UsageError(f"--launch-grid {text!r}: not an expression ({error.msg})") from None

    def grid(meta: Mapping[str, Any]) -> tuple[int, ...]:
        value = _value(tree, meta, text)
        return tuple(value) if isinstance(value, tuple) else (value,)

    return grid


def _value(node: ast.AST, meta: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in meta or not isinstance(meta[node.id], int):
            known = ", ".join(sorted(k for k, v in meta.items() if isinstance(v, int)))
            raise UsageError(f"--launch-grid {text!r}: {node.id} is not an integer of the launch; known: {known}")
        return meta[node.id]
    if isinstance(node, ast.Tuple):
        return tuple(_value(e, meta, text) for e in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left, meta, text), _value(node.right, meta, text))
    if isinstance(node, ast.Call) and not node.keywords:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if isinstance(name, str) and name in _CALLS:
            return _CALLS[name](*(_value(a, meta, text) for a in node.args))
    raise UsageError(f"--launch-grid {text!r}: only numbers, names, + - * // % and cdiv/min/max are read, "
                     f"not {ast.unparse(node)!r}")
