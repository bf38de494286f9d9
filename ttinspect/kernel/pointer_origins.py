"""The origins of the values in one @triton.jit function's body, read from its Python source (`ast`): for
each value, the parameters a pointer in it may derive from, and UNTRACED for a pointer that derives from none
(an integer cast to a pointer type, a value loaded through such a pointer). What the body writes through (a
store's, an atomic's, a descriptor's store's pointer; a parameter's address stored as a value escapes) and what
it returns, in those origins: one function's summary, which kernel/written_params.py reads for a kernel and for
each @jit helper it calls.

Origins follow assignment, tuple unpacking, loops and `if` flow-insensitively (a name holds what any of its
assignments gives it, to a fixed point), arithmetic, `tl.where`, block pointers and tensor descriptors. Anything
not understood (a builtin kernel/triton_effects.py does not list, a call to a function given as a parameter, a
statement Triton's own front end would not take) raises NotUnderstood, saying what and at which file:line."""

from __future__ import annotations

import ast
import inspect
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ttinspect.kernel import triton_effects as effects
from ttinspect.kernel.jit_source import capture_scope, def_location

UNTRACED = "<untraced>"  # an origin: a pointer not derived from any parameter
EMPTY: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Summary:
    """One @jit function's effect in its own parameters' names (UNTRACED among them where it applies)."""
    written: frozenset[str]
    returns: frozenset[str]
    unknown: str | None  # why everything counts as written (None: `written` is the whole answer)
    untraced_at: str | None = None  # where it writes through a pointer of no parameter (file:line)


class NotUnderstood(Exception):
    """Something in the body the analysis cannot follow: every parameter counts as written."""


def name_of(function: Any) -> str:
    return str(getattr(getattr(function, "fn", function), "__name__", "the kernel"))


