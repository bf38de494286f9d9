"""Def-use chains over a TTIR/TTGIR module, read from its text: which kernel arguments and which loads a
value is computed from. Loop-carried values (`scf.for ... iter_args(%x = %init)`) are followed to their
initial value and to what the loop yields for them, so a pointer advanced in the loop
(`a_ptrs += BLOCK_K * stride_ak`) still reaches its base pointer and its strides."""

from __future__ import annotations

import re
from typing import Any, Iterator
from dataclasses import dataclass
from functools import cached_property

from ttinspect.dialects.locations import without_mlir_location
from ttinspect.dialects.mlir import DEFINITION_RE as _DEF_RE

_USE_RE = re.compile(r'^\s*"?([\w$.]+)"?\s+(.*)$')
_SSA_RE = re.compile(r"%[\w$.-]+")
_ITER_ARG_RE = re.compile(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+)")
# tt.func public @k(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32} loc(...), %n: i32 loc(...))
_INT_CONSTANT_RE = re.compile(r"arith\.constant\s+(?:dense<(-?\d+)>|(-?\d+))\s*:\s*(?:tensor<[\dx]*i\d+>|i\d+)")
_FUNC_ARG_RE = re.compile(r"(%[\w$.-]+):\s*([^,{)]+?)\s*(\{[^}]*\})?\s*loc\(")


def _operands(rest: str) -> tuple[str, ...]:
    """SSA names before the op's type (`: tensor<...>`) and its location."""
    body = without_mlir_location(rest)
    head = body.split(" : ")[0] if " : " in body else body
    return tuple(n.split("#")[0] for n in _SSA_RE.findall(head))


@dataclass(frozen=True)
class Value:
    op: str  # defining op name; "arg" for a kernel argument, "iter" for a loop-carried value
    operands: tuple[str, ...]
    line: int
    type: str = ""  # the result type as printed (`tensor<1x64xi32>`, `i32`); "" when not read


def _result_type(rest: str) -> str:
    body = without_mlir_location(rest)
    return body.rsplit(" : ", 1)[1].strip() if " : " in body else ""


def shape_of(type_text: str) -> tuple[int, ...] | None:
    """`tensor<1x64xi32>` -> (1, 64); a scalar type -> ()."""
    if not type_text.startswith("tensor<"):
        return ()
    dims = []
    for part in type_text[len("tensor<"):].split("x"):
        if not part.isdigit():
            break
        dims.append(int(part))
    return tuple(dims) if dims else None


