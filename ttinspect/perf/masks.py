"""How much of a masked access moves: its mask evaluated element by element for one program and one loop trip.

A load of a 2048-wide tile over a 512-wide row moves a quarter of the tile; counting the whole tile makes the
model charge 4x the bytes (and the ranking prefers the wrong block size). The mask is the TTIR's own i1 tensor
(`tt.load %ptr, %mask, %other`, `tt.store %ptr, %value, %mask`): its def chain — make_range, splat,
expand_dims, broadcast, integer arithmetic, comparisons, and/or/select — is evaluated from the launch's
scalars (ir_program.evaluate). A mask built from anything else (a value loaded from memory, a float) is not
evaluated: the access then counts whole (fraction 1.0).

Values are kept compact, as numpy keeps a broadcast: a tensor is (shape with 1 on each dimension it does not
vary along, its elements in row-major order), so `rows[:, None] < M` is BLOCK_M elements, not BLOCK_M × BLOCK_N;
the share of true elements is the same in the compact form as in the whole tile. An `and` of masks that vary
along different dimensions is the product of their shares (no outer product is built).
"""

from __future__ import annotations

import operator
import re
from itertools import product
from typing import Callable, Mapping

from ttinspect.perf.ir_program import Op

Value = tuple[tuple[int, ...], list[int]]  # (compact shape, row-major elements)

