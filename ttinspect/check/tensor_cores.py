"""TTI002 older-mma-path: a Hopper/Blackwell target running `mma.sync` (Ampere's warp-level MMA) instead of
wgmma (sm_90) / tcgen05 (sm_100+), and why. TTI007 no-tma: a Hopper/Blackwell kernel whose tensor-core
dots get their tiles without the Tensor Memory Accelerator — except a tile whose rows are gathered through
indices loaded from memory (a MoE kernel's `a_ptr + offs_token[:, None] // top_k * stride_am`): a TMA tile
copy moves one dense box and cannot gather rows on sm_90; from sm_100 TMA has gather4 (`desc.gather`).

When Triton picks the newer MMA (its AccelerateMatmul pass and `supportMMA`, Triton 3.x), read from the
final TTGIR's dot: wgmma (version 3) needs num_warps a multiple of 4, a 2-D dot (no batch dimension),
M per CTA a multiple of 64 and N a multiple of 8, K ≥ 256 / (operand bits), and operands fp16, bf16,
fp8 (e4m3/e5m2), int8 or fp32 as tf32; tcgen05 (version 5) needs num_warps 4 or 8, the same M/N/K rules,
no integer types but int8 → int32, and no fp64. When none of these explains it (for instance an fp8 dot
with an fp32 accumulator that asks for no imprecise accumulation, or DISABLE_MMA_V3/V5 in the compile
environment), the finding says "reason unknown".
"""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.backends import backend_for
from ttinspect.check.context import element_bits, fact_evidence, fact_value, stages_of, tensor_types
from ttinspect.check.model import Evidence, Finding
from ttinspect.check.ssa import Chains
from ttinspect.dialects.mlir import DEFINITION_RE

MMA_ID, MMA_SLUG = "TTI002", "older-mma-path"
TMA_ID, TMA_SLUG = "TTI007", "no-tma"

_NEWER_TYPES = ("f16", "bf16", "f8E5M2", "f8E4M3FN", "i8", "f32")
# TMA gather4 (`cp.async.bulk.tensor.2d.tile::gather4`, Triton's `desc.gather(rows, col)`): measured with
# Triton 3.9 — emitted for sm_100 and sm_120, rejected by ptxas for sm_90.
TMA_GATHER_FROM = 100


def older_mma_path(report, build) -> list[Finding]:
    if build is None or fact_value(report, "tensor_core_path") != "mma.sync":
        return []
    preferred = backend_for(build.target).mma_upgrade(build.target)  # None on AMD: one matrix path per target
    if preferred is None:
        return []
    name, version = preferred
    stages = stages_of(build)
    module = stages.ttgir
    if module is None:
        return []
    dots = [op for op in module.ops if op.name == "tt.dot"]
    evidence: list[Evidence] = [e for e in (fact_evidence(report, "tensor_core_path"),
                                            fact_evidence(report, "loop_mma")) if e]
    evidence += [stages.mlir_evidence("ttgir", op) for op in dots[:2]]
    mma_line = _first_ptx_mma(stages)
    if mma_line is not None:
        evidence.append(stages.evidence("ptx", mma_line))
    warps = stages.num_warps
    causes: list[tuple[str, str]] = []
    for op in dots[:1] or []:
        causes += _causes(stages.ttgir.text(op), warps, name, version)
    if not dots:
        causes.append(("the TTGIR has no tt.dot to read the operands from", ""))
    why = ("; ".join(c for c, _ in causes) if causes else
           "reason unknown: num_warps, the dot's shape and its operand types all meet Triton's conditions for "
           f"{name} (other causes: an fp8 dot with an fp32 accumulator and max_num_imprecise_acc < 32, or "
           f"DISABLE_MMA_V{version} set when compiling)")
    fixes = [f for _, f in causes if f] or [f"Inspect the dot with `ttinspect dump REF --stage ttgir`; the "
                                            f"#mma layout has versionMajor = 2 where {name} would be {version}."]
    per_iteration = fact_value(report, "loop_tensor_core_ops")
    title = (f"{build.target.name} runs mma.sync (Ampere's warp-level MMA) instead of {name}"
             + (f": {per_iteration} per K step" if isinstance(per_iteration, int) and per_iteration else ""))
    matters = (f"{name} is {build.target.name}'s full-rate tensor-core instruction (warpgroup-wide, operands from "
               "shared memory, asynchronous); mma.sync reaches a fraction of the peak there. Why: ")
    return [Finding(MMA_ID, MMA_SLUG, "warning", title, tuple(evidence), matters + why, " ".join(fixes))]


