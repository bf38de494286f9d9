"""TTI003 register-spills: ptxas ran out of registers and keeps values in local memory — where (the
Python lines whose SASS stores/loads local memory) and what usually removes it. TTI004 occupancy-limited:
fewer CTAs fit on an SM than could, with the value of the limiting resource that gives one more CTA,
computed with the same occupancy calculator as the report's facts (facts/resources.py)."""

from __future__ import annotations

from collections import Counter

from ..facts.resources import occupancy
from ..parse.sass import INSTRUCTION_RE
from .context import fact_evidence, fact_value, stages_of, tensor_types
from .model import Evidence, Finding

SPILL_ID, SPILL_SLUG = "TTI003", "register-spills"
OCC_ID, OCC_SLUG = "TTI004", "occupancy-limited"


def register_spills(report, build) -> list[Finding]:
    spills, stores = fact_value(report, "spills"), fact_value(report, "spill_store_bytes")
    loads = fact_value(report, "spill_load_bytes")
    known_spill = (isinstance(stores, int) and stores > 0) or (isinstance(spills, int) and spills > 0
                                                               and stores is None)
    if not known_spill:
        return []  # nothing spilled, or neither the cubin nor ptxas -v says: silent
    evidence = [e for e in (fact_evidence(report, "registers"), fact_evidence(report, "spills"),
                            fact_evidence(report, "spill_store_bytes"), fact_evidence(report, "spill_load_bytes"))
                if e]
    where = ""
    if build is not None:
        lines = _local_accesses(stages_of(build))
        evidence += lines
        attributed = Counter(e.python_line for e in lines if e.python_line is not None)
        if attributed:
            where = " The SASS spills on Python line(s) " + ", ".join(str(n) for n in sorted(attributed)) + "."
    registers = fact_value(report, "registers")
    amount = (f"{stores} bytes of spill stores and {loads} bytes of spill loads per thread" if isinstance(stores, int)
              else f"n_spills {spills} (local memory per thread / 4)")
    title = f"register spills: {amount}" + (f" at {registers} registers" if isinstance(registers, int) else "")
    why = ("ptxas could not keep every live value in the 255 registers a thread may have, so it stores some to "
           "local memory (off-chip, cached in L1) and reloads them: extra memory traffic and latency on every "
           "use." + where)
    return [Finding(SPILL_ID, SPILL_SLUG, "warning", title, tuple(evidence), why, _spill_fix(report, build))]


def _local_accesses(stages) -> list[Evidence]:
    """STL/LDL lines of the SASS, the first of each Python line (at most 4 lines)."""
    lines = stages.lines("sass")
    found: dict[int | None, Evidence] = {}
    for number, text in enumerate(lines, 1):
        if "STL" not in text and "LDL" not in text:
            continue
        m = INSTRUCTION_RE.search(text)
        if m is None or m[4] not in ("STL", "LDL"):
            continue
        python_line = stages.python_line("sass", number)
        if python_line not in found:
            found[python_line] = stages.evidence("sass", number, f"{m[4]}{m[5]} {m[6].strip()}")
    ordered = sorted(found.values(), key=lambda e: (e.python_line is None, e.line))
    return ordered[:4]


def _spill_fix(report, build) -> str:
    warps = fact_value(report, "num_warps")
    accumulator = _accumulator(build) if build is not None else None
    parts = []
    if accumulator is not None and isinstance(warps, int):
        m, n, bits = accumulator
        per_thread = m * n * bits // 32 // (32 * warps)
        parts.append(f"The dot's accumulator alone is BLOCK_M×BLOCK_N/(32×num_warps) = {m}×{n}/(32×{warps}) = "
                     f"{per_thread} {'fp32' if bits == 32 else f'{bits}-bit'} registers per thread.")
        parts.append(f"num_warps={warps * 2} halves it to {per_thread // 2}, and so does BLOCK_N={n // 2} "
                     f"(or BLOCK_M={m // 2}).")
        if fact_value(report, "tensor_core_path") == "mma.sync":
            parts.append("Fewer stages shorten the live ranges of the prefetched tiles.")
    else:
        parts.append("Keep fewer values live per thread: a smaller block (elements per thread = BLOCK/(32×num_warps)), "
                     "more warps, or fewer stages.")
    parts.append("Re-check with `ttinspect report REF --set ...` until spill stores are 0.")
    return " ".join(parts)


def _accumulator(build) -> tuple[int, int, int] | None:
    """(M, N, bits) of the largest dot result in the TTGIR."""
    module = stages_of(build).ttgir
    if module is None:
        return None
    best = None
    for op in module.ops:
        if op.name in ("tt.dot", "ttng.warp_group_dot", "ttng.tc_gen5_mma"):
            types = tensor_types(module.text(op))
            if op.name == "ttng.tc_gen5_mma" or not types or len(types[-1].shape) != 2:
                continue  # tcgen05 keeps its accumulator in tensor memory, not registers
            result = types[-1]
            bits = 32 if result.element.endswith("32") else 16
            if best is None or result.elements > best[0] * best[1]:
                best = (result.shape[0], result.shape[1], bits)
    return best


