"""Every loop of a kernel as the TTGIR (after the pipeliner and warp specialization) shows it. Pure.

One `IrLoop` per `scf.for` / `scf.while`, nested loops included, in text order: where it is in the
Python source, what `tl.range` asked of it (num_stages, warp_specialize, flatten), which warp-specialize
partition runs it, and what one iteration does — dot ops, loads and asynchronous copies, and the
multi-buffered shared-memory rings its copies write into (the leading dimension of the ring's
`ttg.local_alloc`, read where the loop indexes it: `ttg.memdesc_index %buf[%i] : !ttg.memdesc<3x128x64xf16>`;
`ttg.memdesc_subview %buf[%i, %c0, %c0]` before Triton 3.5). Counts are a loop's *own* ops: a nested
loop's ops belong to the nested loop.

The ring is the TTGIR's witness of pipeline depth (facts/loops.py sets it against the PTX's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.dialects.locations import MLIR_LOC_TEXT
from ttinspect.dialects.mlir import MlirModule, MlirOp, is_dot
from ttinspect.facts.model import counts

# %a_39 = ttg.memdesc_index %a_17[%a_35] : !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable> -> ...
# %40 = ttg.memdesc_subview %12[%39, %c0_i32, %c0_i32] : !ttg.memdesc<3x128x64xf16, #shared, ...> -> ...
_INDEX_RE = re.compile(r"ttg\.memdesc_(?:index|subview)\s+%[\w.#]+\[\s*(%[\w.#]+)[^\]]*\]\s*:\s*"
                       r"!ttg\.memdesc<(\d+)x([0-9x]*)(\w+)")
# ttng.async_tma_copy_global_to_local %a_desc[%x, %y] %a_40, %b_42, %true : ...
_TMA_LOAD_RE = re.compile(r"ttng\.async_tma_copy_global_to_local\s+%[\w.#]+\[[^\]]*\]\s+(%[\w.#]+),\s*(%[\w.#]+)")
# %x_38 = ttg.async_copy_global_to_local %ptrs, %x_37 mask %m : tensor<...> -> <...>
_CP_ASYNC_RE = re.compile(r"ttg\.async_copy_global_to_local\s+%[\w.#]+,\s*(%[\w.#]+)")
_CONSTANT_RE = re.compile(r"^%c\d+(_i\d+)?(_\d+)?$")  # %c0_i32, %c1_i32_28: a fixed slot, not a ring
# partition0(%b_16: ..., %b_25: i32 loc(...)) num_warps(1) {
_PARTITION_RE = re.compile(r"^\s*(default|partition\d+)\b.*?(?:num_warps\((\d+)\))?\s*\{\s*$")
# } {tt.num_stages = 3 : i32, tt.warp_specialize} loc(#loc43)
_ATTRS_RE = re.compile(r"\}\s*\{([^{}]*)\}\s*(?:" + MLIR_LOC_TEXT + r")?\s*$")
_STAGES_RE = re.compile(r"tt\.num_stages\s*=\s*(\d+)")

LOAD_OPS = {"tt.load": "tt.load", "tt.descriptor_load": "descriptor load",
            "ttg.async_copy_global_to_local": "cp.async", "ttng.async_tma_copy_global_to_local": "TMA",
            "amdg.buffer_load": "buffer load", "amdg.buffer_load_to_local": "buffer load"}
ASYNC_MMA = ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")
STORE_OPS = ("tt.store", "tt.descriptor_store", "ttng.async_tma_copy_local_to_global", "ttng.tmem_load")


@dataclass(frozen=True)
class IrLoop:
    index: int  # 1-based, in text order
    parent: int | None  # the enclosing loop's index
    nesting: int  # 1 for an outermost loop
    line: int | None  # the Python line of the loop (its `for`), None when the location is unknown
    partition: str | None  # "partition0", ... inside a warp-specialized region; "default"; None outside
    requested_stages: int | None  # tl.range(num_stages=N) as the loop carries it (tt.num_stages)
    warp_specialize: bool  # tl.range(warp_specialize=True)
    flatten: bool  # tl.range(flatten=True)
    dots: int  # own dot / MMA ops
    mma: str  # "async" (wgmma, tcgen05: the MMA may still read a buffer), "sync" (mma.sync / FMA), "none"
    loads: tuple[tuple[str, int], ...]  # own loads by kind (a Counts): tt.load, descriptor load, cp.async, TMA
    stores: int  # own stores / epilogue ops (tt.store, TMA store, tmem_load)
    copy_rings: tuple[int, ...]  # leading dims of the rings the loop's async copies write into
    tma_barrier_rings: tuple[int, ...]  # leading dims of the barrier rings its TMA copies signal
    barrier_rings: tuple[int, ...]  # every mbarrier ring (Nx1xi64) the loop indexes by a variable
    lines: frozenset[int]  # Python lines of its own ops and their call sites (matching it to the PTX's loops)
    children: tuple[int, ...] = ()
    role: str = "loop"  # "K loop", "tile loop", "tile + K loop (flattened)", "loop"
    trips: int | None = None  # how often it runs when its bounds and step are constants (LLVM may unroll it)

    @property
    def innermost(self) -> bool:
        return not self.children


@dataclass(frozen=True)
class Partition:
    name: str  # "default", "partition0", ...
    warps: int | None
    registers: int | None  # requestedRegisters (setmaxnreg target) of a worker partition
    runs: tuple[str, ...]  # "loads", "MMA", "epilogue"
    start_line: int
    end_line: int


def kernel_function(module: MlirModule) -> MlirOp | None:
    return next(iter(module.functions), None)


def ir_loops(module: MlirModule, ttir: MlirModule | None = None) -> tuple[IrLoop, ...]:
    """The TTGIR's loops. `ttir` (optional) supplies tl.range's attributes where the TTGIR dropped them."""
    loops = module.loops
    parts = partitions(module)
    requested = _ttir_attributes(ttir) if ttir is not None else {}
    tile_lines = _tile_loop_lines(ttir if ttir is not None else module)
    source = ttir if ttir is not None else module  # lines of the loops holding dots, before any split
    k_lines = {_line(source, loop.op) for loop in source.loops if loop.dots}
    out: list[IrLoop] = []
    children: dict[int, list[int]] = {}
    for i, loop in enumerate(loops):
        if loop.parent is not None:
            children.setdefault(loop.parent, []).append(i + 1)
    owns = [_own_ops(module, loop.op, [loops[c - 1].op for c in children.get(i, [])]) for i, loop in enumerate(loops)]
    inside = {op.index for loop in loops if loop.parent is None for op in module._select(loop.op)}

    def slots(ops: list[MlirOp]) -> dict[str, tuple[int, str, bool]]:
        return _ring_sources([module.text(op) for op in ops if "memdesc_" in op.name])

    top_slots = slots([op for op in module.ops if op.index not in inside])  # outside every loop
    own_slots = [slots(ops) for ops in owns]
    for i, loop in enumerate(loops):
        # A slot is found by its SSA name, and sibling loops reuse names: look in this loop, then in the
        # loops around it, then outside every loop — the nearest definition, as MLIR's scoping has it.
        scope, at = [i], loop.parent
        while at is not None:
            scope.append(at)
            at = loops[at].parent
        sources = dict(top_slots)
        for k in reversed(scope):
            sources.update(own_slots[k])
        own = owns[i]
        if children.get(i):
            # a nested loop's prologue and drain sit in this loop's body: the copies and waits the
            # pipeliner peeled from the nested loop (same source location) are the nested loop's, not ours
            nested = {_site(module, op) for c in children[i] for op in module._select(loops[c - 1].op)} - {None}
            own = [op for op in own if _site(module, op) not in nested]
        line = _line(module, loop.op)
        attrs = _attributes(module, loop.op)
        stages = attrs[0] if attrs[0] is not None else requested.get(line, (None, False, False))[0]
        ws = attrs[1] or requested.get(line, (None, False, False))[1]
        flatten = attrs[2] or requested.get(line, (None, False, False))[2]
        partition = next((p.name for p in parts if p.start_line < loop.op.line <= p.end_line), None)
        texts = [module.text(op) for op in own]
        walked = _ring_sources(texts)  # slots this loop takes by a varying index (prologue copies excluded)
        copy_rings = set()
        tma_bars = set()
        for text in texts:
            m = _TMA_LOAD_RE.search(text)
            if m:
                if m[1] in sources:
                    copy_rings.add(sources[m[1]][0])
                if m[2] in sources:
                    tma_bars.add(sources[m[2]][0])
            m = _CP_ASYNC_RE.search(text)
            if m and m[1] in sources:
                copy_rings.add(sources[m[1]][0])
        names = [op.name for op in own]
        dots = sum(1 for n in names if is_dot(n))
        mma = "async" if any(n in ASYNC_MMA for n in names) else "sync" if dots else "none"
        lines = frozenset(n for op in own for n in _lines(module, op))
        if dots and flatten and line in tile_lines and not children.get(i):
            role = "tile + K loop (flattened)"  # the source nests a K loop here; the compiler made it one
        elif any(loops[c - 1].dots for c in children.get(i, [])) or (
                flatten and line in tile_lines and not dots and not children.get(i)):
            role = "tile loop"  # around a K loop; or the copy of a flattened tile loop kept for K = 0
        elif dots or (partition is not None and line in k_lines):
            role = "K loop"  # a warp-specialized K loop: each partition runs its share (loads, MMA)
        else:
            role = "loop"
        out.append(IrLoop(i + 1, None if loop.parent is None else loop.parent + 1, loop.depth, line, partition,
                          stages, ws, flatten, dots, mma, counts(LOAD_OPS[n] for n in names if n in LOAD_OPS),
                          sum(1 for n in names if n in STORE_OPS),
                          tuple(sorted(copy_rings)), tuple(sorted(tma_bars)),
                          tuple(sorted({n for n, elem, walks in walked.values() if elem == "i64" and walks})),
                          lines, tuple(children.get(i, [])), role, constant_trips(module, loop.op)))
    return tuple(out)


# scf.for %i = %c0_i32 to %c4_i32 step %c1_i32 ...
_FOR_RE = re.compile(r"scf\.for\s+%[\w$.-]+\s*=\s*(%[\w$.-]+)\s+to\s+(%[\w$.-]+)\s+step\s+(%[\w$.-]+)")
_INT_RE = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*i\d+\b")


def constant_trips(module: MlirModule, loop: MlirOp) -> int | None:
    """⌈(ub − lb) / step⌉ for an `scf.for` whose bounds and step are integer constants (`range(4)`): the
    loops LLVM may unroll whole. None for anything else."""
    found = _FOR_RE.search(module.text(loop)) if loop.name == "scf.for" else None
    if found is None:
        return None
    constants: dict[str, int] = {}
    for op in module.ops:
        if op.name == "arith.constant" and op.line < loop.line:
            m = _INT_RE.match(module.text(op))
            if m:
                constants[m[1]] = int(m[2])
    low, high, step = (constants.get(name) for name in found.groups())
    if low is None or high is None or not step or step < 0:
        return None
    return max(0, -(-(high - low) // step))


def _tile_loop_lines(module: MlirModule) -> set[int | None]:
    """Python lines of the loops that enclose a loop with dot ops (a persistent kernel's tile loop), as
    the TTIR has them: before a pass flattens the two into one."""
    loops = module.loops
    return {_line(module, loops[other.parent].op) for other in loops if other.dots and other.parent is not None}


def _own_ops(module: MlirModule, loop: MlirOp, nested: list[MlirOp]) -> list[MlirOp]:
    inner = [(op.line, op.end_line) for op in nested]
    return [op for op in module._select(loop) if not any(a <= op.line <= b for a, b in inner)]


def _ring_sources(texts: list[str]) -> dict[str, tuple[int, str, bool]]:
    """SSA name of a slot taken from a buffer -> (the buffer's leading dim, element type, whether the
    index varies: a ring the loop walks)."""
    found: dict[str, tuple[int, str, bool]] = {}
    for text in texts:
        m = _INDEX_RE.search(text)
        if m is None:
            continue
        result = text.split("=", 1)[0].strip() if "=" in text.split("ttg.memdesc", 1)[0] else None
        if result:
            found[result] = (int(m[2]), m[4], not _CONSTANT_RE.match(m[1]))
    return found


def _lines(module: MlirModule, op: MlirOp) -> tuple[int, ...]:
    """The op's own Python line and, inlined from a helper, the kernel's line that called it: the PTX's
    `.loc` has the first, and the call site too where Triton prints `inlined_at` (3.9, not 3.6)."""
    where = module.resolve(op)
    return () if where is None else (where.site.line, where.kernel_site.line)


def _site(module: MlirModule, op: MlirOp) -> tuple[str, int, int] | None:
    where = module.resolve(op)
    return None if where is None else (where.site.file, where.site.line, where.site.col)


def _line(module: MlirModule, op: MlirOp) -> int | None:
    where = module.resolve(op)
    return where.kernel_site.line if where is not None else None


def _attributes(module: MlirModule, loop: MlirOp) -> tuple[int | None, bool, bool]:
    """(tt.num_stages, tt.warp_specialize, tt.flatten) from the loop's closing line."""
    lines = module._lines
    if not lines or loop.end_line > len(lines):
        return None, False, False
    m = _ATTRS_RE.search(lines[loop.end_line - 1])
    if m is None:
        return None, False, False
    stages = _STAGES_RE.search(m[1])
    return (int(stages[1]) if stages else None, "tt.warp_specialize" in m[1], "tt.flatten" in m[1])


def _ttir_attributes(ttir: MlirModule) -> dict[int | None, tuple[int | None, bool, bool]]:
    """tl.range's attributes by the loop's Python line, as the TTIR (before any pass dropped them) has them."""
    return {_line(ttir, loop.op): _attributes(ttir, loop.op) for loop in ttir.loops}


def partitions(module: MlirModule) -> tuple[Partition, ...]:
    """The regions of the kernel's `ttg.warp_specialize` ops: the default warps (which also run what
    follows the op: the epilogue) and each worker partition with its warps and requested registers."""
    lines = module._lines
    out: list[Partition] = []
    for ws in (op for op in module.ops if op.name == "ttg.warp_specialize"):
        head = lines[ws.line - 1]
        regs = re.search(r"requestedRegisters\s*=\s*array<i32:\s*([\d,\s]*)>", head)
        requested = [int(x) for x in regs[1].split(",") if x.strip()] if regs else []
        starts = []
        for no in range(ws.line + 1, ws.end_line + 1):
            m = _PARTITION_RE.match(lines[no - 1])
            if m and _depth_at(module, no) == ws.depth + 1:
                starts.append((no, m[1], int(m[2]) if m[2] else None))
        function = kernel_function(module)
        for k, (no, name, warps) in enumerate(starts):
            end = starts[k + 1][0] - 1 if k + 1 < len(starts) else ws.end_line
            ops = [op for op in module.ops if no < op.line <= end]
            if name == "default":  # the kernel's own warps go on after the region: their epilogue
                warps = warps or _module_warps(lines)
                ops += [op for op in module.ops if ws.end_line < op.line <= (function.end_line if function else 0)]
            worker = int(name[len("partition"):]) if name.startswith("partition") else None
            reg = requested[worker] if worker is not None and worker < len(requested) else None
            out.append(Partition(name, warps, reg, _roles(ops), no, end))
    return tuple(out)


def _depth_at(module: MlirModule, line: int) -> int:
    """How many ops' regions enclose `line` (a region label line is not an op)."""
    return sum(1 for op in module.ops if op.line < line < op.end_line)


def _module_warps(lines: tuple[str, ...]) -> int | None:
    for text in lines[:40]:
        m = re.search(r'"ttg\.num-warps"\s*=\s*(\d+)', text)
        if m:
            return int(m[1])
    return None


def _roles(ops: list[MlirOp]) -> tuple[str, ...]:
    names = {op.name for op in ops}
    roles = []
    if names & set(LOAD_OPS):
        roles.append("loads")
    if any(is_dot(n) for n in names):
        roles.append("MMA")
    if names & set(STORE_OPS):
        roles.append("epilogue")
    return tuple(roles)
