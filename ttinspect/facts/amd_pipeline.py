"""Pipeline depth on AMD targets, from the final TTGIR, with two witnesses Triton's AMD stream pipeliner
writes independently of each other:

1. **The prologue** — the K steps it loads before the loop: `tt.load {amd.pipeliner_part = "prologue"}`
   (register path, gfx942 / gfx90a / RDNA, and gfx950 with Triton 3.6), the asynchronous copies
   `ttg.async_copy_global_to_local` issued before the loop (gfx950's direct-to-LDS path, Triton 3.9), or
   loads a later pass rewrote (`amdg.buffer_load`, the mark dropped) with the location of a loop load.
   Loads ahead = prologue loads / loads in one iteration; depth = loads ahead + 1. A loop whose loads are
   all issued inside it (no prologue) and whose iteration arguments carry no LDS buffer is depth 1.
2. **The LDS ring** — the loop's tiles kept in B buffers (`ttg.local_alloc : () ->
   !ttg.memdesc<Bx…, mutable>`). B relates to num_stages per release and target, measured (docs/amd.md):
   B = depth − 1 on gfx942, gfx90a, RDNA and gfx950 with 3.6; B = depth on gfx950 with 3.9. A release
   not measured has no ring reading, nor has a loop that stages nothing through LDS (a reduction loaded
   ahead into registers by `tl.range(..., num_stages=N)`): the prologue alone gives the depth then, and
   the fact says it rests on one witness.

Measured over the shipped matmuls × gfx90a / gfx942 / gfx950 / gfx1100 × num_stages 1–4 on Triton 3.6
and 3.9: both witnesses equal the configured num_stages wherever the loop is pipelined
(tests/test_amd.py pins it). When they disagree the depth is unknown and both readings are shown.
The assembly is no witness: LLVM reschedules the loads (opt on gfx942 issues 2 K steps ahead at both
num_stages 2 and 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.errors import TTInspectError
from ttinspect.targets.nvidia import Target
from ttinspect.facts.model import Fact, known, unknown

PIPE = "pipeline"
KEY, TITLE = "pipeline_depth", "pipeline depth (num_stages)"
EXPLANATION = ("software-pipelining depth: the K steps in flight, read from the TTGIR after Triton's AMD stream "
               "pipeliner — the loads it issues before the loop (its prologue) and the LDS buffers it keeps")

# %a_55 = ttg.local_alloc : () -> !ttg.memdesc<3x128x32xf16, #shared, #smem, mutable> loc(#loc86)
RING_RE = re.compile(r"ttg\.local_alloc\s*:\s*\(\)\s*->\s*!ttg\.memdesc<(\d+)x\d+x[^>]*\bmutable>")
# %a_38 = tt.load %a_ptrs_32, %acc_37, %cst_0 {amd.pipeliner_part = "prologue"} : tensor<...>
PROLOGUE_ATTR = 'amd.pipeliner_part = "prologue"'
# the ops that bring a tile from global memory: loads to registers, and copies straight into LDS
LOADS = ("tt.load", "amdg.buffer_load")
COPIES = ("ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
# a loop whose tiles pass through LDS has one of these in it (or in the region before it)
LDS_OPS = ("ttg.local_alloc", "ttg.local_store", *COPIES)
# B buffers = depth - offset, per Triton (major, minor) and target (measured; docs/amd.md)
_OTHERS = {"gfx942": 1, "gfx90a": 1, "gfx1100": 1, "gfx1101": 1, "gfx1200": 1, "gfx1201": 1}
RING_OFFSET = {(3, 6): {**_OTHERS, "gfx950": 1}, (3, 9): {**_OTHERS, "gfx950": 0}}


@dataclass(frozen=True)
class Reading:
    depth: int | None
    text: str  # what was read, for the fact's explanation or its unknown reason


def pipeline_depth(ttgir: str, target: Target, release: tuple[int, int] | None, *, has_loop: bool,
                   no_loop_reason: str) -> Fact:
    if not has_loop:
        return unknown(KEY, TITLE, PIPE, f"not applicable: {no_loop_reason}", EXPLANATION, "ttgir")
    # the MLIR parser is loaded only for an AMD report that has a loop
    from ttinspect.dialects.mlir import parse_mlir

    try:
        module = parse_mlir(ttgir, stage="ttgir")
    except TTInspectError as error:
        return unknown(KEY, TITLE, PIPE, f"the TTGIR could not be read: {error}", EXPLANATION, "ttgir")
    found = witnesses(module, ttgir, target, release)
    if found is None:
        return unknown(KEY, TITLE, PIPE, "not applicable: no loop in the TTGIR loads from global memory",
                       EXPLANATION, "ttgir")
    prologue, ring = found
    if prologue.depth is None and ring.depth is None:
        return unknown(KEY, TITLE, PIPE, f"{prologue.text}; {ring.text}", EXPLANATION, "ttgir")
    if prologue.depth is not None and ring.depth is not None:
        if prologue.depth != ring.depth:
            return unknown(KEY, TITLE, PIPE, f"the witnesses disagree: {prologue.text} (depth {prologue.depth}), "
                           f"{ring.text} (depth {ring.depth})", EXPLANATION, "ttgir")
        return known(KEY, TITLE, PIPE, prologue.depth, EXPLANATION + f". Two witnesses agree: {prologue.text}; "
                     f"{ring.text}", "ttgir")
    one, other = (prologue, ring) if prologue.depth is not None else (ring, prologue)
    return known(KEY, TITLE, PIPE, one.depth, EXPLANATION + f". One witness: {one.text} ({other.text})", "ttgir")


def witnesses(module, ttgir: str, target: Target, release: tuple[int, int] | None) -> tuple[Reading, Reading] | None:
    """(the prologue's reading, the LDS ring's reading) of the main loop of a parsed TTGIR; None without a
    loop that loads from global memory."""
    # the innermost loop holding a dot, else the one with the most global loads (a reduction's loop)
    loop = module.loop_of_interest(LOADS + COPIES)
    if loop is None:
        return None
    # the region the loop sits in starts at its enclosing loop (or the function): its prologue is there
    region = module.loops[loop.parent].op.line if loop.parent is not None else 0
    return _prologue(module, loop, region), _ring(module, loop, region, ttgir, target, release)


def _prologue(module, loop, region: int) -> Reading:
    inside = [op for op in module.ops if op.name in LOADS + COPIES and loop.op.line < op.line <= loop.op.end_line]
    if not inside:
        return Reading(None, "no global load in the loop")
    # loads inside another loop of the region (an earlier loop), or before it (that loop's own prologue: a
    # causal attention's two inner loops, each pipelined), are not this loop's prologue
    others = [other.op for other in module.loops if other.op.line > region and other.op.end_line < loop.op.line]
    region = max([region] + [other.end_line for other in others])
    # a prologue load is a copy of one of the loop's loads: the pipeliner's mark, or — where a later pass
    # (canonicalize-pointers, convert-to-buffer-ops on 3.9) rewrote the op and dropped the mark — the same
    # source location as a load in the loop (Python line + call sites: a helper called twice differs)
    locations = {op.loc for op in inside if op.loc}
    ahead = [op for op in module.ops if region < op.line < loop.op.line and op.name in LOADS + COPIES
             and not any(o.line < op.line <= o.end_line for o in others)
             and (PROLOGUE_ATTR in module.text(op) or (op.loc is not None and op.loc in locations))]
    if len(ahead) % len(inside):
        return Reading(None, f"{len(ahead)} loads before the loop for {len(inside)} in it: not a whole number of "
                             "K steps")
    steps = len(ahead) // len(inside)
    kind = "asynchronous copies" if any(op.name in COPIES for op in inside) else "loads"
    if steps == 0:
        return Reading(1, f"no K step loaded before the loop (its {len(inside)} {kind} are issued and used in the "
                          "same iteration)")
    return Reading(steps + 1, f"the prologue issues {steps} K step(s) of {kind} before the loop ({len(ahead)} for "
                              f"{len(inside)} per iteration)")


def _ring(module, loop, region: int, ttgir: str, target: Target, release: tuple[int, int] | None) -> Reading:
    buffers = sorted({int(b) for b in RING_RE.findall(ttgir)})
    offset = RING_OFFSET.get(release or (0, 0), {}).get(target.name)
    made = f"Triton {release[0]}.{release[1]}" if release else "this Triton"
    if not buffers:
        if not any(op.name in LDS_OPS and region < op.line <= loop.op.end_line for op in module.ops):
            # a reduction's loop: the pipeliner can still load ahead into registers (tl.range(num_stages=N)),
            # which only the prologue shows
            return Reading(None, "no LDS ring to read: the loop stages nothing through LDS")
        carried = "!ttg.memdesc" in module.text(loop.op)
        if carried:
            return Reading(None, "LDS buffers carried by the loop but no multi-buffered alloc")
        return Reading(1, "no LDS ring (no multi-buffered ttg.local_alloc)")
    if len(buffers) != 1:
        return Reading(None, f"the LDS rings disagree ({', '.join(map(str, buffers))} buffers)")
    if offset is None:
        return Reading(None, f"{buffers[0]} LDS buffers per operand, but the buffers-to-depth rule was not measured "
                             f"for {target.name} with {made} (measured: 3.6, 3.9)")
    rule = "B = depth" if offset == 0 else f"B = depth − {offset}"
    return Reading(buffers[0] + offset, f"{buffers[0]} LDS buffers per operand ({rule} on {target.name}, {made})")
