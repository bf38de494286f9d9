"""What only a Gluon kernel states: the layouts its author chose, what converting between them costs in its
loops, and the ring of shared-memory buffers and mbarriers it pipelines with. A Gluon kernel starts at
TritonGPU IR (its "glir" stage: the kernel as written), so no pass picked these — Triton's own num_stages
pipelining never runs on it; the depth is what the code allocates and waits on:

    %a = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>     a ring of 3 A tiles
    %3 = ttg.memdesc_index %a[%c0_i32] : !ttg.memdesc<3x128x64xf16, ...> -> ...          slot 0 of the ring
    ttng.async_tma_copy_global_to_local %a_desc[%m, %k] %3, %bar, %pred : ...            a TMA load into it
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, ...>                                 an mbarrier
    ttng.wait_barrier %bar, %phase : !ttg.memdesc<1xi64, ...>                            a wait, in the loop
    %c = ttg.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #...>  a conversion

Layouts are read from the Gluon IR (what the author wrote); conversions, allocations and waits from the
TTGIR after Gluon's passes (inlined helpers, resolved `AutoLayout`s), where they are what will run.
"""

from __future__ import annotations

import re
from typing import Any

from ttinspect.dialects.mlir import MlirModule, MlirOp
from ttinspect.facts.ir import MEMDESC_RE
from ttinspect.facts.model import Fact, counts, known, unknown

GROUP = "gluon"
WAIT_OPS = frozenset({"ttng.wait_barrier"})
CONVERT_OPS = frozenset({"ttg.convert_layout"})


def gluon_facts(glir: MlirModule, ttgir: MlirModule) -> list[Fact]:
    layouts = counts(layout.kind.split(".")[-1] for layout in glir.layouts.values())
    converts = [op for op in ttgir.ops if op.name in CONVERT_OPS]
    in_loops = loop_converts(ttgir)
    rings, untraced = _rings(ttgir)
    inits = [op for op in ttgir.ops if op.name == "ttng.init_barrier"]
    waits = [op for op in ttgir.ops if op.name in WAIT_OPS and ttgir.in_loop(op)]
    return [
        known("gluon_layouts", "layouts written (Gluon)", GROUP, layouts,
              "the layout attributes the kernel's author wrote, by kind: blocked (registers), nvmma_shared / "
              "swizzled_shared (shared memory), tensor_memory (Blackwell TMEM), nvidia_mma (wgmma/mma "
              "accumulators), slice / dot_op (derived); no pass chose them", "glir"),
        known("convert_layouts", "convert_layout ops", GROUP, len(converts),
              "layout conversions of register tensors (gl.convert_layout); one between layouts that map "
              "elements to threads differently goes through shared memory", "ttgir"),
        known("convert_layouts_in_loop", "convert_layout in loops", GROUP, len(in_loops),
              "conversions inside a loop: paid on every iteration (with a barrier when they go through shared "
              "memory); choosing the producer's layout as the consumer's removes them", "ttgir"),
        known("ring_depth", "ring depth (buffers)", GROUP, max(rings.values()),
              "the pipeline depth a Gluon kernel has: how many shared-memory slots its asynchronous copies (TMA, "
              "cp.async) land in — the leading dimension of the buffer a copy's destination is indexed from, 1 "
              "for a copy into a single tile; the loads in flight are at most this many. Read from what the code "
              f"allocates: {_ring_text(rings)}", "ttgir") if rings else
        unknown("ring_depth", "ring depth (buffers)", GROUP, "the destinations of its copies are not traced (they "
                "arrive as partition arguments)" if untraced else
                "not applicable: no asynchronous copy into shared memory", "the shared-memory slots the kernel's "
                "asynchronous copies land in", "ttgir"),
        known("mbarriers", "mbarriers initialized", GROUP, len(inits),
              "shared-memory barriers the kernel initializes (mbarrier.init): typically one per ring slot to say "
              "a TMA load landed, and one per slot to say its consumer is done", "ttgir")
        if not any(ttgir.in_loop(op) for op in inits) else
        unknown("mbarriers", "mbarriers initialized", GROUP, "initialized inside a loop: the count is its trip "
                "count", "shared-memory barriers the kernel initializes (mbarrier.init)", "ttgir"),
        known("barrier_waits_in_loop", "mbarrier waits in loops", GROUP, len(waits),
              "waits on an mbarrier inside a loop (mbarrier.wait): each stalls until that slot's load or MMA "
              "completes; waiting on the slot just issued serializes the ring", "ttgir"),
    ]


def loop_converts(ttgir: MlirModule) -> list[MlirOp]:
    """The convert_layout ops inside a loop, in program order (check's evidence)."""
    return [op for op in ttgir.ops if op.name in CONVERT_OPS and ttgir.in_loop(op)]


# %3 = ttg.memdesc_index %a_bufs[%c0_i32] : !ttg.memdesc<3x128x64xf16, ...> -> !ttg.memdesc<128x64xf16, ...>
_DEFINES_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=")
# ttng.async_tma_copy_global_to_local %a_desc[%off_m, %c0_i32] %3, %0, %pred : ...   (destination: %3)
_TMA_DEST_RE = re.compile(r"\]\s*(%[\w.$-]+)")
# ttg.async_copy_global_to_local %ptrs, %dst mask ... : ...   (destination: the second operand)
_COPY_DEST_RE = re.compile(r"ttg\.async_copy_global_to_local\s+%[\w.$-]+,\s*(%[\w.$-]+)")
_COPIES = {"ttng.async_tma_copy_global_to_local": _TMA_DEST_RE, "ttng.async_tma_gather": _TMA_DEST_RE,
           "ttg.async_copy_global_to_local": _COPY_DEST_RE}


def _rings(module: MlirModule) -> tuple[dict[str, int], bool]:
    """({"128x64xf16": slots} for each tile the kernel's asynchronous copies land in, whether some copy's
    destination could not be traced). A destination indexed out of a buffer (`ttg.memdesc_index`) has as many
    slots as that buffer's leading dimension — its type is in the index op's own text, also inside a warp
    partition whose buffers arrive as arguments; a destination that is an allocation itself is one slot."""
    defined = {}
    for op in module.ops:
        match = _DEFINES_RE.match(module.text(op))
        if match:
            defined[match[1]] = op
    rings: dict[str, int] = {}
    untraced = False
    for op in module.ops:
        pattern = _COPIES.get(op.name)
        found = pattern.search(module.text(op)) if pattern else None
        if found is None:
            continue
        source = defined.get(found[1])
        shape = MEMDESC_RE.search(module.text(source)) if source is not None else None
        if source is None or shape is None or source.name not in ("ttg.memdesc_index", "ttg.local_alloc"):
            untraced = untraced or pattern is not None
            continue
        dims = [int(n) for n in shape[1].split("x")]
        slots, tile = (dims[0], dims[1:]) if source.name == "ttg.memdesc_index" else (1, dims)
        name = "x".join(map(str, tile)) + f"x{shape[2]}"
        rings[name] = max(rings.get(name, 0), slots)
    return rings, untraced


def _ring_text(rings: dict[str, Any]) -> str:
    return ", ".join(f"{depth} × {tile}" for tile, depth in sorted(rings.items()))

