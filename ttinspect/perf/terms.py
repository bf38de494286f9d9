"""Each resource's time for one launch on one device: the terms model.py combines (docs/predict.md, "The model").

Per-SM resources (tensor cores, instruction issue, the SFU, shared memory) are the busiest SM's share: it runs
⌈P/S⌉ of the P programs (the wave tail). Shared resources (DRAM, L2) take the whole launch's bytes. The
dependency chain is what no amount of bandwidth hides: each CTA waits for its loads (a DRAM round trip per
trip of an unpipelined loop, 1/(depth−1) of one when the loop is pipelined) and runs its own instructions one
dependent issue after another; an SM overlaps only the CTAs resident on it at once. The SM's issue rate, shared
by the warps of every resident CTA, is the instruction issue term's: the chain does not charge it again.

Constants: published figures where there are any (named with their source); the few fitted ones are marked
FITTED, with the data they were fitted on in docs/predict.md ("Constants").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.perf.devices import Device
from ttinspect.perf.mma_operands import factor_by_shape
from ttinspect.perf.unroll import unroll_factor
from ttinspect.perf.work import Work

TC_ACHIEVABLE = 0.80  # matrix units at sustained clocks reach ~80 % of the datasheet's boost-clock peak
MMA_SYNC_ON_WGMMA_GPU = 0.62  # mma.sync on a GPU built for wgmma (Hopper) reaches ~62 % of wgmma's peak
HBM_ACHIEVABLE = 0.88  # FITTED: a streaming kernel reaches ~88 % of the datasheet DRAM bandwidth
SFU_PER_SM_CLOCK = 16  # transcendentals (MUFU) per SM per clock: 16 SFUs per SM since Volta (whitepapers)
ISSUE_PER_SM_CLOCK = 4  # warp instructions per SM per clock: 4 schedulers, one issue each (whitepapers)
# cycles between two instructions of a warp that runs alone: FFMA's dependent-issue latency, 4 cycles since
# Volta (published microbenchmarks); 1, 1.5, 2, 3 and 4 were tried on the H100 set and 4 scored best
WARP_CPI = 4.0
# FITTED: the terms combine as a soft maximum (Σ tᵢⁿ)^(1/n): the largest when one dominates, a few % more when
# others come within ~25 % of it (two saturated resources interfere); n = 10 fitted on the H100 (4…30 tried)
SOFT_MAX_POWER = 10.0
# FITTED: how the tensor cores and the shared-memory traffic feeding them combine, (tᵖ + sᵖ)^(1/p); 2, 3, 4
# and 6 tried on the H100 set, 4 and 6 scored alike, 4 kept
SMEM_TENSOR_POWER = 4.0
LATENCY_CYCLES = 2000  # FITTED: a DRAM load's round trip under load, in SM cycles (doc 003 §5.3: ~500 unloaded)


@dataclass(frozen=True)
class Shape:
    """How the launch sits on the device: programs per SM, what runs at once, the wave tail."""
    programs: int
    per_sm: int  # CTAs the busiest SM runs
    resident: int  # CTAs an SM holds at once (occupancy, capped by what it is given)
    busiest: float  # the busiest SM's share of the work against an even split (≥ 1: the wave tail)
    warps: int  # warps per CTA
    clock: float  # Hz
    sms: int

    @property
    def resident_warps(self) -> int:
        return self.resident * self.warps


def launch_shape(device: Device, work: Work, ctas_per_sm: int, warps: int) -> Shape:
    per_sm = math.ceil(work.programs / device.sms)
    return Shape(work.programs, per_sm, min(ctas_per_sm, per_sm), per_sm * device.sms / work.programs, warps,
                 device.boost_mhz * 1e6, device.sms)


def tensor_core_seconds(work: Work, device: Device, path: str, assumptions: list[str]) -> float:
    """All programs' dot FLOPs at the matrix units' achievable peak for their input type (whole device)."""
    total = 0.0
    for dtype, flops in work.tc_flops.items():
        peak = device.tflops.get(dtype) if path != "none" else None
        if peak is None:
            peak = device.tflops["fp32"]  # a dot the matrix units cannot take runs as FMAs
            assumptions.append(f"{dtype} dots on the FMA units ({device.name} has no {dtype} matrix path"
                               f"{' or the kernel uses none' if path == 'none' else ''})")
        efficiency = TC_ACHIEVABLE * (MMA_SYNC_ON_WGMMA_GPU if path == "mma.sync" and device.arch == "sm_90" else 1)
        total += flops / (peak * 1e12 * efficiency)
    return total


def warp_instructions(facts: Mapping[str, Any], work: Work, warps: int) -> float | None:
    """Warp instructions the launch issues, from the SASS: the main loop's body ÷ the trips ptxas unrolled into
    it (unroll.py) × the TTIR loop's trips over the launch, the rest once per program (or per step of a
    persistent program's loop). None without SASS counts."""
    whole, loop = facts.get("sass_instructions"), facts.get("sass_loop_instructions")
    if not isinstance(whole, int):
        return None
    loop = loop if isinstance(loop, int) else 0
    trips = work.loop_trips_total or 0.0
    outside = max(0, whole - loop) if trips else whole
    return warps * (work.programs * outside + loop_instructions_per_trip(facts) * trips)


