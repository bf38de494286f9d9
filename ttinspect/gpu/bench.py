"""`ttinspect bench`: TFLOP/s of matmul variants on the local GPU, beside cuBLAS (torch.matmul).

Method (shared with every GPU figure in docs/h100.md): fresh random normal inputs per size; the
output is NaN-poisoned before the timed runs and checked against torch.matmul afterwards (so an
unwritten or wrong tile fails the run instead of timing fast); each time is the median of
`triton.testing.do_bench` (warm-up and repetitions in milliseconds). cuBLAS and the variants are timed
in alternation over ROUNDS rounds and each keeps the median of its rounds: on an H100 cuBLAS alone
moved between 695 and 760 TFLOP/s at 4096 from one process to the next (clocks, temperature), so a
ratio between two distant measurements is off by several percent. TFLOP/s = 2·M·N·K / time.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ttinspect.errors import NoGPUError, UsageError
from ttinspect.kernel.variants import Resolved
from ttinspect.kernel.overrides import resolve
from ttinspect.files.outputs import write_atomically
from ttinspect.gpu.presence import NO_GPU, NO_TORCH, refuse_without_gpu

WARMUP_MS, REP_MS = 100, 300
ROUNDS = 3
_TORCH_DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


@dataclass(frozen=True)
class Timing:
    label: str
    ms: float
    tflops: float
    max_abs_error: float | None  # vs torch.matmul (None for cuBLAS itself)


@dataclass(frozen=True)
class SizeResult:
    size: int
    cublas: Timing
    variants: tuple[Timing, ...]

    def ratio(self, timing: Timing) -> float:
        return timing.tflops / self.cublas.tflops


@dataclass(frozen=True)
class BenchResult:
    device: str
    triton_version: str
    torch_version: str
    dtype: str
    results: tuple[SizeResult, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "triton": self.triton_version, "torch": self.torch_version,
                "dtype": self.dtype, "settings": dict(self.settings),
                "results": [{"size": r.size, "cublas": _timing(r.cublas),
                             "variants": [dict(_timing(t), ratio_to_cublas=r.ratio(t)) for t in r.variants]}
                            for r in self.results]}


def _timing(t: Timing) -> dict[str, Any]:
    return {"label": t.label, "ms": t.ms, "tflops": t.tflops, "max_abs_error": t.max_abs_error}


def require_gpu():
    """torch, once it says a GPU is there; a machine without a GPU driver is refused before torch is imported."""
    refuse_without_gpu()
    try:
        import torch
    except ImportError as exc:
        raise NoGPUError(NO_TORCH) from exc
    if not torch.cuda.is_available():
        raise NoGPUError(NO_GPU)
    return torch


def matmul_variant(ref: Resolved) -> Resolved:
    if not {"M", "N", "K"} <= set(ref.problem):
        raise UsageError(f"{ref.variant.name} is not a matmul; bench times matmul variants")
    return ref


def time_ms(fn) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=WARMUP_MS, rep=REP_MS, return_mode="median"))


def run_variant(ref: Resolved, a, b, *, check: bool = True) -> Timing:
    """Time one variant's launch on (a, b); poison the output first and check it afterwards."""
    torch = require_gpu()
    launcher = ref.variant.load_launcher()
    M, K = a.shape
    N = b.shape[1]
    args = ref.variant.make_args(ref.problem, ref.config)
    c_arg = args.get("c_ptr") or args["c_desc"]  # a pointer, or a TMA descriptor: every matmul has one
    out_dtype = torch.float32 if c_arg.dtype == "fp32" else a.dtype
    out = torch.full((M, N), float("nan"), device=a.device, dtype=out_dtype)
    config = dict(ref.config)
    ms = time_ms(lambda: launcher(a, b, out=out, **config))
    error = None
    if check:
        expected = torch.matmul(a, b).float()
        if torch.isnan(out).any():
            raise AssertionError(f"{ref.label()}: output elements never written at {M}x{N}x{K}")
        error = float((out.float() - expected).abs().max())
        if error > 0.05 * float(expected.abs().max()) + 1e-2:
            raise AssertionError(f"{ref.label()}: wrong result at {M}x{N}x{K} (max abs error {error})")
    return Timing(ref.label(), ms, 2 * M * N * K / ms / 1e9, error)


