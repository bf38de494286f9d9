"""Warp specialization: whether the compiler split the kernel's warps into partitions, what each runs,
the registers each gets, and the depth of the channel between them. Pure: TTGIR + PTX text in.

`tl.range(..., warp_specialize=True)` asks for it (the TTIR's loop carries `tt.warp_specialize`); the
TTGIR shows what was built: a `ttg.warp_specialize` op whose `default` region is the kernel's own warps
(which also run what follows the op: the epilogue) and `partitionN(...) num_warps(W)` regions for the
workers, with `requestedRegisters` per worker. In the PTX the workers lower their register budget with
`setmaxnreg.dec` and the default warps raise theirs with `setmaxnreg.inc` — the second witness of the
register split. Measured: Triton 3.6 and 3.9 warp-specialize on sm_100; on sm_90 neither does (with 4
warps the compile fails in the TMA lowering; with 8 the loop is pipelined without partitions).
"""

from __future__ import annotations

import re

from ttinspect.dialects.mlir import MlirModule
from ttinspect.facts.loop_ir import IrLoop, partitions
from ttinspect.facts.model import Fact, known, unknown

GROUP = "warp specialization"
_SETMAXNREG_RE = re.compile(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)")

EXPLAIN_WS = ("the compiler split the kernel's warps into partitions that run different code at once (a producer "
              "issuing TMA loads, an MMA issuer, the default warps' epilogue), talking through barrier rings "
              "in shared memory instead of the whole CTA waiting at bar.sync")


def warp_spec_facts(ttgir: MlirModule, ptx_text: str, loops: tuple[IrLoop, ...],
                    depth_of: dict[int, Fact]) -> list[Fact]:
    """`depth_of`: loop index → that loop's pipeline-depth fact (facts/loops.py)."""
    parts = partitions(ttgir)
    asked = sorted({loop.line for loop in loops if loop.warp_specialize and loop.line})
    if not parts:
        if asked:
            where = ", ".join(map(str, asked))
            return [known("warp_specialized", "warp specialized", GROUP,
                          f"no: asked on line {where}, not applied",
                          f"{EXPLAIN_WS}. tl.range(warp_specialize=True) asked for it, but the TTGIR has no "
                          "ttg.warp_specialize op: this Triton did not split the loop for this target "
                          "(measured: 3.6 and 3.9 do on sm_100, not on sm_90)", "ttir + ttgir")]
        return [known("warp_specialized", "warp specialized", GROUP, "no", EXPLAIN_WS, "ttgir")]
    facts = [known("warp_specialized", "warp specialized", GROUP, f"yes: {len(parts)} partitions", EXPLAIN_WS, "ttgir")]
    facts.append(known("ws_partitions", "partitions", GROUP,
                       tuple((p.name, f"{p.warps if p.warps is not None else '?'} warp{'s' * (p.warps != 1)}"
                              f" · {' + '.join(p.runs) or 'nothing'}") for p in parts),
                       "each partition: its warps and what it runs — loads (TMA / cp.async producer), MMA (the "
                       "tensor-core issuer), epilogue (accumulator out of tensor memory, the store); the default "
                       "partition is the kernel's own warps", "ttgir"))
    facts.append(_registers(parts, ptx_text))
    facts.append(_channel(loops, depth_of))
    return facts


def _registers(parts, ptx_text: str) -> Fact:
    key, title = "ws_registers", "registers per thread by partition (setmaxnreg)"
    explanation = ("the register budget each partition runs with: workers give registers back (setmaxnreg.dec) "
                   "so the default warps can take more (setmaxnreg.inc); read from the TTGIR's requestedRegisters "
                   "and checked against the PTX's setmaxnreg")
    found = _SETMAXNREG_RE.findall(ptx_text)
    dec = {int(n) for kind, n in found if kind == "dec"}
    inc = {int(n) for kind, n in found if kind == "inc"}
    asked = {p.registers for p in parts if p.registers is not None}
    if not asked and not found:
        return unknown(key, title, GROUP, "no requestedRegisters in the TTGIR and no setmaxnreg in the PTX: the "
                       "partitions share the kernel's register budget", explanation, "ttgir + ptx")
    if asked != dec or len(inc) > 1:
        return unknown(key, title, GROUP, f"the witnesses disagree: TTGIR requests {sorted(asked)}, PTX "
                       f"setmaxnreg.dec {sorted(dec)} / .inc {sorted(inc)}", explanation, "ttgir + ptx")
    value = tuple((p.name, (next(iter(inc)) if inc else "unchanged") if p.name == "default" else p.registers)
                  for p in parts)
    return known(key, title, GROUP, value, f"{explanation}. Two witnesses agree: requestedRegisters "
                 f"{sorted(asked)} = setmaxnreg.dec {sorted(dec)}", "ttgir + ptx")


def _channel(loops: tuple[IrLoop, ...], depth_of: dict[int, Fact]) -> Fact:
    key, title = "ws_channel_depth", "producer → consumer channel depth"
    explanation = ("slots in the ring between the load partition and the MMA partition: the producer runs up "
                   "to this many K steps ahead; it follows the kernel's num_stages option, not tl.range's")
    ws_loops = [loop for loop in loops if loop.partition is not None and loop.partition != "default"]
    values = {depth_of[loop.index].value for loop in ws_loops if loop.index in depth_of}
    if len(values) == 1 and None not in values:
        return known(key, title, GROUP, values.pop(), explanation, "ttgir")
    return unknown(key, title, GROUP, f"the partitions' loops read {sorted(map(str, values)) or 'nothing'}",
                   explanation, "ttgir")
