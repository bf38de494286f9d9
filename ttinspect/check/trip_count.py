"""How many times a TTIR loop runs, where the build can tell — what TTI001 needs before calling an
unpipelined loop a problem: a loop that runs once has nothing to overlap.

`scf.for %i = %lb to %ub step %step` runs ⌈(ub − lb) / step⌉ times (0 when ub ≤ lb). Each bound is read
from its def-use chain: integer constants (constexprs and arguments the JIT folded, such as a size equal
to 1), kernel arguments whose value the launch gave (`--arg N=4096`), and the integer arithmetic Triton
emits between them (`tl.cdiv(K, BLOCK_K)` is `(K + BLOCK_K − 1) / BLOCK_K`). A bound equal to the step
(`range(0, BLOCK, BLOCK)` on one SSA value) is one trip whatever its value. Anything else leaves the count
unknown, and `unknowns` names the runtime arguments that would decide it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ttinspect.check.ssa import Chains

_FOR_RE = re.compile(r"scf\.for\s+%[\w$.-]+\s*=\s*(%[\w$.-]+)\s+to\s+(%[\w$.-]+)\s+step\s+(%[\w$.-]+)")
_INTEGER_RE = re.compile(r"arith\.constant\s+(-?\d+)\s*:\s*(?:i\d+|index)\b")
_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui")
_SYMBOLS = {"arith.addi": "+", "arith.subi": "−", "arith.muli": "×", "arith.divsi": "/", "arith.divui": "/",
            "arith.ceildivsi": "⌈/⌉", "arith.remsi": "%"}
_BINARY: dict[str, Callable[[int, int], int | None]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b) if b else None,  # C division: rounds toward zero
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.ceildivsi": lambda a, b: -(-a // b) if b else None,
    "arith.remsi": lambda a, b: a - b * int(a / b) if b else None,
    "arith.minsi": min,
    "arith.maxsi": max,
}


@dataclass(frozen=True)
class TripCount:
    value: int | None  # None: the build cannot tell
    formula: str  # "⌈(N − 0) / 4096⌉"
    unknowns: tuple[str, ...]  # the runtime arguments without a value that the count depends on


def trip_count(module, loop_op, launch_args: Mapping[str, Any]) -> TripCount:
    """The trip count of `loop_op` (an MlirOp of a TTIR scf.for); unknown for a while loop."""
    match = _FOR_RE.search(module.text(loop_op)) if loop_op.name == "scf.for" else None
    if match is None:
        return TripCount(None, "", ())
    lower, upper, step = match.groups()
    reader = _Reader(Chains(module), module, launch_args)
    low, high, stride = reader.value(lower), reader.value(upper), reader.value(step)
    formula = _formula(reader.text(lower), reader.text(upper), reader.text(step))
    unknowns = tuple(sorted(reader.unknowns))
    if upper == step and low == 0:
        return TripCount(1, formula, ())
    if low is None or high is None or not stride or stride < 0:
        return TripCount(None, formula, unknowns)
    return TripCount(max(0, -(-(high - low) // stride)), formula, ())


def _formula(lower: str, upper: str, step: str) -> str:
    """⌈(ub − lb) / step⌉, without the parts that are 0 or 1."""
    span = upper if lower == "0" else f"({upper} − {lower})"
    return span if step == "1" else f"⌈{span} / {step}⌉"


class _Reader:
    """Integer values and their text along one module's def-use chains."""

    def __init__(self, chains: Chains, module, launch_args: Mapping[str, Any]):
        self.chains, self.module, self.launch_args = chains, module, launch_args
        self.unknowns: set[str] = set()
        self.op_at_line = {op.line: op for op in module.ops}

    def value(self, name: str, depth: int = 0) -> int | None:
        value = self.chains.values.get(name)
        if value is None or depth > 16:
            return None
        if value.op == "arg":
            given = self.launch_args.get(name.lstrip("%"))
            if isinstance(given, int) and not isinstance(given, bool):
                return given
            self.unknowns.add(name.lstrip("%"))
            return None
        if value.op == "arith.constant":
            found = _INTEGER_RE.search(self._line(value.line))
            return int(found[1]) if found else None
        if value.op in _CASTS and value.operands:
            return self.value(value.operands[0], depth + 1)
        combine = _BINARY.get(value.op)
        if combine is not None and len(value.operands) == 2:
            a, b = (self.value(operand, depth + 1) for operand in value.operands)
            return None if a is None or b is None else combine(a, b)
        return None

    def text(self, name: str, depth: int = 0) -> str:
        """The expression of a value: argument names, constants and the integer arithmetic between them
        (`(K + 31) / 32`); "…" for anything else (a load, a program id)."""
        value = self.chains.values.get(name)
        if value is None or depth > 6:
            return "…"
        if value.op == "arg":
            return name.lstrip("%")
        if value.op == "arith.constant":
            found = _INTEGER_RE.search(self._line(value.line))
            return found[1] if found else "…"
        if value.op in _CASTS and value.operands:
            return self.text(value.operands[0], depth + 1)
        if value.op in _SYMBOLS and len(value.operands) == 2:
            a, b = (self.text(operand, depth + 1) for operand in value.operands)
            return f"({a} {_SYMBOLS[value.op]} {b})" if depth else f"{a} {_SYMBOLS[value.op]} {b}"
        return "…"

    def _line(self, line: int) -> str:
        op = self.op_at_line.get(line)
        return self.module.text(op) if op is not None else ""
