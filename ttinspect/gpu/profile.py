"""`ttinspect profile`: one launch of each variant under Nsight Compute, a few counters each.

ncu runs a fresh Python process that launches the variant once (`python -m ttinspect.gpu.launch_once`)
with `--clock-control none` (the GPU's own clocks, as in a real run) and `--cache-control all` (caches
flushed before the profiled launch: ncu's default), and reports the metrics below as CSV.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Mapping, Sequence

from ttinspect.errors import NoGPUError, ToolError, UsageError
from ttinspect.refs.captured import is_capture_ref
from ttinspect.refs.reference import parse_ref

# name shown -> candidate ncu metrics (the first one this GPU/ncu knows is used)
METRICS: dict[str, tuple[str, ...]] = {
    "duration_us": ("gpu__time_duration.sum",),
    "l2_hit_rate_pct": ("lts__t_sector_hit_rate.pct",),
    "dram_read_bytes": ("dram__bytes_read.sum",),
    "dram_write_bytes": ("dram__bytes_write.sum",),
    "tensor_pipe_pct": ("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
                        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                        "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active"),
    "achieved_occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active",),
}
# ncu names time units "nsecond"/"usecond"/"msecond" or "ns"/"us"/"ms" depending on its version
_TIME_TO_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
               "second": 1e6, "s": 1e6}
_BYTE_UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


@dataclass(frozen=True)
class Profile:
    label: str
    kernel: str
    metrics: Mapping[str, float | None]


def find_ncu() -> str:
    path = os.environ.get("TTINSPECT_NCU") or shutil.which("ncu")
    for candidate in (path, "/usr/local/cuda/bin/ncu"):
        if candidate and os.path.isfile(candidate):
            return candidate
    raise ToolError("profile needs Nsight Compute's `ncu` on PATH (or TTINSPECT_NCU); bench works without it")


def _parse(text: str) -> dict[str, tuple[str, str]]:
    """ncu --csv rows -> {metric name: (unit, value)} for the (single) profiled kernel."""
    start = text.find('"ID"')
    if start < 0:
        raise ToolError(f"ncu printed no metrics:\n{text[-800:]}")
    out = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        out[row["Metric Name"]] = (row.get("Metric Unit", ""), row["Metric Value"])
    return out


def _value(metric: str, unit: str, raw: str) -> float | None:
    try:
        value = float(raw.replace(",", ""))
    except ValueError:
        return None
    if metric.startswith("dram__bytes"):
        return value * _BYTE_UNITS.get(unit, 1)
    if metric == "gpu__time_duration.sum":
        if unit not in _TIME_TO_US:
            return None  # an unknown unit is not guessed
        return value * _TIME_TO_US[unit]
    return value


def profile_one(target: str, size: int, kernel_regex: str, label: str, source: str | None = None) -> Profile:
    ncu = find_ncu()
    metrics = sorted({m for candidates in METRICS.values() for m in candidates})
    cmd = [ncu, "--clock-control", "none", "--csv", "--metrics", ",".join(metrics),
           "--kernel-name", f"regex:{kernel_regex}", "--launch-count", "1",
           sys.executable, "-m", "ttinspect.gpu.launch_once", target, str(size), *([source] if source else [])]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolError(f"ncu failed ({done.returncode}): {(done.stderr or done.stdout)[-800:]}")
    rows = _parse(done.stdout)
    values: dict[str, float | None] = {}
    for name, candidates in METRICS.items():
        values[name] = next((_value(m, *rows[m]) for m in candidates
                             if m in rows and _value(m, *rows[m]) is not None), None)
    return Profile(label, kernel_regex, values)


def profile(variants: Sequence[str], size: int = 4096, *, cublas: bool = True,
            source: str | None = None) -> list[Profile]:
    try:
        import torch
    except ImportError as exc:
        raise NoGPUError("needs a CUDA GPU and torch; dump/report/diff work without one") from exc
    if not torch.cuda.is_available():
        raise NoGPUError("needs a CUDA GPU; dump/report/diff work without one")

    out = []
    for text in variants:
        if is_capture_ref(text):
            # loaded here: a capture's replay plan is needed only for captured kernels
            from ttinspect.gpu.replay import plans

            replay = plans([text], source)[0]
            out.append(profile_one(text, 0, f"^{re.escape(replay.name)}$", replay.label, source))
            continue
        ref = parse_ref(text)
        if not {"M", "N", "K"} <= set(ref.resolved.problem):
            raise UsageError(f"{ref.resolved.variant.name} is not a matmul; profile measures matmul variants")
        out.append(profile_one(text, size, ref.resolved.variant.function, ref.resolved.label()))
    if cublas:
        # cuBLAS's kernel names vary by GPU and version (nvjet_*, sm90_xmma_gemm_*, ampere_*gemm*)
        out.append(profile_one("cublas", size, "nvjet|gemm|xmma|cutlass", "cuBLAS (torch.matmul)"))
    return out