_SHAPE_RE = re.compile(r"tensor<((?:\d+x)+)\w")
_RANGE_RE = re.compile(r"end = (\d+) : i32, start = (\d+) : i32")
_AXIS_RE = re.compile(r"axis = (\d+)")
_DENSE_INT_RE = re.compile(r"^dense<(-?\d+|true|false)>")
_ELEMENTWISE: Mapping[str, Callable[[int, int], int]] = {
    "arith.addi": operator.add, "arith.subi": operator.sub, "arith.muli": operator.mul, "arith.andi": operator.and_,
    "arith.ori": operator.or_, "arith.xori": operator.xor, "arith.minsi": min, "arith.maxsi": max,
    "arith.minui": min, "arith.maxui": max,
}
_COMPARE: Mapping[str, Callable[[int, int], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le, "sgt": operator.gt,
    "sge": operator.ge, "ult": operator.lt, "ule": operator.le, "ugt": operator.gt, "uge": operator.ge}
_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast")
MAX_ELEMENTS = 1 << 15  # a larger compact value is not built (the access counts whole): bounds a prediction's cost


def mask_operand(op: Op) -> str | None:
    """The mask an access takes, if any: a load's second operand, a store's or atomic's third."""
    if op.name == "tt.load":
        return op.operands[1] if len(op.operands) >= 2 else None
    if op.name in ("tt.store", "tt.atomic_rmw", "tt.atomic_cas"):
        return op.operands[2] if len(op.operands) >= 3 else None
    return None


def active_fraction(op: Op, env: Mapping[str, int | None], defs: Mapping[str, Op], carried: Mapping[str, str]) -> float:
    """The share of the access's elements its mask lets through for `env` (one program, one trip); 1.0 when
    there is no mask or it cannot be evaluated."""
    name = mask_operand(op)
    if name is None:
        return 1.0
    share = _share(name, env, defs, carried, {})
    return 1.0 if share is None else share


def _share(name: str, env, defs, carried, memo) -> float | None:
    op = defs.get(name)
    if op is not None and op.name == "arith.andi" and len(op.operands) == 2:
        a, b = (_evaluate(o, env, defs, carried, memo, 0) for o in op.operands)
        if a is not None and b is not None and _disjoint(a, b):
            sa, sb = (_share(o, env, defs, carried, memo) for o in op.operands)
            return None if sa is None or sb is None else sa * sb
    value = _evaluate(name, env, defs, carried, memo, 0)
    if value is None:
        return None
    if isinstance(value, int):
        return 1.0 if value else 0.0
    return sum(1 for v in value[1] if v) / max(1, len(value[1]))


def _disjoint(a, b) -> bool:
    """Two compact values that vary along different dimensions (an outer product would be needed)."""
    if isinstance(a, int) or isinstance(b, int) or len(a[0]) != len(b[0]):
        return False
    return all(x == 1 or y == 1 for x, y in zip(a[0], b[0], strict=True))


def _shape(text: str) -> tuple[int, ...] | None:
    found = _SHAPE_RE.findall(text.rsplit(":", 1)[-1].split("->")[-1])
    return tuple(int(d) for d in found[-1].split("x") if d) if found else None


def _evaluate(name: str, env, defs, carried, memo: dict, depth: int):
    if name in memo:
        return memo[name]
    if depth > 64:
        return None
    value = env.get(name)
    if value is None and name in carried:
        value = _evaluate(carried[name], env, defs, carried, memo, depth + 1)
    elif value is None and name in defs:
        value = _op_value(defs[name], env, defs, carried, memo, depth)
    memo[name] = value
    return value


def _op_value(op: Op, env, defs, carried, memo, depth):
    """One op's value (compact tensor, or int for a scalar the env did not hold); None when unknown."""
    shape = _shape(op.text)
    if op.name == "tt.make_range":
        m = _RANGE_RE.search(op.text)
        return ((int(m[1]) - int(m[2]),), list(range(int(m[2]), int(m[1])))) if m else None
    if op.name == "arith.constant":
        m = _DENSE_INT_RE.match(op.text.strip())
        if m is None or shape is None:
            return None
        return (1,) * len(shape), [{"true": 1, "false": 0}[m[1]] if m[1] in ("true", "false") else int(m[1])]
    args = []
    for operand in op.operands:
        value = _evaluate(operand, env, defs, carried, memo, depth + 1)
        if value is None:
            return None
        args.append(value)
    if not args:
        return None
    if op.name == "tt.splat" and shape is not None and isinstance(args[0], int):
        return (1,) * len(shape), [args[0]]
    if op.name == "tt.expand_dims" and not isinstance(args[0], int):
        m = _AXIS_RE.search(op.text)
        if m is None:
            return None
        dims = list(args[0][0])
        dims.insert(int(m[1]), 1)
        return tuple(dims), args[0][1]
    if op.name == "tt.broadcast" or op.name in _CASTS:
        return args[0]
    if op.name in _ELEMENTWISE and len(args) == 2:
        return _combine(_ELEMENTWISE[op.name], args)
    if op.name == "arith.cmpi" and len(args) == 2:
        compare = _COMPARE.get(op.text.split(",")[0].strip())
        return _combine(lambda a, b: int(compare(a, b)), args) if compare else None
    if op.name == "arith.select" and len(args) == 3:
        return _combine(lambda c, a, b: a if c else b, args)
    return None


def _combine(fn: Callable[..., int], args: list):
    """An element-wise op over compact values (broadcast along their 1-dimensions); ints are scalars."""
    if all(isinstance(a, int) for a in args):
        return fn(*args)
    rank = next(len(a[0]) for a in args if not isinstance(a, int))
    values = [((1,) * rank, [a]) if isinstance(a, int) else a for a in args]
    if any(len(v[0]) != rank for v in values):
        return None
    shape = tuple(max(v[0][d] for v in values) for d in range(rank))
    size = 1
    for d in shape:
        size *= d
    if size > MAX_ELEMENTS:
        return None
    if all(v[0] == shape or len(v[1]) == 1 for v in values):  # the common case: no broadcast but scalars
        columns = [v[1] if len(v[1]) == size else v[1] * size for v in values]
        return shape, [fn(*row) for row in zip(*columns, strict=True)]
    strides = [_strides(v[0]) for v in values]
    out = []
    for index in product(*(range(d) for d in shape)):
        out.append(fn(*(v[1][sum(i * s for i, s in zip(index, st, strict=True))]
                        for v, st in zip(values, strides, strict=True))))
    return shape, out


def _strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major strides of a compact shape, 0 along its broadcast (size-1) dimensions."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(0 if d == 1 else step)
        step *= d
    return strides[::-1]
