"""TTI003 register-spills: ptxas ran out of registers and keeps values in local memory — where (the
Python lines whose SASS stores/loads local memory) and what usually removes it. TTI004 occupancy-limited:
fewer CTAs fit on an SM than could, with the value of the limiting resource that gives one more CTA,
computed with the same occupancy calculator as the report's facts (backends/nvidia_resources.py).
Both on NVIDIA: check/by_vendor.py picks these or AMD's (check/amd.py)."""

from __future__ import annotations

from ttinspect.backends.nvidia_resources import occupancy
from ttinspect.check.accumulators import accumulator_text, live_accumulators
from ttinspect.check.context import fact_evidence, fact_value, stages_of
from ttinspect.check.model import Evidence, Finding

SPILL_ID, SPILL_SLUG = "TTI003", "register-spills"
OCC_ID, OCC_SLUG = "TTI004", "occupancy-limited"


# Spill stores of at most this many bytes per thread (four 32-bit registers) are info, not a warning: ptxas
# typically parks a value or two that is live across the whole kernel (a saved argument, an address) and
# touches it once or twice — traffic that no measurement would tell from noise. Above it the spill is real
# work for the memory system on every pass over the spilled code.
SMALL_SPILL_BYTES = 16
# A kernel that spills with at least this many registers below its cap did not run out of registers: ptxas
# stopped at fewer than it could have used (seen at 32 of 255 on sm_80 / sm_90 for very large functions).
BELOW_CAP_MARGIN = 16


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
        summary, lines, ranked = _local_accesses(stages_of(build))
        evidence += ([summary] if summary else []) + lines
        if ranked:
            where = " Most spill instructions are on Python line(s) " + ", ".join(ranked) + "."
    registers = fact_value(report, "registers")
    cap = _register_cap(report, build)
    amount = (f"{stores} bytes of spill stores and {loads} bytes of spill loads per thread" if isinstance(stores, int)
              else f"n_spills {spills} (local memory per thread / 4)")
    title = f"register spills: {amount}" + (f" at {registers} registers" if isinstance(registers, int) else "")
    below_cap = isinstance(registers, int) and cap is not None and registers <= cap - BELOW_CAP_MARGIN
    if below_cap:
        why = (f"ptxas spilled while using only {registers} of the {cap} registers a thread may have, so this is "
               "not pressure at the register cap: ptxas itself stopped at fewer registers than it could use. "
               "Spilled values go to local memory (off-chip, cached in L1) and are reloaded: extra memory "
               "traffic and latency on every use." + where)
    else:
        why = (f"ptxas could not keep every live value in the {cap or 'available'} registers a thread may have, so "
               "it stores some to local memory (off-chip, cached in L1) and reloads them: extra memory traffic "
               "and latency on every use." + where)
    small = (stores <= SMALL_SPILL_BYTES) if isinstance(stores, int) else (isinstance(spills, int) and spills * 4 <=
                                                                           SMALL_SPILL_BYTES)
    if small:
        why += (f" At ≤ {SMALL_SPILL_BYTES} bytes per thread this is a value or two parked in local memory, rarely "
                "measurable.")
    return [Finding(SPILL_ID, SPILL_SLUG, "info" if small else "warning", title, tuple(evidence), why,
                    _spill_fix(report, build, below_cap, cap))]


def _register_cap(report, build) -> int | None:
    """The registers a thread may have: the launch's maxnreg when set, else the target's maximum."""
    if build is None:
        return None
    maxnreg = stages_of(build).metadata.get("maxnreg")
    if isinstance(maxnreg, int) and maxnreg > 0:
        return min(maxnreg, build.target.max_registers_per_thread)
    return build.target.max_registers_per_thread


def _local_accesses(stages) -> tuple[Evidence | None, list[Evidence], list[str]]:
    """(a summary, one SASS line per top Python line, "N (main loop)" labels) for the STL/LDL instructions."""
    view = stages.sass
    if view is None:
        return None, [], []
    spills = [ins for ins in view.all
              if ins.opcode in ("STL", "LDL") and not (ins.predicate == "PT" and ins.negated)]
    return rank_spill_lines(stages, "sass", spills, {i.index for i in view.loop},
                            "top lines by spill instructions (STL/LDL, {total} in all)",
                            lambda found: (sum(1 for i in found if i.opcode == "STL"), "STL", "LDL"))