class Chains:
    def __init__(self, module):
        self.module = module
        self._scopes: dict[str, list[tuple[int | None, str]]] = {}  # name -> (region op, key) of each definition

    @cached_property
    def values(self) -> dict[str, Value]:
        """Value key -> its definition. MLIR scopes names by region: two sibling loops (a helper with a loop,
        inlined twice) may both print `%pivot_88` and `iter_args(%lower_pivot = ...)`. The first definition of
        a name is keyed by the name, a later one by `name@LINE`, and every operand is resolved to the
        definition visible where it is used — so a walk never jumps into the other copy's loop."""
        values: dict[str, Value] = {}
        module = self.module
        yields: dict[int, Any] = {}  # loop op index -> its scf.yield op
        for op in module.ops:
            if op.name == "scf.yield" and op.parent is not None:
                yields[op.parent] = op
        for op in module.ops:  # keys first: a loop's yield may name a value defined after the loop's line
            text = module.text(op)
            if op.name in ("tt.func", "func.func"):
                for m in _FUNC_ARG_RE.finditer(text):
                    self._declare(m[1], op.index)
                continue
            defined = _DEF_RE.match(text)
            if defined:
                self._declare(defined[1], op.parent)
            if op.name == "scf.for" and "iter_args(" in text:
                for name, _ in _ITER_ARG_RE.findall(text.split("iter_args(", 1)[1]):
                    self._declare(name, op.index)
        for op in module.ops:
            text = module.text(op)
            if op.name in ("tt.func", "func.func"):
                for m in _FUNC_ARG_RE.finditer(text):
                    values[self._key(m[1], op)] = Value("arg", (), op.line)
                continue
            defined = _DEF_RE.match(text)
            if defined:
                operands = tuple(self._key(name, op) for name in _operands(defined[3]))
                values[self._key(defined[1], op)] = Value(defined[2], operands, op.line, _result_type(defined[3]))
            if op.name == "scf.for" and "iter_args(" in text:
                yield_op = yields.get(op.index)
                used = _USE_RE.match(module.text(yield_op)) if yield_op is not None else None
                yielded = _operands(used[2]) if used else ()
                carried = _ITER_ARG_RE.findall(text.split("iter_args(", 1)[1])
                for position, (name, init) in enumerate(carried):
                    step = (self._key(yielded[position], yield_op),) if position < len(yielded) else ()
                    values[self._key(name, yield_op or op)] = Value("iter", (self._key(init, op), *step), op.line)
        return values

    def _declare(self, name: str, scope: int | None) -> None:
        """`name` is defined in the region of op `scope` (None: the module)."""
        known = self._scopes.setdefault(name, [])
        if any(s == scope for s, _ in known):
            return
        known.append((scope, name if not known else f"{name}@{len(known)}"))

    def _key(self, name: str, op) -> str:
        """The key of the definition of `name` visible from `op`: the one in the innermost region around it
        (an op's own region counts for its iter_args; its operands are read from outside it)."""
        known = self._scopes.get(name.split("#")[0])
        if not known or len(known) == 1 or op is None:
            return name
        suffix = name[len(name.split("#")[0]):]
        by_scope = dict(known)
        around = op.parent
        while True:
            if around in by_scope:
                return by_scope[around] + suffix
            if around is None:
                return known[0][1] + suffix
            around = self.module.ops[around].parent

    @cached_property
    def argument_attrs(self) -> dict[str, tuple[str, str]]:
        """Kernel argument -> (type, attributes text): `%a_ptr` -> ("!tt.ptr<f16>", "{tt.divisibility = 16 : i32}")."""
        for op in self.module.ops:
            if op.name in ("tt.func", "func.func"):
                return {m[1]: (m[2].strip(), m[3] or "") for m in _FUNC_ARG_RE.finditer(self.module.text(op))}
        return {}

    def loads_feeding(self, name: str) -> list[Value]:
        """The tt.load values `name` is computed from, transitively (with their lines)."""
        return [value for _, value in self._upstream(name) if value.op == "tt.load"]

    def data_loads(self, name: str) -> list[tuple[str, Value]]:
        """The tt.loads whose data `name` is computed from — (result name, value) — not following their
        addresses: a dot operand's tile loads, without the index loads that address them."""
        return [(current, value) for current, value in self._upstream(name, through_loads=False)
                if value.op == "tt.load"]

    def index_loads(self, pointer: str) -> list[Value]:
        """The loads of whole tensors (not scalars) an address is computed from: per-row indices read from
        memory, which make the access a gather (a scalar load, such as an expert id, only moves the base)."""
        return [value for value in self.loads_feeding(pointer) if shape_of(value.type)]

    def stride_dims(self, name: str) -> dict[str, set[tuple[int, ...]]]:
        """Kernel argument -> the shapes of the products it scales on the way to `name`: `offs_k[None, :] *
        stride_ak` gives (1, 64), a scalar `row * stride` gives (). The dimensions that are not 1 are the
        ones the argument is a stride of."""
        found: dict[str, set[tuple[int, ...]]] = {}
        for _, value in self._upstream(name):
            if value.op == "arith.muli":
                shape = shape_of(value.type)
                for operand in value.operands:
                    argument = self.argument_of(operand)
                    if argument is not None and shape is not None:
                        found.setdefault(argument, set()).add(shape)
        return found

    def argument_of(self, name: str) -> str | None:
        """`name` itself when it is a kernel argument, or the argument a tt.splat / ext / cast of it holds."""
        value = self.values.get(name)
        for _ in range(4):
            if value is None:
                return None
            if value.op == "arg":
                return name
            if value.op not in ("tt.splat", "arith.extsi", "arith.extui", "tt.broadcast") or not value.operands:
                return None
            name = value.operands[0]
            value = self.values.get(name)
        return None

    def sources(self, name: str) -> tuple[set[str], set[str]]:
        """(kernel arguments, defining ops) that `name` is computed from, transitively."""
        upstream = list(self._upstream(name))
        return ({current for current, value in upstream if value.op == "arg"},
                {value.op for _, value in upstream if value.op != "arg"})

    @cached_property
    def users(self) -> dict[str, list[str]]:
        """Value name -> the names of the values computed from it directly."""
        out: dict[str, list[str]] = {}
        for name, value in self.values.items():
            for operand in value.operands:
                out.setdefault(operand, []).append(name)
        return out

    def definition(self, value: Value) -> str:
        """The text of the op that defines `value` (its attributes: an axis, a range, a constant)."""
        op = self._op_at_line.get(value.line)
        return self.module.text(op) if op is not None else ""

    @cached_property
    def _op_at_line(self) -> dict:
        return {op.line: op for op in self.module.ops}

    def constant(self, name: str) -> int | None:
        """The integer a value holds when it is a constant (`arith.constant 32 : i32`, `dense<32>`, or a
        splat of one); None otherwise."""
        value = self.values.get(name)
        if value is not None and value.op == "tt.splat" and value.operands:
            return self.constant(value.operands[0])
        if value is None or value.op != "arith.constant":
            return None
        found = _INT_CONSTANT_RE.search(self.definition(value))
        return int(found[1] or found[2]) if found else None

    def upstream(self, name: str) -> list[tuple[str, Value]]:
        """Every value `name` is computed from (itself included), with its result name, loads followed."""
        return list(self._upstream(name))

    def _upstream(self, name: str, through_loads: bool = True) -> Iterator[tuple[str, Value]]:
        """Every value `name` is computed from, transitively and once each, with its result name: the one walk
        of the SSA graph the questions above share. A kernel argument ends a path (it is yielded); with
        `through_loads=False` a tt.load does too (its address is not followed)."""
        seen: set[str] = set()
        todo = [name.split("#")[0]]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            value = self.values.get(current)
            if value is None:
                continue
            yield current, value
            if value.op != "arg" and (through_loads or value.op != "tt.load"):
                todo.extend(value.operands)

    def load_operands(self, op) -> tuple[str, ...]:
        """A tt.load's (pointer, mask, other) / a tt.store's (pointer, value, mask)."""
        text = self.module.text(op)
        m = _DEF_RE.match(text) if op.results else _USE_RE.match(text)
        if m is None:
            return ()
        _ = self.values  # the keys of the definitions are known once the values are read
        return tuple(self._key(name, op) for name in _operands(m[3] if op.results else m[2]))

    def multipliers(self, name: str) -> set[str]:
        """Kernel arguments that scale an offset on the way to `name` (`offs * stride`, `BLOCK_K * stride`):
        the strides, as opposed to sizes that only bound or wrap it."""
        found: set[str] = set()
        seen: set[str] = set()
        todo = [name.split("#")[0]]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            value = self.values.get(current)
            if value is None or value.op == "arg":
                continue
            if value.op == "arith.muli":
                for operand in value.operands:
                    inner = self.values.get(operand)
                    if inner is not None and inner.op == "arg":
                        found.add(operand)
                    elif inner is not None and inner.op == "tt.splat" and inner.operands and \
                            self.values.get(inner.operands[0], Value("", (), 0)).op == "arg":
                        found.add(inner.operands[0])
            todo.extend(value.operands)
        return found
