"""The dot accumulators a kernel keeps in registers, read from the final TTGIR, and what they cost per
thread — the arithmetic of the spill advice (TTI003, NVIDIA and AMD).

An accumulator lives across a loop when a dot's accumulator operand is one of the loop's carried values
(`scf.for ... iter_args(%arg11 = %cst)` … `tt.dot %a, %b, %arg11`): a GEMM has one, a fused gate/up
projection (`acc_gate = tl.dot(x, w_gate, acc_gate)`, `acc_up = tl.dot(x, w_up, acc_up)`) two, each with
its full BLOCK_M × BLOCK_N tile in registers at once. A kernel whose dots carry nothing across a loop has
its largest dot result as the one tile it holds. Names come from the dot's result (`%acc_gate_97`: Triton
names SSA values after the Python variable); a dot whose result has no such name is shown unnamed.
Blackwell's tcgen05 MMA keeps its accumulator in tensor memory, not registers: never counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.check.context import element_bits, stages_of, tensor_types
from ttinspect.check.ssa import Chains
from ttinspect.dialects.mlir import DEFINITION_RE

REGISTER_DOTS = ("tt.dot", "ttng.warp_group_dot")  # their accumulator lives in registers
_ELEMENT_NAMES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "i32": "int32", "i8": "int8",
                  "i16": "int16", "i64": "int64"}
_NUMBERED = re.compile(r"_\d+$")


@dataclass(frozen=True)
class Accumulator:
    name: str | None  # the Python variable it is named after, where the TTGIR says
    m: int
    n: int
    bits: int
    element: str  # "fp32", "int32"

    def per_lane(self, lanes: int) -> int:
        """32-bit registers per thread (lane) when `lanes` threads share the tile."""
        return self.m * self.n * self.bits // 32 // lanes


def dot_accumulator(build) -> tuple[int, int, int, str] | None:
    """(M, N, bits, element name) of the largest dot result in the TTGIR."""
    found = _dots(build)
    if not found:
        return None
    best = max(found, key=lambda item: item[1].m * item[1].n)[1]
    return best.m, best.n, best.bits, best.element


def live_accumulators(build) -> tuple[Accumulator, ...]:
    """The accumulators carried across a loop (one per loop-carried value a dot accumulates into), else the
    largest dot result alone; empty without a register dot."""
    found = _dots(build)
    if not found:
        return ()
    chains = Chains(stages_of(build).ttgir)
    carried: dict[str, Accumulator] = {}
    for result, accumulator in found:
        operands = chains.values[result].operands if result in chains.values else ()
        if len(operands) >= 3:
            value = chains.values.get(operands[2])
            if value is not None and value.op == "iter":
                carried.setdefault(operands[2], accumulator)
    if carried:
        return tuple(carried.values())
    return (max((a for _, a in found), key=lambda a: a.m * a.n),)


def _dots(build) -> list[tuple[str, Accumulator]]:
    """(result SSA name, the result as an Accumulator) of every 2-D register dot in the TTGIR, in order."""
    module = stages_of(build).ttgir
    if module is None:
        return []
    out = []
    for op in module.ops:
        if op.name not in REGISTER_DOTS:
            continue
        text = module.text(op)
        types = tensor_types(text)
        match = DEFINITION_RE.match(text)
        if not types or len(types[-1].shape) != 2 or match is None:
            continue
        result = types[-1]
        name = _NUMBERED.sub("", match[1][1:])
        named = bool(name) and not name[0].isdigit() and name != "arg"
        out.append((match[1], Accumulator(name if named else None, result.shape[0], result.shape[1],
                                          element_bits(result.element) or 32,
                                          _ELEMENT_NAMES.get(result.element, result.element))))
    return out


def accumulator_text(accumulators: tuple[Accumulator, ...], lanes_word: str, lanes: int, warps: int,
                     unit: str) -> tuple[str, int]:
    """One sentence of arithmetic, and the registers per `unit` ("thread", "lane") the accumulators take:
    `BLOCK_M×BLOCK_N/(32×num_warps) = 128×128/(32×4) = 128 fp32 registers per thread`, times their count."""
    first, count = accumulators[0], len(accumulators)
    per = first.per_lane(lanes * warps)
    symbols, numbers = f"BLOCK_M×BLOCK_N/({lanes_word}×num_warps)", f"{first.m}×{first.n}/({lanes}×{warps})"
    if count == 1:
        return (f"The dot's accumulator alone is {symbols} = {numbers} = {per} {first.element} registers per "
                f"{unit}.", per)
    total = sum(a.per_lane(lanes * warps) for a in accumulators)
    names = [a.name for a in accumulators if a.name]
    called = f" ({', '.join(names)})" if len(names) == count else ""
    if all((a.m, a.n, a.bits) == (first.m, first.n, first.bits) for a in accumulators):
        arithmetic = f"{count} × {symbols} = {count} × {numbers} = {count} × {per}"
    else:
        arithmetic = " + ".join(f"{a.m}×{a.n}/({lanes}×{warps})" for a in accumulators)
    return (f"The {count} dot accumulators live across the loop{called} alone take {arithmetic} = {total} "
            f"{first.element} registers per {unit}.", total)
