"""A library-sized snapshot: 100 kernel entries × 2 targets, cold and warm, timed through the real CLI.

The library is generated: 50 files, each one kernel with two examples (different tiles and warps, so every
entry is its own compile): one file in five a pipelined matmul (a K loop of tl.dot, the kind a library's
gate matters most for), the others elementwise kernels.
Cold: `ttinspect snapshot` with an empty cache (every entry compiled, in the process pool); warm:
`ttinspect snapshot --check` against it (every entry read from the cache, nothing compiled).

    python benchmarks/snapshot_speed.py            # the issue's bound: cold <= 120 s, warm --check <= 2 s
    python benchmarks/snapshot_speed.py --files 10 # smaller
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def op_{n}(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, {expression}, mask=mask)


SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16"
TTINSPECT_EXAMPLES = {{
    "small": {{"kernel": op_{n}, "signature": SIGNATURE, "config": {{"BLOCK": {small}, "num_warps": 4}}}},
    "big": {{"kernel": op_{n}, "signature": SIGNATURE, "config": {{"BLOCK": {big}, "num_warps": 8}}}},
}}
'''
MATMUL = '''import triton
import triton.language as tl


@triton.jit
def mm_{n}(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BLOCK_K
        b += BLOCK_K * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


SIGNATURE = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16"
TTINSPECT_EXAMPLES = {{
    "small": {{"kernel": mm_{n}, "signature": SIGNATURE,
               "config": {{"BLOCK_M": 64, "BLOCK_N": {bn}, "BLOCK_K": 32, "num_warps": 4, "num_stages": 3}}}},
    "big": {{"kernel": mm_{n}, "signature": SIGNATURE,
             "config": {{"BLOCK_M": 128, "BLOCK_N": {bn}, "BLOCK_K": 64, "num_warps": 8, "num_stages": {stages}}}}},
}}
'''
EXPRESSIONS = ("x + y", "x * y", "x - y", "tl.maximum(x, y)", "tl.minimum(x, y)", "x * y + x", "tl.exp(x) + y",
               "tl.abs(x - y)", "x / (y + 1.0)", "tl.sqrt(tl.abs(x)) * y")


def make_library(root: Path, files: int) -> None:
    ops = root / "lib" / "ops"
    ops.mkdir(parents=True)
    for n in range(files):
        if n % 5 == 4:
            (ops / f"op_{n:03d}.py").write_text(MATMUL.format(n=n, bn=64 << (n % 2), stages=2 + n % 3))
            continue
        expression = EXPRESSIONS[n % len(EXPRESSIONS)]
        small, big = 256 << (n % 3), 1024 << (n % 2)
        (ops / f"op_{n:03d}.py").write_text(KERNEL.format(n=n, expression=expression, small=small, big=big))
    (root / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["lib/ops/*.py"]\n'
                                         'targets = ["sm_80", "sm_90"]\n')


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ttinspect", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True)
    return time.perf_counter() - start, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50,
                        help="kernel files (2 examples each; default 50 = 100 entries)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ttinspect-snapshot-bench-") as scratch:
        root = Path(scratch)
        make_library(root, options.files)
        env = {**os.environ, "TTINSPECT_CACHE_DIR": str(root / "cache"), "TRITON_CACHE_DIR": str(root / "triton")}
        cold, made = timed(["snapshot"], root, env)
        if made.returncode != 0:
            sys.exit(f"snapshot failed: {made.stderr}")
        entries = len(json.loads((root / "ttinspect.snapshot.json").read_text())["entries"])
        warm_runs = []
        for _ in range(3):
            seconds, checked = timed(["snapshot", "--check"], root, env)
            if checked.returncode != 0:
                sys.exit(f"snapshot --check failed: {checked.stdout}{checked.stderr}")
            warm_runs.append(seconds)
        warm = min(warm_runs)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"{entries} entries ({options.files * 2} kernel entries x 2 targets), {cores} cores")
        print(f"cold `ttinspect snapshot`:        {cold:7.1f} s  (bound 120 s)")
        print(f"warm `ttinspect snapshot --check`: {warm:7.2f} s  (best of 3; bound 2 s)")


if __name__ == "__main__":
    main()
