"""The NVIDIA backend: facts from the PTX, the SASS and the cubin's resources (with the occupancy calculator
of backends/nvidia_resources.py), and the check rules' hooks read from the PTX."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ttinspect.backends.stages import IrStages, all_unknown, main_loop_text, stage_text
from ttinspect.errors import TTInspectError
from ttinspect.facts.model import Fact, unknown

if TYPE_CHECKING:
    from ttinspect.engine.builds import Build

# The parsers and fact extractors are imported where facts are computed: a warm report reads them back
# from the entry (`kernel.facts-*.json`), and a warm `diff` need not import them at all.

SASS_GROUP = "sass (what runs)"


class NvidiaBackend:
    name = "nvidia"
    assembly_stage = "ptx"
    thread_word = "thread"
    cta_word = "CTA"
    shared_word = "shared memory"

    # --- facts ----------------------------------------------------------------------------------
    def facts(self, result: Build, sass: bool) -> tuple[list[Fact], str | None]:
        from ttinspect.dialects.ptx import parse_ptx  # parsers: only where facts are computed (not warm)
        from ttinspect.facts.pipeline import pipeline_depth  # likewise
        from ttinspect.facts.ptx import PtxView, ptx_facts  # likewise

        ptx_text, ptx_missing = stage_text(result, "ptx")
        ptx = parse_ptx(ptx_text)
        view = PtxView.of(ptx)
        ir = IrStages.of(result)
        depth, per_loop = (pipeline_depth(view), []) if ptx_missing else _loop_facts(result, ir, ptx, view, ptx_text)
        facts = all_unknown([depth] + ptx_facts(view), ptx_missing)
        facts += ir.facts(result) + _resource_facts(result)
        if sass:
            facts += _sass_facts(result)
        facts += per_loop
        return facts, (main_loop_text(ptx_text, ptx) if not ptx_missing else None)

    # --- the check rules' hooks -----------------------------------------------------------------
    def has_tma(self, target: Any) -> bool:
        return target.capability >= 90

    def has_async_copy(self, target: Any) -> bool:
        return target.capability >= 80

    def mma_upgrade(self, target: Any) -> tuple[str, int] | None:
        if 90 <= target.capability < 100:
            return "wgmma", 3
        if 100 <= target.capability < 120:
            return "tcgen05", 5
        return None  # Ampere/Ada, and sm_120/121 (consumer Blackwell has neither wgmma nor tcgen05)

    def access_widths(self, stages: Any) -> dict[tuple[int, str], list[tuple[int, int]]]:
        """(python line, load/store) -> [(bits per thread per access, ptx line)]."""
        parsed = stages.ptx
        if parsed is None:
            return {}
        out: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
        for op in parsed[1].ops:
            if "global" not in op.modifiers:
                continue
            if op.opcode in ("ld", "st"):
                bits, kind = access_bits(op.modifiers), "load" if op.opcode == "ld" else "store"
            elif op.opcode == "cp" and op.modifiers[:2] in (("async", "ca"), ("async", "cg")):
                try:
                    bits, kind = int(op.operands[2], 0) * 8, "load"
                except (IndexError, ValueError):
                    continue
            else:
                continue
            line = stages.python_line("ptx", op.line)
            if line is not None and bits:
                out[(line, kind)].append((bits, op.line))
        return out

    def narrow_loop_loads(self, stages: Any) -> tuple:
        parsed = stages.ptx
        if parsed is None:
            return ()
        _, view = parsed
        found = []
        for op in view.loop_ops:
            if op.opcode == "ld" and "global" in op.modifiers and access_bits(op.modifiers) < 32:
                found.append(stages.evidence("ptx", op.line))
        return tuple(found[:2])

    def narrow_loop_reason(self, target: Any, where: str, descriptors: list[str]) -> tuple[str, str]:
        if descriptors and target.capability < 90:
            text = (f"its loads{where} move fewer than 4 bytes per thread at a time (cp.async copies 4, 8 or 16 "
                    f"bytes): they come from tensor descriptors ({', '.join(descriptors)}), which on "
                    f"{target.name} lower to plain loads whose alignment Triton cannot prove (TMA needs sm_90+)")
            fix = (f"On {target.name} load the tiles through pointers (`*fp16:16` arguments, the unit stride "
                   "passed as 1) instead of descriptors, or compile for sm_90+ where descriptors become TMA copies.")
            return text, fix
        text = (f"its loads{where} move fewer than 4 bytes per thread at a time (cp.async copies 4, 8 or 16 "
                "bytes), so they cannot become asynchronous copies; TTI005 shows what keeps them narrow")
        return text, "Make each thread's loads ≥ 4 contiguous bytes with the change TTI005 gives for the same line."

    def narrow_blocks_pipelining(self, report: Any, narrow_in_loop: bool) -> tuple[bool, str]:
        return narrow_in_loop, (" — and a load narrower than 4 bytes cannot become a cp.async, so the loop around "
                                "it is not pipelined")

    def descriptor_lowering(self, target: Any) -> tuple[str, str]:
        return "TMA needs sm_90+", ", or compile for sm_90+ where descriptors become TMA copies."


NVIDIA = NvidiaBackend()


def access_bits(modifiers: tuple[str, ...]) -> int:
    """ld.global.v4.b32 -> 128, ld.global.b16 -> 16, ld.global.nc.v2.u16 -> 32."""
    vector = 1
    bits = 0
    for m in modifiers:
        if m.startswith("v") and m[1:].isdigit():
            vector = int(m[1:])
        elif m[:1] in ("b", "u", "s", "f") and m[1:].isdigit():
            bits = int(m[1:])
    return vector * bits


def _sass_facts(result: Build) -> list[Fact]:
    """SASS facts, in one group of their own; a missing nvdisasm/cuobjdump makes them unknown."""
    from ttinspect.dialects.sass import parse_sass  # a parser: only where facts are computed (not warm)
    from ttinspect.facts.sass import SassView, sass_facts  # likewise

    try:
        view = SassView.of(parse_sass(result.artifacts.text("sass")))
    except TTInspectError as error:
        return [unknown("sass_instructions", "SASS instructions (kernel)", SASS_GROUP, str(error),
                        "the disassembled cubin", "sass")]
    return [dataclasses.replace(fact, group=SASS_GROUP) for fact in sass_facts(view)]


def _resource_facts(result: Build) -> list[Fact]:
    from ttinspect.backends.nvidia_resources import resource_facts  # only where facts are computed
    from ttinspect.facts.resources import parse_ptxas_log, parse_resource_usage  # likewise

    usage, usage_reason = None, ""
    try:
        usage = parse_resource_usage(result.artifacts.resource_usage(), result.metadata.get("name"))
        usage_reason = "cuobjdump listed no resources for the kernel" if usage is None else ""
    except TTInspectError as error:  # no cuobjdump: degrade, never crash
        usage_reason = str(error)
    log = result.artifacts.extra("ptxas_log")
    ptxas = parse_ptxas_log(log) if log else None
    ptxas_reason = ((result.metadata.get("ttinspect") or {}).get("no_ptxas_log")
                    or "the ptxas -v log was not kept for this cache entry" if log is None
                    else "the ptxas -v log has no spill line" if ptxas is None else "")
    return resource_facts(result.target, usage, usage_reason, ptxas, ptxas_reason,
                          shared=result.metadata.get("shared") or 0,
                          num_warps=result.metadata.get("num_warps") or 4)


def _loop_facts(result: Build, ir: IrStages, ptx: Any, view: Any, ptx_text: str) -> tuple[Fact, list[Fact]]:
    """The kernel's pipeline depth from two witnesses and every loop's own facts (facts/loops.py).
    Without a TTGIR the depth is the PTX's alone."""
    from ttinspect.facts.loops import kernel_loop_facts  # only where facts are computed (not warm)
    from ttinspect.facts.pipeline import pipeline_depth  # likewise

    if ir.ttgir_missing:
        return pipeline_depth(view), []
    return kernel_loop_facts(ir.ttgir, None if ir.ttir_missing else ir.ttir, ptx, view, ptx_text,
                             result.metadata.get("num_stages"))
