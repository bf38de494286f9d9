"""How a kernel's body uses a constexpr parameter, read from its source (`ast`, nothing imported): which are
flags — tested for truth only (`if HAS_BIAS:`, `not EVEN`, `A and B`) — so that advice for a missing one
writes `--set HAS_BIAS=True`, not a number. A constexpr used any other way, or not at all, is not called a
flag (the advice then names no value: the launch site's is the one to give)."""

from __future__ import annotations

import ast
import textwrap
from typing import Iterable


def flags(source: str, names: Iterable[str]) -> frozenset[str]:
    """Those of `names` the function in `source` reads, and reads only as a truth value."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:  # a source Triton compiled parses; one that does not is no reason to fail advice
        return frozenset()
    tests: set[int] = set()  # ids of the expressions in a truth-test position
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            tests.add(id(node.test))
        elif isinstance(node, ast.BoolOp):
            tests.update(id(value) for value in node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests.add(id(node.operand))
    wanted = set(names)
    uses: dict[str, list[bool]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in wanted and isinstance(node.ctx, ast.Load):
            uses.setdefault(node.id, []).append(id(node) in tests)
    return frozenset(name for name, tested in uses.items() if all(tested))
