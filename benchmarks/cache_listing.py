"""How fast is `ttinspect cache` over a large Triton cache? (issue 8: 1000 entries in <= 2 s warm)

    python benchmarks/cache_listing.py [--entries 1000] [--runs 5]

Builds a Triton cache of N entries from real ones (Triton compiles a few kernels of
tests/data/user_kernels/my_mm.py for three targets; their entry directories are then copied under new
ids until there are N), lists it once cold (every row computed: a PTX parse and a cuobjdump run per
entry), then times fresh `ttinspect cache DIR` processes warm — the table and --json — as a user runs
them. Prints the median wall times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "tests" / "data" / "user_kernels" / "my_mm.py"


def fill(cache: Path, count: int, env: dict[str, str]) -> None:
    for ref, arch in ((f"{FILE}:add", "sm_80"), (f"{FILE}:small", "sm_90"), (f"{FILE}:big", "sm_89")):
        subprocess.run([sys.executable, "-m", "ttinspect", "dump", ref, "--arch", arch, "--stage", "ttir"],
                       env=env, check=True, capture_output=True)
    seeds = sorted(p for p in cache.iterdir() if p.is_dir())
    for i in range(count - len(seeds)):
        shutil.copytree(seeds[i % len(seeds)], cache / f"COPY{i:06d}{seeds[i % len(seeds)].name[10:]}")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ttinspect-bench-cache-"))
    cache = work / "triton"
    cache.mkdir()
    env = {**os.environ, "TRITON_CACHE_DIR": str(cache), "TTINSPECT_CACHE_DIR": str(work / "ttinspect"),
           "COLUMNS": "200"}
    try:
        fill(cache, opts.entries, env)
        cmd = [sys.executable, "-m", "ttinspect", "cache", str(cache)]
        cold = timed(cmd + ["--json"], env)
        table = statistics.median(timed(cmd, env) for _ in range(opts.runs))
        as_json = statistics.median(timed(cmd + ["--json"], env) for _ in range(opts.runs))
        print(f"{opts.entries} entries: cold {cold:.1f} s; warm table {table:.2f} s; warm --json {as_json:.2f} s "
              f"(median of {opts.runs}; target <= 2 s warm)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
