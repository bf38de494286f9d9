"""The time of one launch on one GPU, from the compiled kernel's facts, its TTIR's work (work.py) and the
device's datasheet (devices.py). docs/predict.md has the equations; in short:

    time = launch + exposed latency + max(tensor cores, shared-memory operands, ALU, DRAM, L2, latency-bound)

Each term is the busiest SM's share where the resource is per SM (it runs ⌈programs / SMs⌉ CTAs: the wave
tail), or the whole launch's where the resource is shared (DRAM, L2). The largest term bounds the time; the
others run under it (the breakdown says so). A prediction that cannot be made (no grid, a loop bound from
memory, a config whose shared memory does not fit) is a Prediction with time_ms None and the reason.

The fitted constants are few, each below with what it stands for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ttinspect.perf.devices import Device
from ttinspect.perf.ir_program import parse_ir_program
from ttinspect.perf.work import Work, count_work

# Fitted/assumed constants (docs/predict.md, "Constants").
LAUNCH_US = 3.0  # a launch's fixed cost as do_bench measures it (kernel start and drain)
LATENCY_CYCLES = 800  # a DRAM load's round trip under load, in SM cycles (doc 003 §5.3 says ~500 unloaded)
TC_ACHIEVABLE = 0.80  # matrix units at sustained clocks reach ~80 % of the datasheet's boost-clock peak
MMA_SYNC_ON_WGMMA_GPU = 0.62  # mma.sync on a GPU built for wgmma (Hopper) reaches ~62 % of wgmma's peak
HBM_ACHIEVABLE = 0.90  # a streaming kernel reaches ~90 % of the datasheet DRAM bandwidth
SFU_WEIGHT = 8  # an SFU op (exp, division) costs 8 FMA slots: 16 SFU lanes per SM vs 128 FMA lanes
SMEM_RESERVED = 1024  # bytes the driver reserves per CTA (CUDA occupancy calculator)


@dataclass(frozen=True)
class Prediction:
    time_ms: float | None  # None: cannot be predicted (`reason`) or cannot run (`runs` False)
    bound: str | None  # the term that sets the time: "tensor cores", "DRAM", ...
    breakdown: Mapping[str, float]  # ms per part; the parts add up to time_ms
    hidden: Mapping[str, float]  # ms of each term that runs under the bound (not added)
    tflops: float | None
    gbps: float | None  # DRAM bytes / time
    device: str
    assumptions: tuple[str, ...]
    runs: bool = True  # False: the config cannot launch on this device (shared memory), `reason` says why
    reason: str | None = None
    config: Mapping[str, Any] | None = None  # rank(): the config as given
    details: Mapping[str, Any] = field(default_factory=dict)  # programs, waves, bytes, FLOPs (JSON output)

    def as_dict(self) -> dict[str, Any]:
        return {"time_ms": self.time_ms, "bound": self.bound, "breakdown": dict(self.breakdown),
                "hidden": dict(self.hidden), "tflops": self.tflops, "gbps": self.gbps, "device": self.device,
                "runs": self.runs, "reason": self.reason, "assumptions": list(self.assumptions),
                **({"config": dict(self.config)} if self.config is not None else {}), "details": dict(self.details)}


def not_predicted(device: Device, reason: str, *, runs: bool = True) -> Prediction:
    return Prediction(None, None, {}, {}, None, None, device.name, (), runs=runs, reason=reason)


def predict_from_facts(facts: Mapping[str, Any], ttir: str, device: Device, values: Mapping[str, Any],
                       grid: tuple[int, ...] | None) -> Prediction:
    """`facts`: a Report's values by key; `values`: the launch's ints and constexprs by name; `grid`: 1-3 ints."""
    if grid is None:
        return not_predicted(device, "no grid: give one (--launch-grid / grid=), the launch's own is not in "
                                     "the arguments")
    grid3 = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    if min(grid3) < 1:
        return not_predicted(device, f"an empty grid {grid3}: nothing runs")
    shared = facts.get("shared_memory")
    if isinstance(shared, int) and shared + SMEM_RESERVED > device.smem_per_sm:
        return not_predicted(device, f"needs {shared} B of shared memory per CTA, {device.name} has "
                                     f"{device.smem_per_sm - SMEM_RESERVED} (out of resource)", runs=False)
    ctas_per_sm = facts.get("blocks_per_sm")
    if not isinstance(ctas_per_sm, int) or ctas_per_sm < 1:
        return not_predicted(device, "CTAs per SM unknown (occupancy facts missing): "
                                     f"{facts.get('blocks_per_sm')!r}")
    wave = device.sms * ctas_per_sm
    work = count_work(parse_ir_program(ttir), dict(values), grid3, wave, device.l2_bytes)
    if work.unknown:
        return not_predicted(device, work.unknown[0])
    return _combine(facts, device, work, ctas_per_sm)


def _combine(facts: Mapping[str, Any], device: Device, work: Work, ctas_per_sm: int) -> Prediction:
    programs, sms = work.programs, device.sms
    clock = device.boost_mhz * 1e6
    per_sm = math.ceil(programs / sms)  # CTAs the busiest SM runs
    busiest = per_sm * sms / programs  # its share against an even split: the wave tail
    assumptions = [f"datasheet figures for {device.name}", "masked-off elements counted as moved",
                   "every SM at the boost clock"]
    path = facts.get("tensor_core_path") or "none"
    terms: dict[str, float] = {}
    tc = 0.0
    for dtype, flops in work.tc_flops.items():
        peak = device.tflops.get(dtype) if path != "none" else None
        if peak is None:
            peak = device.tflops["fp32"]  # a dot the matrix units cannot take runs as FMAs
            assumptions.append(f"{dtype} dots on the FMA units ({device.name} has no {dtype} matrix path"
                               f"{' or the kernel uses none' if path == 'none' else ''})")
        efficiency = TC_ACHIEVABLE * (MMA_SYNC_ON_WGMMA_GPU if path == "mma.sync" and device.arch == "sm_90" else 1)
        tc += flops / (peak * 1e12 * efficiency)
    if tc:
        terms["tensor cores"] = tc * busiest
        smem_rate = sms * device.smem_bytes_per_clock * clock
        terms["shared-memory operands"] = work.smem_operand_bytes / smem_rate * busiest
    alu = (work.fma_ops + SFU_WEIGHT * work.sfu_ops) / (device.tflops["fp32"] * 1e12 / 2)
    if alu:
        terms["ALU"] = alu * busiest
    spill = _spill_bytes(facts, work)
    if spill:
        assumptions.append(f"{spill / 1e6:.1f} MB of register spills through the L2")
    terms["DRAM"] = work.dram_bytes / (device.hbm_gbps * 1e9 * HBM_ACHIEVABLE)
    terms["L2"] = (work.load_bytes + work.store_bytes + spill) / (device.l2_gbps * 1e9)
    latency = LATENCY_CYCLES / clock
    depth = facts.get("pipeline_depth") if isinstance(facts.get("pipeline_depth"), int) else 1
    if work.loop_bytes_per_iteration and work.loop_trips:
        in_flight = work.loop_bytes_per_iteration * max(1, depth - 1)
    else:
        in_flight = work.straight_bytes or work.loop_bytes_per_iteration
    resident = min(ctas_per_sm, per_sm)
    if in_flight and work.load_bytes:
        terms["memory latency"] = (work.load_bytes / programs * per_sm) / (resident * in_flight / latency)
    if work.atomics:
        assumptions.append("atomics without contention (how many programs hit one address is not known offline)")
    bound = max(terms, key=terms.get)
    generations = math.ceil(per_sm / resident)  # times an SM starts a fresh set of CTAs: each waits once
    exposed = generations * latency if work.load_bytes else 0.0
    breakdown = {"launch": LAUNCH_US * 1e-3, "exposed latency (first loads of each wave)": exposed * 1e3,
                 bound: terms[bound] * 1e3}
    time_ms = sum(breakdown.values())
    hidden = {name: value * 1e3 for name, value in terms.items() if name != bound}
    flops = sum(work.tc_flops.values())
    details = {"programs": programs, "ctas_per_sm": ctas_per_sm, "waves": round(programs / (sms * ctas_per_sm), 3),
               "ctas_on_busiest_sm": per_sm, "tensor_core_flops": flops, "dram_bytes": work.dram_bytes,
               "l2_bytes": work.load_bytes + work.store_bytes, "pipeline_depth": depth,
               "tensor_core_path": path}
    return Prediction(time_ms, bound, breakdown, hidden, flops / (time_ms * 1e-3) / 1e12 if flops else None,
                      work.dram_bytes / (time_ms * 1e-3) / 1e9, device.name, tuple(assumptions), details=details)


def _spill_bytes(facts: Mapping[str, Any], work: Work) -> float:
    """Local-memory traffic: each thread's spill stores + loads, per loop trip when they sit in the loop."""
    per_thread = sum(v for v in (facts.get("spill_store_bytes"), facts.get("spill_load_bytes")) if isinstance(v, int))
    if not per_thread:
        return 0.0
    threads = facts.get("threads") or 128
    in_loop = bool(facts.get("sass_loop_local_memory"))
    return float(per_thread * threads * work.programs * (max(1.0, work.loop_trips) if in_loop else 1.0))
