"""Search Hopper-friendly configs of `opt` beyond its autotune list (GPU only).

    python benchmarks/hopper_configs.py [--sizes 4096,8192]

Each candidate is timed (median of do_bench) right after a cuBLAS measurement on the same inputs, so
the ratio is not skewed by clock drift between distant measurements; results are checked against
torch.matmul. Used to choose the configs added to opt's autotune list (docs/h100.md).
"""

from __future__ import annotations

import argparse
import itertools
import json

from ttinspect.errors import CompileError
from ttinspect.engine.builds import build
from ttinspect.gpu.bench import run_variant, time_ms
from ttinspect.kernel.overrides import resolve


def candidates():
    for (bm, bn, bk), warps, stages, group in itertools.product(
            [(128, 256, 64), (256, 128, 64), (128, 128, 64), (128, 256, 32)], [8], [3, 4], [8, 16, 32]):
        yield {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group,
               "num_warps": warps, "num_stages": stages}


def main() -> None:
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4096,8192")
    args = parser.parse_args()
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        for config in candidates():
            ref = resolve("opt", {**config, "M": size, "N": size, "K": size})
            try:
                build(ref, arch="native")
            except CompileError:
                continue
            cublas = time_ms(lambda: torch.matmul(a, b))
            timing = run_variant(ref, a, b)
            rows.append({"size": size, "config": config, "ms": timing.ms, "tflops": timing.tflops,
                         "ratio": cublas / timing.ms})
            print(f"{size} {config} {timing.tflops:.0f} TFLOP/s {cublas / timing.ms:.3f}x cuBLAS", flush=True)
    print(json.dumps(sorted(rows, key=lambda r: -r["ratio"])[:10], indent=1))


if __name__ == "__main__":
    main()