def _causes(dot_text: str, warps: int | None, name: str, version: int) -> list[tuple[str, str]]:
    types = tensor_types(dot_text)
    if len(types) < 3:
        return []
    a, b, result = types[0], types[1], types[-1]
    causes: list[tuple[str, str]] = []
    if warps is not None:
        if version == 3 and warps % 4:
            causes.append((f"num_warps={warps} is not a multiple of 4 (a warpgroup is 4 warps)",
                           f"Set num_warps={max(4, warps + (-warps) % 4)}."))
        if version == 5 and warps not in (4, 8):
            causes.append((f"num_warps={warps}: tcgen05 takes 4 or 8 warps",
                           f"Set num_warps={4 if warps < 8 else 8}."))
    if len(result.shape) != 2:
        causes.append((f"the dot is {len(result.shape)}-D (batched: {'x'.join(map(str, result.shape))}); {name} "
                       "takes 2-D dots only", "Loop over the batch dimension and issue 2-D tl.dot calls."))
        return causes
    m, n = result.shape
    k = a.shape[-1] if a.shape else 0
    if m % 64:
        causes.append((f"the tile's M = {m} is not a multiple of 64 ({name} covers 64 rows per warpgroup)",
                       f"Set BLOCK_M to {max(64, m + (-m) % 64)}."))
    if n % 8:
        causes.append((f"the tile's N = {n} is not a multiple of 8", f"Set BLOCK_N to {n + (-n) % 8}."))
    bits = element_bits(a.element)
    if bits and k < 256 // bits:
        causes.append((f"K = {k} is below {name}'s K of {256 // bits} for {bits}-bit operands",
                       f"Set BLOCK_K to {256 // bits} or more."))
    elements = {a.element, b.element}
    unsupported = sorted(e for e in elements if e not in _NEWER_TYPES)
    if version == 5 and any(e.startswith("i") for e in elements | {result.element}) and not (
            elements == {"i8"} and result.element == "i32"):
        unsupported = sorted(elements | {result.element})
    if version == 5 and "f64" in elements | {result.element}:
        unsupported = sorted(set(unsupported) | {"f64"})
    if unsupported:
        causes.append((f"operand type(s) {', '.join(unsupported)} are not {name} types",
                       "Cast the operands to bf16/fp16 (or fp8) before tl.dot."))
    return causes


def _first_ptx_mma(stages) -> int | None:
    parsed = stages.ptx
    if parsed is None:
        return None
    _, view = parsed
    for op in view.loop_ops or view.ops:
        if op.opcode == "mma":
            return op.line
    return None


