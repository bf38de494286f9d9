"""AMD's occupancy calculator (waves per SIMD, workgroups per CU over the target's limits in targets/amd.py)
and the registers & occupancy facts of an AMDGCN kernel, each from two witnesses: LLVM's resource report
(`; NumVgprs: 62`, `; Occupancy: 8`) and the code-object notes (`.vgpr_count: 62`); a fact is known only
when they agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ttinspect.facts.model import Fact, known, unknown
from ttinspect.targets.nvidia import Target

if TYPE_CHECKING:
    from ttinspect.dialects.amdgcn import AmdgcnModule

REGS = "registers & occupancy"


def _two(report_value: int | None, note_value: int | None, what: str) -> tuple[int | None, str | None]:
    if report_value is None and note_value is None:
        return None, f"neither LLVM's report nor the code-object notes give {what}"
    if report_value is None or note_value is None:
        have = "LLVM's report" if report_value is not None else "the code-object notes"
        return None, f"only {have} gives {what} (one witness of two)"
    if report_value != note_value:
        return None, f"LLVM's report says {report_value}, the code-object notes say {note_value} ({what})"
    return report_value, None


def register_facts(module: AmdgcnModule, target: Target, *, shared: int, num_warps: int) -> list[Fact]:
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
