"""Where a dot's M rows come from — whether the tile's M is a free choice a rule may advise changing.

A block dimension is a free tile size when the kernel tiles a dimension over the grid with it: the rows
of the A operand's tile are `program_id × M + arange(0, M)` (a prefill attention's query tokens, a GEMM's
rows), so another M is only another grid. The kernel itself sets M when the rows are anything else, read
from the TTIR's def-use chain of the A tile's address:
- the rows step by C ≠ M per program (`kv_head × GROUP + arange(0, BLOCK_H)`: a decode kernel's query heads
  of one KV group, at most GROUP valid rows of the tile);
- the rows are divided or wrapped (`offs_m // num_queries_per_kv`): M is derived from another dimension;
- no program id moves the rows: every program covers the same M rows (all heads of a group).
Anything the chain does not show (rows computed from loaded data, a pid scaled by a runtime value) is
"unknown", and a rule then says so instead of advising a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.check.ssa import Chains, Value, shape_of
from ttinspect.dialects.mlir import DEFINITION_RE
from ttinspect.files.source_files import read_regular

_AXIS_RE = re.compile(r"\baxis\s*=\s*(\d+)")
_RANGE_RE = re.compile(r"\bend\s*=\s*(\d+)\s*:\s*i32\s*,\s*start\s*=\s*(\d+)")
_ARANGE_NAME_RE = re.compile(r"\barange\(\s*0\s*,\s*([A-Za-z_]\w*)\s*\)")
_DERIVING = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.shrsi", "arith.shrui")
_ELEMENTWISE = ("arith.addi", "arith.muli", "arith.extsi", "arith.extui", "arith.trunci")


@dataclass(frozen=True)
class TileRows:
    kind: str  # "free": a tile of the grid; "kernel": set by the kernel's indexing; "unknown"
    reason: str  # what the IR shows, in the user's words
    name: str | None = None  # the constexpr behind M where the source line says it (`tl.arange(0, BLOCK_H)`)
    line: int | None = None  # the Python line of the rows' arange


def dot_rows(stages, m: int) -> TileRows:
    """How the first dot's A tile (M = `m` rows) is indexed, from the build's TTIR."""
    module = stages.ttir
    if module is None:
        return TileRows("unknown", "the TTIR is not available")
    chains = Chains(module)
    rows = _row_expressions(module, chains, m)
    if not rows:
        return TileRows("unknown", "the dot's A tile is not loaded through a row index the IR shows")
    found = [_classify(chains, name, m) for name in rows] + _row_bounds(chains, module, m)
    ranges = [arange for _, arange, _ in found if arange is not None]
    line = stages.python_line("ttir", ranges[0].line) if ranges else None
    name = _constexpr_name(stages, line, m)
    kinds = {kind for kind, *_ in found}
    kind = "kernel" if "kernel" in kinds else "free" if kinds == {"free"} else "unknown"
    reason = next(reason for k, _, reason in found if k == kind)
    return TileRows(kind, reason, name, line)


def _row_expressions(module, chains: Chains, m: int) -> list[str]:
    """The 1-D row index expressions of the loads feeding the first dot's A operand: what a
    `tt.expand_dims … {axis = 1}` turns into the tile's M × 1 column of row offsets."""
    dot = next((op for op in module.ops if op.name == "tt.dot"), None)
    value = chains.values.get(_result(module.text(dot))) if dot is not None else None
    if value is None or not value.operands:
        return []
    out: list[str] = []
    for _, load in chains.data_loads(value.operands[0]):
        shape = shape_of(load.type)
        if not load.operands or not shape or shape[0] != m:
            continue
        for _, upstream in chains.upstream(load.operands[0]):
            if upstream.op == "tt.expand_dims" and _axis(chains.definition(upstream)) == 1 and upstream.operands \
                    and (shape_of(upstream.type) or ())[:1] == (m,):
                out.append(upstream.operands[0])
    return list(dict.fromkeys(out))


