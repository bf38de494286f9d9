"""How many trips of a loop the GPU waits on together: ptxas unrolls a simple loop (a row reduction, a
GEMV's K walk) and hoists the unrolled trips' loads ahead of their first use, so one DRAM round trip covers
several trips. The factor is read from the two compiled forms, never assumed: the global loads of the SASS
main loop ÷ those of the PTX main loop (Triton's LLVM does not unroll these loops; ptxas does).
"""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.errors import TTInspectError

MAX_UNROLL = 16  # a larger ratio means the two main loops are not the same loop: not trusted (1 is used)


def ptx_loop_global_loads(ptx: str) -> int | None:
    """ld.global instructions in the PTX main loop (None: no loop, or the PTX cannot be read)."""
    from ttinspect.dialects.ptx import parse_ptx  # the PTX parser: only when a prediction reads a loop
    from ttinspect.facts.ptx import PtxView  # likewise

    try:
        view = PtxView.of(parse_ptx(ptx))
    except TTInspectError:
        return None
    if not view.has_loop:
        return None
    return sum(1 for op in view.loop_ops if op.opcode == "ld" and "global" in op.modifiers)


def unroll_factor(facts: Mapping[str, Any]) -> int:
    """Trips of the main loop whose loads are in flight together (1 when unknown or not unrolled)."""
    ptx = facts.get("ptx_loop_global_loads")
    sass = facts.get("sass_loop_global_loads")
    if not isinstance(ptx, int) or ptx < 1 or not isinstance(sass, (tuple, list)):
        return 1
    total = sum(count for _width, count in sass)
    factor = total // ptx
    return factor if 1 <= factor <= MAX_UNROLL else 1
