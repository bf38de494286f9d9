"""What an address's def-use chain says about the access pattern itself, beyond the hints of its
arguments — the cases where a narrow access is the data's shape, not a missing hint:
- a broadcast: the offsets along the layout's fastest dimension are divided (`absmax[offs // 32]`, a shift),
  so neighbouring elements read one address — there is no wider vector to load;
- a pitch fixed by the kernel: an argument enters the address plus a constant that is not a multiple of 16
  (`row * (n_cols + 1)`, a layout that packs an extra column), so no hint on the argument makes the rows
  16-aligned;
- a stride the kernel builds in: the index steps by a constant > 1 along the layout's fastest dimension
  (`X + 2 * i`, interleaved pairs), so a thread's elements are never contiguous — no hint widens it
  (`constant_steps`);
- a shift the kernel builds in: the index has a constant term that is not a multiple of the vector width
  (`X + i - 1`, the previous element), so the vector's first element is never aligned — no hint widens it
  (`constant_offset`).
"""

from __future__ import annotations

import re

from ttinspect.check.ssa import Chains, shape_of

_DIVIDING = {"arith.divsi": 2, "arith.divui": 2, "arith.shrsi": 1, "arith.shrui": 1}  # op -> least constant


def broadcast_along(chains: Chains, pointer: str, dimension: int) -> bool:
    """Whether the pointer's offsets along `dimension` come from a tl.arange divided by a constant."""
    upstream = dict(chains.upstream(pointer))
    rank = len(shape_of(upstream[pointer].type) or ()) if pointer in upstream else 0
    for name, value in upstream.items():
        least = _DIVIDING.get(value.op)
        if least is None or len(value.operands) != 2:
            continue
        divisor = chains.constant(value.operands[1])
        if divisor is None or divisor < least:
            continue
        if not any(v.op == "tt.make_range" for _, v in chains.upstream(value.operands[0])):
            continue
        if dimension in _dimensions(chains, name, rank, upstream):
            return True
    return False


def _dimensions(chains: Chains, name: str, rank: int, within: dict) -> set[int]:
    """The dimensions of the access (of rank `rank`) that a value's elements vary along: its own shape when
    it has the access's rank, else that of the first values of that rank computed from it on the way to the
    address (a 1-D `offs // 32` expanded with `[None, :]` lies along dimension 1)."""
    found: set[int] = set()
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in within:
            continue
        seen.add(current)
        shape = shape_of(within[current].type)
        if shape is not None and len(shape) == rank:
            found |= {i for i, n in enumerate(shape) if n != 1}
            continue
        todo.extend(chains.users.get(current, ()))
    return found


def offset_arguments(chains: Chains, pointer: str) -> dict[str, int]:
    """Kernel argument -> the constant, not a multiple of 16, added to it on the way to the address."""
    found: dict[str, int] = {}
    for _, value in chains.upstream(pointer):
        if value.op != "arith.addi" or len(value.operands) != 2:
            continue
        for this, other in (value.operands, value.operands[::-1]):
            argument, added = chains.argument_of(this), chains.constant(other)
            if argument is not None and added is not None and added % 16:
                found[argument] = added
    return found


# ops that carry an offset's per-element steps through unchanged (a cast, a broadcast of a size-1 dimension)
_SAME_STEPS = frozenset({"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "tt.int_to_ptr",
                         "tt.ptr_to_int", "tt.broadcast"})
_AXIS_RE = re.compile(r"\baxis = (\d+)")


def constant_steps(chains: Chains, pointer: str) -> tuple[int | None, ...] | None:
    """How many elements the address moves per step along each dimension of the access — `X + 2 * i`
    gives (2,), `X + r[:, None] * 64 + c[None, :] * 2` gives (64, 2) — read from the index expression:
    tl.arange steps by 1, splats and scalars by 0, and constant products, shifts, sums and differences
    combine them. A dimension whose step is not a constant (a runtime stride, a loaded index, a division)
    is None; the whole is None when the address's rank cannot be read."""
    return _Steps(chains).of(pointer.split("#")[0])


