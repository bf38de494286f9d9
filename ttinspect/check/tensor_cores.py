"""TTI002 older-mma-path: a Hopper/Blackwell target running `mma.sync` (Ampere's warp-level MMA) instead of
wgmma (sm_90) / tcgen05 (sm_100+), and why. A tile M the kernel's indexing sets (check/tile_rows.py) is
named as the cause without advice to change it.

When Triton picks the newer MMA (its AccelerateMatmul pass and `supportMMA`, Triton 3.x), read from the
final TTGIR's dot: wgmma (version 3) needs num_warps a multiple of 4, a 2-D dot (no batch dimension),
M per CTA a multiple of 64 and N a multiple of 8, K ≥ 256 / (operand bits), and operands fp16, bf16,
fp8 (e4m3/e5m2), int8 or fp32 as tf32; tcgen05 (version 5) needs num_warps 4 or 8, the same M/N/K rules,
no integer types but int8 → int32, and no fp64. When none of these explains it (for instance an fp8 dot
with an fp32 accumulator that asks for no imprecise accumulation, or DISABLE_MMA_V3/V5 in the compile
environment), the finding says "reason unknown".
"""

from __future__ import annotations

from ttinspect.backends import backend_for
from ttinspect.check.context import element_bits, fact_evidence, fact_value, stages_of, tensor_types
from ttinspect.check.model import Evidence, Finding
from ttinspect.check.tile_rows import dot_rows

MMA_ID, MMA_SLUG = "TTI002", "older-mma-path"

_NEWER_TYPES = ("f16", "bf16", "f8E5M2", "f8E4M3FN", "i8", "f32")


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
        causes += _causes(stages.ttgir.text(op), warps, name, version, stages)
    if not dots:
        causes.append(("the TTGIR has no tt.dot to read the operands from", ""))
    why = ("; ".join(c for c, _ in causes) if causes else
           "reason unknown: num_warps, the dot's shape and its operand types all meet Triton's conditions for "
           f"{name} (other causes: an fp8 dot with an fp32 accumulator and max_num_imprecise_acc < 32, or "
           f"DISABLE_MMA_V{version} set when compiling)")
    fixes = [f for _, f in causes if f]
    # every cause set by the kernel's own shape: a fact about the kernel, not something to change
    fixed_by_kernel = bool(dots) and bool(causes) and not fixes
    if fixed_by_kernel:
        fixes = [f"None within this kernel's indexing: {name} needs ≥ 64 rows per warpgroup, which only a kernel "
                 "that gives one program more rows (several KV groups', or several query tokens' heads) would have."]
    elif not fixes:
        fixes = [f"Inspect the dot with `ttinspect dump REF --stage ttgir`; the #mma layout has versionMajor = 2 "
                 f"where {name} would be {version}."]
    per_iteration = fact_value(report, "loop_tensor_core_ops")
    title = (f"{build.target.name} runs mma.sync (Ampere's warp-level MMA) instead of {name}"
             + (f": {per_iteration} per K step" if isinstance(per_iteration, int) and per_iteration else ""))
    matters = (f"{name} is {build.target.name}'s full-rate tensor-core instruction (warpgroup-wide, operands from "
               "shared memory, asynchronous); mma.sync reaches a fraction of the peak there. Why: ")
    return [Finding(MMA_ID, MMA_SLUG, "info" if fixed_by_kernel else "warning", title, tuple(evidence),
                    matters + why, " ".join(fixes))]


def _causes(dot_text: str, warps: int | None, name: str, version: int, stages) -> list[tuple[str, str]]:
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
        causes.append(_rows_cause(stages, m, name))
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


def _rows_cause(stages, m: int, name: str) -> tuple[str, str]:
    """The M cause, with a fix only where M is a free tile size (check/tile_rows.py): a tile the kernel's
    indexing sets (a decode kernel's heads per KV group) is not the user's to change, and where the IR does
    not tell, the fix says it is conditional."""
    rows = dot_rows(stages, m)
    wanted = max(64, m + (-m) % 64)
    what = rows.name or "the block constexpr that sizes the dot's rows"
    where = f" (line {rows.line})" if rows.line is not None else ""
    text = f"the tile's M = {m} is not a multiple of 64 ({name} covers 64 rows per warpgroup)"
    if rows.kind == "free":
        return text, f"Set {what} to {wanted}."
    if rows.kind == "kernel":
        return (f"{text}; but M is not a free tile size here: {rows.reason}{where}. Changing {what} would only "
                "add masked rows"), ""
    return (f"{text}; whether M is a free tile size is unknown: {rows.reason}{where}",
            f"If {what} is a free tile size (rows tiled over the grid), set it to {wanted}; if the kernel derives it "
            "from a shape (heads per KV group, say), it is not yours to change.")


def _first_ptx_mma(stages) -> int | None:
    parsed = stages.ptx
    if parsed is None:
        return None
    _, view = parsed
    for op in view.loop_ops or view.ops:
        if op.opcode == "mma":
            return op.line
    return None
