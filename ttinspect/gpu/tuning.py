"""`ttinspect autotune` and `ttinspect ladder`: measured on the local GPU, set beside static facts."""

from __future__ import annotations

import datetime
import statistics
from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.caches import winners
from ttinspect.compare.facts_diff import diff_reports
from ttinspect.engine.builds import build
from ttinspect.errors import CompileError, UsageError
from ttinspect.report.collect import report_from_build
from ttinspect.kernel.overrides import resolve
from ttinspect.kernel.catalog import get_variant
from ttinspect.gpu.bench import Timing, require_gpu, run_variant, time_ms

# Fact groups a ladder step's delta is summarized from (the others — ir, sass — are in `diff`).
LADDER_GROUPS = ("configuration", "pipeline", "memory traffic", "tensor cores", "registers & occupancy",
                 "program order")


@dataclass(frozen=True)
class TunedConfig:
    index: int  # 1-based position in the variant's autotune list
    config: Mapping[str, Any]
    timing: Timing | None
    skipped: str | None  # why it was not run (e.g. too much shared memory for this GPU)


def _inputs(size: int, seed: int = 0):
    torch = require_gpu()
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
    return a, b


def autotune(variant_name: str, size: int = 4096) -> dict[str, Any]:
    torch = require_gpu()
    import triton

    variant = get_variant(variant_name)
    if not variant.autotune_configs:
        raise UsageError(f"{variant.name} has no autotune configs")
    a, b = _inputs(size)
    # cuBLAS is timed before every config and the median kept: a single early measurement drifts by
    # several percent against the later ones (clocks, temperature).
    cublas_runs = []
    rows: list[TunedConfig] = []
    for index, config in enumerate(variant.autotune_configs, start=1):
        ref = resolve(variant, {**config, "M": size, "N": size, "K": size})
        try:
            build(ref, arch="native")  # refuses, offline, what the launch would refuse
        except CompileError as error:
            rows.append(TunedConfig(index, config, None, str(error).splitlines()[0]))
            continue
        cublas_runs.append(time_ms(lambda: torch.matmul(a, b)))
        rows.append(TunedConfig(index, config, run_variant(ref, a, b), None))
    ran = [(r, r.timing) for r in rows if r.timing]
    if not ran:
        raise UsageError(f"no autotune config of {variant.name} fits this GPU")
    cublas_ms = statistics.median(cublas_runs)
    best, best_timing = min(ran, key=lambda pair: pair[1].ms)
    cublas_tflops = 2 * size ** 3 / cublas_ms / 1e9
    data = {
        "variant": variant.name, "device": torch.cuda.get_device_name(), "triton": triton.__version__,
        "torch": torch.__version__, "size": size, "date": datetime.date.today().isoformat(),
        "cublas": {"ms": cublas_ms, "tflops": cublas_tflops},
        "best": {"index": best.index, "config": dict(best.config), "ms": best_timing.ms,
                 "tflops": best_timing.tflops, "ratio_to_cublas": best_timing.tflops / cublas_tflops},
        "results": [{"index": r.index, "config": dict(r.config), "skipped": r.skipped,
                     **({"ms": r.timing.ms, "tflops": r.timing.tflops,
                         "ratio_to_cublas": r.timing.tflops / cublas_tflops} if r.timing else {})}
                    for r in rows],
    }
    data["saved_to"] = str(winners.save(variant, data))
    return data


def ladder(size: int = 4096, *, with_profile: bool = False) -> dict[str, Any]:
    """doc 003 §7.1's steps, each measured; the last step is opt's autotune winner at this size."""
    from ttinspect_kernels.registry import LADDER

    torch = require_gpu()
    import triton

    tuned = autotune("opt", size)
    steps = [(name, resolve(name, {"M": size, "N": size, "K": size})) for name in LADDER]
    steps.append(("autotuned", resolve("opt", {**tuned["best"]["config"], "M": size, "N": size, "K": size})))
    a, b = _inputs(size)
    cublas_ms = time_ms(lambda: torch.matmul(a, b))
    rows = []
    previous = None
    for name, ref in steps:
        report = report_from_build(build(ref, arch="native"))
        timing = run_variant(ref, a, b)
        row: dict[str, Any] = {"step": name, "label": ref.label(), "ms": timing.ms, "tflops": timing.tflops,
                               "ratio_to_cublas": cublas_ms / timing.ms}
        if previous is not None:
            prev_report, prev_ms = previous
            row["speedup_vs_previous"] = prev_ms / timing.ms
            delta = diff_reports(prev_report, report)
            row["changes"] = [{"key": c.key, "title": c.title, "before": c.before, "after": c.after,
                               "explanation": c.explanation}
                              for c in delta.changes if c.group in LADDER_GROUPS]
        if with_profile:
            from ttinspect.gpu.profile import profile_one  # Nsight Compute's wrapper: only with --profile

            row["profile"] = dict(profile_one(_ref_text(name, ref), size, ref.variant.function,
                                              ref.label()).metrics)
        rows.append(row)
        previous = (report, timing.ms)
    naive_ms = rows[0]["ms"]
    for row in rows:
        row["speedup_vs_naive"] = naive_ms / row["ms"]
    return {"device": torch.cuda.get_device_name(), "triton": triton.__version__, "torch": torch.__version__,
            "size": size, "date": datetime.date.today().isoformat(),
            "cublas": {"ms": cublas_ms, "tflops": 2 * size ** 3 / cublas_ms / 1e9}, "steps": rows}


def _ref_text(name: str, ref) -> str:
    if name != "autotuned":
        return name
    changed = {k: v for k, v in ref.config.items() if ref.variant.config.get(k) != v}
    return "opt" + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")
