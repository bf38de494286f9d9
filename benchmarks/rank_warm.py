"""How fast is `rank()` over a warm list? (issue 40, "Fast": 150 warm configs <= 1 s)

    python benchmarks/rank_warm.py [--configs 150] [--size 4096] [--jobs 2]

Ranks `opt` (doc 003's matmul) at M = N = K = --size over a list of --configs distinct configs, three times in
one process, and prints each wall time:
1. cold: the configs the cache lacks are compiled in the sweep's worker processes, then each is predicted
   (the model counts the launch's work from the TTIR) — compiles dominate;
2. compiled, first prediction: every build is in the cache, no prediction is kept yet (each is made once and
   kept beside its build, perf/memo.py) — run with a fresh cache to see it, else it is the warm case;
3. warm: every build and every prediction is in the cache — the figure the target is about.
The cache is the user's (TTINSPECT_CACHE_DIR to point elsewhere). The machine's load average is printed too.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time


def configs(count: int) -> list[dict]:
    """`count` distinct configs of opt's constexprs and options, the sizes a real autotune list uses."""
    space = itertools.product((64, 128, 256), (64, 128, 256), (32, 64), (1, 8), (4, 8), (2, 3, 4, 5))
    found = [{"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": g, "num_warps": w,
              "num_stages": s} for m, n, k, g, w, s in space]
    return found[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=150)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--jobs", type=int, default=None)
    options = parser.parse_args()
    from ttinspect import rank

    chosen = configs(options.configs)
    size = options.size

    def grid(meta):
        return (-(-meta["M"] // meta["BLOCK_SIZE_M"]) * -(-meta["N"] // meta["BLOCK_SIZE_N"]),)

    kernel = f"opt:M={size},N={size},K={size}"
    print(f"rank({kernel!r}, {len(chosen)} configs, arch='sm_90'); load average {os.getloadavg()[0]:.1f}")
    for label in ("first (compiles and predictions the cache lacks)", "second (warm)", "third (warm)"):
        start = time.perf_counter()
        ranked = rank(kernel, chosen, grid=grid, arch="sm_90", jobs=options.jobs)
        seconds = time.perf_counter() - start
        timed = sum(1 for p in ranked if p.time_ms is not None)
        print(f"{label}: {seconds:.2f} s ({timed} predicted, fastest {ranked[0].time_ms:.4f} ms)")


if __name__ == "__main__":
    main()
