"""`ttinspect calibrate`: microbenchmarks on the GPU at hand, written as a device profile (profile.py).

Each figure is what a Triton kernel reaches, timed with `triton.testing.do_bench` (median; the kernels are in
calibrate_kernels.py, imported only here, on a GPU):
- tensor cores, per input dtype the device's matrix units take (fp16, bf16, fp8, tf32): a matmul at
  8192 × 8192 × 8192 over a few tile shapes, the best kept — what a well-tuned kernel reaches;
- FP32 FMA: a chain of fused multiply-adds in registers;
- DRAM: a copy of 1 GiB (bytes read + written per second);
- L2: programs re-reading a buffer a quarter of the L2's size (after the first touch, all hits);
- launch: an empty kernel's time, as do_bench times a launch (what the model's launch term stands for).
"""

from __future__ import annotations

import datetime
from typing import Any, Callable

from ttinspect.errors import UsageError
from ttinspect.gpu.bench import require_gpu
from ttinspect.perf.devices import DEVICES, Device, find_device
from ttinspect.perf.profile import FORMAT, KIND, DeviceProfile, profile_from_dict

MATMUL_SIZE = 8192
COPY_BYTES = 1 << 30


def calibrate(device: str | None = None, *, say: Callable[[str], None] = lambda line: None) -> DeviceProfile:
    """Measure this machine's GPU (the first CUDA device). `device`: the datasheet row it is (default: read
    from the GPU's name); `say`: one line per figure as it is measured."""
    torch = require_gpu()
    import triton
    import triton.testing

    from ttinspect.perf import calibrate_kernels as kernels  # Triton kernels: defined only on a GPU machine

    props = torch.cuda.get_device_properties(0)
    arch = f"sm_{props.major}{props.minor}"
    row = find_device(device) if device is not None else row_for_gpu(props.name, arch)

    def bench(fn) -> float:
        return float(triton.testing.do_bench(fn, warmup=100, rep=500, return_mode="median"))

    tflops: dict[str, float] = {}
    for dtype in ("fp16", "bf16", "fp8", "tf32"):
        if dtype not in row.tflops:
            continue
        reached = kernels.matmul_tflops(torch, dtype, MATMUL_SIZE, bench)
        if reached is not None:
            tflops[dtype] = reached
            say(f"{dtype} matmul {MATMUL_SIZE}^3: {reached:.1f} TFLOP/s (datasheet {row.tflops[dtype]:.1f})")
    tflops["fp32"] = kernels.fma_tflops(torch, props.multi_processor_count, bench)
    say(f"fp32 FMA: {tflops['fp32']:.1f} TFLOP/s (datasheet {row.tflops['fp32']:.1f})")
    hbm = kernels.copy_gbps(torch, COPY_BYTES, bench)
    say(f"DRAM copy of {COPY_BYTES >> 20} MiB: {hbm:.0f} GB/s (datasheet {row.hbm_gbps:.0f})")
    l2 = kernels.l2_gbps(torch, row.l2_bytes // 4, bench)
    say(f"L2 re-reads of {row.l2_bytes // 4 >> 20} MiB: {l2:.0f} GB/s (table {row.l2_gbps:.0f})")
    launch_us = kernels.launch_us(torch, bench)
    say(f"empty launch: {launch_us:.2f} us")
    record: dict[str, Any] = {
        "format": FORMAT, "kind": KIND, "device": row.name, "gpu": props.name, "arch": arch,
        "measured_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "triton": triton.__version__, "torch": torch.__version__, "sms": props.multi_processor_count,
        "tflops": tflops, "hbm_gbps": hbm, "l2_gbps": l2, "launch_us": launch_us}
    return profile_from_dict(record, "(measured)")  # the same checks a profile read back passes


def row_for_gpu(name: str, arch: str) -> Device:
    """The datasheet row a GPU's own name means: among the rows of its target, the one whose name (or an
    alias) shares the most words with it, the fewest left unmatched; none or a tie is one line asking for
    --device."""
    tokens = set(name.lower().replace("-", " ").replace("_", " ").split())
    scored = []
    for row in DEVICES:
        if row.arch != arch.rstrip("a"):
            continue
        best = max(((len(words & tokens), -len(words - tokens))
                    for words in (set(alias.lower().split()) for alias in (row.name, *row.aliases))))
        if best[0]:
            scored.append((best, row))
    scored.sort(key=lambda s: s[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        rows = ", ".join(d.name for d in DEVICES if d.arch == arch.rstrip("a")) or "none"
        raise UsageError(f"calibrate: {name} ({arch}) is not one row of the device table: name it with "
                         f"--device (the {arch} rows: {rows})")
    return scored[0][1]