def _row_bounds(chains: Chains, module, m: int) -> list[tuple[str, Value | None, str]]:
    """A mask on the A tile's rows of the form `arange(0, M) < C` (C a constant, no program id): each
    program's valid rows are bounded by the kernel's shape, whatever the grid."""
    out: list[tuple[str, Value | None, str]] = []
    dot = next((op for op in module.ops if op.name == "tt.dot"), None)
    value = chains.values.get(_result(module.text(dot))) if dot is not None else None
    for _, load in chains.data_loads(value.operands[0]) if value is not None and value.operands else ():
        if len(load.operands) < 2:
            continue
        for _, compare in chains.upstream(load.operands[1]):
            if compare.op != "arith.cmpi" or len(compare.operands) != 2:
                continue
            rows = chains.values.get(compare.operands[0])
            bound = chains.constant(compare.operands[1])
            if rows is None or bound is None or rows.op != "tt.make_range":
                continue
            if shape_of(rows.type) == (m,) and bound <= m:
                out.append(("kernel", rows, f"each program's rows are masked to arange(0, {m}) < {bound}: "
                            "the kernel bounds its valid rows by a constant of its shape, not by the grid"))
    return out


def _classify(chains: Chains, rows: str, m: int) -> tuple[str, Value | None, str]:
    """(kind, the rows' make_range, reason) for one row expression: its tensor part is walked (the arange and
    the elementwise ops on it); a scalar enters through a `tt.splat` and is where a program id steps the rows."""
    ranges: list[Value] = []
    scalars: list[str] = []
    derived: set[str] = set()
    todo, seen = [rows], set()
    while todo:
        name = todo.pop()
        value = chains.values.get(name)
        if name in seen or value is None:
            continue
        seen.add(name)
        if value.op == "tt.make_range":
            ranges.append(value)
        elif value.op == "tt.splat" and value.operands:
            scalars.append(value.operands[0])
        elif value.op == "tt.load":
            return "unknown", None, "the rows are computed from data loaded from memory"
        elif value.op in _DERIVING and len(value.operands) == 2:
            if chains.constant(value.operands[1]) is not None:  # `offs // GROUP`; a `% M` by a size wraps the grid
                derived.add(value.op.split(".", 1)[1])
            todo.append(value.operands[0])
        elif value.op in _ELEMENTWISE:
            todo.extend(value.operands)
        elif value.op != "arith.constant":
            return "unknown", None, f"the rows' indexing goes through {value.op}, which this rule does not read"
    if len(ranges) != 1:
        return "unknown", None, "the rows are not one tl.arange the IR shows"
    if derived:
        return "kernel", ranges[0], (f"the rows are divided or wrapped by a constant ({', '.join(sorted(derived))}) "
                                     "on the way to the address: M is derived from another dimension, not a tile "
                                     "of the grid")
    stepped = [name for name in scalars if "tt.get_program_id" in {v.op for _, v in chains.upstream(name)}]
    if not stepped:
        return "kernel", ranges[0], ("no program id moves the rows: every program covers the same M rows (the "
                                     "kernel's shape, not a tile of the grid, sets M)")
    steps = {_step(chains, name) for name in stepped}
    if steps == {m}:
        return "free", ranges[0], f"the rows are program_id × {m} + arange(0, {m}): a tile of the grid"
    if None not in steps:
        step = ", ".join(map(str, sorted(s for s in steps if s is not None)))
        return "kernel", ranges[0], (f"the rows step by {step} per program while the tile has {m}: at most {step} "
                                     f"valid rows of {m}, a bound the kernel's shape sets (heads per KV group, "
                                     "say), not a tile of the grid")
    return "unknown", ranges[0], "the program id is scaled by a value this build does not know"


def _step(chains: Chains, scalar: str) -> int | None:
    """C of a scalar `x × C` (a program id's multiple) that starts the rows; None when it is anything else."""
    value = chains.values.get(scalar)
    while value is not None and value.op in ("arith.extsi", "arith.extui") and value.operands:
        value = chains.values.get(value.operands[0])
    if value is None or value.op != "arith.muli" or len(value.operands) != 2:
        return None
    constants = [c for c in map(chains.constant, value.operands) if c is not None]
    return constants[0] if len(constants) == 1 else None


def _constexpr_name(stages, line: int | None, m: int) -> str | None:
    """The constexpr the rows' `tl.arange(0, NAME)` names on its Python line, when the build's config gives
    it the value M."""
    path = stages.kernel_file
    if line is None or not path:
        return None
    data = read_regular(path)
    lines = data.decode("utf-8", "replace").split("\n") if data else []
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    config = stages.config or {}
    for found in _ARANGE_NAME_RE.finditer(text):
        if config.get(found[1]) == m:
            return found[1]
    return None


def _axis(text: str) -> int | None:
    found = _AXIS_RE.search(text)
    return int(found[1]) if found else None


def _result(text: str) -> str:
    found = DEFINITION_RE.match(text)
    return found[1] if found else ""