class Origins:
    """The origins of every name in one function's body, and what the body writes through and returns."""

    def __init__(self, function: Any, definition: ast.FunctionDef, summarize: Callable[[Any], Summary],
                 functions: Mapping[str, Any] | None = None):
        self.function, self.definition, self.summarize = function, definition, summarize  # a helper's summary
        self.functions = dict(functions or {})  # parameters called as functions: what the launch gave them
        python = getattr(function, "fn", None)
        self.globals = capture_scope(python)
        self.params = [a.arg for a in (*definition.args.posonlyargs, *definition.args.args,
                                       *definition.args.kwonlyargs)]
        self.env: dict[str, frozenset[str]] = {name: frozenset({name}) for name in self.params}
        self.written: set[str] = set()
        self.returns: set[str] = set()
        self.untraced_at: str | None = None
        self.file, self.first_line = def_location(function)

    def run(self) -> tuple[frozenset[str], frozenset[str]]:
        if self.definition.args.vararg or self.definition.args.kwarg:
            raise self.not_understood(self.definition, "takes *args or **kwargs")
        while True:  # origins only grow, over a finite set: a fixed point
            before = (dict(self.env), len(self.written), len(self.returns))
            self.block(self.definition.body)
            if before == (self.env, len(self.written), len(self.returns)):
                return frozenset(self.written), frozenset(self.returns)

    def where(self, node: ast.AST) -> str:
        return f"{self.file}:{self.first_line + getattr(node, 'lineno', 1) - 1}"

    def not_understood(self, node: ast.AST, what: str) -> NotUnderstood:
        return NotUnderstood(f"{name_of(self.function)} {what} ({self.where(node)})")

    # statements

    def block(self, statements: Iterable[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            origins = self.value(node.value)
            for target in node.targets:
                self.assign(target, node.value, origins)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            if node.value is not None:
                origins = self.value(node.value)
                if isinstance(node, ast.AugAssign):
                    origins |= self.value(node.target)
                self.assign(node.target, node.value, origins)
        elif isinstance(node, ast.Expr):
            self.value(node.value)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.returns |= self.value(node.value)
        elif isinstance(node, (ast.If, ast.While)):
            self.value(node.test)
            self.block(node.body)
            self.block(node.orelse)
        elif isinstance(node, ast.For):
            self.assign(node.target, None, self.value(node.iter))
            self.block(node.body)
            self.block(node.orelse)
        elif isinstance(node, ast.With):
            for item in node.items:
                origins = self.value(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, None, origins)
            self.block(node.body)
        elif isinstance(node, ast.Assert):
            self.value(node.test)
        elif isinstance(node, ast.Raise):  # ends the compile: no launch runs past it
            pass
        elif not isinstance(node, (ast.Pass, ast.Break, ast.Continue)):
            raise self.not_understood(node, f"has a `{type(node).__name__}` statement")

    def assign(self, target: ast.expr, value: ast.expr | None, origins: frozenset[str]) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = self.env.get(target.id, EMPTY) | origins
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is None or len(values) != len(target.elts) or \
                    any(isinstance(e, ast.Starred) for e in (*values, *target.elts)):
                values = None  # not `a, b = x, y`: each name may hold any of it
            for i, element in enumerate(target.elts):
                self.assign(element, None, self.value(values[i]) if values is not None else origins)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, origins)
        else:
            raise self.not_understood(target, f"assigns to `{ast.unparse(target)}`")

    # expressions

    def value(self, node: ast.expr) -> frozenset[str]:
        """The origins of what `node` evaluates to; its calls' writes are recorded on the way."""
        if isinstance(node, ast.Constant):
            return EMPTY
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return frozenset({UNTRACED}) if effects.is_pointer_type(self.resolve(node)) else EMPTY
        if isinstance(node, ast.Attribute):
            if node.attr == "element_ty":  # the element type of a pointer not made by a cast is a scalar type
                return EMPTY if UNTRACED not in self.value(node.value) else frozenset({UNTRACED})
            if node.value is not None and not self.is_local(node.value):
                return frozenset({UNTRACED}) if effects.is_pointer_type(self.resolve(node)) else EMPTY
            return self.value(node.value)  # `x.dtype` is a pointer type where x is a pointer
        if isinstance(node, ast.Subscript):
            self.value(node.slice)
            return self.value(node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            return self.union(node.elts)
        if isinstance(node, ast.Starred):
            return self.value(node.value)
        if isinstance(node, ast.BinOp):
            return self.value(node.left) | self.value(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.value(node.operand)
        if isinstance(node, ast.BoolOp):
            return self.union(node.values)
        if isinstance(node, ast.Compare):  # a truth value, never a pointer
            self.union([node.left, *node.comparators])
            return EMPTY
        if isinstance(node, ast.IfExp):
            self.value(node.test)
            return self.value(node.body) | self.value(node.orelse)
        if isinstance(node, ast.Slice):
            self.union([part for part in (node.lower, node.upper, node.step) if part is not None])
            return EMPTY
        if isinstance(node, ast.NamedExpr):
            origins = self.value(node.value)
            self.assign(node.target, node.value, origins)
            return origins
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.JoinedStr):
            return EMPTY
        raise self.not_understood(node, f"has a `{type(node).__name__}` expression")

    def union(self, nodes: Iterable[ast.expr]) -> frozenset[str]:
        found: frozenset[str] = EMPTY
        for node in nodes:
            found |= self.value(node)
        return found

    def is_local(self, node: ast.expr) -> bool:
        """Whether the expression's root name is one of the body's (a parameter or an assigned name)."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return not isinstance(node, ast.Name) or node.id in self.env or self.assigned(node.id)

    def assigned(self, name: str) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                   for n in ast.walk(self.definition))

    def resolve(self, node: ast.expr) -> Any:
        """The object a module-level name or a dotted path of one names (`tl.store`, `helpers.tile`); None
        for a local name or what cannot be looked up."""
        if isinstance(node, ast.Name):
            if node.id in self.env or self.assigned(node.id):
                return None
            if node.id in self.globals:
                return self.globals[node.id]
            builtins = self.globals.get("__builtins__")
            found = getattr(builtins, node.id, None) if not isinstance(builtins, dict) else builtins.get(node.id)
            return found
        if isinstance(node, ast.Attribute):
            owner = self.resolve(node.value)
            return getattr(owner, node.attr, None) if owner is not None else None
        return None

    def call(self, node: ast.Call) -> frozenset[str]:
        args = [self.value(a) for a in node.args]
        keywords = {k.arg: self.value(k.value) for k in node.keywords}
        everything = frozenset().union(*args, *keywords.values())
        shown = ast.unparse(node.func)
        if isinstance(node.func, ast.Name) and node.func.id in self.functions and not self.assigned(node.func.id):
            given = self.functions[node.func.id]
            if given is None:  # a call of None fails the compile: no launch runs it (`if F is not None: F(x)`)
                return EMPTY
            if effects.is_jit_function(given):
                return self.follow(node, given, args, keywords)
        if isinstance(node.func, ast.Attribute) and self.is_local(node.func.value):
            return self.method(node, node.func.attr, self.value(node.func.value), args, keywords, everything)
        callee = self.resolve(node.func)
        builtin = effects.builtin_name(callee) if callee is not None else self.spelled_builtin(node.func)
        if builtin is None and callee is not None and getattr(callee, "__module__", None) == "builtins" and \
                getattr(callee, "__name__", None) in effects.PYTHON_BUILTINS:
            return everything
        if effects.is_jit_function(callee) and builtin not in effects.COMPUTES:  # the language's own @jit
            return self.follow(node, callee, args, keywords)  # helpers too (tl.standard's), unless listed
        if builtin in effects.COMPUTES:
            return everything
        if builtin in effects.READS:
            return self.loaded(everything)
        if builtin in effects.WRITES:
            return self.writes(node, args[0] if args else keywords.get("pointer", keywords.get("desc", EMPTY)),
                               everything)
        if builtin in effects.CASTS:
            dtype = node.args[1] if len(node.args) > 1 else _keyword(node, "dtype")
            return (args[0] if args else keywords.get("input", EMPTY)) | self.cast_to(dtype)
        if builtin in effects.POINTER_TYPES:
            return frozenset({UNTRACED})
        if builtin in effects.COMBINES:
            self.combined(node, builtin)
            return everything
        raise self.not_understood(node, f"calls {shown}, which is not understood")

    def spelled_builtin(self, func: ast.expr) -> str | None:
        """`tl.advance` where this Triton's language has no such name (3.9 removed block pointers): the name as
        spelled on the language module, so the tables of every release's builtins still read it; None else."""
        if not isinstance(func, ast.Attribute):
            return None
        owner = self.resolve(func.value)
        module = getattr(owner, "__name__", None) if isinstance(owner, types.ModuleType) else None
        is_language = module == effects.LANGUAGE or (module or "").startswith(effects.LANGUAGE + ".")
        return func.attr if is_language else None

    def method(self, node: ast.Call, name: str, receiver: frozenset[str], args: list[frozenset[str]],
               keywords: dict[str | None, frozenset[str]], everything: frozenset[str]) -> frozenset[str]:
        if name in effects.METHOD_CASTS:
            dtype = node.args[0] if node.args else _keyword(node, "dtype")
            return receiver | self.cast_to(dtype)
        if name in effects.METHOD_WRITES:
            return self.writes(node, receiver, receiver | everything)
        if name in effects.METHOD_READS:
            return self.loaded(receiver | everything)
        if name in effects.METHOD_COMPUTES:
            return receiver | everything
        raise self.not_understood(node, f"calls {ast.unparse(node.func)}, which is not understood")

    def loaded(self, through: frozenset[str]) -> frozenset[str]:
        """What a load gives: values, unless the pointer was made by a cast (it may point to pointers)."""
        return frozenset({UNTRACED}) if UNTRACED in through else EMPTY

    def writes(self, node: ast.AST, pointer: frozenset[str], everything: frozenset[str]) -> frozenset[str]:
        """A store through `pointer`: its origins are written (a pointer of none is untraced), and a
        parameter's address stored as a value escapes (whoever loads it may write through it)."""
        self.written.update(pointer or {UNTRACED})
        if UNTRACED in pointer or not pointer:
            self.untraced_at = self.untraced_at or self.where(node)
        self.written.update(everything - {UNTRACED})
        return self.loaded(everything)

    def cast_to(self, dtype: ast.expr | None) -> frozenset[str]:
        """What a cast adds: nothing for a scalar type; UNTRACED for a type that may be a pointer type."""
        if dtype is None:
            return frozenset({UNTRACED})
        if isinstance(dtype, ast.Attribute) and dtype.attr == "element_ty":
            return self.value(dtype)
        if not self.is_local(dtype) and effects.is_scalar_type(self.resolve(dtype)):
            return EMPTY
        return frozenset({UNTRACED})

    def combined(self, node: ast.Call, name: str) -> None:
        """tl.reduce / associative_scan / map_elementwise run a @jit function of their own on values: it must be
        one this module can read, and write nothing."""
        keyword = _keyword(node, "scalar_fn" if name == "map_elementwise" else "combine_fn")
        position = 0 if name == "map_elementwise" else 2
        operand = keyword if keyword is not None else node.args[position] if len(node.args) > position else None
        function = self.resolve(operand) if operand is not None and not self.is_local(operand) else None
        if not effects.is_jit_function(function):
            raise self.not_understood(node, f"calls {name} with a function not known before the launch")
        summary = self.summarize(function)
        if summary.unknown is not None or summary.written:
            raise self.not_understood(node, f"calls {name} with {name_of(function)}, which may write")

    def follow(self, node: ast.Call, callee: Any, args: list[frozenset[str]],
               keywords: dict[str | None, frozenset[str]]) -> frozenset[str]:
        """A call into another @jit function: its summary, in this function's origins."""
        summary = self.summarize(callee)
        if summary.unknown is not None:
            raise self.not_understood(node, f"calls {name_of(callee)}, where {summary.unknown}")
        try:
            names = list(inspect.signature(callee.fn).parameters)
        except (TypeError, ValueError):
            raise self.not_understood(node, f"calls {name_of(callee)}, whose parameters cannot be read") from None
        bound: dict[str, frozenset[str]] = {}
        if any(isinstance(a, ast.Starred) for a in node.args) or None in keywords:
            everything = frozenset().union(*args, *keywords.values())
            bound = {name: everything for name in names}  # spread: each parameter may be any of them
        else:
            bound.update(zip(names, args, strict=False))  # more than it takes: Triton refuses the call
            bound.update({k: v for k, v in keywords.items() if k is not None})

        def mapped(origins: frozenset[str]) -> frozenset[str]:
            return frozenset().union(*({o} if o == UNTRACED else bound.get(o, EMPTY) for o in origins))

        written = mapped(summary.written)
        if summary.written and not written:
            written = frozenset({UNTRACED})  # it writes through something this call gave it no origin for
        if UNTRACED in written:
            self.untraced_at = self.untraced_at or summary.untraced_at or self.where(node)
        self.written.update(written)
        return mapped(summary.returns)


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)