class _Steps:
    """The per-dimension steps of each value on the way to one address, computed once per value."""

    def __init__(self, chains: Chains):
        self.chains = chains
        self.known: dict[str, tuple[int | None, ...] | None] = {}

    def of(self, name: str) -> tuple[int | None, ...] | None:
        if name in self.known:
            return self.known[name]
        value = self.chains.values.get(name)
        shape = shape_of(value.type) if value is not None and value.type else None
        if shape == ():
            found: tuple[int | None, ...] | None = ()  # a scalar: the same for every element
        elif value is None:
            found = None
        else:
            self.known[name] = None  # a loop-carried value met again through its own update
            found = self._combine(name, value, len(shape) if shape is not None else None)
        self.known[name] = found
        return found

    def _combine(self, name: str, value, rank: int | None) -> tuple[int | None, ...] | None:
        op, operands, chains = value.op, value.operands, self.chains
        unknown = (None,) * rank if rank is not None else None
        if op == "tt.make_range":
            return (1,)
        if op in ("arith.constant", "tt.splat"):
            uniform = op == "tt.splat" or chains.constant(name) is not None  # not a dense<[...]> list
            return (0,) * rank if uniform and rank is not None else unknown
        if op in _SAME_STEPS:
            return self.of(operands[0]) if operands else unknown
        if op == "tt.expand_dims":
            inner = self.of(operands[0]) if operands else None
            axis = _AXIS_RE.search(chains.definition(value))
            if inner is None or axis is None:
                return unknown
            at = int(axis[1])
            return (*inner[:at], 0, *inner[at:])
        if op == "iter":  # a loop-carried address: what it starts as, when each trip moves it uniformly
            start = self.of(operands[0]) if operands else None
            self.known[name] = start  # provisional: the update is read from what the address starts as
            after = self.of(operands[1]) if len(operands) > 1 else start
            return start if after == start else None
        if len(operands) != 2:
            return unknown
        left, right = self.of(operands[0]), self.of(operands[1])
        if op in ("arith.addi", "tt.addptr"):
            return _join(left, right, lambda a, b: a + b, rank)
        if op == "arith.subi":
            return _join(left, right, lambda a, b: a - b, rank)
        if op == "arith.muli":
            for steps, factor in ((left, chains.constant(operands[1])), (right, chains.constant(operands[0]))):
                if factor is not None and steps is not None:
                    return tuple(None if s is None else s * factor for s in steps)
            # a runtime factor: the dimensions it scales lose their constant step, uniform ones stay uniform
            return _join(left, right, lambda a, b: 0 if a == b == 0 else None, rank)
        if op == "arith.shli":
            shift = chains.constant(operands[1])
            if shift is not None and left is not None and 0 <= shift < 32:
                return tuple(None if s is None else s << shift for s in left)
        return unknown


def _join(left, right, combine, rank: int | None) -> tuple[int | None, ...] | None:
    """Two per-dimension step tuples combined element by element; a scalar (()) is 0 along every dimension."""
    if left is None or right is None:
        return (None,) * rank if rank is not None else None
    left = left or (0,) * len(right)
    right = right or (0,) * len(left)
    if len(left) != len(right):
        return (None,) * rank if rank is not None else None
    return tuple(None if a is None or b is None else combine(a, b) for a, b in zip(left, right, strict=True))


# ops that add their operands' constant terms, or subtract the second's
_SUMS = {"arith.addi": 1, "tt.addptr": 1, "arith.subi": -1}
_START_RE = re.compile(r"\bstart = (-?\d+)")


def constant_offset(chains: Chains, pointer: str) -> int | None:
    """The constant number of elements the index adds to the address — `X + i - 1` gives -1, `X + r * 64 + 3`
    gives 3 — the sum of its constant terms (a tl.arange's start, constants added, subtracted, multiplied or
    shifted by constants). A term with no constant part (a program id, an argument, a runtime product of such)
    adds 0: Triton's divisibility of a sum is at most that of each term, so a constant term that is not a
    multiple of the vector width keeps the address unaligned whatever the other terms are. None when a term's
    constant part cannot be read (a runtime factor times a constant term, a loop-carried address)."""
    return _Offsets(chains).of(pointer.split("#")[0])


class _Offsets:
    def __init__(self, chains: Chains):
        self.chains = chains
        self.known: dict[str, int | None] = {}

    def of(self, name: str) -> int | None:
        if name not in self.known:
            self.known[name] = None  # a value met again through its own update: unreadable
            self.known[name] = self._term(name)
        return self.known[name]

    def _term(self, name: str) -> int | None:
        chains = self.chains
        value = chains.values.get(name)
        if value is None or value.op == "iter":
            return None
        op, operands = value.op, value.operands
        if op == "arith.constant":
            return chains.constant(name)  # None for a dense<[...]> list: no one constant term
        if op == "tt.make_range":
            start = _START_RE.search(chains.definition(value))
            return int(start[1]) if start else None
        if op in _SAME_STEPS or op in ("tt.splat", "tt.expand_dims"):
            return self.of(operands[0]) if operands else None
        if op in _SUMS and len(operands) == 2:
            left, right = self.of(operands[0]), self.of(operands[1])
            return None if left is None or right is None else left + _SUMS[op] * right
        if op == "arith.muli" and len(operands) == 2:
            left, right = self.of(operands[0]), self.of(operands[1])
            factors = [chains.constant(operand) for operand in operands]
            if factors[1] is not None and left is not None:
                return left * factors[1]
            if factors[0] is not None and right is not None:
                return right * factors[0]
            return 0 if left == right == 0 else None  # (i - 1) * stride: a runtime multiple of -1
        if op == "arith.shli" and len(operands) == 2:
            shift, left = chains.constant(operands[1]), self.of(operands[0])
            return left << shift if shift is not None and left is not None and 0 <= shift < 32 else None
        return 0  # an argument, a program id, anything else: a term with no constant part