# At half the SM's warp slots a kernel without a pipeline usually hides its memory latency already (the
# CUDA Best Practices Guide's rule of thumb); measured on an H200: a register-limited softmax row went
# from 19% to 50% occupancy and 1.23x faster (docs/check.md). Above it the finding would be noise.
ENOUGH_OCCUPANCY = 0.5


def occupancy_limited(report, build) -> list[Finding]:
    """Info/warning: a kernel that is not software-pipelined (so it hides memory latency with resident warps)
    and whose CTAs per SM are capped by registers, shared memory or its warp count."""
    if build is None:
        return []
    registers, warps = fact_value(report, "registers"), fact_value(report, "num_warps")
    shared = fact_value(report, "shared_memory")
    depth = fact_value(report, "pipeline_depth")
    if not isinstance(registers, int) or not isinstance(warps, int) or not isinstance(shared, int):
        return []
    if isinstance(depth, int) and depth >= 2:
        return []  # a pipelined loop hides latency with its stages: few large CTAs are by design
    target = build.target
    now = occupancy(target, registers=registers, shared=shared, num_warps=warps)
    if now.occupancy >= ENOUGH_OCCUPANCY:
        return []
    if set(now.limited_by) <= {"registers", "shared memory"}:
        change = {"registers": registers, "shared": shared, "num_warps": warps}
        needs = []
        for resource in now.limited_by:
            lifted = _lift(target, resource, change, now.blocks_per_sm + 1)
            if lifted is None:
                return []  # no value of this resource gives one more CTA: nothing concrete to say
            text, key, value = lifted
            needs.append(text)
            change[key] = value
        after = occupancy(target, **change)
        fix_head = " and ".join(needs)
    else:  # the CTA's warp count itself leaves warp slots empty: another CTA size fills the SM better
        options = [w for w in (warps // 2, warps // 4, warps * 2) if 1 <= w <= 32 and w != warps]
        best = max(options, key=lambda w: occupancy(target, registers=registers, shared=shared,
                                                    num_warps=w).warps_per_sm, default=None)
        if best is None:
            return []
        after = occupancy(target, registers=registers, shared=shared, num_warps=best)
        fix_head = f"num_warps={best} (now {warps}), at the same registers per thread and shared memory per CTA,"
    if after.warps_per_sm <= now.warps_per_sm:
        return []
    evidence = [e for e in (fact_evidence(report, "registers"), fact_evidence(report, "shared_memory"),
                            fact_evidence(report, "num_warps"), fact_evidence(report, "blocks_per_sm"),
                            fact_evidence(report, "occupancy")) if e]
    severity = "warning" if now.occupancy < 0.25 else "info"
    title = (f"occupancy {now.occupancy:.0%} ({now.blocks_per_sm} CTA(s)/SM, {now.warps_per_sm} of "
             f"{target.max_warps_per_sm} warps), limited by {' and '.join(now.limited_by)}")
    why = ("The kernel has no software pipeline, so it hides memory latency only with other resident warps; "
           f"{now.warps_per_sm} warps per SM leave the schedulers idle while loads are in flight. CTAs per SM "
           f"allowed by each resource on {target.name}: " + ", ".join(f"{k} {v}" for k, v in now.limits) + ".")
    fix = (f"{fix_head} gives {after.blocks_per_sm} CTAs/SM ({after.warps_per_sm} warps, "
           f"{after.occupancy:.0%} occupancy).")
    return [Finding(OCC_ID, OCC_SLUG, severity, title, tuple(evidence), why, fix)]


def _lift(target, resource: str, current: dict, wanted: int) -> tuple[str, str, int] | None:
    """(advice, occupancy() keyword, value): the largest value of `resource` that lets `wanted` CTAs fit by
    that resource's own limit, found with the occupancy calculator itself."""
    def allows(key: str, value: int) -> int:
        return dict(occupancy(target, **{**current, key: value}).limits)[resource]

    if resource == "registers":
        registers = current["registers"]
        for value in range(registers - 1, 0, -1):
            if allows("registers", value) >= wanted:
                return (f"≤ {value} registers per thread (now {registers}: --set maxnreg={value}, or keep fewer "
                        "values live)", "registers", value)
        return None
    shared = current["shared"]
    unit = target.shared_alloc_unit
    for value in range(shared - shared % unit, -1, -unit):
        if allows("shared", value) >= wanted:
            return (f"≤ {value} bytes ({value / 1024:.1f} KB) of shared memory per CTA (now {shared})",
                    "shared", value)
    return None
