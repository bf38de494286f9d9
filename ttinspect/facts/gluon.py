"""What only a Gluon kernel states: the layouts its author chose, what converting between them costs in its
loops, and the ring of shared-memory buffers and mbarriers it pipelines with. A Gluon kernel starts at
TritonGPU IR (its "glir" stage: the kernel as written), so no pass picked these — Triton's own num_stages
pipelining never runs on it; the depth is what the code allocates and waits on:

    %a = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>     a ring of 3 A tiles
    %bars = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64, #shared1, #smem, mutable>     3 mbarriers
    ttng.wait_barrier %bar, %phase : !ttg.memdesc<1xi64, ...>                             a wait, in the loop
    %c = ttg.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #...>  a conversion

Layouts are read from the Gluon IR (what the author wrote); conversions, allocations and waits from the
TTGIR after Gluon's passes (inlined helpers, resolved `AutoLayout`s), where they are what will run.
"""

from __future__ import annotations

import re
from typing import Any

from ttinspect.dialects.mlir import MlirModule, MlirOp
from ttinspect.facts.model import Fact, counts, known, unknown

GROUP = "gluon"
# !ttg.memdesc<3x128x64xf16, ...>: the shape and the element type of a shared-memory allocation
_MEMDESC_RE = re.compile(r"!ttg\.memdesc<((?:\d+x)+)([a-z]+\d+)")
WAIT_OPS = frozenset({"ttng.wait_barrier"})
CONVERT_OPS = frozenset({"ttg.convert_layout"})


def gluon_facts(glir: MlirModule, ttgir: MlirModule) -> list[Fact]:
    layouts = counts(layout.kind.split(".")[-1] for layout in glir.layouts.values())
    converts = [op for op in ttgir.ops if op.name in CONVERT_OPS]
    in_loops = [op for op in converts if _in_loop(ttgir, op)]
    rings, barriers = _allocations(ttgir)
    waits = [op for op in ttgir.ops if op.name in WAIT_OPS and _in_loop(ttgir, op)]
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
              "the pipeline depth a Gluon kernel has: the leading dimension of its multi-buffered shared-memory "
              "tiles (the loads in flight are at most this many); read from what the code allocates, as "
              f"{_ring_text(rings)}", "ttgir") if rings else
        unknown("ring_depth", "ring depth (buffers)", GROUP, "not applicable: no multi-buffered shared-memory tile",
                "the leading dimension of the kernel's "
                "multi-buffered shared-memory tiles", "ttgir"),
        known("mbarriers", "mbarriers allocated", GROUP, barriers,
              "64-bit shared-memory barriers (mbarrier.init): one per ring slot to say a TMA load landed, and "
              "one per slot to say its consumer is done", "ttgir"),
        known("barrier_waits_in_loop", "mbarrier waits in loops", GROUP, len(waits),
              "waits on an mbarrier inside a loop (mbarrier.wait): each stalls until that slot's load or MMA "
              "completes; waiting on the slot just issued serializes the ring", "ttgir"),
    ]


def loop_converts(ttgir: MlirModule) -> list[MlirOp]:
    """The convert_layout ops inside a loop, in program order (check's evidence)."""
    return [op for op in ttgir.ops if op.name in CONVERT_OPS and _in_loop(ttgir, op)]


def _in_loop(module: MlirModule, op: MlirOp) -> bool:
    return any(loop.op.line < op.line <= loop.op.end_line for loop in module.loops)


def _allocations(module: MlirModule) -> tuple[dict[str, int], int]:
    """(multi-buffered tiles: "128x64xf16" -> buffers, mbarriers): every shared-memory allocation of rank 3 or
    more is a ring of tiles (its leading dimension the depth); of 64-bit integers, barriers."""
    rings: dict[str, int] = {}
    barriers = 0
    for op in module.ops:
        if op.name != "ttg.local_alloc":
            continue
        match = _MEMDESC_RE.search(module.text(op))
        if not match:
            continue
        shape = [int(n) for n in match[1].rstrip("x").split("x")]
        if match[2] == "i64":
            barriers += _product(shape)
        elif len(shape) >= 3:
            tile = "x".join(str(n) for n in shape[1:]) + f"x{match[2]}"
            rings[tile] = max(rings.get(tile, 0), shape[0])
    return rings, barriers


def _ring_text(rings: dict[str, Any]) -> str:
    return ", ".join(f"{depth} × {tile}" for tile, depth in sorted(rings.items()))


def _product(shape: list[int]) -> int:
    out = 1
    for n in shape:
        out *= n
    return out
