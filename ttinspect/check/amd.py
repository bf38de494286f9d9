"""The check rules on AMD targets, with AMD's evidence: LLVM's AMDGCN assembly (its `.loc` lines give the
Python line of each instruction), LLVM's resource report and the code-object notes (the facts), and the
same TTGIR/TTIR reasoning as on NVIDIA where that is vendor-neutral.

- TTI003 register-spills: the notes' `.vgpr_spill_count` / `.sgpr_spill_count`, and where the spilled
  values go: scratch memory (`scratch_store_dword … ; 4-byte Folded Spill`, a real memory round trip) or
  other registers (SGPRs parked in VGPR lanes with `v_writelane_b32`: no memory traffic).
- TTI004 occupancy-limited: waves per SIMD from the VGPR count and Triton's LDS (the AMD backend's
  calculator, backends/amd_resources.py), the value of the limiting resource that gives one more workgroup
  per CU, and the knob that asks LLVM for it (`waves_per_eu`).
- TTI005 / TTI001: the width of each global access per Python line, read from the assembly instead of the
  PTX by the AMD backend's hooks (backends/amd.py).
check/by_vendor.py picks these builders on AMD targets.
TTI002 (mma.sync vs wgmma/tcgen05) and TTI007 (TMA) are about NVIDIA instructions: silent on AMD.
"""

from __future__ import annotations

from ttinspect.backends.amd_resources import workgroups_per_cu
from ttinspect.check.context import fact_evidence, fact_value, stages_of
from ttinspect.check.model import Evidence, Finding
from ttinspect.check.accumulators import accumulator_text, live_accumulators
from ttinspect.check.registers import rank_spill_lines

SPILL_ID, SPILL_SLUG = "TTI003", "register-spills"
OCC_ID, OCC_SLUG = "TTI004", "occupancy-limited"
# scratch bytes per lane at or below which a spill is info (a value or two), as on NVIDIA
SMALL_SCRATCH_BYTES = 16
ENOUGH_OCCUPANCY = 0.5  # as on NVIDIA (check/registers.py says why)


# --- TTI003 ---------------------------------------------------------------------------------------

def register_spills(report, build) -> list[Finding]:
    stages = stages_of(build)
    module = stages.amdgcn
    if module is None:
        return []
    vgpr_spills, sgpr_spills = module.note_int("vgpr_spill_count"), module.note_int("sgpr_spill_count")
    if not vgpr_spills and not sgpr_spills:
        return []
    scratch = fact_value(report, "scratch_bytes")
    registers = fact_value(report, "registers")
    target = build.target
    memory, lines, ranked = _scratch_accesses(stages)
    evidence = [e for e in (fact_evidence(report, "registers"), fact_evidence(report, "spills"),
                            fact_evidence(report, "scratch_bytes")) if e]
    evidence += ([memory] if memory else []) + lines
    spilled = f"{vgpr_spills or 0} VGPRs + {sgpr_spills or 0} SGPRs spilled"
    to_memory = isinstance(scratch, int) and scratch > 0 and memory is not None
    cap = _vgpr_cap(target)
    if to_memory:
        title = f"register spills: {spilled}, {scratch} bytes of scratch per lane at {registers} VGPRs"
        why = (f"LLVM could not keep every live value in the {cap} a lane may have on {target.name}, so it stores "
               "some to scratch (private memory: off-chip, cached) and reloads them: extra memory traffic and "
               "latency on every use.")
        if ranked:
            why += " Most spill instructions are on Python line(s) " + ", ".join(ranked) + "."
        severity = "info" if scratch <= SMALL_SCRATCH_BYTES else "warning"
        if severity == "info":
            why += f" At ≤ {SMALL_SCRATCH_BYTES} bytes per lane this is a value or two, rarely measurable."
    else:
        title = f"register spills without memory traffic: {spilled}, no scratch"
        why = ("LLVM ran short of one kind of register and parked values in another: SGPRs in VGPR lanes "
               "(v_writelane_b32 / v_readlane_b32) or VGPRs in AGPRs (v_accvgpr_write / read). Each costs an "
               "instruction per use but no memory access; it becomes a problem only when it turns into scratch "
               "spills (this finding would then be a warning).")
        severity = "info"
    return [Finding(SPILL_ID, SPILL_SLUG, severity, title, tuple(evidence), why,
                    _spill_fix(report, build, to_memory))]


def _vgpr_cap(target) -> str:
    limits = target.amd
    if limits is not None and limits.unified_agprs:
        return "512 VGPRs (256 ArchVGPRs + 256 AGPRs)"
    return f"{target.max_registers_per_thread} VGPRs"


def _scratch_accesses(stages) -> tuple[Evidence | None, list[Evidence], list[str]]:
    """(a summary, one line per top Python line, labels) for the spill instructions the parser marks
    (`scratch_*`, and buffer accesses LLVM comments `; 4-byte Folded Spill` / `Folded Reload`)."""
    module = stages.amdgcn
    kernel = module.kernel if module is not None else None
    if kernel is None:
        return None, [], []
    main = kernel.main_loop
    in_loop = {i.index for i in kernel.loop_instructions(main.loop)} if main is not None else set()
    return rank_spill_lines(stages, "amdgcn", [i for i in kernel.instructions if i.spill], in_loop,
                            "top lines by scratch spill instructions ({total} in all)",
                            lambda found: (sum(1 for i in found if "store" in i.mnemonic), "stores", "loads"))