def rank_spill_lines(stages, stage: str, spills, in_loop: set[int], head: str, split):
    """(a summary, one line of `stage` per top Python line, labels) for spill instructions: the Python lines
    ranked by their spill count, those with spills inside the main loop first (that code runs every
    iteration); at most 4 lines. `head`: the summary's start, with `{total}`; `split(found)` -> (stores
    among them, store word, load word)."""
    per_line: dict[int | None, list] = {}
    for ins in spills:
        per_line.setdefault(stages.python_line(stage, ins.line), []).append(ins)
    if not per_line:
        return None, [], []

    def rank(item):
        python_line, found = item
        looped = sum(1 for i in found if i.index in in_loop)
        return (python_line is None, -looped, -len(found), python_line or 0)

    top = sorted(per_line.items(), key=rank)[:4]
    labels, lines = [], []
    for python_line, found in top:
        looped = [i for i in found if i.index in in_loop]
        shown = (looped or found)[0]
        stores, store_word, load_word = split(found)
        count = f"{stores} {store_word} + {len(found) - stores} {load_word}" + (
            f", {len(looped)} in the main loop" if looped else "")
        text = f"{shown.mnemonic} {', '.join(shown.operands)}  [{count}]"
        lines.append(stages.evidence(stage, shown.line, text))
        if python_line is not None:
            labels.append(f"{python_line}" + (" (main loop)" if looped else ""))
    total = sum(len(found) for found in per_line.values())
    summary = Evidence(stage, None, head.format(total=total) + ": " + ", ".join(
        f"line {p}: {len(f)}" if p is not None else f"unattributed: {len(f)}" for p, f in top))
    return summary, lines, labels


def _shrink_text(m: int, n: int, per_thread: int, cap: int | None, more_warps: int | None) -> str:
    """How to bring the accumulators' registers per thread under the cap: halving is enough, or the factor
    it takes (two accumulators of 128x256 need a quarter, not a half)."""
    factor = 2
    while cap is not None and per_thread // factor >= cap and factor < 16:
        factor *= 2
    if factor == 2:
        halves = f"num_warps={more_warps} halves it to {per_thread // 2}, and so does" if more_warps else \
            "Halve it with"
        return f"{halves} BLOCK_N={n // 2} (or BLOCK_M={m // 2})."
    both = f"num_warps={more_warps} with BLOCK_N={n * 2 // factor}, or " if more_warps else ""
    share = {4: "a quarter", 8: "an eighth", 16: "a sixteenth"}[factor]
    return (f"Halving it leaves {per_thread // 2}, still not under the {cap}: it takes {share}, "
            f"{per_thread // factor} — {both}BLOCK_N={n // factor} (or BLOCK_M={m // factor}).")


def _spill_fix(report, build, below_cap: bool, cap: int | None) -> str:
    warps = fact_value(report, "num_warps")
    depth = fact_value(report, "pipeline_depth")
    pipelined = isinstance(depth, int) and depth >= 2
    accumulators = live_accumulators(build) if build is not None else ()
    more_warps = warps * 2 if isinstance(warps, int) and warps * 2 <= 32 else None
    parts = []
    if below_cap:
        parts.append(f"Let ptxas use the registers it has: `--set maxnreg={cap}` (measured on a GEMM that spilled "
                     "8518 bytes at 32 registers on sm_80: 836 bytes).")
        if more_warps:
            parts.append(f"More warps spread the tile over more threads: num_warps={more_warps} (on that GEMM "
                         "it removed the spills).")
    if accumulators and isinstance(warps, int):
        text, per_thread = accumulator_text(accumulators, "32", 32, warps, "thread")
        if cap is not None and per_thread >= cap:
            text = text[:-1] + f": more than the {cap} a thread may have, before any tile or address."
        parts.append(text)
        if not below_cap:
            parts.append(_shrink_text(accumulators[0].m, accumulators[0].n, per_thread, cap, more_warps))
        if pipelined and fact_value(report, "tensor_core_path") == "mma.sync":
            parts.append("Fewer stages shorten the live ranges of the prefetched tiles.")
    elif not below_cap:
        parts.append("Keep fewer values live per thread: a smaller block (elements per thread = BLOCK/(32×num_warps)), "
                     "more warps" + (", or fewer stages." if pipelined else "."))
    if below_cap:
        parts.append(f"Re-check with `ttinspect report REF --set maxnreg={cap}`"
                     + (f" (or `--set num_warps={more_warps}`)" if more_warps else "") + " until spill stores are 0.")
    else:
        parts.append("Re-check with `ttinspect report REF --set ...` until spill stores are 0.")
    return " ".join(parts)


# At half the SM's warp slots a kernel without a pipeline usually hides its memory latency already (the
# CUDA Best Practices Guide's rule of thumb); measured on an H200: a register-limited softmax row went
# from 19% to 50% occupancy and 1.23x faster (docs/check.md). Above it the finding would be noise.
ENOUGH_OCCUPANCY = 0.5