def no_tma(report, build) -> list[Finding]:
    """Info: a target with TMA (sm_90+) and tensor-core dots, but no TMA copy anywhere."""
    if build is None or not backend_for(build.target).has_tma(build.target):  # TMA: NVIDIA sm_90+
        return []
    path, tma = fact_value(report, "tensor_core_path"), fact_value(report, "tma_copies")
    if path not in ("mma.sync", "wgmma", "tcgen05") or tma is None or len(tma):
        return []
    stages = stages_of(build)
    module = stages.ttgir
    if module is None or any("tma" in op.name or "descriptor" in op.name or "tensormap" in op.name
                             for op in module.ops):
        return []
    tiles = _dot_tile_loads(stages)
    gathered = [tile for tile in tiles if tile.index_lines]
    dense = [tile for tile in tiles if not tile.index_lines]
    gather4 = build.target.capability >= TMA_GATHER_FROM
    if gathered and not dense and not gather4:
        return []  # every tile gathers rows: nothing TMA can do on this target
    parsed = stages.ptx
    evidence = [e for e in (fact_evidence(report, "tma_copies"), fact_evidence(report, "loop_cp_async"),
                            fact_evidence(report, "global_loads")) if e]
    if parsed is not None:
        _, view = parsed
        copies = [op for op in view.loop_ops if op.opcode in ("cp", "ld") and "global" in op.modifiers]
        evidence += [stages.evidence("ptx", op.line) for op in copies[:2]]
    evidence += [stages.evidence("ttir", tile.line, f"gathered rows: {tile.text}") for tile in gathered[:2]]
    name = build.target.name
    why = ("With TMA one thread issues a whole tile copy (cp.async.bulk.tensor) that the hardware completes on an "
           "mbarrier: no per-thread address arithmetic, no registers for addresses, and the copy engine works beside "
           "the tensor cores. cp.async / ld.global make every thread compute and issue its own 16-byte pieces.")
    # the template names the operand the advice is about: the dense one where the other gathers its rows
    b_only = bool(gathered) and all(tile.operand == 1 for tile in dense)
    x, rows, cols, stride = ("b", "K", "N", "stride_bk") if b_only else ("a", "M", "K", "stride_am")
    descriptors = (f"through tensor descriptors: on the host `TensorDescriptor.from_tensor({x}, [BLOCK_{rows}, "
                   f"BLOCK_{cols}])` (triton.tools.tensor_descriptor), passed as the argument, then "
                   f"`{x}_desc.load([offs_{rows.lower()}, offs_{cols.lower()}])` in the loop; or in the kernel "
                   f"`tl.make_tensor_descriptor({x}_ptr, shape=[{rows}, {cols}], strides=[{stride}, 1], "
                   f"block_shape=[BLOCK_{rows}, BLOCK_{cols}])` (needs `triton.set_allocator`). The shipped opt_tma "
                   "variant is an example.")
    title = f"{name} has the Tensor Memory Accelerator, but this {path} kernel loads its tiles without it"
    if not gathered:
        return [Finding(TMA_ID, TMA_SLUG, "info", title, tuple(evidence), why, "Load the tiles " + descriptors)]
    where = _lines_text(gathered)
    index = _lines_text(gathered, indices=True)
    if gather4:
        why += (f" The tile{where} gathers its rows through indices loaded from memory{index}: a plain TMA tile copy "
                f"moves one dense box, but {name} has TMA gather4, which fetches rows by index.")
        fix = ("For the gathered rows, a descriptor over the whole matrix with one-row blocks, `tl.make_tensor_"
               "descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[1, BLOCK_K])`, and in the loop "
               "`a_desc.gather(rows, k * BLOCK_K)` with `rows` the tile's row indices (1-D int32, at least 8)."
               + (f" Load the dense tile{_lines_text(dense)} " + descriptors if dense else ""))
    else:
        title += f" (the gathered tile{where} excepted)"
        why += (f" The tile{where} gathers its rows through indices loaded from memory{index}: a TMA copy moves one "
                f"dense box and {name} cannot gather rows with it (TMA gather4 arrives with sm_100), so that load "
                "rightly stays cp.async.")
        fix = f"Keep the gathered load as it is; load the dense tile{_lines_text(dense)} " + descriptors
    return [Finding(TMA_ID, TMA_SLUG, "info", title, tuple(evidence), why, fix)]


@dataclass(frozen=True)
class _Tile:
    """A tt.load that feeds a dot operand: its TTIR line, text and Python line, and the Python lines of the
    per-row index loads its address comes from (none for a dense tile)."""

    line: int
    text: str
    python_line: int | None
    index_lines: tuple[int | None, ...]
    operand: int = 0  # which operand of the dot it feeds: 0 (A, M x K) or 1 (B, K x N)


def _dot_tile_loads(stages) -> list[_Tile]:
    module = stages.ttir
    if module is None:
        return []
    chains = Chains(module)
    op_at_line = {op.line: op for op in module.ops}
    tiles: dict[int, _Tile] = {}
    for op in module.ops:
        match = DEFINITION_RE.match(module.text(op)) if op.name == "tt.dot" else None
        value = chains.values.get(match[1]) if match else None
        for position, operand in enumerate(value.operands[:2] if value is not None else ()):
            for _, load in chains.data_loads(operand):
                if load.line in tiles or not load.operands:
                    continue
                indices = {stages.python_line("ttir", v.line) for v in chains.index_loads(load.operands[0])}
                tiles[load.line] = _Tile(load.line, module.text(op_at_line[load.line]).strip()[:120],
                                         stages.python_line("ttir", load.line),
                                         tuple(sorted(indices, key=lambda line: line or 0)), position)
    return [tiles[line] for line in sorted(tiles)]


def _lines_text(tiles: list[_Tile], indices: bool = False) -> str:
    """" on line 24" / " on lines 24, 25" / "" when attribution cannot tell."""
    found = sorted({line for tile in tiles for line in (tile.index_lines if indices else (tile.python_line,))
                    if line is not None})
    if not found:
        return ""
    return f" on line{'s' * (len(found) > 1)} {', '.join(map(str, found))}"