def loop_instructions_per_trip(facts: Mapping[str, Any]) -> float:
    """The SASS main loop's instructions per trip of the source loop: ptxas unrolls a loop U times (its body then
    holds U trips' loads, unroll.py), so one trip of the TTIR loop issues 1/U of the body. Counting the whole body
    per trip charged a row reduction unrolled 4× four times its instructions."""
    loop = facts.get("sass_loop_instructions")
    return loop / unroll_factor(facts) if isinstance(loop, int) else 0.0


def soft_max(values, power: float | None = None) -> float:
    """(Σ vᵢᵖ)^(1/p), relative to the largest (no overflow): the largest when it dominates, more when others
    come close — how model.py combines the terms, and a pipelined trip its round trip and its work."""
    power = SOFT_MAX_POWER if power is None else power
    values = [v for v in values if v > 0]
    if not values:
        return 0.0
    top = max(values)
    return top * sum((v / top) ** power for v in values) ** (1 / power)


def chain_seconds(facts: Mapping[str, Any], work: Work, shape: Shape, tensor_s: float, depth: int,
                  latency_cycles: float) -> float:
    """The busiest SM's dependency chain: ⌈its CTAs / resident⌉ rounds, each a CTA's own time — one DRAM round
    trip for its first loads, then per trip of its main loop either a round trip plus the trip's own work
    (unpipelined: the load waits, then the compute waits on it) or the soft maximum of a 1/(depth−1) round
    trip and that work (pipelined) — its work being its instructions one dependent issue apart and its dots
    alone on the SM's matrix units. `latency_cycles`: the round trip (0 gives the chain's own work alone)."""
    return _chain(facts, work, shape, tensor_s, depth, latency_cycles)[0]


def chain_limiter(facts: Mapping[str, Any], work: Work, shape: Shape, tensor_s: float, depth: int,
                  latency_cycles: float) -> str:
    """What most of the chain waits on: "memory latency", "tensor cores" or "instructions"."""
    parts = _chain(facts, work, shape, tensor_s, depth, latency_cycles)[1]
    return max(parts, key=lambda part: parts[part])


def _chain(facts, work, shape, tensor_s, depth, latency_cycles) -> tuple[float, dict[str, float]]:
    """(the chain's seconds, one CTA's time split into what it waits on)."""
    latency = latency_cycles / shape.clock
    whole, loop = facts.get("sass_instructions"), facts.get("sass_loop_instructions")
    loop = loop if isinstance(loop, int) else 0
    whole = whole if isinstance(whole, int) else loop
    # one warp's instructions one dependent issue apart: the SM's issue rate shared by all resident warps is the
    # instruction issue term, added here it counted every resident CTA's instructions into each CTA's chain
    cycle = WARP_CPI / shape.clock
    trips_per_cta = work.loop_trips_total / work.programs if work.programs else 0.0
    # one trip's dots alone on one SM: the whole launch's tensor time spreads over every SM and every trip
    tensor_per_trip = tensor_s * shape.sms / work.loop_trips_total if work.loop_trips_total else 0.0
    if trips_per_cta:
        # a trip's instructions wait on its dots when element-wise work consumes their result; a loop whose
        # dots only accumulate issues its instructions (addresses, barriers) under the asynchronous dots
        issues_alone = not tensor_per_trip or work.dot_feeds_elementwise
        instructions = loop_instructions_per_trip(facts) * cycle if issues_alone else 0.0
        own = instructions + tensor_per_trip
        # unpipelined: a round trip, then the work on what it brought — shared by the trips ptxas unrolled
        # and whose loads it issued together (unroll.py); pipelined: depth − 1 trips' loads in flight
        waiting = latency / unroll_factor(facts) if depth <= 1 else latency / (depth - 1)
        per_trip = waiting + own if depth <= 1 else soft_max((waiting, own))
        latency_part = waiting if depth <= 1 or waiting >= own else 0.0
        own_share = 1.0 if depth <= 1 or waiting < own else 0.0
        parts = {"memory latency": latency + trips_per_cta * latency_part,
                 "instructions": max(0, whole - loop) * cycle + trips_per_cta * instructions * own_share,
                 "tensor cores": trips_per_cta * tensor_per_trip * own_share}
        per_cta = latency + max(0, whole - loop) * cycle + trips_per_cta * per_trip
    else:
        tensor = tensor_s * shape.sms / max(1, shape.programs)
        parts = {"memory latency": latency, "instructions": whole * cycle, "tensor cores": tensor}
        per_cta = latency + whole * cycle + tensor
    return math.ceil(shape.per_sm / max(1, shape.resident)) * per_cta, parts


