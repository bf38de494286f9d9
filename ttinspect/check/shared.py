"""TTI006 shared-memory-limit: the CTA asks for more shared memory than the target has (the launch fails
with Triton's "out of resource: shared memory"), or so much that one more pipeline stage cannot fit.

The per-stage cost is read from the TTGIR's multi-buffered `ttg.local_alloc`s: a buffer whose leading
dimension is num_stages (Hopper/Blackwell keep num_stages copies) or num_stages − 1 (the mma.sync path)
holds one tile per stage. One more stage needs at least one more tile of each; the total of the
multi-buffered tiles at num_stages + 1 is a lower bound of what that config would need.
"""

from __future__ import annotations

import math

from ttinspect.backends import backend_for
from ttinspect.check.context import MEMDESC_RE, element_bits, fact_evidence, fact_value, stages_of
from ttinspect.check.block_names import block_constexprs, has_dot
from ttinspect.check.model import Finding

ID, SLUG = "TTI006", "shared-memory-limit"


def _staged_buffers(stages, num_stages: int):
    """[(op, buffers, bytes of one buffer)] for the TTGIR's multi-buffered allocations."""
    module = stages.ttgir
    if module is None:
        return []
    out = []
    for op in module.ops:
        if op.name != "ttg.local_alloc":
            continue
        m = MEMDESC_RE.search(module.text(op))
        if m is None:
            continue
        dims = [int(d) for d in m[1].split("x") if d]
        bits = element_bits(m[2])
        if len(dims) < 3 or bits is None or dims[0] not in (num_stages, num_stages - 1) or dims[0] < 1:
            continue
        out.append((op, dims[0], math.prod(dims[1:]) * bits // 8))
    return out


def shared_memory_limit(report, build) -> list[Finding]:
    shared, asked = fact_value(report, "shared_memory"), fact_value(report, "num_stages")
    if build is None or not isinstance(shared, int):
        return []
    target = build.target
    backend = backend_for(target)
    limit = target.max_shared_per_block
    stages = stages_of(build)
    buffers = _staged_buffers(stages, asked) if isinstance(asked, int) else []
    evidence = [e for e in (fact_evidence(report, "shared_memory"), fact_evidence(report, "num_stages")) if e]
    evidence += [stages.mlir_evidence("ttgir", op) for op, _, _ in buffers]
    per_stage = sum(size for _, _, size in buffers)
    if shared > limit:
        fix = f"Bring it under {limit} bytes: "
        staged = sum(count * size for _, count, size in buffers)
        blocks = block_constexprs(stages)
        if staged * 2 < shared:
            # the per-stage tiles are not what fills shared memory (an epilogue tile, a layout conversion's
            # scratch): fewer stages would save little, the block sizes decide
            held = (f"the staged tiles hold only {staged} of the {shared} bytes, so most of it is outside the "
                    "pipeline" if staged else f"no pipeline stage holds any of the {shared} bytes")
            if has_dot(stages):
                fix = (f"Use smaller {blocks.names('BLOCK_M/BLOCK_N')} to bring it under {limit} bytes: {held} "
                       f"(e.g. an epilogue tile or a layout conversion's scratch, which scale with {blocks.tile})"
                       + (f"; each stage saves only {per_stage} bytes." if per_stage else "."))
            else:
                fix = (f"Use smaller {blocks.names('block constexprs')} to bring it under {limit} bytes: {held}: "
                       "it is the scratch Triton gives the tile's layout conversions and reductions, which scales "
                       f"with {blocks.tile}.")
        elif per_stage and isinstance(asked, int):
            fitting = [s for s in range(asked - 1, 0, -1) if shared - (asked - s) * per_stage <= limit]
            if fitting:
                fix += (f"each stage holds {per_stage} bytes of tiles, so num_stages={fitting[0]} needs about "
                        f"{shared - (asked - fitting[0]) * per_stage} bytes; ")
        if staged * 2 >= shared:
            fix += ("or halve BLOCK_K (each stage's tiles shrink by half), or use smaller "
                    f"{blocks.names('BLOCK_M/BLOCK_N')}." if has_dot(stages) else
                    f"or use smaller {blocks.names('block constexprs')} (each stage's tiles shrink with them).")
        return [Finding(
            ID, SLUG, "error",
            f"out of resource: shared memory, Required: {shared}, Hardware limit: {limit} ({target.name})",
            tuple(evidence),
            f"The launch fails: a {backend.cta_word} on {target.name} may use at most {limit} bytes of "
            f"{backend.shared_word}, and this config asks for {shared} (Triton's own check raises exactly this message "
            "when it loads the kernel).",
            fix)]
    if not buffers or not isinstance(asked, int) or asked >= 3:
        # three stages already keep a copy in flight while one is consumed: no room for a fourth is a
        # design point (opt_tma on sm_90), not a problem
        return []
    deeper = sum((count + 1) * size for _, count, size in buffers)
    if deeper <= limit:
        return []
    return [Finding(
        ID, SLUG, "info",
        f"num_stages={asked + 1} would not fit: its staged tiles alone need ≥ {deeper} bytes, limit {limit} "
        f"({target.name})", tuple(evidence),
        f"With num_stages={asked} at most one load is in flight while a tile is consumed; a deeper pipeline, "
        f"the usual remedy for memory latency, has no room: one more stage adds {per_stage} bytes to the "
        f"{shared} used now.",
        _deeper_fix(report, stages, per_stage))]


def _deeper_fix(report, stages, per_stage: int) -> str:
    blocks = block_constexprs(stages)
    if has_dot(stages):
        return (f"To deepen the pipeline, shrink each stage first: BLOCK_K={_half_k(report)} halves the {per_stage} "
                f"bytes per stage, or use smaller {blocks.names('BLOCK_M/BLOCK_N')}.")
    return (f"To deepen the pipeline, shrink each stage first: smaller {blocks.names('block constexprs')} shrink the "
            f"{per_stage} bytes per stage.")


def _half_k(report) -> str:
    blocks = dict(fact_value(report, "block_sizes") or ())
    for key in ("BLOCK_K", "BLOCK_SIZE_K"):
        if isinstance(blocks.get(key), int):
            return str(blocks[key] // 2)
    return "BLOCK_K/2"
