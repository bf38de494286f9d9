"""The facts of a kernel compiled for an AMD GPU, from its AMDGCN assembly, its TTGIR and Triton's
metadata: pure, text in, facts out. Keys shared with NVIDIA (`tensor_core_path`, `loop_tensor_core_ops`,
`pipeline_depth`, `registers`, `spills`, `occupancy`, `blocks_per_sm`, ...) mean the same thing, so that
`diff opt@sm_90 opt@gfx942` aligns them; the rest are AMD's own.

Registers and occupancy have two witnesses each, written independently by LLVM: its resource report
(`; NumVgprs: 62`, `; Occupancy: 8`) and the code-object notes the runtime reads (`.vgpr_count: 62`).
A fact is known only when they agree; otherwise it is unknown and says both.

Pipeline depth: facts/amd_pipeline.py (two witnesses in the TTGIR: the pipeliner's prologue, the LDS ring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.dialects.amdgcn import AmdgcnModule
from ttinspect.targets.nvidia import Target
from ttinspect.facts.amd_pipeline import pipeline_depth
from ttinspect.facts.model import Fact, counts, known, loop_fact, unknown

TC, MEM, PIPE, REGS = "tensor cores", "memory traffic", "pipeline", "registers & occupancy"

_LOADS = ("global_load", "buffer_load")
_STORES = ("global_store", "buffer_store")


def _loop(module: AmdgcnModule):
    kernel = module.kernel
    main = kernel.main_loop if kernel else None
    return kernel, main, (kernel.loop_instructions(main.loop) if kernel and main else ())


def _no_loop_reason(module: AmdgcnModule) -> str:
    kernel = module.kernel
    if kernel is None:
        return "no function in the assembly"
    return f"{kernel.name} has no loop" if not kernel.loops else "no main loop"


def amd_facts(module: AmdgcnModule, ttgir: str, target: Target, *, shared: int, num_warps: int,
              release: tuple[int, int] | None) -> list[Fact]:
    """`release`: the Triton (major, minor) that compiled it — the depth rule is per release."""
    return (_matrix_facts(module, target) + [_pipeline_depth(module, ttgir, target, release)]
            + _memory_facts(module) + _register_facts(module, target, shared=shared, num_warps=num_warps))


def _matrix_facts(module: AmdgcnModule, target: Target) -> list[Fact]:
    kernel, main, loop = _loop(module)
    everything = kernel.instructions if kernel else ()
    matrix = [i.mnemonic for i in everything if i.is_tensor_core]
    in_loop = [i.mnemonic for i in loop if i.is_tensor_core]
    path = ("wmma" if any("wmma" in m for m in matrix) else "mfma") if matrix else "none"
    has_loop, why = main is not None, _no_loop_reason(module)
    kind = "MFMA (CDNA)" if target.amd and target.amd.matrix_core == "mfma" else "WMMA (RDNA)"
    return [
        known("tensor_core_path", "tensor-core path", TC, path,
              f"the matrix-core instructions tl.dot became: {kind}; none = no matrix instruction", "amdgcn"),
        loop_fact("loop_tensor_core_ops", "matrix-core ops per iteration", TC, len(in_loop),
                  "v_mfma / v_wmma instructions in one trip around the main loop (one BLOCK_K step)",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        loop_fact("loop_matrix_ops", "matrix ops per iteration, by shape", TC, counts(in_loop),
                  "each instruction names its shape and types: v_mfma_f32_32x32x8_f16 = 32×32 output, K=8, "
                  "fp16 in, fp32 accumulate", "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        known("matrix_ops", "matrix ops (kernel), by shape", TC, counts(matrix),
              "every matrix-core instruction in the kernel (prologue and epilogue of the pipeline included)",
              "amdgcn"),
    ]


def _pipeline_depth(module: AmdgcnModule, ttgir: str, target: Target, release: tuple[int, int] | None) -> Fact:
    _, main, _ = _loop(module)
    return pipeline_depth(ttgir, target, release, has_loop=main is not None, no_loop_reason=_no_loop_reason(module))


def descriptor_fact(signature: dict | None, target: Target) -> Fact | None:
    """A kernel that takes tensor descriptors (NVIDIA's TMA on sm_90+): on AMD Triton lowers them to ordinary
    loads and stores — the report says so in one line (their widths are the load/store facts). None without
    descriptors (or where the signature was not recorded: a Triton cache entry)."""
    names = [name for name, kind in (signature or {}).items() if str(kind).startswith("tensordesc")]
    if not names:
        return None
    return known("tensor_descriptors", "tensor descriptors (no TMA on AMD)", MEM,
                 f"{', '.join(names)} → plain loads and stores",
                 f"the kernel takes tensor descriptors, which NVIDIA sm_90+ copies with TMA; {target.name} has no "
                 "TMA unit, so Triton lowers each descriptor load/store to ordinary global or buffer accesses "
                 "(their widths: `ttinspect check` says when they are narrow)", "metadata + amdgcn")


def _width(mnemonic: str) -> str:
    """global_load_dwordx4 -> dwordx4; ds_read_b128 -> b128; buffer_load_dword -> dword."""
    return mnemonic.rsplit("_", 1)[-1]


def _memory_facts(module: AmdgcnModule) -> list[Fact]:
    kernel, main, loop = _loop(module)
    everything = kernel.instructions if kernel else ()
    has_loop, why = main is not None, _no_loop_reason(module)

    def tally(items, *prefixes):  # spill reloads / stores through buffer_* are not the kernel's traffic
        return counts(i.mnemonic for i in items if i.mnemonic.startswith(prefixes) and not i.spill)

    waits = counts(" ".join(i.operands) or "0" for i in loop if i.mnemonic == "s_waitcnt")
    direct = [i for i in everything if i.mnemonic.startswith("global_load_lds")
              or (i.mnemonic.startswith(_LOADS) and i.operands and re.search(r"\blds\b", i.operands[-1]))]
    return [
        loop_fact("loop_global_loads", "global / buffer loads per iteration", MEM, tally(loop, *_LOADS),
                  "loads from global memory in one trip, by instruction and width (dwordx4 = 16 bytes per lane); "
                  "buffer_load goes through a buffer resource descriptor", "amdgcn main loop",
                  has_loop=has_loop, loop_reason=why),
        known("gcn_global_loads", "global / buffer loads (kernel)", MEM, tally(everything, *_LOADS),
              "every load from global memory, by instruction and width", "amdgcn"),
        known("gcn_global_stores", "global / buffer stores (kernel)", MEM, tally(everything, *_STORES),
              "every store to global memory, by instruction and width", "amdgcn"),
        loop_fact("loop_lds_reads", "LDS reads per iteration", MEM, tally(loop, "ds_read", "ds_load"),
                  "reads from LDS (shared memory) in one trip, by width: ds_read_b128 = 16 bytes per lane",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        loop_fact("loop_lds_writes", "LDS writes per iteration", MEM, tally(loop, "ds_write", "ds_store"),
                  "writes to LDS in one trip, by width (ds_write2st64_b64: two 8-byte writes)", "amdgcn main loop",
                  has_loop=has_loop, loop_reason=why),
        known("direct_to_lds_loads", "direct-to-LDS loads", MEM, len(direct),
              "global loads that write LDS without passing through registers (buffer_load ... lds, gfx950's "
              "global_load_lds_*); 0 = every tile goes global -> VGPRs -> LDS", "amdgcn"),
        loop_fact("loop_waitcnt", "s_waitcnt in the loop", PIPE, waits,
                  "the waits of one trip: vmcnt(N) = until at most N global loads are outstanding, lgkmcnt(N) = "
                  "LDS/scalar loads; vmcnt(0) in the loop = the loop waits for this iteration's global loads",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
    ]


def _two(report_value: int | None, note_value: int | None, what: str) -> tuple[int | None, str | None]:
    if report_value is None and note_value is None:
        return None, f"neither LLVM's report nor the code-object notes give {what}"
    if report_value is None or note_value is None:
        have = "LLVM's report" if report_value is not None else "the code-object notes"
        return None, f"only {have} gives {what} (one witness of two)"
    if report_value != note_value:
        return None, f"LLVM's report says {report_value}, the code-object notes say {note_value} ({what})"
    return report_value, None


def _register_facts(module: AmdgcnModule, target: Target, *, shared: int, num_warps: int) -> list[Fact]:
    limits = target.amd
    assert limits is not None
    report, note = module.report, module.note_int
    facts: list[Fact] = []

    def add(key, title, value, why, explanation, source="amdgcn report + notes"):
        facts.append(unknown(key, title, REGS, why, explanation, source) if value is None
                     else known(key, title, REGS, value, explanation, source))

    # RDNA has no AGPRs and LLVM writes no TotalNumVgprs line there: NumVgprs is the total
    total, why_total = _two(report.get("TotalNumVgprs", report.get("NumVgprs")), note("vgpr_count"), "the VGPRs")
    add("registers", "VGPRs per lane (arch + AGPR)", total, why_total,
        "vector registers one lane holds (ArchVGPRs, then AccVGPRs from the 4-aligned AccumOffset): LLVM's "
        "TotalNumVgprs = the notes' .vgpr_count; what limits waves per SIMD")
    arch_vgprs = report.get("NumVgprs")
    add("arch_vgprs", "ArchVGPRs", arch_vgprs, "LLVM's report has no NumVgprs",
        "the ordinary vector registers (at most 256 addressable)", "amdgcn report")
    agprs, why = _two(report.get("NumAgprs"), note("agpr_count"), "the AGPRs")
    if limits.unified_agprs:
        add("agprs", "AGPRs (AccVGPRs)", agprs, why,
            "accumulation registers MFMA can write; 0 = the accumulators live in ArchVGPRs")
    sgprs, why = _two(report.get("TotalNumSgprs"), note("sgpr_count"), "the SGPRs")
    add("sgprs", "SGPRs", sgprs, why, "scalar registers per wave (uniform values: pointers, loop counters)")
    scratch, why = _two(report.get("ScratchSize"), note("private_segment_fixed_size"), "scratch bytes")
    add("scratch_bytes", "scratch per lane (bytes)", scratch, why,
        "private (scratch) memory per lane — register spills and stack, slow off-chip memory; 0 = none")
    vspill, sspill = note("vgpr_spill_count"), note("sgpr_spill_count")
    spills = None if vspill is None or sspill is None else vspill + sspill
    add("spills", "spilled registers", spills, "the code-object notes have no spill counts",
        "VGPRs + SGPRs LLVM spilled (the notes' .vgpr_spill_count + .sgpr_spill_count); 0 = nothing spilled",
        "amdgcn notes")
    facts += _occupancy(report.get("Occupancy"), total, sgprs, target, shared=shared, num_warps=num_warps)
    return facts


@dataclass(frozen=True)
class AmdOccupancy:
    blocks: int  # workgroups per CU
    waves: int  # waves per SIMD
    limits: tuple[tuple[str, int], ...]  # (resource, workgroups per CU it allows)
    limited_by: tuple[str, ...]


def waves_by_vgprs(target: Target, vgprs: int) -> int:
    """Waves one SIMD holds at this VGPR count per lane (allocated in the target's granule)."""
    limits = target.amd
    assert limits is not None
    granule = limits.vgpr_granule
    return min(limits.max_waves_per_simd, limits.vgprs_per_simd // (-(-max(vgprs, 1) // granule) * granule))


def workgroups_per_cu(target: Target, *, vgprs: int, shared: int, num_warps: int) -> AmdOccupancy:
    """The occupancy calculator for AMD targets: a workgroup's waves are spread over the CU's SIMDs, each
    SIMD holds as many waves as its VGPR file allows (up to its wave slots), the CU's LDS is shared by its
    workgroups (Triton's dynamic LDS, which LLVM's own Occupancy ignores)."""
    limits = target.amd
    assert limits is not None
    per_simd = waves_by_vgprs(target, vgprs)
    # the workgroup's waves are spread over the SIMDs: the CU holds per_simd × SIMDs waves of this size.
    # VGPR-limited only below the SIMD's wave slots; at the cap, the slots limit
    groups = {
        ("VGPRs" if per_simd < limits.max_waves_per_simd else "waves"): per_simd * limits.simds_per_cu // num_warps,
        "workgroups": limits.max_workgroups_per_cu,
    }
    if shared:  # a kernel without LDS is not limited by it
        groups["LDS"] = limits.lds_per_cu // shared
    blocks = min(groups.values())
    waves = min(-(-blocks * num_warps // limits.simds_per_cu), limits.max_waves_per_simd)
    return AmdOccupancy(blocks, waves, tuple(groups.items()),
                        tuple(name for name, value in groups.items() if value == blocks))


def _occupancy(llvm: int | None, vgprs: int | None, sgprs: int | None, target: Target, *, shared: int,
               num_warps: int) -> list[Fact]:
    limits = target.amd
    assert limits is not None
    keys = (("blocks_per_sm", "workgroups per CU"), ("waves_per_simd", "waves per SIMD"),
            ("occupancy", "occupancy"), ("occupancy_limit", "occupancy limited by"))
    explanation = {
        "blocks_per_sm": f"workgroups that fit on one {target.name} CU at once, counting Triton's dynamic LDS",
        "waves_per_simd": f"resident waves per SIMD (of {limits.max_waves_per_simd})",
        "occupancy": "waves per SIMD / the maximum (theoretical)",
        "occupancy_limit": "the resource that caps it",
    }
    if vgprs is None or llvm is None:
        why = "needs the VGPR count and LLVM's occupancy from both witnesses"
        return [unknown(k, t, REGS, why, explanation[k], "derived") for k, t in keys]
    by_vgprs = waves_by_vgprs(target, vgprs)
    if by_vgprs != llvm:  # LLVM's Occupancy also counts SGPRs; a difference is reported, never chosen
        why = (f"LLVM's report says {llvm} waves per SIMD, the VGPR count ({vgprs}) allows {by_vgprs}: "
               f"the two witnesses disagree")
        return [unknown(k, t, REGS, why, explanation[k], "derived") for k, t in keys]
    found = workgroups_per_cu(target, vgprs=vgprs, shared=shared, num_warps=num_warps)
    detail = "; limits: " + ", ".join(f"{n} {v}" for n, v in found.limits)
    return [
        known("blocks_per_sm", "workgroups per CU", REGS, found.blocks, explanation["blocks_per_sm"] + detail,
              "derived"),
        known("waves_per_simd", "waves per SIMD", REGS, found.waves,
              explanation["waves_per_simd"] + f"; LLVM's report says {llvm}, which ignores Triton's dynamic LDS",
              "derived"),
        known("occupancy", "occupancy", REGS, f"{found.waves / limits.max_waves_per_simd:.0%}",
              explanation["occupancy"], "derived"),
        known("occupancy_limit", "occupancy limited by", REGS, ", ".join(found.limited_by),
              explanation["occupancy_limit"], "derived"),
    ]