def resource_terms(facts: Mapping[str, Any], device: Device, work: Work, shape: Shape, path: str,
                   assumptions: list[str]) -> dict[str, float]:
    """Seconds per resource (see the module docstring)."""
    terms: dict[str, float] = {}
    tensor_s = tensor_core_seconds(work, device, path, assumptions)
    if tensor_s:
        terms["tensor cores"] = tensor_s * shape.busiest
        smem_rate = device.sms * device.smem_bytes_per_clock * shape.clock
        # the tiles the loop's loads write into shared memory share its bandwidth with the dots' reads
        written = work.loop_bytes_per_iteration * work.loop_trips_total
        smem = (shared_operand_bytes(facts, work) + written) / smem_rate * shape.busiest
        # the matrix units read their operands from shared memory as they run: the two are one pipeline, and
        # a dot slows before shared memory saturates (a softer maximum than the terms' own)
        terms["tensor cores"] = soft_max((terms["tensor cores"], smem), SMEM_TENSOR_POWER)
    instructions = warp_instructions(facts, work, shape.warps)
    if instructions is None:  # no SASS (AMD, or not disassembled): the TTIR's element-wise ops stand in
        instructions = work.fma_ops / 32
        assumptions.append("instruction issue from the TTIR's element-wise ops (no SASS counts)")
    issue = instructions / (device.sms * ISSUE_PER_SM_CLOCK * shape.clock)
    terms["instruction issue"] = issue * shape.busiest
    if work.sfu_ops:
        terms["SFU"] = work.sfu_ops / (device.sms * SFU_PER_SM_CLOCK * shape.clock) * shape.busiest
    spill = spill_bytes(facts, work)
    dram_bytes = work.dram_bytes
    if spill and spill_footprint(facts, shape) > device.l2_bytes / 2:
        dram_bytes += spill  # the spilled frames of all resident threads do not fit the L2: they reach DRAM
        assumptions.append(f"{spill / 1e6:.1f} MB of register spills through the L2 and DRAM (their frames "
                           f"outgrow the L2)")
    elif spill:
        assumptions.append(f"{spill / 1e6:.1f} MB of register spills through the L2")
    dram = dram_bytes / (device.hbm_gbps * 1e9 * HBM_ACHIEVABLE)
    terms["L2"] = (work.load_bytes + work.store_bytes + spill) / (device.l2_gbps * 1e9)
    given_depth = facts.get("pipeline_depth")
    depth = given_depth if isinstance(given_depth, int) else 1
    terms["DRAM"] = dram
    if work.load_bytes:
        # named by what most of one CTA's time waits on: "dependency chain (memory latency)", "(tensor cores)"
        what = chain_limiter(facts, work, shape, tensor_s, depth, LATENCY_CYCLES)
        terms[f"dependency chain ({what})"] = chain_seconds(facts, work, shape, tensor_s, depth, LATENCY_CYCLES)
    return terms


def shared_operand_bytes(facts: Mapping[str, Any], work: Work) -> float:
    """Bytes the dots read from shared memory: each dot's operand tiles × how often its MMA layout re-reads
    them (mma_operands.py: wgmma re-reads B per 64-row slice, A per instruction's column slice; mma.sync each
    operand per warp across the split); a dot whose layout was not read counts each tile once."""
    factors = factor_by_shape(facts)
    total = 0.0
    for dot_shape, read_once in work.operand_bytes_by_dot.items():
        found = factors.get(dot_shape[:2])
        total += read_once * (sum(found) / len(found) if found else 1.0)
    return total


def spill_bytes(facts: Mapping[str, Any], work: Work) -> float:
    """Local-memory traffic over the launch: the SASS's LDL/STL bytes per thread — the main loop's per trip,
    the rest once — × threads × programs; without SASS counts, ptxas's spill bytes (per trip when its
    local accesses sit in the loop)."""
    threads = facts.get("threads") or 128
    whole, loop = _local_bytes(facts.get("sass_local_memory")), _local_bytes(facts.get("sass_loop_local_memory"))
    if whole is not None:
        trips = work.loop_trips_total / work.programs if work.programs and loop else 0.0
        return float((max(0, whole - (loop or 0)) + (loop or 0) * trips) * threads * work.programs)
    per_thread = sum(v for v in (facts.get("spill_store_bytes"), facts.get("spill_load_bytes")) if isinstance(v, int))
    if not per_thread:
        return 0.0
    in_loop = bool(facts.get("sass_loop_local_memory"))
    return float(per_thread * threads * work.programs * (max(1.0, work.loop_trips) if in_loop else 1.0))


def _local_bytes(widths: Any) -> int | None:
    """Bytes one thread's LDL/STL instructions move, from (("LDL.4B", n), ("STL.8B", m), ...)."""
    if not isinstance(widths, (tuple, list)):
        return None
    total = 0
    for form, count in widths:
        size = form.rsplit(".", 1)[-1].rstrip("B")
        total += (int(size) if size.isdigit() else 4) * count
    return total


def spill_footprint(facts: Mapping[str, Any], shape: Shape) -> float:
    """Bytes of local memory the resident threads of every SM hold at once (their stack frames)."""
    stack = facts.get("stack")
    threads = facts.get("threads") or 128
    return float(stack * threads * shape.resident * shape.sms) if isinstance(stack, int) else 0.0
