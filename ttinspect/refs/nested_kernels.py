"""A captured kernel whose `@triton.jit` def sits inside another function (a factory that makes one kernel per
configuration, a kernel cached per GPU): the run compiled it, but no module attribute names it, so it cannot be
looked up. It is made again from its file: its `def` alone (the decorators that wrapped it ran with the factory's
arguments, and the capture holds what they chose), compiled at its own lines in a copy of the module's globals,
then made a JIT function. What it reads from the factory's locals is not in the capture: said in one line, never
guessed."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from types import ModuleType
from typing import Any

from ttinspect.errors import UsageError


def nested_defs(source: str, name: str) -> list[tuple[ast.FunctionDef, str]]:
    """The `def name` statements inside another function, with that function's name, in file order."""
    found: list[tuple[ast.FunctionDef, str]] = []

    def visit(node: ast.AST, enclosing: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if enclosing is not None and child.name == name and isinstance(child, ast.FunctionDef):
                    found.append((child, enclosing))
                visit(child, child.name)
            else:
                visit(child, enclosing)

    visit(ast.parse(source), None)
    return found


def nested_kernel(module: ModuleType, path: Path, name: str) -> Any | None:
    """The kernel `name` defined inside a function of the loaded `module`, made again; None when the file
    defines no such nested `def` (the caller says what is missing)."""
    file = getattr(module, "__file__", None) or str(path)
    try:
        source = Path(file).read_text(encoding="utf-8")
        defs = nested_defs(source, name)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    if not defs:
        return None
    if len(defs) > 1:
        lines = ", ".join(f"{path}:{node.lineno}" for node, _ in defs)
        raise UsageError(f"{path}: {name!r} is defined inside functions at {lines}; which one the run compiled is "
                         "unknown (the capture names it, not its line)")
    node, enclosing = defs[0]
    where = f"{path}:{node.lineno}"
    scope = dict(vars(module))
    missing = [n for n in _names_read(node) if n not in scope and not hasattr(builtins, n)]
    if missing:
        raise UsageError(f"{where}: {name!r} is made inside {enclosing}() and reads {', '.join(missing)} from it; "
                         "those values are not in the capture, so it cannot be compiled again here (unknown)")
    bare = ast.FunctionDef(name=node.name, args=node.args, body=node.body, decorator_list=[], returns=node.returns,
                           type_comment=node.type_comment, **_type_params(node))
    ast.copy_location(bare, node)
    tree = ast.fix_missing_locations(ast.Module(body=[bare], type_ignores=[]))
    try:
        exec(compile(tree, file, "exec"), scope)  # the def statement of the user's own file: its defaults
    except Exception as error:  # noqa: BLE001  the user's default values: any error is theirs, said in one line
        raise UsageError(f"{where}: {name!r} is made inside {enclosing}(); its def alone cannot be made again here "
                         f"({type(error).__name__}: {error})") from None
    from ttinspect.compile.jit import jit_function  # imports triton: only for a nested captured kernel (cold)

    return jit_function(scope[name], gluon=any(_is_gluon(d) for d in node.decorator_list))


def _names_read(node: ast.FunctionDef) -> list[str]:
    """Names the def reads that it does not bind itself (its parameters, assignments, loop targets)."""
    bound = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    bound |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
    read: list[str] = []
    parts = [node.args, *node.body] + ([node.returns] if node.returns else [])  # not the decorators: not re-run
    for sub in (s for part in parts for s in ast.walk(part)):
        if isinstance(sub, ast.Name):
            if isinstance(sub.ctx, (ast.Store, ast.Del)):
                bound.add(sub.id)
            elif sub.id not in read:
                read.append(sub.id)
    return [n for n in read if n not in bound]


def _is_gluon(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return "gluon" in ast.unparse(target)


def _type_params(node: ast.FunctionDef) -> dict[str, Any]:
    """Python 3.12's type parameters, where the running Python has them."""
    return {"type_params": node.type_params} if hasattr(node, "type_params") else {}
