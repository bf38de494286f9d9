"""The time of one launch on one GPU, from the compiled kernel's facts, its TTIR's work (work.py) and the
device's datasheet (devices.py). docs/predict.md has the equations; in short:

    time = launch + softmax(terms)  terms: tensor cores (with the shared-memory operands they read, and + the
                                   instruction issue of the same warps when they wait on the dots), instruction
                                   issue, SFU, DRAM, L2, the dependency chain (terms.py)

Each term is the busiest SM's share where the resource is per SM (it runs ⌈programs / SMs⌉ CTAs: the wave
tail), or the whole launch's where the resource is shared (DRAM, L2). The largest term bounds the time; the
others run under it (`hidden`). A prediction that cannot be made (no grid, a loop bound from memory, a config
whose shared memory does not fit) is a Prediction with time_ms None and the reason.

The fitted constants are few, each below with what it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ttinspect.perf.devices import Device
from ttinspect.perf.ir_program import parse_ir_program
from ttinspect.perf.terms import LATENCY_CYCLES, launch_shape, resource_terms, soft_max
from ttinspect.perf.work import Work, count_work

__all__ = ["LATENCY_CYCLES", "Prediction", "not_predicted", "predict_from_facts", "soft_max"]

# Constants (docs/predict.md, "Constants"); the per-resource ones live with their terms in terms.py.
LAUNCH_US = 6.0  # FITTED: a launch's fixed cost as do_bench measures it (kernel start, first DRAM pages, drain)
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
    config: Any = None  # rank(): the config as given (a dict, or a triton.Config)
    details: Mapping[str, Any] = field(default_factory=dict)  # programs, waves, bytes, FLOPs (JSON output)

    def as_dict(self) -> dict[str, Any]:
        return {"time_ms": self.time_ms, "bound": self.bound, "breakdown": dict(self.breakdown),
                "hidden": dict(self.hidden), "tflops": self.tflops, "gbps": self.gbps, "device": self.device,
                "runs": self.runs, "reason": self.reason, "assumptions": list(self.assumptions),
                **({"config": _config_dict(self.config)} if self.config is not None else {}),
                "details": dict(self.details)}


OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")  # a config's launch options beside its constexprs


def config_mapping(config: Any) -> Any:
    """A config as predict() takes it: a `triton.Config` (as an autotune list holds them) becomes the dict of
    its constexprs and options; a dict, an autotune index or None stays as it is."""
    kwargs = getattr(config, "kwargs", None)
    if isinstance(kwargs, Mapping) and hasattr(config, "num_warps"):
        options = {name: getattr(config, name, None) for name in OPTIONS}
        return {**kwargs, **{name: value for name, value in options.items() if value is not None}}
    return config


def _config_dict(config: Any) -> dict[str, Any]:
    """A result's config as JSON takes it: a dict (or a `triton.Config`'s constexprs and options) as it is, an
    autotune index as {"config": N}."""
    mapped = config_mapping(config)
    return dict(mapped) if isinstance(mapped, Mapping) else {"config": config}


def not_predicted(device: Device, reason: str, *, runs: bool = True) -> Prediction:
    return Prediction(None, None, {}, {}, None, None, device.name, (), runs=runs, reason=reason)


def predict_from_facts(facts: Mapping[str, Any], ttir: str, device: Device, values: Mapping[str, Any],
                       grid: tuple[int, ...] | None) -> Prediction:
    """`facts`: a Report's values by key; `values`: the launch's ints and constexprs by name; `grid`: 1-3 ints."""
    if grid is None:
        return not_predicted(device, "no grid: give one (--launch-grid / grid=), the launch's own is not in "
                                     "the arguments")
    padded = [int(g) for g in grid] + [1] * (3 - len(grid))
    grid3 = (padded[0], padded[1], padded[2])
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
    threads = facts.get("threads")
    program = parse_ir_program(ttir)
    work = count_work(program, dict(values), grid3, wave, device.l2_bytes, threads if isinstance(threads, int) else 0)
    if work.unknown:
        return not_predicted(device, work.unknown[0])
    exits = [f"no program takes the early return after `{branch or 'a branch'}`: its work is not counted"
             for branch in program.early_exits]
    return _combine(facts, device, work, ctas_per_sm, exits)


def _combine(facts: Mapping[str, Any], device: Device, work: Work, ctas_per_sm: int,
             assumed: Sequence[str] = ()) -> Prediction:
    given_warps = facts.get("num_warps")
    warps = given_warps if isinstance(given_warps, int) else int(facts.get("threads") or 128) // 32
    shape = launch_shape(device, work, ctas_per_sm, warps)
    assumptions = [f"datasheet figures for {device.name}", "every SM at the boost clock", *assumed]
    path = facts.get("tensor_core_path") or "none"
    terms = resource_terms(facts, device, work, shape, path, assumptions)
    if "tensor cores" in terms and work.dot_feeds_elementwise and facts.get("warp_specialized") != "yes":
        # the warps that issue the dots also run the element-wise work between them (attention's softmax, an
        # epilogue), which waits on the dots' results: the two add up instead of overlapping
        terms["tensor cores + instruction issue"] = terms.pop("tensor cores") + terms.pop("instruction issue")
    if work.atomics:
        assumptions.append("atomics without contention (how many programs hit one address is not known offline)")
    bound = max(terms, key=lambda term: terms[term])
    together = soft_max(terms.values())
    breakdown = {"launch": LAUNCH_US * 1e-3, bound: terms[bound] * 1e3}
    if together - terms[bound] > 1e-3 * terms[bound]:
        breakdown["interference of the terms closest to the bound"] = (together - terms[bound]) * 1e3
    time_ms = sum(breakdown.values())
    hidden = {name: value * 1e3 for name, value in terms.items() if name != bound}
    flops = sum(work.tc_flops.values())
    depth = facts.get("pipeline_depth") if isinstance(facts.get("pipeline_depth"), int) else 1
    details = {"programs": work.programs, "ctas_per_sm": ctas_per_sm,
               "waves": round(work.programs / (device.sms * ctas_per_sm), 3), "ctas_on_busiest_sm": shape.per_sm,
               "tensor_core_flops": flops, "dram_bytes": work.dram_bytes,
               "l2_bytes": work.load_bytes + work.store_bytes, "pipeline_depth": depth, "tensor_core_path": path}
    return Prediction(time_ms, bound, breakdown, hidden, flops / (time_ms * 1e-3) / 1e12 if flops else None,
                      work.dram_bytes / (time_ms * 1e-3) / 1e9, device.name, tuple(assumptions), details=details)