def occupancy_limited(report, build, depth: int | None, no_loop: bool) -> list[Finding]:
    """On NVIDIA (check/by_vendor.py has checked the build and the facts): `depth`/`no_loop`: the main
    loop's pipeline depth and whether there is no loop."""
    registers, warps = fact_value(report, "registers"), fact_value(report, "num_warps")
    shared = fact_value(report, "shared_memory")
    if isinstance(depth, int) and depth >= 2:
        return []  # a pipelined loop hides latency with its stages: few large CTAs are by design
    if depth is None and not no_loop:
        return []  # a loop whose pipelining is unknown (TMA + tcgen05): like TTI001, no guess
    spills = _spills(report)
    target = build.target
    now = occupancy(target, registers=registers, shared=shared, num_warps=warps)
    if now.occupancy >= ENOUGH_OCCUPANCY:
        return []
    if set(now.limited_by) <= {"registers", "shared memory"}:
        change = {"registers": registers, "shared": shared, "num_warps": warps}
        needs = []
        if spills and "registers" in now.limited_by:
            # a lower maxnreg makes a spilling kernel spill more (measured: 1340 -> 1954 bytes)
            return [_spilling_occupancy(report, target, now)]
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
        options = [w for w in (warps // 2, warps // 4, warps * 2) if 1 <= w <= 32 and w != warps
                   and not (spills and w < warps)]  # fewer warps = more values per thread: more spills
        best = max(options, key=lambda w: occupancy(target, registers=registers, shared=shared,
                                                    num_warps=w).warps_per_sm, default=None)
        if best is None:
            return []
        after = occupancy(target, registers=registers, shared=shared, num_warps=best)
        fix_head = f"num_warps={best} (now {warps}), at the same registers per thread and shared memory per CTA,"
    if after.warps_per_sm <= now.warps_per_sm:
        return []
    evidence = _occupancy_evidence(report)
    severity = "warning" if now.occupancy < 0.25 else "info"
    title = (f"occupancy {now.occupancy:.0%} ({now.blocks_per_sm} CTA(s)/SM, {now.warps_per_sm} of "
             f"{target.max_warps_per_sm} warps), limited by {' and '.join(now.limited_by)}")
    why = ("The kernel has no software pipeline, so it hides memory latency only with other resident warps; "
           f"{now.warps_per_sm} warps per SM leave the schedulers idle while loads are in flight. CTAs per SM "
           f"allowed by each resource on {target.name}: " + ", ".join(f"{k} {v}" for k, v in now.limits) + ".")
    fix = (f"{fix_head} gives {after.blocks_per_sm} CTAs/SM ({after.warps_per_sm} warps, "
           f"{after.occupancy:.0%} occupancy).")
    return [Finding(OCC_ID, OCC_SLUG, severity, title, tuple(evidence), why, fix)]


def _spills(report) -> bool:
    stores, spills = fact_value(report, "spill_store_bytes"), fact_value(report, "spills")
    return (isinstance(stores, int) and stores > 0) or (stores is None and isinstance(spills, int) and spills > 0)


def _occupancy_evidence(report) -> list[Evidence]:
    return [e for e in (fact_evidence(report, "registers"), fact_evidence(report, "shared_memory"),
                        fact_evidence(report, "num_warps"), fact_evidence(report, "blocks_per_sm"),
                        fact_evidence(report, "occupancy")) if e]


def _spilling_occupancy(report, target, now) -> Finding:
    """Register-limited occupancy in a kernel that already spills: capping registers is the wrong fix."""
    title = (f"occupancy {now.occupancy:.0%} ({now.blocks_per_sm} CTA(s)/SM, {now.warps_per_sm} of "
             f"{target.max_warps_per_sm} warps), limited by {' and '.join(now.limited_by)}")
    why = ("The kernel has no software pipeline, so it hides memory latency only with other resident warps; "
           f"{now.warps_per_sm} warps per SM leave the schedulers idle while loads are in flight. CTAs per SM "
           f"allowed by each resource on {target.name}: " + ", ".join(f"{k} {v}" for k, v in now.limits) + ".")
    fix = ("Not by capping registers: the kernel already spills (TTI003), and a lower maxnreg makes it spill "
           "more. Remove the spills first (TTI003's fix: smaller tiles or more warps per tile); the registers "
           "per thread that frees lifts occupancy too.")
    severity = "warning" if now.occupancy < 0.25 else "info"
    return Finding(OCC_ID, OCC_SLUG, severity, title, tuple(_occupancy_evidence(report)), why, fix)


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