def _spill_fix(report, build, to_memory: bool) -> str:
    warps = fact_value(report, "num_warps")
    wave = build.target.warp_size
    most_warps = 1024 // wave  # a workgroup holds at most 1024 work-items
    more_warps = warps * 2 if isinstance(warps, int) and warps * 2 <= most_warps else None
    parts = []
    accumulators = live_accumulators(build)
    if accumulators and isinstance(warps, int):
        text, per_lane = accumulator_text(accumulators, str(wave), wave, warps, "lane")
        m, n = accumulators[0].m, accumulators[0].n
        parts.append(text)
        halves = f"num_warps={more_warps} halves it to {per_lane // 2}, and so does" if more_warps else "Halve it with"
        parts.append(f"{halves} BLOCK_N={n // 2} (or BLOCK_M={m // 2}).")
    else:
        parts.append("Keep fewer values live per lane: a smaller block or more warps.")
    if isinstance(fact_value(report, "pipeline_depth"), int) and fact_value(report, "pipeline_depth") > 1:
        parts.append("Fewer stages shorten the live ranges of the prefetched tiles.")
    waves_per_eu = build.metadata.get("waves_per_eu") if hasattr(build, "metadata") else None
    if isinstance(waves_per_eu, int) and waves_per_eu > 0:
        parts.append(f"waves_per_eu={waves_per_eu} caps the VGPRs LLVM may use: a lower value (or 0) gives it more.")
    parts.append("Re-check with `ttinspect report REF --set ...` until " + ("scratch_bytes is 0." if to_memory else
                                                                            "spills is 0."))
    return " ".join(parts)


# --- TTI004 ---------------------------------------------------------------------------------------

def occupancy_limited(report, build, depth: int | None, no_loop: bool) -> list[Finding]:
    """`depth`/`no_loop`: the main loop's pipeline depth and whether there is no loop (as on NVIDIA, a
    pipelined loop hides latency with its stages, and an unknown depth gets no guess)."""
    registers, warps = fact_value(report, "registers"), fact_value(report, "num_warps")
    shared = fact_value(report, "shared_memory")
    if not all(isinstance(v, int) for v in (registers, warps, shared)):
        return []
    if (isinstance(depth, int) and depth >= 2) or (depth is None and not no_loop):
        return []
    target = build.target
    limits = target.amd
    now = workgroups_per_cu(target, vgprs=registers, shared=shared, num_warps=warps)
    if now.waves / limits.max_waves_per_simd >= ENOUGH_OCCUPANCY or now.blocks == 0:
        return []
    if not set(now.limited_by) <= {"VGPRs", "LDS"}:
        return []
    title = (f"occupancy {now.waves / limits.max_waves_per_simd:.0%} ({now.waves} of {limits.max_waves_per_simd} waves "
             f"per SIMD, {now.blocks} workgroup(s)/CU), limited by {' and '.join(now.limited_by)}")
    why = ("The kernel has no software pipeline, so it hides memory latency only with other resident waves; "
           f"{now.waves} waves per SIMD leave it idle while loads are in flight. Workgroups per CU allowed by each "
           f"resource on {target.name}: " + ", ".join(f"{k} {v}" for k, v in now.limits) + ".")
    evidence = [e for e in (fact_evidence(report, "registers"), fact_evidence(report, "shared_memory"),
                            fact_evidence(report, "num_warps"), fact_evidence(report, "waves_per_simd"),
                            fact_evidence(report, "occupancy")) if e]
    severity = "warning" if now.waves / limits.max_waves_per_simd < 0.25 else "info"
    scratch = fact_value(report, "scratch_bytes")
    if "VGPRs" in now.limited_by and isinstance(scratch, int) and scratch > 0:
        fix = ("Not by capping VGPRs (waves_per_eu): the kernel already spills to scratch (TTI003), and a lower cap "
               "spills more. Remove the spills first (smaller tiles or more warps per tile); the VGPRs that frees "
               "lift occupancy too.")
        return [Finding(OCC_ID, OCC_SLUG, severity, title, tuple(evidence), why, fix)]
    change = {"vgprs": registers, "shared": shared, "num_warps": warps}
    needs = []
    for resource in now.limited_by:
        lifted = _lift(target, resource, change, now.blocks + 1)
        if lifted is None:
            return []
        text, key, value = lifted
        needs.append(text)
        change[key] = value
    after = workgroups_per_cu(target, **change)
    if after.waves <= now.waves:
        return []
    fix = (f"{' and '.join(needs)} gives {after.blocks} workgroups/CU ({after.waves} waves per SIMD, "
           f"{after.waves / limits.max_waves_per_simd:.0%} occupancy).")
    if "VGPRs" in now.limited_by:
        fix += (f" `--set waves_per_eu={after.waves}` asks LLVM for that many waves per SIMD; re-check with "
                f"`ttinspect report REF --set waves_per_eu={after.waves}` that spills stay 0 (a cap can make it "
                "spill).")
    return [Finding(OCC_ID, OCC_SLUG, severity, title, tuple(evidence), why, fix)]


def _lift(target, resource: str, current: dict, wanted: int) -> tuple[str, str, int] | None:
    """(advice, keyword, value): the largest value of `resource` that lets `wanted` workgroups fit by that
    resource's own limit, found with the calculator itself."""
    def allows(key: str, value: int) -> int:
        # no LDS at all: that resource no longer limits
        return dict(workgroups_per_cu(target, **{**current, key: value}).limits).get(resource, 1 << 30)

    if resource == "VGPRs":
        vgprs = current["vgprs"]
        for value in range(vgprs - 1, 0, -1):
            if allows("vgprs", value) >= wanted:
                return f"≤ {value} VGPRs per lane (now {vgprs})", "vgprs", value
        return None
    shared = current["shared"]
    for value in range(shared - shared % 256, -1, -256):
        if allows("shared", value) >= wanted:
            return f"≤ {value} bytes ({value / 1024:.1f} KB) of LDS per workgroup (now {shared})", "shared", value
    return None