def bench(variants: Sequence[str | Resolved], sizes: Sequence[int], dtype: str = "fp16",
          rounds: int = ROUNDS) -> BenchResult:
    torch = require_gpu()
    import triton

    if dtype not in _TORCH_DTYPES:
        raise UsageError(f"unknown --dtype {dtype!r}; valid: {', '.join(_TORCH_DTYPES)}")
    torch_dtype = getattr(torch, _TORCH_DTYPES[dtype])
    results = []
    for size in sizes:
        gen = torch.Generator(device="cuda").manual_seed(size)
        a = torch.randn(size, size, device="cuda", dtype=torch_dtype, generator=gen)
        b = torch.randn(size, size, device="cuda", dtype=torch_dtype, generator=gen)
        refs, labels = [], []
        for variant in variants:
            base = variant if isinstance(variant, Resolved) else resolve(variant)
            labels.append(base.label())  # without the size, which every column shares
            refs.append(matmul_variant(resolve(base.variant, {**_changed(base), "M": size, "N": size, "K": size,
                                                               "dtype": dtype})))
        cublas_runs: list[float] = []
        variant_runs: list[list[Timing]] = [[] for _ in refs]
        for round_index in range(max(1, rounds)):
            cublas_runs.append(time_ms(lambda: torch.matmul(a, b)))
            for i, ref in enumerate(refs):
                variant_runs[i].append(run_variant(ref, a, b, check=round_index == 0))
        cublas_ms = statistics.median(cublas_runs)
        cublas = Timing("cuBLAS (torch.matmul)", cublas_ms, 2 * size ** 3 / cublas_ms / 1e9, None)
        timings = tuple(_median_timing(runs, label) for runs, label in zip(variant_runs, labels, strict=True))
        results.append(SizeResult(size, cublas, timings))
    return BenchResult(torch.cuda.get_device_name(), triton.__version__, torch.__version__, dtype,
                       tuple(results), {"warmup_ms": WARMUP_MS, "rep_ms": REP_MS, "rounds": rounds,
                                        "statistic": "median of rounds of do_bench medians"})


def _median_timing(runs: list[Timing], label: str) -> Timing:
    ms = statistics.median(t.ms for t in runs)
    first = runs[0]
    return Timing(label, ms, first.tflops * first.ms / ms, first.max_abs_error)


def _changed(ref: Resolved) -> dict[str, Any]:
    """The overrides a resolved variant carries (so `opt:num_stages=3` keeps its change)."""
    defaults = {**ref.variant.config, **ref.variant.problem}
    return {k: v for k, v in {**ref.config, **ref.problem}.items() if defaults.get(k) != v}


def plot(result: BenchResult, path: Path, force: bool = False) -> None:
    """Draw to memory, then write `path` atomically (checked by outputs.check_output before the run)."""
    import io


    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError("--plot needs matplotlib (pip install matplotlib)") from exc
    sizes = [r.size for r in result.results]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    ax.plot(sizes, [r.cublas.tflops for r in result.results], "k--o", label="cuBLAS (torch.matmul)")
    for i, timing in enumerate(result.results[0].variants):
        label = timing.label if len(timing.label) <= 60 else timing.label[:57] + "..."
        ax.plot(sizes, [r.variants[i].tflops for r in result.results], "-o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("M = N = K")
    ax.set_ylabel(f"TFLOP/s ({result.dtype})")
    ax.set_title(f"{result.device} · Triton {result.triton_version}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=120, format=path.suffix.lstrip(".").lower() or "png")
    write_atomically(path, image.getvalue(), force=force)
