"""Facts read from the TTIR (program order, address modulo, masks, loops, dots) and the TTGIR (layouts,
shared buffers, asynchronous copies).

The TTIR keeps the kernel's arithmetic as written, so the pid remapping and the masks are read there
by following SSA definitions: `%group_id = arith.divsi %pid, %num_pid_in_group` with
`%num_pid_in_group = arith.muli %num_pid_n, %c8_i32` is doc 003's grouped order with GROUP_SIZE_M=8.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.dialects.locations import without_mlir_location
from ttinspect.dialects.mlir import DEFINITION_RE, MlirModule, is_dot
from ttinspect.facts.model import Counts, Fact, counts, known, unknown

#   scf.for %tile_id = %pid to %num_tiles step %c132_i32 : i32 {
_FOR_RE = re.compile(r"scf\.for\s+(%[\w$.-]+)\s*=\s*(%[\w$.-]+)\s+to\b")
# %c8_i32 = arith.constant 8 : i32
_CONST_RE = re.compile(r"^(-?\d+)\s*:\s*i\d+")
_SSA_RE = re.compile(r"%[\w$.-]+")
# !ttg.memdesc<4x128x32xf16, #shared, #smem, mutable>
# !ttg.memdesc<3x128x64xf16, ...>: the shape ("3x128x64") and the element type of a shared-memory allocation
MEMDESC_RE = re.compile(r"!ttg\.memdesc<([0-9x]+)x([a-z]+\d+)")
# tensor<128x32xi32, #blocked>  (the first result type of a line)
_RESULT_TENSOR_RE = re.compile(r":\s*tensor<")

MASK_COMBINATORS = frozenset({"arith.andi", "arith.ori", "tt.broadcast", "tt.expand_dims", "tt.splat",
                              "ttg.convert_layout", "tt.reshape"})


@dataclass(frozen=True)
class _Def:
    op: str
    operands: tuple[str, ...]
    rest: str


def _single_definition(text: str) -> re.Match[str] | None:
    """DEFINITION_RE for an op with one result (`%group_id = arith.divsi %pid, %n : i32`), None for one
    with several (`%a:2 = scf.for`, `%a, %b = ...`) or none."""
    m = DEFINITION_RE.match(text)
    return m if m and text[m.end(1):].lstrip().startswith("=") else None


def _definitions(module: MlirModule) -> dict[str, _Def]:
    defs: dict[str, _Def] = {}
    for op in module.ops:
        m = _single_definition(module.text(op))
        if m:
            body = without_mlir_location(m[3])
            operands = tuple(_SSA_RE.findall(body.split(":")[0]))
            defs[m[1]] = _Def(m[2], operands, body)
    return defs


def _constant(defs: dict[str, _Def], name: str) -> int | None:
    d = defs.get(name)
    if d is None or d.op != "arith.constant":
        return None
    m = _CONST_RE.match(d.rest.strip())
    return int(m[1]) if m else None


def program_order(module: MlirModule, arg_names: list[str] | None = None) -> tuple[str, int | None]:
    """("2-D grid", None) / ("grouped", GROUP_SIZE_M) / ("1-D row-major" | "1-D column-major", None).
    `arg_names`: the runtime parameters in order, for IR that numbers them (%arg3 is %M)."""
    defs = _definitions(module)
    aliases = {f"%arg{i}": f"%{name}" for i, name in enumerate(arg_names or [])}
    pids = {name: d.rest.split(":")[0].strip() for name, d in defs.items() if d.op == "tt.get_program_id"}
    if len(set(pids.values())) > 1:
        return "2-D grid", None
    # A persistent kernel walks tiles in a loop that starts at its program id
    # (`scf.for %tile_id = %pid to %num_tiles step %c132_i32`): the tile index plays the pid's part.
    persistent = {}
    for op in module.ops:
        m = _FOR_RE.search(module.text(op)) if op.name == "scf.for" else None
        if m and m[2] in pids:
            persistent[m[1]] = pids[m[2]]
    if persistent:
        order, group = _order_of(defs, persistent, aliases)
        return f"{order} (persistent)", group
    return _order_of(defs, pids, aliases)


def _order_of(defs: dict[str, _Def], pids: dict[str, str], aliases: dict[str, str]) -> tuple[str, int | None]:
    """How a tile index (a program id, or a persistent loop's tile index) is split into (pid_m, pid_n)."""
    for d in defs.values():
        if d.op == "arith.divsi" and d.operands and d.operands[0] in pids and len(d.operands) > 1:
            divisor = defs.get(d.operands[1])
            if divisor is not None and divisor.op == "arith.muli":
                for factor in divisor.operands:
                    group = _constant(defs, factor)
                    if group is not None and group > 1:
                        return "grouped", group
    for d in defs.values():
        if d.op == "arith.divsi" and len(d.operands) > 1 and d.operands[0] in pids:
            # pid // num_pid_n: consecutive programs walk along a row of C tiles (row-major);
            # pid // num_pid_m: down a column (column-major). Read from which size feeds the divisor.
            sizes = {aliases.get(a, a) for a in _arguments(defs, d.operands[1], set())} & {"%M", "%N"}
            if sizes == {"%N"}:
                return "1-D row-major", None
            if sizes == {"%M"}:
                return "1-D column-major", None
            return "1-D (pid divided)", None
    return "1-D", None


def _arguments(defs: dict[str, _Def], name: str, seen: set[str]) -> set[str]:
    """The function arguments (names with no definition) a value is computed from."""
    if name in seen:
        return set()
    seen.add(name)
    d = defs.get(name)
    if d is None:
        return {name}
    found: set[str] = set()
    for operand in d.operands:
        found |= _arguments(defs, operand, seen)
    return found


def _mask_terms(defs: dict[str, _Def], name: str, seen: set[str]) -> int:
    """Comparisons combined into a mask (through and/or, broadcasts, layout conversions)."""
    if name in seen:
        return 0
    seen.add(name)
    d = defs.get(name)
    if d is None:
        return 0
    if d.op == "arith.cmpi":
        return 1
    if d.op in MASK_COMBINATORS:
        return sum(_mask_terms(defs, operand, seen) for operand in d.operands)
    return 0


def load_masks(module: MlirModule) -> tuple[int, ...] | None:
    """For each tt.load in the main loop, how many comparisons its mask combines (0 = unmasked)."""
    loop = module.main_loop
    if loop is None:
        return None
    defs = _definitions(module)
    terms = []
    for op in module.ops:
        if op.name == "tt.load" and loop.op.line < op.line <= loop.op.end_line:
            m = _single_definition(module.text(op))
            operands = tuple(_SSA_RE.findall(m[3].split(":")[0])) if m else ()
            terms.append(_mask_terms(defs, operands[1], set()) if len(operands) > 1 else 0)
    return tuple(terms)


def ttir_facts(module: MlirModule, arg_names: list[str] | None = None) -> list[Fact]:
    order, group = program_order(module, arg_names)
    modulo = sum(1 for op in module.ops if op.name == "arith.remsi"
                 and _RESULT_TENSOR_RE.search(module.text(op)))
    masks = load_masks(module)
    facts = [
        known("program_order", "program order", "program order", order,
              "how program ids map to C tiles: grouped (GROUP_SIZE_M rows of tiles per group, so "
              "neighbouring programs share A rows and B columns in L2), 1-D row-major, or a 2-D grid", "ttir"),
        known("group_size_m", "GROUP_SIZE_M (L2 swizzle)", "program order", group,
              "tile rows per group in the pid remapping, read from `pid // (GROUP_SIZE_M * num_pid_n)`",
              "ttir") if group else
        unknown("group_size_m", "GROUP_SIZE_M (L2 swizzle)", "program order",
                f"not applicable: no grouped pid remapping ({order})",
                "tile rows per group in the pid remapping", "ttir"),
        known("address_modulo", "address modulo (offs % M, offs % N)", "program order", modulo,
              "element-wise `%` on offset vectors: rows/columns past the edge wrap onto valid ones "
              "instead of being masked", "ttir"),
        (known("load_mask_terms", "mask comparisons per load in the loop", "memory traffic", masks,
               "comparisons ANDed into each load's mask in the main loop (2 = M/N and K checked, "
               "1 = K only, 0 = unmasked)", "ttir")
         if masks is not None else
         unknown("load_mask_terms", "mask comparisons per load in the loop", "memory traffic",
                 "not applicable: no loop holds a dot", "comparisons ANDed into each load's mask", "ttir")),
        known("ttir_loops", "loops (scf.for/while)", "ir", len(module.loops),
              "loops in the Triton IR, before any pipelining", "ttir"),
        known("ttir_dots", "tt.dot ops", "ir", sum(1 for op in module.ops if is_dot(op.name)),
              "matrix products in the Triton IR", "ttir"),
    ]
    return facts


def ttgir_facts(module: MlirModule) -> list[Fact]:
    layouts = counts(layout.kind.split(".")[-1] for layout in module.layouts.values()
                     if layout.kind.startswith("ttg."))
    mma = [layout for layout in module.layouts.values() if layout.kind.endswith("nvidia_mma")]
    versions = tuple(sorted({dict(layout.params).get("versionMajor", "?") for layout in mma}))
    if not versions:  # AMD: #ttg.amd_mfma<{version = 3, ...}> (the CDNA generation), #ttg.amd_wmma<{version = 1}>
        amd = [layout for layout in module.layouts.values() if layout.kind.endswith(("amd_mfma", "amd_wmma"))]
        versions = tuple(sorted({f"{layout.kind.split('.')[-1]} v{dict(layout.params).get('version', '?')}"
                                 for layout in amd}))
    buffers = tuple(f"{m[1]}x{m[2]}" for op in module.ops if op.name == "ttg.local_alloc"
                    for m in [MEMDESC_RE.search(module.text(op))] if m)
    loop = module.main_loop
    return [
        known("layouts", "layouts", "ir", layouts,
              "TritonGPU layout attributes: blocked (registers), nvidia_mma (MMA accumulators), "
              "shared (shared-memory tiles)", "ttgir"),
        known("mma_version", "MMA layout version", "tensor cores", versions or None,
              "versionMajor of #nvidia_mma: 2 = mma.sync (Ampere/Ada), 3 = wgmma (Hopper), 5 = tcgen05; "
              "on AMD the #amd_mfma / #amd_wmma version (mfma v3 = CDNA3's instructions)",
              "ttgir") if versions else
        unknown("mma_version", "MMA layout version", "tensor cores", "no #nvidia_mma layout (no dot, or "
                "Blackwell's tensor-memory layout)", "versionMajor of #nvidia_mma", "ttgir"),
        known("shared_buffers", "shared-memory buffers (ttg.local_alloc)", "memory traffic", buffers,
              "multi-buffered tiles: the leading dimension is the number of buffers (stages) per operand",
              "ttgir"),
        known("async_copies", "ttg.async_copy_global_to_local", "pipeline",
              sum(1 for op in module.ops if op.name == "ttg.async_copy_global_to_local"),
              "asynchronous global→shared copies in the TritonGPU IR (prologue + loop); they become "
              "cp.async", "ttgir"),
        known("ttg_ops", "ttg/ttng ops", "ir",
              counts(op.name for op in module.ops if op.dialect in ("ttg", "ttng")),
              "TritonGPU (and NVIDIA-specific ttng) operations by name", "ttgir"),
        known("ttgir_loop_ops", "ops in the main loop (TTGIR)", "ir",
              Counts(sorted(module.dialect_counts(within=loop.op).items())),
              "operations per dialect inside the main loop", "ttgir") if loop else
        unknown("ttgir_loop_ops", "ops in the main loop (TTGIR)", "ir", "not applicable: no loop holds a dot",
                "operations per dialect inside the main loop", "ttgir"),
    ]
